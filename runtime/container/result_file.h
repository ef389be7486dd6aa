/* `run --result FILE`: the file is checked before anything is made (its
 * directory exists and takes a new file: an O_TMPFILE is opened in it
 * there and then, or, where the filesystem has none, access(W_OK|X_OK);
 * FILE itself is not a directory), and written at the end atomically: the
 * whole document into an unnamed file (O_TMPFILE) linked under an
 * unpredictable name of the same directory (or one made O_CREAT|O_EXCL|
 * O_NOFOLLOW), then renamed over FILE. A reader sees the old file or the
 * whole new one, never a part; a symlink planted at FILE is replaced, not
 * followed; a run killed before the end leaves no temporary file. */
#ifndef TINYRUN_RESULT_FILE_H
#define TINYRUN_RESULT_FILE_H

#include <stddef.h>

#include "oci/error.h"

struct result_file {
	const char *path;          /* as given, for messages */
	char base[256];            /* its last component */
	int dirfd;                 /* its directory, or -1 */
	int tmpfd;                 /* the O_TMPFILE, or -1 */
};

/* Errors: "--result: PATH: reason". */
int result_file_open(const char *path, struct result_file *f, struct error *err);
int result_file_commit(struct result_file *f, const char *data, size_t len, struct error *err);
void result_file_close(struct result_file *f);

#endif
