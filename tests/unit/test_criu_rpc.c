/* CRIU's RPC in our own protobuf wire code (runtime/criu/pb.c, rpc.c): the
 * bytes of a request as protoc would write them, a response read back, and
 * malformed bytes refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/criu/pb.h"
#include "runtime/criu/rpc.h"
#include "unit.h"

static bool same(const struct util_buf *b, const uint8_t *want, size_t n)
{
	return !b->oom && b->len == n && memcmp(b->p, want, n) == 0;
}

static void test_varints(void)
{
	struct util_buf b = { 0 };
	static const uint8_t want[] = { 0x00, 0x7f, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f };

	pb_put_varint(&b, 0);
	pb_put_varint(&b, 127);
	pb_put_varint(&b, 300);
	pb_put_varint(&b, 0xffffffffu);
	CHECK(same(&b, want, sizeof(want)));
	free(b.p);
	/* a negative int32 is ten bytes, as protobuf sign-extends it */
	memset(&b, 0, sizeof(b));
	pb_put_int32(&b, 1, -1);
	CHECK(b.len == 11 && b.p[0] == 0x08 && (uint8_t)b.p[10] == 0x01);
	free(b.p);
}

static void test_request(void)
{
	struct criu_kv mnt = { "/data", "/data" };
	const char *ext[] = { "net[4026531840]:extRootNetNS" };
	struct criu_opts o = { .images_dir_fd = 5, .work_dir_fd = -1, .pid = 300, .leave_running = true,
			       .log_level = 4, .log_file = "dump.log", .manage_cgroups_mode = CRIU_CG_SOFT,
			       .ext_mnt = &mnt, .n_ext_mnt = 1, .external = ext, .n_external = 1 };
	struct util_buf b = { 0 };
	/* criu_req{type: DUMP, opts: {1: 5, 2: 300, 3: true, 9: 4, 10: "dump.log",
	 * 23: {1: "/data", 2: "/data"}, 34: SOFT, 37: "net[...]..."}} */
	static const uint8_t opts[] = {
		0x08, 0x05, 0x10, 0xac, 0x02, 0x18, 0x01, 0x48, 0x04, 0x52, 0x08, 'd', 'u', 'm', 'p', '.', 'l', 'o',
		'g', 0xba, 0x01, 0x0e, 0x0a, 0x05, '/', 'd', 'a', 't', 'a', 0x12, 0x05, '/', 'd', 'a', 't', 'a',
		0x90, 0x02, 0x03, 0xaa, 0x02, 0x1c,
	};

	CHECK(criu_req_encode(CRIU_REQ_DUMP, &o, false, &b) == 0);
	CHECK(b.len == 4 + sizeof(opts) + 28 && (uint8_t)b.p[3] == sizeof(opts) + 28);
	CHECK(b.p[0] == 0x08 && b.p[1] == CRIU_REQ_DUMP && (uint8_t)b.p[2] == 0x12);
	CHECK(memcmp(b.p + 4, opts, sizeof(opts)) == 0);
	CHECK(memcmp(b.p + 4 + sizeof(opts), ext[0], 28) == 0);
	free(b.p);
	/* the answer to a notification: type NOTIFY, notify_success */
	memset(&b, 0, sizeof(b));
	CHECK(criu_req_encode(CRIU_REQ_NOTIFY, NULL, true, &b) == 0);
	CHECK(same(&b, (const uint8_t[]){ 0x08, 0x06, 0x18, 0x01 }, 4));
	free(b.p);
}

/* restore into namespaces joined by path (runc): the pid one by an inherited
 * fd, the others as join_ns (39) {1: CRIU's name, 2: path} */
static void test_join_ns(void)
{
	struct criu_inherit_fd fd = { "extRootPidNS", 4 };
	struct criu_kv join = { "ipc", "/p" };
	struct criu_opts o = { .images_dir_fd = 5, .work_dir_fd = -1, .log_level = 4,
			       .manage_cgroups_mode = CRIU_CG_SOFT, .inherit_fd = &fd, .n_inherit_fd = 1,
			       .join_ns = &join, .n_join_ns = 1 };
	struct util_buf b = { 0 };
	/* {1: 5, 9: 4, 27: {1: "extRootPidNS", 2: 4}, 34: SOFT, 39: {1: "ipc", 2: "/p"}} */
	static const uint8_t opts[] = {
		0x08, 0x05, 0x48, 0x04, 0xda, 0x01, 0x10, 0x0a, 0x0c, 'e', 'x', 't', 'R', 'o', 'o', 't', 'P', 'i',
		'd', 'N', 'S', 0x10, 0x04, 0x90, 0x02, 0x03, 0xba, 0x02, 0x09, 0x0a, 0x03, 'i', 'p', 'c', 0x12,
		0x02, '/', 'p',
	};

	CHECK(criu_req_encode(CRIU_REQ_RESTORE, &o, false, &b) == 0);
	CHECK(b.len == 4 + sizeof(opts) && b.p[1] == CRIU_REQ_RESTORE && (uint8_t)b.p[3] == sizeof(opts));
	CHECK(b.len == 4 + sizeof(opts) && memcmp(b.p + 4, opts, sizeof(opts)) == 0);
	free(b.p);
}

/* a lazy dump (runc's --lazy-pages --page-server ADDR:PORT) with --link-remap:
 * 11: criu_page_server_info {1: address, 2: port}, 18 and 48 true */
static void test_lazy_dump(void)
{
	struct criu_opts o = { .images_dir_fd = 5, .work_dir_fd = -1, .log_level = 4,
			       .manage_cgroups_mode = CRIU_CG_SOFT, .lazy_pages = true, .link_remap = true,
			       .ps_address = "0.0.0.0", .ps_port = 27277 };
	struct util_buf b = { 0 };
	/* {1: 5, 48: true, 18: true, 9: 4, 11: {1: "0.0.0.0", 2: 27277}, 34: SOFT} */
	static const uint8_t opts[] = {
		0x08, 0x05, 0x80, 0x03, 0x01, 0x90, 0x01, 0x01, 0x48, 0x04, 0x5a, 0x0d, 0x0a, 0x07, '0', '.', '0',
		'.', '0', '.', '0', 0x10, 0x8d, 0xd5, 0x01, 0x90, 0x02, 0x03,
	};

	CHECK(criu_req_encode(CRIU_REQ_DUMP, &o, false, &b) == 0);
	CHECK(b.len == 4 + sizeof(opts) && (uint8_t)b.p[3] == sizeof(opts));
	CHECK(b.len == 4 + sizeof(opts) && memcmp(b.p + 4, opts, sizeof(opts)) == 0);
	free(b.p);
}

/* restore --lsm-profile, --lsm-mount-context: 53 and 63, strings */
static void test_lsm(void)
{
	struct criu_opts o = { .images_dir_fd = 5, .work_dir_fd = -1, .log_level = 4,
			       .manage_cgroups_mode = CRIU_CG_SOFT, .lsm_profile = "none:x", .lsm_mount_context = "c" };
	struct util_buf b = { 0 };
	/* {1: 5, 9: 4, 34: SOFT, 53: "none:x", 63: "c"} */
	static const uint8_t opts[] = {
		0x08, 0x05, 0x48, 0x04, 0x90, 0x02, 0x03, 0xaa, 0x03, 0x06, 'n', 'o', 'n', 'e', ':', 'x', 0xfa, 0x03,
		0x01, 'c',
	};

	CHECK(criu_req_encode(CRIU_REQ_RESTORE, &o, false, &b) == 0);
	CHECK(b.len == 4 + sizeof(opts) && memcmp(b.p + 4, opts, sizeof(opts)) == 0);
	free(b.p);
}

static void test_response(void)
{
	struct criu_resp r;
	/* {1: NOTIFY, 2: true, 5: {1: "post-restore", 2: 4242}} */
	static const uint8_t notify[] = { 0x08, 0x06, 0x10, 0x01, 0x2a, 0x11, 0x0a, 0x0c, 'p', 'o', 's', 't', '-',
					  'r', 'e', 's', 't', 'o', 'r', 'e', 0x10, 0x92, 0x21 };
	/* {1: RESTORE, 2: false, 7: 2, 9: "boom", 99: 7 (unknown: skipped)} */
	static const uint8_t fail[] = { 0x08, 0x02, 0x10, 0x00, 0x38, 0x02, 0x4a, 0x04, 'b', 'o', 'o', 'm',
					0x98, 0x06, 0x07 };
	/* {1: VERSION, 2: true, 10: {1: 3, 2: 17, 4: 1}} */
	static const uint8_t version[] = { 0x08, 0x0a, 0x10, 0x01, 0x52, 0x06, 0x08, 0x03, 0x10, 0x11, 0x20, 0x01 };

	CHECK(criu_resp_decode(notify, sizeof(notify), &r) == 0);
	CHECK(r.type == CRIU_REQ_NOTIFY && r.success && !strcmp(r.notify_script, "post-restore") &&
	      r.notify_pid == 4242);
	CHECK(criu_resp_decode(fail, sizeof(fail), &r) == 0);
	CHECK(r.type == CRIU_REQ_RESTORE && !r.success && r.cr_errno == 2 && !strcmp(r.errmsg, "boom"));
	CHECK(criu_resp_decode(version, sizeof(version), &r) == 0);
	CHECK(r.has_version && r.major == 3 && r.minor == 17 && r.sublevel == 1);
}

static void test_malformed(void)
{
	struct criu_resp r;
	static const uint8_t cut_varint[] = { 0x08, 0x86 };
	static const uint8_t long_len[] = { 0x4a, 0x10, 'x' };
	static const uint8_t field_zero[] = { 0x00, 0x01 };
	static const uint8_t bad_nested[] = { 0x2a, 0x02, 0x0a, 0x09 };
	static const uint8_t huge_varint[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	CHECK(criu_resp_decode(cut_varint, sizeof(cut_varint), &r) == -EBADMSG);
	CHECK(criu_resp_decode(long_len, sizeof(long_len), &r) == -EBADMSG);
	CHECK(criu_resp_decode(field_zero, sizeof(field_zero), &r) == -EBADMSG);
	CHECK(criu_resp_decode(bad_nested, sizeof(bad_nested), &r) == -EBADMSG);
	CHECK(criu_resp_decode(huge_varint, sizeof(huge_varint), &r) == -EBADMSG);
	CHECK(criu_resp_decode("", 0, &r) == 0 && !r.success);
}

int main(void)
{
	test_varints();
	test_request();
	test_join_ns();
	test_lazy_dump();
	test_lsm();
	test_response();
	test_malformed();
	return unit_report("test_criu_rpc");
}
