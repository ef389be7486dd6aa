#include "runtime/linux/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "rootfs/rootfs.h"
#include "runtime/linux/fdsend.h"

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
	/* the name runc sends (SendRawFd(socket, pty.Name(), ...)): the path it
	 * opened the master by, /dev/pts/ptmx (runc 1.2.8+), as terminal_open */
	return fdsend_to(path, "--console-socket", "/dev/pts/ptmx", master, err);
}

void terminal_relay_prepare(int slave, const char *console_socket)
{
	struct termios t;

	if (console_socket || isatty(STDOUT_FILENO) || tcgetattr(slave, &t) < 0)
		return;
	t.c_oflag &= ~(tcflag_t)ONLCR;
	tcsetattr(slave, TCSANOW, &t);
}
