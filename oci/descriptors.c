#include "descriptors.h"

#include <errno.h>
#include <stdio.h>

#include "json.h"

int oci_descriptors_to_json(const char *const fds[OCI_DESCRIPTORS], char **out, size_t *len)
{
	struct json_writer *w = json_writer_new(NULL);

	if (!w)
		return -ENOMEM;
	json_w_array(w);
	for (int i = 0; i < OCI_DESCRIPTORS; i++)
		json_w_string(w, fds[i]);
	json_w_array_end(w);
	return json_writer_finish(w, out, len);
}

int oci_descriptors_parse(const char *json, char out[OCI_DESCRIPTORS][256], struct error *err)
{
	char why[128];
	struct json_val *root = json_parse(json, why, sizeof(why));

	if (!root)
		return error_set(err, EINVAL, "descriptors.json: %s", why);
	if (json_type(root) != JSON_ARRAY) {
		json_free(root);
		return error_set(err, EINVAL, "descriptors.json: not an array");
	}
	for (size_t i = 0; i < OCI_DESCRIPTORS; i++) {
		const char *s = i < json_len(root) ? json_str(json_at(root, i)) : NULL;

		snprintf(out[i], sizeof(out[i]), "%s", s ? s : "");
	}
	json_free(root);
	return 0;
}
