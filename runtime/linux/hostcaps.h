/* `tinyrun check`: probe the running kernel for each facility tinyrun uses,
 * one small function a facility, into an oci_host_report. Every probe is a
 * call the kernel refuses before it does anything (a bad size, fd or
 * pointer): ENOSYS says the syscall is missing, anything else that it is
 * there. Nothing is mounted, no process is left. */
#ifndef TINYRUN_HOSTCAPS_H
#define TINYRUN_HOSTCAPS_H

#include "oci/hostreport.h"

void hostcaps_probe(struct oci_host_report *r);

#endif
