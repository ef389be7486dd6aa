/* Shared by the fuzz targets: without libFuzzer (FUZZ_LIBFUZZER unset),
 * main() replays every file named on the command line, or every file in a
 * named directory, through LLVMFuzzerTestOneInput and prints
 * "<target>: N passed, M failed". A crash or sanitizer report aborts the
 * run (FUZZ_SAN: -fno-sanitize-recover=all), which the caller counts as a
 * failure; tests/run-all.sh also fails a run whose output holds a report. */
#ifndef TINYRUN_FUZZ_REPLAY_H
#define TINYRUN_FUZZ_REPLAY_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_LIBFUZZER
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && n < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (!buf || n != (size_t)st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static void replay_path(const char *path, int *passed, int *failed)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((e = readdir(d))) {
			char sub[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			replay_path(sub, passed, failed);
		}
		closedir(d);
		return;
	}
	if (replay_file(path) == 0)
		(*passed)++;
	else
		(*failed)++;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	for (int i = 1; i < argc; i++)
		replay_path(argv[i], &passed, &failed);
	printf("%s: %d passed, %d failed\n", name, passed, failed);
	return failed ? 1 : 0;
}
#endif
#endif
