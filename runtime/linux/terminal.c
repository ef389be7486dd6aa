#include "runtime/linux/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "rootfs/rootfs.h"
#include "runtime/container/sync.h"

int terminal_open(const char *rootfs, const struct oci_process *p, int *slave, struct error *err)
{
	int root, master, unlock = 0;

	root = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return error_sys(err, errno, "terminal: %s", rootfs);
	master = rootfs_open_in_root(root, "/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
	close(root);
	if (master < 0)
		return error_sys(err, -master, "terminal: open /dev/pts/ptmx in the container");
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		goto fail;
	*slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0)
		goto fail;
	if (p->has_console_size) {
		struct winsize ws = { .ws_row = p->console_height, .ws_col = p->console_width };
		ioctl(*slave, TIOCSWINSZ, &ws);
	}
	return master;
fail:
	error_sys(err, errno, "terminal: pty");
	close(master);
	return -err->code;
}

int terminal_none(struct error *err)
{
	return setsid() < 0 ? error_sys(err, errno, "setsid") : 0;
}

int terminal_take(int slave, struct error *err)
{
	if (setsid() < 0)
		return error_sys(err, errno, "terminal: setsid");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return error_sys(err, errno, "terminal: TIOCSCTTY");
	for (int fd = 0; fd < 3; fd++)
		if (dup2(slave, fd) < 0)
			return error_sys(err, errno, "terminal: dup2");
	return 0;
}

int terminal_send(const char *path, int master, struct error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return error_set(err, ENAMETOOLONG, "--console-socket %s: path too long", path);
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = error_sys(err, errno, "--console-socket %s", path);
		if (s >= 0)
			close(s);
		return r;
	}
	/* payload: the pty name, as runc sends it */
	r = sync_send(s, 0, 0, "/dev/ptmx", 9, master);
	close(s);
	return r < 0 ? error_sys(err, -r, "--console-socket %s: send", path) : 0;
}

void terminal_relay_prepare(int master)
{
	struct termios t;

	if (isatty(STDOUT_FILENO) || tcgetattr(master, &t) < 0)
		return;
	t.c_oflag &= ~(tcflag_t)ONLCR;
	tcsetattr(master, TCSANOW, &t);
}
