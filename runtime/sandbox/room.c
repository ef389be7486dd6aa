/* The hooks of runtime/sandbox/room.h: one call each into the room. */
#include "runtime/sandbox/room.h"
#include "runtime/sandbox/sandbox_host.h"

int room_host_check(const struct oci_config *cfg, struct error *err)
{
	return sandbox_host_check(cfg, err);
}

void room_explain_clone(unsigned long clone_ns, struct error *err)
{
	sandbox_host_explain_clone(clone_ns, err);
}

const char *room_host_blocked(void)
{
	return sandbox_host_blocked();
}

int room_join_open(const char *root, const char *bundle, struct oci_config *cfg, struct room_join *j,
		   struct error *err)
{
	return container_sandbox_join_open(root, bundle, cfg, j, err);
}

void room_join_close(struct room_join *j)
{
	container_sandbox_join_close(j);
}

int room_lease(struct container *c, struct oci_config *cfg, const struct room_join *j, struct error *err)
{
	return container_sandbox_lease(c, cfg, j, err);
}

int room_key_record(struct container *c, const struct room_join *j, struct error *err)
{
	return container_sandbox_key_record(c, j, err);
}

bool room_child_ids(const struct oci_config *cfg, uid_t *uid, gid_t *gid)
{
	*uid = cfg->sandbox.userns_auto ? cfg->process.uid : 0;
	*gid = cfg->sandbox.userns_auto ? cfg->process.gid : 0;
	return cfg->sandbox.userns_auto && cfg->sandbox.minimal_root;
}

int room_child_limits(const struct oci_config *cfg, struct error *err)
{
	return container_sandbox_child_limits(cfg, err);
}

int room_request_mnt_fd(const struct oci_config *cfg, int fd)
{
	return cfg->sandbox.request ? fd : -1;
}
