/* The host report's names and its JSON (`tinyrun check --format json`). */
#include "hostreport.h"

#include <errno.h>

#include "json.h"

const char *oci_host_status_name(enum oci_host_status s)
{
	static const char *const names[] = { "present", "missing", "unknown", "info" };

	return names[s];
}

const char *oci_host_need_name(enum oci_host_need n)
{
	static const char *const names[] = { "required", "fallback", "optional", "note" };

	return names[n];
}

bool oci_host_report_fails(const struct oci_host_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].need == OCI_HOST_REQUIRED && r->rows[i].status == OCI_HOST_MISSING)
			return true;
	return false;
}

static void row_json(struct json_writer *w, const struct oci_host_row *row)
{
	json_w_object(w);
	json_w_key(w, "facility");
	json_w_string(w, row->facility);
	json_w_key(w, "since");
	json_w_string(w, row->since);
	json_w_key(w, "need");
	json_w_string(w, oci_host_need_name(row->need));
	json_w_key(w, "status");
	json_w_string(w, oci_host_status_name(row->status));
	json_w_key(w, "found");
	json_w_string(w, row->found);
	json_w_key(w, "without");
	json_w_string(w, row->without);
	json_w_object_end(w);
}

int oci_host_report_json(const struct oci_host_report *r, char **out, size_t *len)
{
	struct json_writer *w = json_writer_new("  ");

	if (!w)
		return -ENOMEM;
	json_w_object(w);
	json_w_key(w, "kernel");
	json_w_string(w, r->kernel);
	json_w_key(w, "minimumKernel");
	json_w_string(w, OCI_HOST_MIN_KERNEL);
	json_w_key(w, "ok");
	json_w_bool(w, !oci_host_report_fails(r));
	json_w_key(w, "facilities");
	json_w_array(w);
	for (size_t i = 0; i < r->n; i++)
		row_json(w, &r->rows[i]);
	json_w_array_end(w);
	json_w_object_end(w);
	return json_writer_finish(w, out, len);
}
