/* rootfs/sandbox/tinyaws.h: tinyaws' conventions, for `tinyrun bundle tinyaws`. */
#include "rootfs/sandbox/tinyaws.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"

static const struct {
	const char *name;
	unsigned cpu, mem;
} types[] = {
	{ "nano", 25, 128 }, { "micro", 50, 256 }, { "small", 100, 512 },
	{ "medium", 200, 1024 }, { "large", 400, 2048 },
};

int rootfs_tinyaws_type(const char *name, unsigned *cpu_percent, unsigned *memory_mb)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(name, types[i].name)) {
			*cpu_percent = types[i].cpu;
			*memory_mb = types[i].mem;
			return 0;
		}
	return -1;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int rootfs_tinyaws_build_start(const char *text, char *out, size_t size)
{
	int found = 0;

	for (const char *line = text; *line;) {
		const char *end = line + strcspn(line, "\n"), *p = skip_blank(line, end), *v, *ve;

		if (p < end && *p != '#' && end - p >= 6 && !strncmp(p, "start", 5)) {
			v = skip_blank(p + 5, end);
			if (v < end && *v == ':') {
				v = skip_blank(v + 1, end);
				ve = end;
				while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
					ve--;
				if ((size_t)(ve - v) >= size)
					return -ENAMETOOLONG;
				memcpy(out, v, (size_t)(ve - v));
				out[ve - v] = '\0';
				found = 1;   /* the last one wins, as a key: value file read into a map */
			}
		}
		line = *end ? end + 1 : end;
	}
	return found;
}

int rootfs_tinyaws_image_path(const char *arg, const char *images_dir, char *out, size_t size)
{
	if (strchr(arg, '/'))
		return (size_t)snprintf(out, size, "%s", arg) >= size ? -ENAMETOOLONG : 0;
	if (!*arg || !strcmp(arg, ".") || !strcmp(arg, ".."))
		return -EINVAL;
	if (!images_dir || !*images_dir)
		images_dir = TINYAWS_IMAGES_DIR;
	return (size_t)snprintf(out, size, "%s/%s", images_dir, arg) >= size ? -ENAMETOOLONG : 0;
}

int rootfs_tinyaws_command(char *const *cmd, int n_cmd, const char *start, bool has_start_sh,
			   char *out, size_t size)
{
	size_t n = 0;

	if (n_cmd > 0) {
		out[0] = '\0';
		for (int i = 0; i < n_cmd; i++) {
			n += (size_t)snprintf(out + (n < size ? n : size), n < size ? size - n : 0, "%s%s",
					      i ? " " : "", cmd[i]);
			if (n >= size)
				return -ENAMETOOLONG;
		}
		return 0;
	}
	if (start && *start)
		return (size_t)snprintf(out, size, "%s", start) >= size ? -ENAMETOOLONG : 0;
	if (has_start_sh)
		return (size_t)snprintf(out, size, "sh start.sh") >= size ? -ENAMETOOLONG : 0;
	return -ENOENT;
}

const char *rootfs_tinyaws_seccomp_pick(const char *opt, const char *env, const char *exe_dir,
					bool (*exists)(const char *path), char *buf, size_t size,
					const char **source)
{
	if (opt) {
		*source = "--seccomp";
		return opt;
	}
	if (env && *env) {
		*source = "$TINYAWS_SECCOMP_PROFILE";
		return env;
	}
	if (exe_dir && (size_t)snprintf(buf, size, "%s/seccomp-default.json", exe_dir) < size && exists(buf)) {
		*source = "next to the tinyrun binary";
		return buf;
	}
	if (exists(TINYAWS_ETC_PROFILE)) {
		*source = TINYAWS_ETC_PROFILE;
		return TINYAWS_ETC_PROFILE;
	}
	*source = "tinyrun's default profile";
	return NULL;
}

/* openat2 beneath APP, no link followed (a plain openat with O_NOFOLLOW
 * where the kernel lacks it: NAME holds no '/'). */
static int open_beneath(int app, const char *name, int flags)
{
	struct open_how how = { .flags = (unsigned)flags | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, app, name, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		fd = openat(app, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int not_regular(const struct stat *st, const char **why)
{
	if (S_ISREG(st->st_mode))
		return 0;
	*why = S_ISLNK(st->st_mode) ? "a symbolic link: refused (read on the host, it must be the app dir's own file)"
	       : S_ISFIFO(st->st_mode) ? "not a regular file (a FIFO)"
	       : S_ISDIR(st->st_mode) ? "not a regular file (a directory)"
	       : S_ISSOCK(st->st_mode) ? "not a regular file (a socket)" : "not a regular file (a device)";
	return -EINVAL;
}

int rootfs_tinyaws_app_open(int app, const char *name, long long max, const char **why)
{
	struct stat st;
	int fd, r;

	*why = NULL;
	if (strchr(name, '/'))
		return (*why = "not a name in the app dir"), -EINVAL;
	/* the type first, from the entry itself: a FIFO or a device is never opened */
	if (fstatat(app, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (not_regular(&st, why) < 0)
		return -EINVAL;
	if ((fd = open_beneath(app, name, O_RDONLY | O_NONBLOCK | O_NOCTTY)) < 0) {
		if (fd == -ELOOP)
			*why = "a symbolic link: refused (read on the host, it must be the app dir's own file)";
		return fd;
	}
	/* again on what was opened: the entry may have changed in between */
	r = fstat(fd, &st) < 0 ? -errno : not_regular(&st, why);
	if (r == 0 && max >= 0 && st.st_size > max) {
		*why = "too large";
		r = -EFBIG;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int rootfs_tinyaws_app_read(int app, const char *name, size_t max, char **text, const char **why)
{
	int fd = rootfs_tinyaws_app_open(app, name, (long long)max, why);
	size_t len = 0;
	ssize_t n;
	char *buf;

	*text = NULL;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (!(buf = malloc(max + 1))) {
		close(fd);
		return -ENOMEM;
	}
	/* the size checked, then read to its end: a file grown since is cut at max + 1 */
	while (len <= max && (n = read(fd, buf + len, max + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			free(buf);
			return (int)n;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len > max ? max : len] = '\0';
	if (len > max || strlen(buf) != len) {
		*why = len > max ? "too large" : "not text (a NUL byte)";
		free(buf);
		return len > max ? -EFBIG : -EINVAL;
	}
	*text = buf;
	return 0;
}

int rootfs_tinyaws_copy_app(int app, const char *dest_dir)
{
	int from = openat(app, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), to, r;

	if (from < 0)
		return -errno;
	if ((to = open(dest_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		close(from);
		return r;
	}
	r = rootfs_copy_tree(from, to, 0);
	close(from);
	close(to);
	return r;
}

/* the mount points every job gets (spec_tinyaws.c): never bound from the image */
static const char *const job_mounts[] = { "app", "proc", "dev", "sys" };
#define N_JOB_MOUNTS (sizeof(job_mounts) / sizeof(job_mounts[0]))

static bool is_job_mount(const char *name)
{
	for (size_t i = 0; i < N_JOB_MOUNTS; i++)
		if (!strcmp(name, job_mounts[i]))
			return true;
	return false;
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !is_job_mount(e->d_name);
}

/* One entry NAME of the image (IMG) in the skeleton (TO): 1 when it is to be
 * bound (a directory or a file: its mount point made), 0 when done (a link,
 * copied as a link) or skipped (a device, FIFO or socket), or -errno. */
static int skeleton_entry(int img, int to, const char *name)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t len;

	if (fstatat(img, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		if ((len = readlinkat(img, name, target, sizeof(target) - 1)) < 0)
			return -errno;
		target[len] = '\0';
		return symlinkat(target, to, name) < 0 ? -errno : 0;
	}
	if (S_ISDIR(st.st_mode))
		return mkdirat(to, name, 0755) < 0 ? -errno : 1;
	if (S_ISREG(st.st_mode))
		return mknodat(to, name, S_IFREG | 0644, 0) < 0 ? -errno : 1;
	return 0;
}

static int skeleton_fill(int img, int to, char ***names, size_t *n)
{
	struct dirent **list = NULL;
	int count = scandirat(img, ".", &list, not_dots, alphasort), r = 0;

	if (count < 0)
		return -errno;
	if (!(*names = calloc((size_t)count + 1, sizeof(char *))))
		r = -ENOMEM;
	for (int i = 0; i < count; i++) {
		if (r >= 0 && (r = skeleton_entry(img, to, list[i]->d_name)) == 1 &&
		    !((*names)[(*n)++] = strdup(list[i]->d_name)))
			r = -ENOMEM;
		free(list[i]);
	}
	free(list);
	for (size_t i = 0; r >= 0 && i < N_JOB_MOUNTS; i++)
		if (mkdirat(to, job_mounts[i], 0755) < 0)
			r = -errno;
	return r < 0 ? r : 0;
}

int rootfs_tinyaws_skeleton(const char *image, const char *dest_dir, char ***names, size_t *n)
{
	int img = open(image, O_RDONLY | O_DIRECTORY | O_CLOEXEC), to = -1, r;

	*names = NULL;
	*n = 0;
	if (img < 0 || (to = open(dest_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		r = -errno;
	else
		r = skeleton_fill(img, to, names, n);
	if (img >= 0)
		close(img);
	if (to >= 0)
		close(to);
	if (r < 0) {
		rootfs_tinyaws_names_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return r;
}

void rootfs_tinyaws_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
