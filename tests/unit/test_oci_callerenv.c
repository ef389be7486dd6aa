/* oci/callerenv.h: the caller's environment, a private copy taken once. */
#include <stdlib.h>
#include <string.h>

#include "oci/callerenv.h"
#include "unit.h"

extern char **environ;

static size_t count(char *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	return n;
}

static void test_before_capture(void)
{
	CHECK(callerenv_get("PATH") == NULL);
	CHECK(callerenv_list() && callerenv_list()[0] == NULL);
	CHECK(!callerenv_take("PATH"));
}

static void test_capture(void)
{
	char a[] = "A=1", path[] = "PATH=/bin", mark[] = "_MARK=1", empty[] = "E=", eq[] = "X==y";
	char *caller[] = { a, path, mark, empty, eq, NULL };
	char *other[] = { "B=2", NULL };
	char *const *list;

	CHECK(callerenv_capture(caller) == 0);
	CHECK_STR(callerenv_get("A"), "1");
	CHECK_STR(callerenv_get("PATH"), "/bin");
	CHECK_STR(callerenv_get("E"), "");
	CHECK_STR(callerenv_get("X"), "=y");
	CHECK(callerenv_get("PAT") == NULL);      /* a prefix is no name */
	CHECK(callerenv_get("A=1") == NULL);
	/* environ: the same variables, in another array */
	CHECK(environ != caller && count(environ) == 5 && !strcmp(environ[1], "PATH=/bin"));
	/* a deep copy: what the caller's memory (or environ) becomes later is not read */
	memcpy(path, "PATH=/img", sizeof(path));
	a[2] = '9';
	environ = other;
	CHECK_STR(callerenv_get("PATH"), "/bin");
	CHECK_STR(callerenv_get("A"), "1");
	CHECK(callerenv_get("B") == NULL);
	list = callerenv_list();
	CHECK(count(list) == 5 && !strcmp(list[0], "A=1"));
}

static void test_take(void)
{
	char *const *list;

	CHECK(callerenv_take("_MARK"));
	CHECK(!callerenv_take("_MARK"));
	CHECK(callerenv_get("_MARK") == NULL);
	list = callerenv_list();
	CHECK(count(list) == 4);
	CHECK(!strcmp(list[0], "A=1") && !strcmp(list[1], "PATH=/bin") && !strcmp(list[2], "E="));
}

int main(void)
{
	test_before_capture();
	test_capture();
	test_take();
	return unit_report("test_oci_callerenv");
}
