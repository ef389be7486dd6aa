#include "process-state.h"

#include <errno.h>
#include <stdlib.h>

#include "json.h"

/* the runtime-spec version this state complies with */
#define PROCESS_STATE_OCI_VERSION "1.3.0"

/* Re-emit a parsed value; the state object only has strings, integers,
 * booleans, null, objects and arrays. */
static int copy(struct json_writer *w, const struct json_val *v)
{
	int64_t i;
	uint64_t u;

	switch (json_type(v)) {
	case JSON_NULL:   json_w_null(w); return 0;
	case JSON_BOOL:   json_w_bool(w, json_bool(v)); return 0;
	case JSON_STRING: json_w_string(w, json_str(v)); return 0;
	case JSON_NUMBER:
		if (json_int64(v, &i) == 0)
			json_w_int(w, i);
		else if (json_uint64(v, &u) == 0)
			json_w_uint(w, u);
		else
			return -EINVAL;
		return 0;
	case JSON_OBJECT:
		json_w_object(w);
		for (size_t k = 0; k < json_len(v); k++) {
			json_w_key(w, json_key(v, k));
			if (copy(w, json_at(v, k)) < 0)
				return -EINVAL;
		}
		json_w_object_end(w);
		return 0;
	case JSON_ARRAY:
		json_w_array(w);
		for (size_t k = 0; k < json_len(v); k++)
			if (copy(w, json_at(v, k)) < 0)
				return -EINVAL;
		json_w_array_end(w);
		return 0;
	}
	return -EINVAL;
}

int oci_container_process_state_json(const char *state_json, pid_t pid, const char *metadata,
				     char **out, size_t *len)
{
	struct json_writer *w;
	struct json_val *state;
	char why[128];
	int r;

	if (!state_json)
		return -EINVAL;
	state = json_parse(state_json, why, sizeof(why));
	if (!state)
		return -EINVAL;
	if (json_type(state) != JSON_OBJECT) {
		json_free(state);
		return -EINVAL;
	}
	w = json_writer_new(NULL);
	if (!w) {
		json_free(state);
		return -ENOMEM;
	}
	json_w_object(w);
	json_w_key(w, "ociVersion");
	json_w_string(w, PROCESS_STATE_OCI_VERSION);
	json_w_key(w, "fds");
	json_w_array(w);
	json_w_string(w, "seccompFd");
	json_w_array_end(w);
	json_w_key(w, "pid");
	json_w_int(w, pid);
	if (metadata) {
		json_w_key(w, "metadata");
		json_w_string(w, metadata);
	}
	json_w_key(w, "state");
	r = copy(w, state);
	json_w_object_end(w);
	json_free(state);
	if (r < 0) {
		char *junk;
		size_t n;
		if (json_writer_finish(w, &junk, &n) == 0)
			free(junk);
		return r;
	}
	return json_writer_finish(w, out, len);
}
