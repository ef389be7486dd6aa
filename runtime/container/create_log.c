/* create's log lines about the config (create_log.h). */
#include "runtime/container/create_log.h"

#include <stdio.h>

#include "oci/tables.h"
#include "runtime/container/hooks.h"
#include "runtime/log.h"

void create_log_plan(const struct oci_config *cfg, const struct create_opts *o, const char *rootfs)
{
	char ns[128] = "";
	size_t n = 0;

	if (!log_debug_enabled())
		return;
	log_debug("config: %s (process %s, %zu mounts)", o->config_path ? o->config_path : "config.json",
		  cfg->process.n_args ? cfg->process.args[0] : "-", cfg->n_mounts);
	for (size_t i = 0; i < oci_n_namespaces; i++)
		if (cfg->linux_.ns[oci_namespaces[i].value].present)
			n += snprintf(ns + n, n < sizeof(ns) ? sizeof(ns) - n : 0, "%s%s", n ? " " : "",
				      oci_namespaces[i].name);
	log_debug("namespaces: %s", n ? ns : "none (the host's)");
	log_debug("rootfs: %s%s", rootfs, cfg->root_readonly ? " (read-only)" : "");
	for (size_t i = 0; i < cfg->n_mounts; i++)
		log_debug("mount: %s (%s from %s)", cfg->mounts[i].destination,
			  cfg->mounts[i].type ? cfg->mounts[i].type : "bind",
			  cfg->mounts[i].source ? cfg->mounts[i].source : "none");
	log_debug(o->no_pivot ? "root: MS_MOVE + chroot into %s (--no-pivot)" : "root: pivot_root into %s", rootfs);
	if (cfg->linux_.has_seccomp)
		log_debug("seccomp: %zu syscall rules, loaded just before exec", cfg->linux_.seccomp.n_syscalls);
	for (int k = 0; k < OCI_HOOK_KINDS; k++)
		if (cfg->hooks.n[k])
			log_debug("hooks: %zu %s", cfg->hooks.n[k], hooks_kind_name(k));
	log_debug("exec: %s, once started", cfg->process.n_args ? cfg->process.args[0] : "-");
}

void create_log_ignored(const struct oci_config *cfg)
{
	for (size_t i = 0; i < cfg->n_mounts; i++)
		if (cfg->mounts[i].destination_given)
			log_warn("mount destination %s is not absolute. Support for non-absolute mount destinations "
				 "will be removed in a future release.", cfg->mounts[i].destination_given);
	for (size_t i = 0; i < cfg->process.caps.n_unknown; i++)
		log_warn("process.capabilities: unknown capability \"%s\" ignored", cfg->process.caps.unknown[i]);
	for (size_t i = 0; i < cfg->linux_.resources.n_devices; i++) {
		const struct oci_device_rule *d = &cfg->linux_.resources.devices[i];

		if (d->access_given)
			log_warn("linux.resources.devices[%zu].access: \"%s\" is \"%s\" (letters other than r, w, m "
				 "ignored, as runc)", i, d->access_given, d->access);
	}
}
