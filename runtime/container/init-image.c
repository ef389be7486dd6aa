/* The embedded tinyrun-init and its sealed memfd (init-image.h). */
#include "runtime/container/init-image.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

__asm__(".pushsection .rodata\n"
	".balign 16\n"
	".type tinyrun_init_image, @object\n"
	"tinyrun_init_image:\n"
	".incbin \"build/init/tinyrun-init\"\n"
	".size tinyrun_init_image, . - tinyrun_init_image\n"
	"tinyrun_init_image_end:\n"
	".popsection\n");
extern const char tinyrun_init_image[], tinyrun_init_image_end[];

int init_image_memfd(struct error *err)
{
	size_t len = (size_t)(tinyrun_init_image_end - tinyrun_init_image), off = 0;
	int fd = memfd_create("tinyrun-init", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return error_sys(err, errno, "run.tinyrun.init: memfd_create");
	while (off < len) {
		ssize_t n = write(fd, tinyrun_init_image + off, len - off);

		if (n <= 0) {
			close(fd);
			return error_sys(err, n < 0 ? errno : EIO, "run.tinyrun.init: write the init");
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0555) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
		int e = errno;
		close(fd);
		return error_sys(err, e, "run.tinyrun.init: seal the init");
	}
	return fd;
}
