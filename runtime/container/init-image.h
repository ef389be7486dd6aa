/* tinyrun-init (runtime/init/init.c), embedded in the binary, as a sealed
 * memfd the container's init exec's with execveat(AT_EMPTY_PATH): the
 * container's PID 1 then runs an anonymous, sealed file, never the host's
 * tinyrun (SPEC-NOTES: threat model). */
#ifndef TINYRUN_INIT_IMAGE_H
#define TINYRUN_INIT_IMAGE_H

#include "oci/error.h"

/* A CLOEXEC memfd holding tinyrun-init, sealed against every change, or a
 * negative errno with err filled. */
int init_image_memfd(struct error *err);

#endif
