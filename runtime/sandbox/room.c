/* The hooks of runtime/sandbox/room.h that are not a module's own function. */
#include "runtime/sandbox/room.h"

bool room_child_ids(const struct oci_config *cfg, uid_t *uid, gid_t *gid)
{
	*uid = cfg->sandbox.userns_auto ? cfg->process.uid : 0;
	*gid = cfg->sandbox.userns_auto ? cfg->process.gid : 0;
	return cfg->sandbox.userns_auto && cfg->sandbox.minimal_root;
}

int room_request_mnt_fd(const struct oci_config *cfg, int fd)
{
	return cfg->sandbox.request ? fd : -1;
}
