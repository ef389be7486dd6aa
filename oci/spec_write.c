/* The shared pieces of generated configs (spec_write.h). */
#include "spec_write.h"

const char *const oci_spec_masked_paths[] = {
	"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
	"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
	"/proc/scsi", "/sys/devices/virtual/tpm", NULL,
};

const char *const oci_spec_readonly_paths[] = {
	"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL,
};

void oci_spec_key_str(struct json_writer *w, const char *k, const char *v)
{
	json_w_key(w, k);
	json_w_string(w, v);
}

void oci_spec_key_strv(struct json_writer *w, const char *k, const char *const *v)
{
	json_w_key(w, k);
	json_w_array(w);
	for (; *v; v++)
		json_w_string(w, *v);
	json_w_array_end(w);
}

void oci_spec_key_int(struct json_writer *w, const char *k, int64_t v)
{
	json_w_key(w, k);
	json_w_int(w, v);
}

void oci_spec_process_head(struct json_writer *w, bool terminal, int64_t uid, int64_t gid)
{
	json_w_key(w, "process");
	json_w_object(w);
	json_w_key(w, "terminal");
	json_w_bool(w, terminal);
	json_w_key(w, "user");
	json_w_object(w);
	oci_spec_key_int(w, "uid", uid);
	oci_spec_key_int(w, "gid", gid);
	json_w_object_end(w);
}

void oci_spec_deny_devices(struct json_writer *w)
{
	json_w_key(w, "devices");
	json_w_array(w);
	json_w_object(w);
	json_w_key(w, "allow");
	json_w_bool(w, false);
	oci_spec_key_str(w, "access", "rwm");
	json_w_object_end(w);
	json_w_array_end(w);
}

void oci_spec_default_paths(struct json_writer *w)
{
	oci_spec_key_strv(w, "maskedPaths", oci_spec_masked_paths);
	oci_spec_key_strv(w, "readonlyPaths", oci_spec_readonly_paths);
}

void oci_spec_caps(struct json_writer *w, const char *const *caps)
{
	json_w_key(w, "capabilities");
	json_w_object(w);
	oci_spec_key_strv(w, "bounding", caps);
	oci_spec_key_strv(w, "effective", caps);
	oci_spec_key_strv(w, "permitted", caps);
	json_w_object_end(w);
}
