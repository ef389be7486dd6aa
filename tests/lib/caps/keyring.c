/* keyring: print the session keyring of this process, for bats assertions.
 *   session=<serial>              keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING)
 *   describe=<type;uid;gid;perm;description>   keyctl(KEYCTL_DESCRIBE)
 *   name=<description>            the last field of describe
 * Never creates a keyring. Built static so it runs in any rootfs. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	char desc[512];
	long id, n;
	char *name;

	id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	if (id < 0) {
		printf("error=get_keyring_id: %s\n", strerror(errno));
		return 1;
	}
	printf("session=%ld\n", id);
	n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, id, desc, sizeof(desc));
	if (n < 0) {
		printf("error=describe: %s\n", strerror(errno));
		return 1;
	}
	desc[sizeof(desc) - 1] = 0;
	name = strrchr(desc, ';');
	printf("describe=%s\nname=%s\n", desc, name ? name + 1 : "");
	return 0;
}
