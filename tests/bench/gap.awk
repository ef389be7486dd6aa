# gap.awk: `perf script -F comm,ip,sym` of a system-wide `perf record -a -g` (one sample a
# stack, blank-line separated) -> CPU per container by what the kernel or user space was doing.
# Each sample goes to the first category whose functions appear anywhere in its stack, in the
# order below (a cgroup file opened during a clone counts as cgroup, not fork; an RCU callback
# that frees a mount counts as mounts). Every kernel thread starts in ret_from_fork: what a
# kworker or ksoftirqd does is matched by its work, not as fork. Run with
# -v HZ=<perf -F> -v N=<containers started> -v NAME=<column>; prints "category NAME µs".
BEGIN { RS = ""; FS = "\n" }
{
	s = ""
	for (i = 2; i <= NF; i++) { split($i, f, " "); s = s " " f[2] }
	if (s ~ /pv_native_safe_halt|default_idle|cpuidle_enter/) c = "idle (no task to run)"
	else if (s ~ /cgroup_mkdir|cgroup_rmdir|css_free_rwork_fn|css_release_work_fn|css_killed_work_fn|cgroup_attach_task|__cgroup1_procs_write|cgroup_file_write|cgroup_kn_lock_live|kernfs_iop_lookup|kernfs_fop_open|kernfs_fop_release|kernfs_dop_revalidate|cgroup_post_fork|cgroup_exit|cgroup_release|cgroup_can_fork|cpuset_/) c = "cgroups (mkdir, join, files, rmdir, release)"
	else if (s ~ /cleanup_net|copy_net_ns|setup_net|netlink_sendmsg|rtnl|put_net/) c = "network namespace (setup, lo, cleanup)"
	else if (s ~ /seccomp|bpf_int_jit|do_jit|bpf_prog_/) c = "seccomp"
	else if (s ~ /synchronize_rcu_expedited|rcu_exp_|sync_rcu_exp/) c = "expedited RCU grace periods"
	else if (s ~ /path_mount|do_mount|vfs_open_tree|move_mount|mount_setattr|fsconfig|fsmount|fsopen|cleanup_mnt|namespace_unlock|umount|pivot_root|put_mnt_ns|copy_mnt_ns|delayed_free_vfsmnt|destroy_super_work|deactivate_super|deactivate_locked_super/) c = "mounts (make, pivot, tear down)"
	else if (s ~ /execve|load_elf_binary|begin_new_exec/) c = "exec"
	else if (s ~ /exc_page_fault/) c = "page faults"
	else if (s ~ /do_exit|exit_mmap|mmput/) c = "exit"
	else if (s ~ /kernel_clone|copy_process/) c = "fork (and other namespaces)"
	else if (s ~ /rcu_do_batch|rcu_core/) c = "RCU callbacks (deferred frees)"
	else if (s ~ /path_openat|filename_lookup|do_sys_openat2|do_mkdirat|do_rmdir|do_unlinkat|do_renameat2|vfs_write|vfs_read|do_symlinkat|do_mknodat|__fput|vfs_statx|vfs_fstat/) c = "files (open, read, write, state dir)"
	else if (s !~ /entry_SYSCALL|asm_|worker_thread|kthread/) c = "user space"
	else c = "other kernel"
	n[c]++
}
END { for (c in n) printf "%s\t%s\t%.0f\n", c, NAME, n[c] * 1e6 / HZ / N }
