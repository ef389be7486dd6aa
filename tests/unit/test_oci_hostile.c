/* Hostile documents (the fuzz targets' findings, tests/fuzz/): each is
 * refused with one line naming where, or accepted with the right value,
 * without crashing or going quadratic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/config.h"
#include "oci/state.h"
#include "unit.h"

static int parse(const char *json, size_t len, struct oci_config *cfg, struct error *err)
{
	return oci_config_parse("config.json", json, len, OCI_PARSE_ALL, cfg, err);
}

/* A config with `inner` as the value of an unknown top-level member. */
static char *with_member(const char *inner)
{
	char *s;

	if (asprintf(&s, "{\"ociVersion\": \"1.0.0\", \"x\": %s}", inner) < 0)
		return NULL;
	return s;
}

static char *nested(size_t depth)
{
	char *s = malloc(2 * depth + 1);

	memset(s, '[', depth);
	memset(s + depth, ']', depth);
	s[2 * depth] = '\0';
	return s;
}

/* yajl frees its tree recursively: 1e6 levels overflowed the stack. */
static void test_deep_nesting(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	char *deep = nested(1000000), *ok = nested(999), *doc = with_member(ok);

	CHECK(parse(deep, strlen(deep), &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: invalid JSON: nested deeper than 1000 levels, line 1");
	CHECK(parse(doc, strlen(doc), &cfg, &err) == 0);
	oci_config_free(&cfg);
	free(doc);
	doc = with_member("\"[[[[ in a string ]\"");
	CHECK(parse(doc, strlen(doc), &cfg, &err) == 0);
	oci_config_free(&cfg);
	free(deep);
	free(ok);
	free(doc);
}

/* A C string would end at the NUL: "sh\u0000-c" silently became "sh". */
static void test_nul(void)
{
	static const char esc[] = "{\"ociVersion\": \"1.0.0\",\n \"process\": {\"cwd\": \"/\", \"args\": [\"sh\\u0000-c\"]}}";
	static const char lit[] = "{\"ociVersion\": \"1.0.0\", \"process\": {\"cwd\": \"/\", \"args\": [\"a\\\\u0000\"]}}";
	static const char raw[] = "{\"ociVersion\": \"1.0.0\"}\0garbage";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse(esc, strlen(esc), &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: invalid JSON: \\u0000 (a NUL character) in a string, line 2");
	CHECK(parse(lit, strlen(lit), &cfg, &err) == 0);
	CHECK(cfg.process.n_args == 1);
	CHECK_STR(cfg.process.args ? cfg.process.args[0] : NULL, "a\\u0000");
	oci_config_free(&cfg);
	/* trailing bytes after a NUL were ignored */
	CHECK(parse(raw, sizeof(raw) - 1, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: invalid JSON: NUL byte at offset 23");
}

static void test_too_large(void)
{
	size_t len = (32 << 20) + 1;
	char *big = malloc(len);
	struct oci_config cfg;
	struct error err = { 0 };

	memset(big, ' ', len);
	memcpy(big, "{\"ociVersion\": \"1.0.0\"}", 23);
	CHECK(parse(big, len, &cfg, &err) == -EFBIG);
	CHECK_STR(err.msg, "config.json: 33554433 bytes is too large (at most 32 MiB)");
	CHECK(parse(big, len - 1, &cfg, &err) == 0);
	oci_config_free(&cfg);
	free(big);
}

/* Repeated keys were found by comparing every pair: 1e5 annotations took
 * minutes. The last of a repeated key still wins. */
static void test_many_keys(void)
{
	size_t n = 100000, len = 0, cap = n * 24 + 64;
	char *s = malloc(cap);
	struct oci_config cfg;
	struct error err = { 0 };

	len += (size_t)sprintf(s, "{\"ociVersion\": \"1.0.0\", \"annotations\": {\"a\": \"1\", \"b\": \"2\"");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, ", \"k%zu\": \"v\"", i);
	len += (size_t)sprintf(s + len, ", \"a\": \"3\"}}");
	CHECK(parse(s, len, &cfg, &err) == 0);
	CHECK(cfg.n_annotations == n + 2);
	if (cfg.n_annotations == n + 2) {
		CHECK_STR(cfg.annotations[0].key, "b");
		CHECK_STR(cfg.annotations[n + 1].key, "a");
		CHECK_STR(cfg.annotations[n + 1].value, "3");
	}
	oci_config_free(&cfg);
	free(s);
}

/* Every distinct unknown name was kept (and the list copied on each one). */
static void test_unknown_caps_bounded(void)
{
	char *s = malloc(64 * 32 + 256), *p = s;
	struct oci_config cfg;
	struct error err = { 0 };

	p += sprintf(p, "{\"ociVersion\": \"1.0.0\", \"process\": {\"cwd\": \"/\", \"args\": [\"sh\"],"
		     " \"capabilities\": {\"bounding\": [\"CAP_X0\"");
	for (int i = 1; i < 64; i++)
		p += sprintf(p, ", \"CAP_X%d\", \"CAP_X0\"", i);
	strcpy(p, "]}}}");
	CHECK(parse(s, strlen(s), &cfg, &err) == 0);
	CHECK(cfg.process.caps.n_unknown == 64);
	oci_config_free(&cfg);
	strcpy(p, ", \"CAP_X64\"]}}}");
	CHECK(parse(s, strlen(s), &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: .process.capabilities.bounding[127]: more than 64 unknown capabilities");
	free(s);
}

/* Names and values from the document are quoted in messages: one line. */
static void test_one_line_errors(void)
{
	static const char json[] = "{\"ociVersion\": \"1.0.0\", \"linux\": {\"sysctl\": {\"a\\nb\": 1}},"
				   " \"process\": {\"cwd\": \"/\", \"args\": [\"sh\"],"
				   " \"rlimits\": [{\"type\": \"RLIMIT_\\nX\", \"soft\": 1, \"hard\": 1}]}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse(json, strlen(json), &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: .process.rlimits[0].type: unknown rlimit \"RLIMIT_?X\"");
}

/* libseccomp took minutes over 1e5 copies of one name. */
static void test_seccomp_names_bounded(void)
{
	size_t cap = 4097 * 10 + 256;
	char *s = malloc(cap), *p = s;
	struct oci_config cfg;
	struct error err = { 0 };

	p += sprintf(p, "{\"ociVersion\": \"1.0.0\", \"linux\": {\"seccomp\": {\"defaultAction\":"
		     " \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"action\": \"SCMP_ACT_ERRNO\", \"names\": [\"a\"");
	for (int i = 1; i < 4096; i++)
		p += sprintf(p, ", \"a\"");
	strcpy(p, "]}]}}}");
	CHECK(parse(s, strlen(s), &cfg, &err) == 0);
	CHECK(cfg.linux_.seccomp.n_syscalls == 1 && cfg.linux_.seccomp.syscalls[0].n_names == 4096);
	oci_config_free(&cfg);
	strcpy(p, "]}, {\"action\": \"SCMP_ACT_KILL\", \"names\": [\"b\"]}]}}}");
	CHECK(parse(s, strlen(s), &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: .linux.seccomp.syscalls[1].names: more than 4096 syscall names in all the rules");
	free(s);
}

/* uid 4294967295 is (uid_t)-1: setresuid(-1, -1, -1) changes nothing, the
 * process stayed root. The same through exec --process (process.json). */
static void test_ids(void)
{
	static const char cfg_max[] = "{\"ociVersion\": \"1.0.0\", \"process\": {\"cwd\": \"/\", \"args\": [\"sh\"],"
				      " \"user\": {\"uid\": 2147483647, \"gid\": 2147483647, \"additionalGids\": [0, 2147483647]}}}";
	static const char proc_uid[] = "{\"cwd\": \"/\", \"args\": [\"sh\"], \"user\": {\"uid\": 4294967295, \"gid\": 0}}";
	static const char proc_gid[] = "{\"cwd\": \"/\", \"args\": [\"sh\"], \"user\": {\"uid\": 1, \"gid\": 4294967295}}";
	static const char proc_gids[] = "{\"cwd\": \"/\", \"args\": [\"sh\"], \"user\": {\"additionalGids\": [4294967295]}}";
	static const char proc_env[] = "{\"cwd\": \"/\", \"args\": [\"sh\"], \"env\": [\"=x\"]}";
	static const char proc_comment[] = "{\"cwd\": \"/\", // uid 0\n \"args\": [\"sh\"]}";
	struct oci_config cfg;
	struct oci_process proc;
	struct error err = { 0 };
	void *arena = NULL;

	CHECK(parse(cfg_max, strlen(cfg_max), &cfg, &err) == 0);
	CHECK(cfg.process.uid == 2147483647 && cfg.process.gid == 2147483647);
	CHECK(cfg.process.n_additional_gids == 2 && cfg.process.additional_gids[1] == 2147483647);
	oci_config_free(&cfg);
	CHECK(oci_process_parse("p.json", proc_uid, strlen(proc_uid), &proc, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "p.json: .user.uid: 4294967295 is out of range (0 to 2147483647)");
	CHECK(arena == NULL && proc.uid == 0);
	CHECK(oci_process_parse("p.json", proc_gid, strlen(proc_gid), &proc, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "p.json: .user.gid: 4294967295 is out of range (0 to 2147483647)");
	CHECK(oci_process_parse("p.json", proc_gids, strlen(proc_gids), &proc, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "p.json: .user.additionalGids[0]: 4294967295 is out of range (0 to 2147483647)");
	CHECK(oci_process_parse("p.json", proc_env, strlen(proc_env), &proc, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "p.json: .env[0]: \"=x\": empty variable name");
	CHECK(oci_process_parse("p.json", proc_comment, strlen(proc_comment), &proc, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "p.json: invalid JSON: lexical error: probable comment found in input text, "
		  "comments are not enabled, line 1, column 13, near '{\"cwd\": \"/\", // uid 0'");
}

/* -1 is the documented "unlimited" of memory and pids; other negatives were
 * silently unlimited too. cpu quota and realtimeRuntime keep every negative
 * (the kernel reads any of them as "no limit"). */
static void test_resource_negatives(void)
{
	static const char ok[] = "{\"memory\": {\"limit\": -1, \"reservation\": -1, \"swap\": -1, \"kernel\": -1,"
				 " \"kernelTCP\": -1}, \"pids\": {\"limit\": -1},"
				 " \"cpu\": {\"quota\": -5, \"realtimeRuntime\": -1},"
				 " \"devices\": [{\"allow\": true, \"type\": \"c\", \"major\": 4095, \"minor\": 1048575,"
				 " \"access\": \"mwrr\"}, {\"allow\": false, \"major\": -1, \"minor\": -1}]}";
	static const char bad_pids[] = "{\"pids\": {\"limit\": -2}}";
	static const char bad_swap[] = "{\"memory\": {\"swap\": -2}}";
	static const char bad_access[] = "{\"devices\": [{\"allow\": false, \"access\": \"a\"}]}";
	struct oci_resources res;
	struct error err = { 0 };
	void *arena = NULL;

	CHECK(oci_resources_parse("r.json", ok, strlen(ok), &res, &arena, &err) == 0);
	CHECK(res.memory.limit == -1 && res.memory.swap == -1 && res.pids_limit == -1);
	CHECK(res.cpu.quota == -5 && res.cpu.realtime_runtime == -1);
	CHECK(res.n_devices == 2 && res.devices[0].major == 4095 && res.devices[0].minor == 1048575);
	if (res.n_devices == 2) {
		CHECK_STR(res.devices[0].access, "rwm");
		CHECK(!res.devices[1].has_major && !res.devices[1].has_minor);
	}
	oci_arena_free(arena);
	CHECK(oci_resources_parse("r.json", bad_pids, strlen(bad_pids), &res, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "r.json: .pids.limit: -2 is out of range (-1 to 9223372036854775807)");
	CHECK(oci_resources_parse("r.json", bad_swap, strlen(bad_swap), &res, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "r.json: .memory.swap: -2 is out of range (-1 to 9223372036854775807)");
	CHECK(oci_resources_parse("r.json", bad_access, strlen(bad_access), &res, &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "r.json: .devices[0].access: invalid access \"a\" (none of r, w, m)");
	/* runc's own suite writes "rwa": the a is dropped (and reported), not the rule */
	static const char rwa[] = "{\"devices\": [{\"allow\": false, \"access\": \"rwa\"}, {\"allow\": true, \"access\": \"mr\"}]}";
	CHECK(oci_resources_parse("r.json", rwa, strlen(rwa), &res, &arena, &err) == 0);
	if (res.n_devices == 2) {
		CHECK_STR(res.devices[0].access, "rw");
		CHECK(res.devices[0].access_given && !strcmp(res.devices[0].access_given, "rwa"));
		CHECK_STR(res.devices[1].access, "rm");
		CHECK(!res.devices[1].access_given);
	}
	oci_arena_free(arena);
}

/* A FIFO config.json made create wait for a writer forever; a device could
 * be endless. Refused on the fd, before any read, in a child with a time
 * limit so that a regression fails instead of hanging. */
static void test_not_regular(void)
{
	char dir[] = "/tmp/tinyrun-unit-XXXXXX", fifo[64];
	struct error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int status = 0;
	pid_t pid;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/config.json", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	pid = fork();
	if (pid == 0) {
		alarm(5);
		_exit(oci_read_file(fifo, "config.json", &buf, &len, &err) == -EINVAL &&
		      strcmp(err.msg, "config.json: not a regular file (a FIFO)") == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(oci_read_file(dir, "d", &buf, &len, &err) == -EINVAL);
	CHECK_STR(err.msg, "d: not a regular file (a directory)");
	CHECK(oci_read_file("/dev/null", "n", &buf, &len, &err) == -EINVAL);
	CHECK_STR(err.msg, "n: not a regular file (a character device)");
	CHECK(buf == NULL);
	unlink(fifo);
	rmdir(dir);
}

static void test_state(void)
{
	static const char deep[] = "{\"ociVersion\": \"1.0.0\", \"id\": \"a\\u0000b\"}";
	struct container_state st;
	struct error err = { 0 };

	CHECK(oci_state_parse("state.json", deep, strlen(deep), &st, &err) == -EINVAL);
	CHECK_STR(err.msg, "state.json: invalid JSON: \\u0000 (a NUL character) in a string, line 1");
}

int main(void)
{
	test_deep_nesting();
	test_nul();
	test_too_large();
	test_many_keys();
	test_unknown_caps_bounded();
	test_one_line_errors();
	test_seccomp_names_bounded();
	test_state();
	test_ids();
	test_resource_negatives();
	test_not_regular();
	return unit_report("test_oci_hostile");
}
