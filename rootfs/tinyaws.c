/* rootfs/tinyaws.h: tinyaws' conventions, for `tinyrun bundle tinyaws`. */
#include "rootfs/tinyaws.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

int rootfs_tinyaws_copy_app(const char *app, const char *dest_dir)
{
	int from = open(app, O_RDONLY | O_DIRECTORY | O_CLOEXEC), to, r;

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
