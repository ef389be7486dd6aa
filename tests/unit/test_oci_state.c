/* state.json and the `state` output; the JSON string escaper. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oci/state.h"
#include "unit.h"

static struct oci_kv annotations[] = {
	{ "org.z", "last" }, { "com.a", "first & <b>" },
};

static struct container_state sample(void)
{
	return (struct container_state){
		.oci_version = "1.3.0", .id = "web", .pid = 4242, .pid_start_time = 123456789012ULL,
		.bundle = "/srv/bundle", .rootfs = "/srv/bundle/rootfs",
		.created = "2024-05-06T07:08:09.123456789Z", .owner = "",
		.cgroup_path = "/tinyrun/web", .systemd_cgroup = true,
		.annotations = annotations, .n_annotations = 2,
	};
}

/* What `runc state` prints: keys in runc's order, two-space indent, the
 * annotations sorted by key, no trailing newline. */
static void test_pretty(void)
{
	struct container_state st = sample();
	struct error err = { 0 };
	char *out = NULL;
	size_t len = 0;

	CHECK(oci_state_to_json(&st, "running", true, &out, &len, &err) == 0);
	CHECK_STR(out,
		  "{\n"
		  "  \"ociVersion\": \"1.3.0\",\n"
		  "  \"id\": \"web\",\n"
		  "  \"pid\": 4242,\n"
		  "  \"status\": \"running\",\n"
		  "  \"bundle\": \"/srv/bundle\",\n"
		  "  \"rootfs\": \"/srv/bundle/rootfs\",\n"
		  "  \"created\": \"2024-05-06T07:08:09.123456789Z\",\n"
		  "  \"annotations\": {\n"
		  "    \"com.a\": \"first & <b>\",\n"
		  "    \"org.z\": \"last\"\n"
		  "  },\n"
		  "  \"owner\": \"\"\n"
		  "}");
	CHECK(out && len == strlen(out));
	free(out);

	/* stopped: pid 0 is printed as 0; no annotations: the key is left out */
	st.pid = 0;
	st.n_annotations = 0;
	st.annotations = NULL;
	CHECK(oci_state_to_json(&st, "stopped", true, &out, &len, &err) == 0);
	CHECK(out && strstr(out, "\n  \"pid\": 0,\n") != NULL);
	CHECK(out && strstr(out, "annotations") == NULL);
	CHECK(out && strstr(out, "pid_start_time") == NULL && strstr(out, "cgroup_path") == NULL);
	free(out);
}

static void test_round_trip(void)
{
	struct container_state st = sample(), back;
	struct error err = { 0 };
	char *out = NULL;
	size_t len = 0;

	CHECK(oci_state_to_json(&st, NULL, false, &out, &len, &err) == 0);
	CHECK(out && strchr(out, '\n') == NULL);        /* compact, one line */
	CHECK(out && strstr(out, "\"status\"") == NULL);
	CHECK(oci_state_parse("state.json", out, len, &back, &err) == 0);
	CHECK_STR(back.oci_version, "1.3.0");
	CHECK_STR(back.id, "web");
	CHECK(back.pid == 4242 && back.pid_start_time == 123456789012ULL);
	CHECK_STR(back.bundle, "/srv/bundle");
	CHECK_STR(back.rootfs, "/srv/bundle/rootfs");
	CHECK_STR(back.created, "2024-05-06T07:08:09.123456789Z");
	CHECK_STR(back.owner, "");
	CHECK_STR(back.cgroup_path, "/tinyrun/web");
	CHECK(back.systemd_cgroup);
	CHECK(back.n_annotations == 2);
	CHECK_STR(back.annotations[0].key, "org.z");   /* as given: order kept */
	CHECK_STR(back.annotations[1].value, "first & <b>");
	CHECK(back.arena != NULL);
	oci_state_free(&back);
	CHECK(back.arena == NULL && back.id == NULL);
	free(out);

	/* the user's systemd (a rootless caller's --systemd-cgroup) */
	st.systemd_cgroup = 2;
	CHECK(oci_state_to_json(&st, NULL, false, &out, &len, &err) == 0);
	CHECK(out && strstr(out, "\"systemd_cgroup\":true,\"systemd_user\":true") != NULL);
	CHECK(oci_state_parse("state.json", out, len, &back, &err) == 0);
	CHECK(back.systemd_cgroup == 2);
	oci_state_free(&back);
	free(out);

	/* a state without cgroup, pid 0 */
	st.cgroup_path = NULL;
	st.pid = 0;
	st.systemd_cgroup = false;
	CHECK(oci_state_to_json(&st, "created", false, &out, &len, &err) == 0);
	CHECK(out && strstr(out, "\"status\":\"created\"") != NULL);
	CHECK(oci_state_parse("state.json", out, len, &back, &err) == 0);
	CHECK(back.cgroup_path == NULL && back.pid == 0 && !back.systemd_cgroup);
	oci_state_free(&back);
	free(out);
}

static void test_parse_errors(void)
{
	static const struct { const char *json, *err; } bad[] = {
		{ "{\"ociVersion\": \"1.0.0\"}", "state.json: .id: required" },
		{ "{\"ociVersion\": \"1.0.0\", \"id\": \"a\", \"pid\": -5}",
		  "state.json: .pid: -5 is out of range (0 to 2147483647)" },
		{ "{\"ociVersion\": \"1.0.0\", \"id\": \"a\", \"pid\": \"5\"}", "state.json: .pid: expected integer" },
		{ "{\"ociVersion\": \"1.0.0\", \"id\": 5}", "state.json: .id: expected string" },
		{ "[1]", "state.json: expected object" },
		{ "{", "state.json: invalid JSON: parse error: premature EOF, line 1, column 1, near '{'" },
	};
	struct container_state st;
	struct error err = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(oci_state_parse("state.json", bad[i].json, strlen(bad[i].json), &st, &err) == -EINVAL);
		CHECK_STR(err.msg, bad[i].err);
		CHECK(st.arena == NULL);
	}
}

static void test_escape(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "", "\"\"" },
		{ "say \"hi\"\\", "\"say \\\"hi\\\"\\\\\"" },
		{ "a\nb\rc\td", "\"a\\nb\\rc\\td\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "<a&b>", "\"\\u003ca\\u0026b\\u003e\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xb3", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xb3\"" },
		{ "bad\xff\xc3", "\"bad\\ufffd\\ufffd\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },     /* surrogate */
		{ "line\xe2\x80\xa8sep", "\"line\\u2028sep\"" },
		{ "/", "\"/\"" },
	};
	char buf[128];
	int n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(buf, "x=");
		n = oci_json_escape(buf, sizeof(buf), 2, cases[i].in);
		CHECK(n == (int)(2 + strlen(cases[i].out)));
		CHECK(strncmp(buf, "x=", 2) == 0);
		CHECK_STR(buf + 2, cases[i].out);
	}
	/* too small: -1 */
	CHECK(oci_json_escape(buf, 8, 0, "12345") == 7);
	CHECK(oci_json_escape(buf, 7, 0, "12345") == -1);
	CHECK(oci_json_escape(buf, 8, 8, "") == -1);
}

int main(void)
{
	test_pretty();
	test_round_trip();
	test_parse_errors();
	test_escape();
	return unit_report("test_oci_state");
}
