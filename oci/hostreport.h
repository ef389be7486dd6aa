/* `tinyrun check`: what the host's kernel gives tinyrun, one row a facility,
 * as data (filled by runtime/linux/hostcaps.c) and as JSON (--format json). */
#ifndef TINYRUN_OCI_HOSTREPORT_H
#define TINYRUN_OCI_HOSTREPORT_H

#include <stdbool.h>
#include <stddef.h>

/* The oldest kernel whose syscalls tinyrun uses without a fallback
 * (mount_setattr; README "### check", SPEC-NOTES "Minimum kernel"). */
#define OCI_HOST_MIN_KERNEL "5.12"

enum oci_host_status { OCI_HOST_PRESENT, OCI_HOST_MISSING, OCI_HOST_UNKNOWN, OCI_HOST_INFO };

/* What tinyrun needs a facility for. */
enum oci_host_need {
	OCI_HOST_REQUIRED,   /* nothing runs (or a core command fails) without it */
	OCI_HOST_FALLBACK,   /* missing: tinyrun takes `without` */
	OCI_HOST_OPTIONAL,   /* only for configs that ask for it: refused with an error */
	OCI_HOST_NOTE,       /* a fact about the host, not used or not needed */
};

#define OCI_HOST_FOUND_MAX 256

struct oci_host_row {
	const char *facility;        /* "clone3", "cgroup layout" ... */
	const char *since;           /* the kernel that brought it, or NULL */
	enum oci_host_need need;
	enum oci_host_status status;
	char found[OCI_HOST_FOUND_MAX];   /* what the probe saw */
	const char *without;         /* what tinyrun does without it, or NULL */
};

#define OCI_HOST_ROWS_MAX 32

struct oci_host_report {
	char kernel[128];            /* uname: release */
	struct oci_host_row rows[OCI_HOST_ROWS_MAX];
	size_t n;
};

const char *oci_host_status_name(enum oci_host_status s);   /* "present", "missing" ... */
const char *oci_host_need_name(enum oci_host_need n);       /* "required", "fallback" ... */
/* A required facility is missing: `check` exits 1. */
bool oci_host_report_fails(const struct oci_host_report *r);
int oci_host_report_json(const struct oci_host_report *r, char **out, size_t *len);

#endif
