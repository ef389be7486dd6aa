/* The name tables and the lookups built on them. */
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "oci/config.h"
#include "oci/tables.h"
#include "unit.h"

static void test_mount_options(void)
{
	for (size_t i = 0; i < oci_n_mount_options; i++) {
		CHECK_STR(oci_mount_option_table[i].name, oci_mount_options[i]);
		if (i > 0)
			CHECK(strcmp(oci_mount_options[i - 1], oci_mount_options[i]) < 0);
		CHECK(oci_mount_option_find(oci_mount_options[i]) == &oci_mount_option_table[i]);
	}
	CHECK(oci_n_mount_options == 62);
	CHECK(oci_mount_option_find("mode=755") == NULL);
	CHECK(oci_mount_option_find("") == NULL);
	CHECK(oci_mount_option_find("RO") == NULL);
	CHECK(oci_mount_option_find("ro")->kind == OCI_MOPT_SET &&
	      oci_mount_option_find("ro")->value == MS_RDONLY);
	CHECK(oci_mount_option_find("rbind")->value == (MS_BIND | MS_REC));
	CHECK(oci_mount_option_find("rro")->kind == OCI_MOPT_ATTR_SET);
}

static void test_names(void)
{
	CHECK(oci_n_capabilities == 41);
	for (size_t i = 0; i < oci_n_capabilities; i++) {
		CHECK(oci_capabilities[i].value == (int)i);
		CHECK(strncmp(oci_capabilities[i].name, "CAP_", 4) == 0);
	}
	CHECK(oci_name_lookup(oci_capabilities, oci_n_capabilities, "CAP_SYS_ADMIN") == 21);
	CHECK(oci_name_lookup(oci_capabilities, oci_n_capabilities, "CAP_CHECKPOINT_RESTORE") == 40);
	CHECK(oci_name_lookup(oci_capabilities, oci_n_capabilities, "cap_sys_admin") == -1);
	CHECK_STR(oci_name_of(oci_capabilities, oci_n_capabilities, 38), "CAP_PERFMON");
	CHECK(oci_name_of(oci_capabilities, oci_n_capabilities, 41) == NULL);

	CHECK(oci_n_rlimits == 16);
	CHECK(oci_name_lookup(oci_rlimits, oci_n_rlimits, "RLIMIT_NOFILE") == RLIMIT_NOFILE);
	CHECK(oci_name_lookup(oci_rlimits, oci_n_rlimits, "RLIMIT_RTTIME") == RLIMIT_RTTIME);
	CHECK_STR(oci_name_of(oci_rlimits, oci_n_rlimits, RLIMIT_MSGQUEUE), "RLIMIT_MSGQUEUE");

	CHECK(oci_n_namespaces == OCI_NS_TYPES);
	CHECK(oci_name_lookup(oci_namespaces, oci_n_namespaces, "network") == OCI_NS_NET);
	CHECK(oci_name_lookup(oci_namespaces, oci_n_namespaces, "net") == -1);
	CHECK(oci_name_lookup(oci_hook_names, oci_n_hook_names, "startContainer") ==
	      OCI_HOOK_START_CONTAINER);
	CHECK(oci_n_hook_names == OCI_HOOK_KINDS);
	CHECK(oci_name_lookup(oci_seccomp_actions, oci_n_seccomp_actions, "SCMP_ACT_KILL_THREAD") ==
	      OCI_SECCOMP_KILL_THREAD);
	CHECK(oci_name_lookup(oci_seccomp_operators, oci_n_seccomp_operators, "SCMP_CMP_MASKED_EQ") ==
	      OCI_SECCOMP_OP_MASKED_EQ);
	CHECK(oci_name_lookup(oci_seccomp_archs, oci_n_seccomp_archs, "SCMP_ARCH_RISCV64") >= 0);
	CHECK(oci_name_lookup(oci_seccomp_flags, oci_n_seccomp_flags, "SECCOMP_FILTER_FLAG_TSYNC") == 1);
	CHECK(oci_name_lookup(oci_mempolicy_modes, oci_n_mempolicy_modes, "MPOL_WEIGHTED_INTERLEAVE") == 6);
	CHECK(oci_name_lookup(oci_sched_policies, oci_n_sched_policies, "SCHED_IDLE") == 5);
}

static void test_signals(void)
{
	static const struct { const char *s; int sig; } cases[] = {
		{ "KILL", SIGKILL },      { "SIGKILL", SIGKILL },   { "9", 9 },
		{ "sigkill", SIGKILL },   { "kill", SIGKILL },      { "TERM", SIGTERM },
		{ "SIGUSR1", SIGUSR1 },   { "hup", SIGHUP },        { "SIGWINCH", SIGWINCH },
		{ "SIGIOT", SIGABRT },    { "CLD", SIGCHLD },       { "0", 0 },
		{ "64", 64 },             { "SIGRTMIN", 0 },        { "RTMIN+3", 3 },
		{ "SIGRTMAX", 1000 },     { "SIGRTMAX-2", 998 },    { "sigrtmin+1", 1 },
		{ "", -1 },               { "SIG", -1 },            { "SIGFOO", -1 },
		{ "65", -1 },             { "-1", -1 },             { "9x", -1 },
		{ "SIGRTMIN-1", -1 },     { "SIGRTMAX+1", -1 },     { "RTMIN+", -1 },
		{ "RTMIN+31", -1 },       { "SIGKILLKILLKILLKILLKILLKILLKILLKILL", -1 },
		{ "99999999999999999999", -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int want = cases[i].sig;

		/* RT signals: 0.. is SIGRTMIN+n, 1000-n is SIGRTMAX-n */
		if (strstr(cases[i].s, "RTMIN") || strstr(cases[i].s, "rtmin"))
			want = want < 0 ? -1 : SIGRTMIN + want;
		else if (strstr(cases[i].s, "RTMAX"))
			want = want < 0 ? -1 : SIGRTMAX - (1000 - want);
		if (oci_signal_parse(cases[i].s) != want)
			fprintf(stderr, "signal \"%s\": got %d, want %d\n", cases[i].s,
				oci_signal_parse(cases[i].s), want);
		CHECK(oci_signal_parse(cases[i].s) == want);
	}
	CHECK_STR(oci_name_of(oci_signals, oci_n_signals, SIGABRT), "SIGABRT");
	CHECK_STR(oci_name_of(oci_signals, oci_n_signals, SIGCHLD), "SIGCHLD");
	CHECK_STR(oci_name_of(oci_signals, oci_n_signals, SIGSYS), "SIGSYS");
}

int main(void)
{
	test_mount_options();
	test_names();
	test_signals();
	return unit_report("test_oci_tables");
}
