/* runtime/entry/early_seal.c, the entry point's decision (which config
 * settles the sealed re-exec before libc starts) and the text scan it shares
 * with selfseal_guard_text. Any wrong answer here costs only time (main's
 * selfseal still decides), but a wrong config read is a re-exec missed. */
#include "runtime/entry/early_seal.c"   /* first: it wants the kernel's headers alone */

#include <stdio.h>
#include <string.h>

#include "unit.h"

/* The config the entry would read for ARGS (NULL: it leaves it to main). */
static const char *config_for(const char *const *args)
{
	static struct buf b;
	char *argv[32];
	int argc = 0;

	argv[argc++] = "tinyrun";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	buf_init(&b);
	return config_of(argc, argv, &b) ? b.s : NULL;
}

#define CONFIG_FOR(...) config_for((const char *const[]){ __VA_ARGS__, NULL })

static void test_config_of(void)
{
	CHECK_STR(CONFIG_FOR("create", "--bundle", "/b", "id"), "/b/config.json");
	CHECK_STR(CONFIG_FOR("create", "--bundle=/b", "id"), "/b/config.json");
	CHECK_STR(CONFIG_FOR("create", "-b", "/b", "id"), "/b/config.json");
	CHECK_STR(CONFIG_FOR("create", "id"), "./config.json");
	/* options after the id, as getopt permutes them */
	CHECK_STR(CONFIG_FOR("create", "id", "--bundle", "/b"), "/b/config.json");
	CHECK_STR(CONFIG_FOR("create", "--pid-file", "/p", "--config", "c.json", "-b", "/b", "id"), "/b/c.json");
	CHECK_STR(CONFIG_FOR("create", "--config=/abs/c.json", "id"), "/abs/c.json");
	/* global options and their values */
	CHECK_STR(CONFIG_FOR("--root", "/r", "--log", "/l", "--log-format", "json", "--systemd-cgroup", "run",
			     "-d", "--bundle", "/b", "id"), "/b/config.json");
	/* run's lone bundle path */
	CHECK_STR(CONFIG_FOR("run", "/b/"), "/b//config.json");
	CHECK_STR(CONFIG_FOR("run", "."), "./config.json");
	CHECK_STR(CONFIG_FOR("run", "--bundle", "/b", "x/y"), "/b/config.json");
	/* exec: the saved config under --root */
	CHECK_STR(CONFIG_FOR("exec", "id", "true"), "/run/tinyrun/id/config.json");
	CHECK_STR(CONFIG_FOR("--root=/r", "exec", "-e", "A=B", "--cwd", "/", "-u", "1:1", "--cap", "CAP_KILL",
			     "-t", "id", "sh", "-c", "x"), "/r/id/config.json");
	CHECK_STR(CONFIG_FOR("--root", "/r", "exec", "-p", "/p.json", "id"), "/r/id/config.json");
	/* left to main */
	CHECK(CONFIG_FOR("state", "id") == NULL);
	CHECK(CONFIG_FOR("--root", "run", "state", "x") == NULL);
	CHECK(CONFIG_FOR("run", "--tinyaws", "img", "id") == NULL);
	CHECK(CONFIG_FOR("run", "--tinyaws=img", "id") == NULL);
	CHECK(CONFIG_FOR("exec", "../x", "true") == NULL);
	CHECK(CONFIG_FOR("exec", "--", "id") == NULL);
	CHECK(CONFIG_FOR("create", "--bundle") == NULL);
	CHECK(CONFIG_FOR("--root") == NULL);
}

static bool scan(const char *s)
{
	return selfseal_text_may_declare_userns(s, strlen(s));
}

static void test_scan(void)
{
	CHECK(scan("{\"linux\":{\"namespaces\":[{\"type\":\"user\"}]}}"));
	CHECK(scan("{\"type\" :\t\r\n \"user\"}"));
	CHECK(scan("{\"hostname\": \"user\"}"));      /* a maybe: main's parse decides */
	CHECK(!scan("{\"user\": {\"uid\": 0}}"));    /* process.user is a key */
	CHECK(!scan("{\"type\": \"\\u0075ser\"}"));   /* missed: one re-exec too many, never one too few */
	CHECK(!scan("{\"type\": \"users\"}"));
	CHECK(!scan("\"user\""));
	CHECK(!scan(":\"use"));
	CHECK(!scan(""));
}

int main(void)
{
	test_config_of();
	test_scan();
	return unit_report("entry_early_seal");
}
