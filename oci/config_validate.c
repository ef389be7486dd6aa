/* Rules that span sections, checked once everything is parsed. They follow
 * the spec and what runc refuses (libcontainer/configs/validate). */
#include <errno.h>
#include <string.h>

#include "parse.h"
#include "oci/sandbox/room.h"

#define LINUX JKEY(NULL, "linux")

static bool has_ns(const struct oci_config *cfg, enum oci_ns_type t)
{
	return cfg->linux_.ns[t].present;
}

static int check_userns(struct pctx *c, const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;
	bool maps = l->n_uid_mappings || l->n_gid_mappings;
	const char *key = l->n_uid_mappings || !l->n_gid_mappings ? "uidMappings" : "gidMappings";

	if (!has_ns(cfg, OCI_NS_USER)) {
		if (maps)
			return parse_err(c, JKEY(LINUX, key), "given without a user namespace");
		return 0;
	}
	if (l->ns[OCI_NS_USER].path && maps)
		return parse_err(c, JKEY(LINUX, key), "not allowed when joining a user namespace by path");
	if (!l->ns[OCI_NS_USER].path && !maps && !oci_room_userns_leased(cfg))   /* leased: runtime/sandbox/lease.h */
		return parse_err(c, JKEY(LINUX, "uidMappings"), "required with a new user namespace");
	return 0;
}

static int check_namespaced(struct pctx *c, const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;

	if (cfg->hostname && !has_ns(cfg, OCI_NS_UTS))
		return parse_err(c, JKEY(NULL, "hostname"), "requires a uts namespace");
	if (cfg->domainname && !has_ns(cfg, OCI_NS_UTS))
		return parse_err(c, JKEY(NULL, "domainname"), "requires a uts namespace");
	if ((l->time_offsets[OCI_CLOCK_MONOTONIC].present ||
	     l->time_offsets[OCI_CLOCK_BOOTTIME].present) && !has_ns(cfg, OCI_NS_TIME))
		return parse_err(c, JKEY(LINUX, "timeOffsets"), "requires a time namespace");
	if (l->n_net_devices && !has_ns(cfg, OCI_NS_NET))
		return parse_err(c, JKEY(LINUX, "netDevices"), "requires a network namespace");
	return 0;
}

/* Which namespace makes a sysctl safe to set (runc's list); -1: none does. */
static int sysctl_ns(const char *key)
{
	static const char *const ipc[] = {
		"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem",
		"kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
	};

	for (size_t i = 0; i < sizeof(ipc) / sizeof(ipc[0]); i++)
		if (strcmp(key, ipc[i]) == 0)
			return OCI_NS_IPC;
	if (strncmp(key, "fs.mqueue.", 10) == 0)
		return OCI_NS_IPC;
	if (strncmp(key, "net.", 4) == 0)
		return OCI_NS_NET;
	if (strcmp(key, "kernel.domainname") == 0 || strcmp(key, "kernel.hostname") == 0)
		return OCI_NS_UTS;
	return -1;
}

static int check_sysctl(struct pctx *c, const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;
	const struct jpath *kp = JKEY(LINUX, "sysctl");

	for (size_t i = 0; i < l->n_sysctl; i++) {
		const char *key = l->sysctl[i].key;
		int ns = sysctl_ns(key);

		if (ns < 0)
			return parse_err(c, JKEY(kp, key), "not in a separate kernel namespace");
		if (!has_ns(cfg, ns))
			return parse_err(c, JKEY(kp, key), "requires %s namespace",
				    ns == OCI_NS_IPC ? "an ipc" : ns == OCI_NS_NET ? "a network" : "a uts");
		if (strcmp(key, "kernel.hostname") == 0)
			return parse_err(c, JKEY(kp, key), "conflicts with the hostname field");
		/* which one would win is an accident of order: only the same value (crun) */
		if (strcmp(key, "kernel.domainname") == 0 && cfg->domainname &&
		    strcmp(cfg->domainname, l->sysctl[i].value) != 0)
			return parse_err(c, JKEY(kp, key), "\"%s\" conflicts with the domainname field (\"%s\")",
					 l->sysctl[i].value, cfg->domainname);
	}
	return 0;
}

/* config.md: idmap without mappings needs the container's user namespace. */
static int check_idmap_mounts(struct pctx *c, const struct oci_config *cfg)
{
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		if ((m->idmap || m->ridmap) && !m->n_uid_mappings && !has_ns(cfg, OCI_NS_USER))
			return parse_err(c, JKEY(JIDX(JKEY(NULL, "mounts"), i), "options"),
				    "%s needs uidMappings and gidMappings or a user namespace",
				    m->ridmap ? "ridmap" : "idmap");
	}
	return 0;
}

int parse_validate(struct pctx *c, const struct oci_config *cfg)
{
	int r;

	if ((r = check_userns(c, cfg)) < 0 ||
	    (r = check_namespaced(c, cfg)) < 0 ||
	    (r = check_sysctl(c, cfg)) < 0 ||
	    (r = check_idmap_mounts(c, cfg)) < 0)
		return r;
	return 0;
}

/* What only creating a container needs: the config may lack them for the
 * other commands (delete reads its hooks, exec its process defaults). */
int oci_config_check_create(const struct oci_config *cfg, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;

	if (!cfg->has_process)
		return error_set(err, EINVAL, "config.json: .process: required to create a container");
	if (!cfg->root_path)
		return error_set(err, EINVAL, "config.json: .root: required to create a container");
	if (!l->ns[OCI_NS_MOUNT].present)
		return error_set(err, EINVAL, "config.json: .linux.namespaces: a mount namespace is required");
	/* only one of the two (neither: check_userns) */
	if (has_ns(cfg, OCI_NS_USER) && !l->ns[OCI_NS_USER].path && (!l->n_uid_mappings || !l->n_gid_mappings) &&
	    !oci_room_userns_leased(cfg))
		return error_set(err, EINVAL, "config.json: .linux.uidMappings: a new user namespace needs uid and gid mappings");
	if (cfg->init && !(l->ns[OCI_NS_PID].present && !l->ns[OCI_NS_PID].path))
		return error_set(err, EINVAL, "config.json: .annotations[\"run.tinyrun.init\"]: needs a new pid namespace "
				 "(.linux.namespaces: {\"type\": \"pid\"})");
	return 0;
}
