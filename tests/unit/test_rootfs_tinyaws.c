/* tinyaws conventions (rootfs/sandbox/tinyaws.c) and the root overlay's checks
 * (oci/sandbox/config_tinyaws.c, oci/sandbox/spec_tinyaws.c): pure functions, no root; the
 * app dir's files in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/config.h"
#include "oci/sandbox/tinyaws.h"
#include "rootfs/sandbox/tinyaws.h"
#include "tests/unit/unit.h"

static void test_build_start(void)
{
	char out[64];

	CHECK(rootfs_tinyaws_build_start("base: alpine\n# start: no\nstart: sh run.sh  \r\nrun: x\n", out, sizeof(out)) == 1);
	CHECK_STR(out, "sh run.sh");
	CHECK(rootfs_tinyaws_build_start("  start :  echo a: b#c", out, sizeof(out)) == 1);
	CHECK_STR(out, "echo a: b#c");
	CHECK(rootfs_tinyaws_build_start("starter: x\nbase: y\n", out, sizeof(out)) == 0);
	CHECK(rootfs_tinyaws_build_start("", out, sizeof(out)) == 0);
	CHECK(rootfs_tinyaws_build_start("start: one\nstart: two\n", out, sizeof(out)) == 1);
	CHECK_STR(out, "two");
	CHECK(rootfs_tinyaws_build_start("start: 0123456789\n", out, 8) == -ENAMETOOLONG);
}

static void test_types(void)
{
	static const struct { const char *n; unsigned cpu, mem; } t[] = {
		{ "nano", 25, 128 }, { "micro", 50, 256 }, { "small", 100, 512 },
		{ "medium", 200, 1024 }, { "large", 400, 2048 },
	};
	unsigned cpu, mem;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK(rootfs_tinyaws_type(t[i].n, &cpu, &mem) == 0);
		CHECK(cpu == t[i].cpu && mem == t[i].mem);
	}
	CHECK(rootfs_tinyaws_type("huge", &cpu, &mem) == -1);
	CHECK(rootfs_tinyaws_type("", &cpu, &mem) == -1);
}

static void test_image_and_command(void)
{
	char out[64];
	char *cmd[] = { "echo", "a b", "c" };

	CHECK(rootfs_tinyaws_image_path("web", NULL, out, sizeof(out)) == 0);
	CHECK_STR(out, "/var/lib/tinyaws/images/web");
	CHECK(rootfs_tinyaws_image_path("web", "/srv/img", out, sizeof(out)) == 0);
	CHECK_STR(out, "/srv/img/web");
	CHECK(rootfs_tinyaws_image_path("./web", "/srv/img", out, sizeof(out)) == 0);
	CHECK_STR(out, "./web");
	CHECK(rootfs_tinyaws_image_path("..", NULL, out, sizeof(out)) == -EINVAL);
	CHECK(rootfs_tinyaws_image_path("", NULL, out, sizeof(out)) == -EINVAL);

	CHECK(rootfs_tinyaws_command(cmd, 3, "start", true, out, sizeof(out)) == 0);
	CHECK_STR(out, "echo a b c");
	CHECK(rootfs_tinyaws_command(NULL, 0, "node app.js", true, out, sizeof(out)) == 0);
	CHECK_STR(out, "node app.js");
	CHECK(rootfs_tinyaws_command(NULL, 0, "", true, out, sizeof(out)) == 0);
	CHECK_STR(out, "sh start.sh");
	CHECK(rootfs_tinyaws_command(NULL, 0, NULL, false, out, sizeof(out)) == -ENOENT);
	CHECK(rootfs_tinyaws_command(cmd, 3, NULL, false, out, 6) == -ENAMETOOLONG);
}

static const char *existing;
static bool exists(const char *p)
{
	return existing && (!strcmp(p, existing) || (!strcmp(existing, "both") &&
		(!strcmp(p, "/opt/t/seccomp-default.json") || !strcmp(p, TINYAWS_ETC_PROFILE))));
}

static void test_seccomp_order(void)
{
	char buf[128];
	const char *src, *p;

	existing = "both";
	p = rootfs_tinyaws_seccomp_pick("/o.json", "/e.json", "/opt/t", exists, buf, sizeof(buf), &src);
	CHECK_STR(p, "/o.json");
	CHECK_STR(src, "--seccomp");
	p = rootfs_tinyaws_seccomp_pick(NULL, "/e.json", "/opt/t", exists, buf, sizeof(buf), &src);
	CHECK_STR(p, "/e.json");
	p = rootfs_tinyaws_seccomp_pick(NULL, "", "/opt/t", exists, buf, sizeof(buf), &src);
	CHECK_STR(p, "/opt/t/seccomp-default.json");
	existing = TINYAWS_ETC_PROFILE;
	p = rootfs_tinyaws_seccomp_pick(NULL, NULL, "/opt/t", exists, buf, sizeof(buf), &src);
	CHECK_STR(p, TINYAWS_ETC_PROFILE);
	existing = NULL;
	p = rootfs_tinyaws_seccomp_pick(NULL, NULL, "/opt/t", exists, buf, sizeof(buf), &src);
	CHECK(p == NULL);
	CHECK_STR(src, "tinyrun's default profile");
}

static void test_root_checks(void)
{
	const char *why;

	CHECK(oci_dest_is_root("/") && oci_dest_is_root("//") && oci_dest_is_root("/.") &&
	      oci_dest_is_root("/a/..") && oci_dest_is_root("/..") && oci_dest_is_root(""));
	CHECK(!oci_dest_is_root("/a") && !oci_dest_is_root("/a/b/..") && !oci_dest_is_root("/..a"));
	CHECK(oci_scratch_dir_check("scratch", &why) == 0);
	CHECK(oci_scratch_dir_check("a/b", &why) == 0);
	CHECK(oci_scratch_dir_check("", &why) < 0);
	CHECK(oci_scratch_dir_check("/abs", &why) < 0);
	CHECK(oci_scratch_dir_check("../x", &why) < 0);
	CHECK(oci_scratch_dir_check("a/../../x", &why) < 0);
	CHECK(oci_scratch_dir_check("a//b", &why) < 0);
	CHECK(oci_scratch_dir_check("a/", &why) < 0);
	CHECK(oci_scratch_dir_check("a,upperdir=/etc", &why) < 0);
	CHECK(oci_scratch_dir_check("a:b", &why) < 0);
	CHECK(oci_scratch_dir_check("a b", &why) < 0);
}

/* the generated config parses and carries the choices */
static void test_spec(void)
{
	static const char *const env[] = { "A=1" };
	struct oci_tinyaws_job j = {
		.bundle = "/b", .image = "/img", .command = "echo hi", .env = env, .n_env = 1,
		.overlay = true, .limits = true, .namespaces = true, .memory_bytes = 128 << 20,
		.cpu_quota = 25000, .cpu_period = 100000, .pids = 1024,
		.seccomp_json = "{\"_comment\": \"x\", \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": "
				"[{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}",
	};
	struct oci_config cfg;
	struct error err;
	char *json = oci_spec_tinyaws(&j, &err);

	CHECK(json != NULL);
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	if (json && cfg.arena) {
		CHECK(cfg.root_mount && cfg.tinyrun_scratch && !strcmp(cfg.tinyrun_scratch, "scratch"));
		CHECK_STR(cfg.mounts[0].data, "lowerdir=/b/layer:/img");
		CHECK_STR(cfg.process.args[2], "echo hi");
		CHECK_STR(cfg.process.cwd, "/app");
		CHECK(cfg.linux_.resources.memory.limit == 128 << 20);
		CHECK(cfg.linux_.resources.cpu.quota == 25000 && cfg.linux_.resources.pids_limit == 1024);
		CHECK(cfg.linux_.has_seccomp && cfg.linux_.seccomp.n_architectures == 0 &&
		      cfg.linux_.seccomp.syscalls[0].errno_ret == 1);
		oci_config_free(&cfg);
	}
	free(json);
	j.overlay = j.limits = j.namespaces = false;
	j.seccomp_json = NULL;
	json = oci_spec_tinyaws(&j, &err);
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	if (json && cfg.arena) {
		CHECK(!cfg.root_mount && !cfg.tinyrun_scratch && !cfg.linux_.has_seccomp);
		CHECK_STR(cfg.root_path, "/img");
		CHECK(cfg.root_readonly && !cfg.linux_.resources.has_memory);
		CHECK(cfg.linux_.ns[OCI_NS_MOUNT].present && !cfg.linux_.ns[OCI_NS_PID].present);
		oci_config_free(&cfg);
	}
	free(json);
	/* --no-overlay: the skeleton root, the image's entries bound read-only before /app */
	j.image_bound = true;
	j.image_entries = (char *const[]){ "etc", "usr" };
	j.n_image_entries = 2;
	json = oci_spec_tinyaws(&j, &err);
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	if (json && cfg.arena) {
		CHECK_STR(cfg.root_path, "rootfs");
		CHECK(cfg.root_readonly && cfg.n_mounts > 3);
		CHECK_STR(cfg.mounts[0].destination, "/etc");
		CHECK_STR(cfg.mounts[0].source, "/img/etc");
		CHECK(cfg.mounts[0].flags & MS_RDONLY);
		CHECK_STR(cfg.mounts[1].source, "/img/usr");
		CHECK_STR(cfg.mounts[2].destination, "/app");
		oci_config_free(&cfg);
	}
	free(json);
	j.seccomp_json = "{nope";
	CHECK(oci_spec_tinyaws(&j, &err) == NULL && strstr(err.msg, "seccomp profile"));
}

/* --no-overlay's skeleton: links copied, mount points for dirs and files, the
 * job's own made, devices and FIFOs left out; the image only read */
static void test_skeleton(void)
{
	char img[] = "/tmp/test_tinyaws_img-XXXXXX", dst[] = "/tmp/test_tinyaws_dst-XXXXXX", cmd[128], link[16];
	struct stat st, before;
	char **names;
	size_t n;
	int fd, d;

	if (!mkdtemp(img) || !mkdtemp(dst) || (fd = open(img, O_RDONLY | O_DIRECTORY)) < 0) {
		CHECK(!"temporary dirs");
		return;
	}
	CHECK(mkdirat(fd, "usr", 0755) == 0 && mkdirat(fd, "proc", 0755) == 0 && symlinkat("usr/bin", fd, "bin") == 0);
	CHECK(mknodat(fd, "file", S_IFREG | 0600, 0) == 0 && mkfifoat(fd, "fifo", 0600) == 0);
	CHECK(fstat(fd, &before) == 0);
	CHECK(rootfs_tinyaws_skeleton(img, dst, &names, &n) == 0);
	CHECK(n == 2 && !strcmp(names[0], "file") && !strcmp(names[1], "usr"));
	rootfs_tinyaws_names_free(names, n);
	d = open(dst, O_RDONLY | O_DIRECTORY);
	CHECK(readlinkat(d, "bin", link, sizeof(link)) == 7 && !memcmp(link, "usr/bin", 7));
	CHECK(fstatat(d, "usr", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	CHECK(fstatat(d, "file", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	for (const char *const *m = (const char *const[]){ "app", "proc", "dev", "sys", NULL }; *m; m++)
		CHECK(fstatat(d, *m, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	CHECK(fstatat(d, "fifo", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT);
	CHECK(fstat(fd, &st) == 0 && st.st_mtim.tv_sec == before.st_mtim.tv_sec &&
	      st.st_mtim.tv_nsec == before.st_mtim.tv_nsec && faccessat(fd, "app", F_OK, AT_SYMLINK_NOFOLLOW) < 0);
	/* a second skeleton in the same place: an error, nothing returned */
	CHECK(rootfs_tinyaws_skeleton(img, dst, &names, &n) == -EEXIST && !names && n == 0);
	CHECK(rootfs_tinyaws_skeleton("/nonexistent-image", dst, &names, &n) == -ENOENT);
	close(d);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", img, dst);
	CHECK(system(cmd) == 0);
}

/* the app dir's own regular files only: no link, FIFO, directory; a cap */
static void test_app_files(void)
{
	char dir[] = "/tmp/test_rootfs_tinyaws-XXXXXX", path[128], *text;
	const char *why;
	int app, fd;

	if (!mkdtemp(dir) || (app = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		CHECK(!"a temporary app dir");
		return;
	}
	fd = openat(app, "tinyaws.build", O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "start: x\n", 9) == 9);
	if (fd >= 0)
		close(fd);
	CHECK(rootfs_tinyaws_app_read(app, "tinyaws.build", 64, &text, &why) == 0 && text);
	CHECK(text && !strcmp(text, "start: x\n"));
	free(text);
	CHECK(rootfs_tinyaws_app_read(app, "tinyaws.build", 8, &text, &why) == -EFBIG && !text);
	CHECK_STR(why, "too large");
	CHECK(rootfs_tinyaws_app_read(app, "none", 64, &text, &why) == 0 && !text);
	CHECK(symlinkat("tinyaws.build", app, "link") == 0);
	CHECK(rootfs_tinyaws_app_open(app, "link", -1, &why) == -EINVAL && strstr(why, "a symbolic link"));
	CHECK(mkfifoat(app, "fifo", 0600) == 0);
	CHECK(rootfs_tinyaws_app_open(app, "fifo", -1, &why) == -EINVAL);
	CHECK_STR(why, "not a regular file (a FIFO)");
	CHECK(mkdirat(app, "sub", 0700) == 0);
	CHECK(rootfs_tinyaws_app_open(app, "sub", -1, &why) == -EINVAL);
	CHECK_STR(why, "not a regular file (a directory)");
	CHECK(rootfs_tinyaws_app_open(app, "sub/x", -1, &why) == -EINVAL);
	fd = openat(app, "nul", O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "a\0b", 3) == 3);
	if (fd >= 0)
		close(fd);
	CHECK(rootfs_tinyaws_app_read(app, "nul", 64, &text, &why) == -EINVAL && !text);
	close(app);
	for (const char *const *n = (const char *const[]){ "tinyaws.build", "link", "fifo", "sub", "nul", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		remove(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_build_start();
	test_types();
	test_image_and_command();
	test_seccomp_order();
	test_root_checks();
	test_spec();
	test_app_files();
	test_skeleton();
	return unit_report("test_rootfs_tinyaws");
}
