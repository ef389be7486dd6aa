/* escape: the program a /proc/self/fd/N path must never reach on the host.
 * If it runs, it says so on stdout and in /out/escaped (when /out exists). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/out/escaped", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	puts("ESCAPED");
	return 0;
}
