#include "bundle.h"
#include "oci/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int read_whole_file(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	size_t cap = 16384, n = 0;
	struct stat sb;
	char *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		cap = sb.st_size + 1;
	/* bigger than any document the parser accepts: do not read it all */
	if (cap > OCI_JSON_MAX_SIZE + 1) {
		close(fd);
		return -EFBIG;
	}
	if (!(p = malloc(cap))) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			if (cap > OCI_JSON_MAX_SIZE) {
				free(p);
				close(fd);
				return -EFBIG;
			}
			char *q = realloc(p, cap *= 2);
			if (!q) {
				free(p);
				close(fd);
				return -ENOMEM;
			}
			p = q;
		}
		r = read(fd, p + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(p);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

int bundle_load(const char *dir, const char *config, struct bundle *b, struct error *err)
{
	int r;

	memset(b, 0, sizeof(*b));
	if (!realpath(dir, b->path))
		return error_sys(err, errno, "bundle %s", dir);
	if (!config)
		config = "config.json";
	if ((size_t)snprintf(b->config_path, sizeof(b->config_path), "%s%s%s", config[0] == '/' ? "" : b->path,
			     config[0] == '/' ? "" : "/", config) >= sizeof(b->config_path))
		return error_set(err, ENAMETOOLONG, "--config %s: path too long", config);
	r = read_whole_file(b->config_path, &b->json, &b->len);
	if (r == -EFBIG)
		return error_set(err, EFBIG, "%s: too large (at most %d MiB)", config, OCI_JSON_MAX_SIZE >> 20);
	if (r < 0)
		return error_sys(err, -r, "bundle %s: %s", b->path, config);
	r = oci_config_parse("config.json", b->json, b->len, OCI_PARSE_ALL, &b->cfg, err);
	if (r < 0) {
		free(b->json);
		b->json = NULL;
	}
	return r;
}

void bundle_free(struct bundle *b)
{
	if (b->json) {
		oci_config_free(&b->cfg);
		free(b->json);
		b->json = NULL;
	}
}
