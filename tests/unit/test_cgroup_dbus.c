/* The D-Bus wire format of --systemd-cgroup (runtime/cgroup/dbus_wire.c):
 * the calls we send, byte for byte what sd-bus sent (captured with strace
 * -xx from the libsystemd build against tests/lib/mock-systemd.py), and the
 * checked parsing of dbus-daemon's messages captured there too (a
 * METHOD_RETURN "o", an ERROR, a JobRemoved "uoss" signal), then the same
 * broken in every way that must be refused. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/dbus_wire.h"
#include "runtime/cgroup/systemd-dbus.h"
#include "runtime/cgroup/systemd-props.h"
#include "unit.h"

/* sd-bus's StartTransientUnit, serial 3, for tinyrun-x.scope, pid 3702 */
static const char start_hex[] =
	"6c0100013001000003000000b600000001016f00190000002f6f72672f667265656465736b746f702f73797374656d64"
	"3100000000000000030173001200000053746172745472616e7369656e74556e69740000000000000201730020000000"
	"6f72672e667265656465736b746f702e73797374656d64312e4d616e6167657200000000000000000601730018000000"
	"6f72672e667265656465736b746f702e73797374656d6431000000000000000008016700107373612873762961287361"
	"28737629290000000f00000074696e7972756e2d782e73636f706500040000006661696c000000000401000000000000"
	"0b0000004465736372697074696f6e00017300001300000074696e7972756e20636f6e7461696e657220780000000000"
	"05000000536c696365000173000000000f00000068646275732d7375622e736c69636500000000000800000044656c65"
	"676174650001620001000000000000000400000050494473000261750000000004000000760e00001300000044656661"
	"756c74446570656e64656e63696573000162000000000000100000004d656d6f72794163636f756e74696e6700016200"
	"01000000000000000d0000004350554163636f756e74696e670001620000000001000000000000000f0000005461736b"
	"734163636f756e74696e6700016200000100000000000000";
/* sd-bus's Hello, serial 1 */
static const char hello_hex[] =
	"6c01000100000000010000006d00000001016f00150000002f6f72672f667265656465736b746f702f444275730000000301"
	"73000500000048656c6c6f00000002017300140000006f72672e667265656465736b746f702e4442757300000000060173"
	"00140000006f72672e667265656465736b746f702e4442757300000000";
/* dbus-daemon: systemd's (the mock's) reply to StartTransientUnit */
static const char reply_hex[] =
	"6c02010124000000110000002d00000006017300050000003a312e3131000000050175000300000008016700016f000007"
	"017300040000003a312e32000000001f0000002f6f72672f667265656465736b746f702f73797374656d64312f6a6f622f"
	"3700";
/* its error reply, org.freedesktop.DBus.Error.AccessDenied "mock: no scopes today" */
static const char error_hex[] =
	"6c0301011a000000100000005d00000006017300050000003a312e313000000004017300270000006f72672e667265656465"
	"736b746f702e444275732e4572726f722e41636365737344656e69656400050175000300000008016700017300000701"
	"7300040000003a312e3200000000150000006d6f636b3a206e6f2073636f70657320746f64617900";
/* JobRemoved(7, "/org/freedesktop/systemd1/job/7", "tinyrun-x.scope", "done") */
static const char signal_hex[] =
	"6c04010145000000120000008d00000001016f00190000002f6f72672f667265656465736b746f702f73797374656d6431"
	"0000000000000002017300200000006f72672e667265656465736b746f702e73797374656d64312e4d616e616765720000"
	"000000000000030173000a0000004a6f6252656d6f7665640000000000000801670004756f73730000000000000007017300"
	"040000003a312e3200000000070000001f0000002f6f72672f667265656465736b746f702f73797374656d64312f6a6f62"
	"2f37000f00000074696e7972756e2d782e73636f70650004000000646f6e6500";

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static int parse_hex(const char *h, uint8_t *buf, size_t *len, struct dbus_msg *m)
{
	*len = unhex(h, buf);
	return dbus_msg_parse(buf, *len, m);
}

/* A message whose every shorter prefix is refused, and any one-off length. */
static void check_truncations(const uint8_t *p, size_t len)
{
	struct dbus_msg m;
	size_t size;
	int bad = 0;

	for (size_t n = 0; n < len; n++)
		bad += dbus_msg_parse(p, n, &m) == -EBADMSG;
	CHECK(bad == (int)len);
	CHECK(dbus_msg_size(p, &size) == 0 && size == len);
	CHECK(dbus_msg_parse(p, len + 1, &m) == -EBADMSG);
}

static uint8_t *find(uint8_t *p, size_t len, const void *needle, size_t n)
{
	return memmem(p, len, needle, n);
}

static void test_calls(void)
{
	uint8_t want[1024], buf[4096];
	/* v2: sd-bus's call had no v1 devices properties */
	struct systemd_unit u = { .name = "tinyrun-x.scope", .slice = "hdbus-sub.slice",
				  .description = "tinyrun container x", .v2 = true };
	struct dbus_writer w;
	struct dbus_msg m;
	size_t n;

	dbw_init(&w, buf, sizeof(buf));
	CHECK(cgsd_start_call(&w, 3, &u, 3702, NULL, 0, NULL) == 0);
	n = unhex(start_hex, want);
	CHECK(dbw_finish(&w) == (int)n);
	CHECK(n == 504 && !memcmp(buf, want, n));
	CHECK(dbus_msg_parse(buf, n, &m) == 0);
	CHECK(m.type == DBUS_METHOD_CALL && m.serial == 3);
	CHECK_STR(m.member, "StartTransientUnit");
	CHECK_STR(m.interface, "org.freedesktop.systemd1.Manager");
	CHECK_STR(m.destination, "org.freedesktop.systemd1");
	CHECK_STR(m.signature, "ssa(sv)a(sa(sv))");

	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 1, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "");
	n = unhex(hello_hex, want);
	CHECK(dbw_finish(&w) == (int)n && !memcmp(buf, want, n));

	/* a slice: Wants=[slice], no Slice, Delegate or PIDs; a valid message */
	snprintf(u.name, sizeof(u.name), "a-b.slice");
	snprintf(u.slice, sizeof(u.slice), "a.slice");
	dbw_init(&w, buf, sizeof(buf));
	cgsd_start_call(&w, 9, &u, 1, NULL, 0, NULL);
	CHECK(dbw_finish(&w) > 0);
	CHECK(dbus_msg_parse(buf, w.len, &m) == 0);
	CHECK(find(buf, w.len, "Wants\0\2as\0", 10) && find(buf, w.len, "\7\0\0\0a.slice", 11));
	CHECK(!find(buf, w.len, "PIDs", 4) && !find(buf, w.len, "Delegate", 8) && !find(buf, w.len, "Slice", 5));

	/* a buffer too small: refused, never overrun */
	dbw_init(&w, buf, 100);
	cgsd_start_call(&w, 9, &u, 1, NULL, 0, NULL);
	CHECK(w.overflow && w.len <= 100 && dbw_finish(&w) == -EMSGSIZE);
}

static void test_replies(void)
{
	uint8_t buf[1024];
	struct dbus_msg m;
	const char *s, *path, *unit, *result;
	uint32_t id;
	size_t len;

	CHECK(parse_hex(reply_hex, buf, &len, &m) == 0);
	CHECK(m.type == DBUS_METHOD_RETURN && m.reply_serial == 3 && m.serial == 0x11 && !m.big_endian);
	CHECK_STR(m.sender, ":1.2");
	CHECK_STR(m.signature, "o");
	CHECK(dbus_msg_read(&m, "o", &s) == 0);
	CHECK_STR(s, "/org/freedesktop/systemd1/job/7");
	CHECK(dbus_msg_read(&m, "u", &id) == -ENXIO);
	CHECK(dbus_msg_read(&m, "os", &s, &path) == -ENXIO);
	check_truncations(buf, len);

	CHECK(parse_hex(error_hex, buf, &len, &m) == 0);
	CHECK(m.type == DBUS_ERROR && m.reply_serial == 3);
	CHECK_STR(m.error_name, "org.freedesktop.DBus.Error.AccessDenied");
	CHECK(dbus_msg_read(&m, "s", &s) == 0);
	CHECK_STR(s, "mock: no scopes today");
	CHECK(dbus_error_errno(m.error_name) == EACCES);
	CHECK(dbus_error_errno("org.freedesktop.systemd1.NoSuchUnit") == ENOENT);
	CHECK(dbus_error_errno("x.y.Unknown") == EIO);
	check_truncations(buf, len);

	CHECK(parse_hex(signal_hex, buf, &len, &m) == 0);
	CHECK(m.type == DBUS_SIGNAL && m.reply_serial == 0);
	CHECK_STR(m.path, "/org/freedesktop/systemd1");
	CHECK_STR(m.interface, "org.freedesktop.systemd1.Manager");
	CHECK_STR(m.member, "JobRemoved");
	CHECK(dbus_msg_read(&m, "uoss", &id, &path, &unit, &result) == 0);
	CHECK(id == 7);
	CHECK_STR(path, "/org/freedesktop/systemd1/job/7");
	CHECK_STR(unit, "tinyrun-x.scope");
	CHECK_STR(result, "done");
	check_truncations(buf, len);
}

/* linux.resources as unit properties, v1 and v2 names, and the cpu masks */
static void test_props(void)
{
	struct oci_resources res = { 0 };
	uint8_t buf[2048], mask[4];
	struct dbus_writer w;
	struct dbus_array a;
	struct dbus_msg m;
	int len;

	res.has_memory = true;
	res.memory.has_limit = true;
	res.memory.limit = 1 << 20;
	res.memory.has_swap = true;
	res.memory.swap = 3 << 20;
	res.has_cpu = true;
	res.cpu.has_shares = true;
	res.cpu.shares = 1024;
	res.cpu.cpus = "0-1,9";
	res.has_blkio = true;
	res.blkio.has_weight = true;
	res.blkio.weight = 500;
	for (int v2 = 0; v2 < 2; v2++) {
		dbw_init(&w, buf, sizeof(buf));
		dbw_method_call(&w, 1, "a.b", "/a", "a.b", "Set", "a(sv)");
		a = dbw_array_begin(&w, 8);
		cgsd_append_resource_props(&w, &res, v2, 243);
		dbw_array_end(&w, a);
		CHECK((len = dbw_finish(&w)) > 0);
		CHECK(dbus_msg_parse(buf, (size_t)len, &m) == 0);
		CHECK(!!find(buf, (size_t)len, "MemoryMax", 9) == v2);
		CHECK(!!find(buf, (size_t)len, "MemorySwapMax", 13) == v2);   /* 2 MiB of swap */
		CHECK(!!find(buf, (size_t)len, "MemoryLimit", 11) == !v2);
		CHECK(!!find(buf, (size_t)len, "CPUWeight", 9) == v2);
		CHECK(!!find(buf, (size_t)len, "CPUShares", 9) == !v2);
		CHECK(!!find(buf, (size_t)len, "BlockIOWeight", 13) == !v2);
		/* 243: no AllowedCPUs (244) */
		CHECK(!find(buf, (size_t)len, "AllowedCPUs", 11) && !find(buf, (size_t)len, "TasksMax", 8));
	}
	CHECK(cgsd_props_need_version(&res));
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 1, "a.b", "/a", "a.b", "Set", "a(sv)");
	a = dbw_array_begin(&w, 8);
	cgsd_append_resource_props(&w, &res, true, 252);
	dbw_array_end(&w, a);
	CHECK((len = dbw_finish(&w)) > 0 && dbus_msg_parse(buf, (size_t)len, &m) == 0);
	CHECK(find(buf, (size_t)len, "AllowedCPUs\0\2ay\0\2\0\0\0\3\2", 20) != NULL);

	CHECK(cgsd_cpuset_mask("0-3,9", mask, sizeof(mask)) == 2 && mask[0] == 0x0f && mask[1] == 0x02);
	CHECK(cgsd_cpuset_mask("31", mask, sizeof(mask)) == 4 && mask[3] == 0x80);
	CHECK(cgsd_cpuset_mask("32", mask, sizeof(mask)) == -1);
	CHECK(cgsd_cpuset_mask("3-1", mask, sizeof(mask)) == -1);
	CHECK(cgsd_cpuset_mask("1,,2", mask, sizeof(mask)) == -1);
	CHECK(cgsd_cpuset_mask("x", mask, sizeof(mask)) == -1);
	CHECK(cgsd_cpuset_mask("", mask, sizeof(mask)) == 0);
}

/* The value of property NAME (a one-letter type) in the message buf: its
 * first byte, aligned as D-Bus aligns from the message's start. */
static const uint8_t *prop_value(const uint8_t *buf, size_t len, const char *name, char type)
{
	char pat[64];
	size_t n = (size_t)snprintf(pat, sizeof(pat), "%s%c%c%c%c", name, 0, 1, type, 0);
	const uint8_t *p = find((uint8_t *)buf, len, pat, n);
	size_t off, align = type == 't' ? 8 : 4;

	if (!p)
		return NULL;
	off = (size_t)(p - buf) + n;
	return buf + ((off + align - 1) & ~(align - 1));
}

static uint64_t prop_u64(const uint8_t *buf, size_t len, const char *name)
{
	const uint8_t *p = prop_value(buf, len, name, 't');
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return p ? v : 0xdead;
}

static const char *prop_str(const uint8_t *buf, size_t len, const char *name)
{
	const uint8_t *p = prop_value(buf, len, name, 's');

	return p ? (const char *)p + 4 : "(none)";
}

/* the (ss) entries of the DeviceAllow in buf, "PATH PERMS" a line each */
static void device_allow(const uint8_t *buf, size_t len, char *out, size_t size)
{
	const uint8_t *p = find((uint8_t *)buf, len, "DeviceAllow\0\5a(ss)\0", 19);
	uint32_t n, k, l;
	size_t at = 0, off;

	out[0] = '\0';
	if (!p)
		return;
	off = (size_t)(p - buf) + 19;
	off = (off + 3) & ~(size_t)3;
	memcpy(&n, buf + off, 4);
	off += 4;
	off = (off + 7) & ~(size_t)7;
	for (size_t end = off + n; off < end;) {
		off = (off + 7) & ~(size_t)7;
		for (k = 0; k < 2; k++) {
			off = (off + 3) & ~(size_t)3;
			memcpy(&l, buf + off, 4);
			at += (size_t)snprintf(out + at, size - at, "%s%.*s", k ? " " : "", (int)l, buf + off + 4);
			off += 4 + l + 1;
		}
		at += (size_t)snprintf(out + at, size - at, "\n");
	}
}

static const char proc_devices[] =
	"Character devices:\n  1 mem\n  4 /dev/vc/0\n  4 tty\n  5 /dev/tty\n 10 misc\n136 pts\n"
	"180 usb\n189 usb_device\n200 twin\n201 twin\n202 glob*\n\nBlock devices:\n  7 loop\n  8 sd\n";

/* StartTransientUnit for u with res (systemd `version`, proc_devices): its length, or <= 0 */
static int start_msg(const struct systemd_unit *u, const struct oci_resources *res, unsigned version,
		     uint8_t *buf, size_t size)
{
	struct dbus_writer w;

	dbw_init(&w, buf, size);
	if (cgsd_start_call(&w, 2, u, 1, res, version, proc_devices) < 0)
		return -1;
	return dbw_finish(&w);
}

/* cgroup v1: DevicePolicy and DeviceAllow, the list tinyrun's devices.allow writes leave */
static void test_device_props(void)
{
	struct oci_device_rule rules[] = {
		{ .allow = false, .type = 'a', .access = "rwm" },
		{ .allow = true, .type = 'c', .has_major = true, .major = 4, .access = "rw" },       /* a group */
		{ .allow = true, .type = 'c', .has_major = true, .major = 200, .access = "r" },      /* 200, 201: twin */
		{ .allow = true, .type = 'c', .has_minor = true, .minor = 3, .access = "r" },        /* *:3: none */
		{ .allow = true, .type = 'b', .has_major = true, .major = 8, .has_minor = true, .minor = 0, .access = "r" },
		{ .allow = false, .type = 'b', .has_major = true, .major = 8, .has_minor = true, .minor = 0, .access = "r" },
		{ .allow = true, .type = 'a', .has_major = true, .major = 7, .access = "m" },
	};
	struct oci_resources res = { .devices = rules, .n_devices = 7 };
	struct systemd_unit u = { .name = "tinyrun-x.scope", .slice = "s.slice", .description = "x" };
	uint8_t buf[8192];
	char list[2048], name[64];
	struct dbus_msg m;
	int len;

	CHECK((len = start_msg(&u, &res, 252, buf, sizeof(buf))) > 0 && dbus_msg_parse(buf, (size_t)len, &m) == 0);
	CHECK_STR(prop_str(buf, (size_t)len, "DevicePolicy"), "strict");
	device_allow(buf, (size_t)len, list, sizeof(list));
	/* the config's, then the defaults (runc's list); b 8:0 r allowed and denied again: gone;
	 * a 7:* m: c and b (no char major 7 here); *:3 and the twin major: no systemd name */
	CHECK_STR(list, "char-tty rw\nblock-loop m\nchar-* m\nblock-* m\n/dev/char/1:3 rwm\n"
			"/dev/char/1:8 rwm\n/dev/char/1:7 rwm\n/dev/char/5:0 rwm\n/dev/char/1:5 rwm\n"
			"/dev/char/1:9 rwm\nchar-pts rwm\n/dev/char/5:2 rwm\n/dev/char/10:200 rwm\n");
	/* v2, or the user's manager: none (systemd leaves tinyrun's BPF program alone) */
	u.v2 = true;
	CHECK((len = start_msg(&u, &res, 252, buf, sizeof(buf))) > 0 && !find(buf, (size_t)len, "Device", 6));
	u.v2 = false;
	u.user = true;
	CHECK((len = start_msg(&u, &res, 252, buf, sizeof(buf))) > 0 && !find(buf, (size_t)len, "Device", 6));
	u.user = false;
	/* allow-all (a privileged container): auto and no list, what systemd's reset gives */
	rules[0].allow = true;
	res.n_devices = 1;
	CHECK((len = start_msg(&u, &res, 252, buf, sizeof(buf))) > 0);
	CHECK_STR(prop_str(buf, (size_t)len, "DevicePolicy"), "auto");
	device_allow(buf, (size_t)len, list, sizeof(list));
	CHECK_STR(list, "");
	/* allow-all then a deny: systemd has no such form; strict and nothing (never wider) */
	res.n_devices = 6;
	CHECK((len = start_msg(&u, &res, 252, buf, sizeof(buf))) > 0);
	CHECK_STR(prop_str(buf, (size_t)len, "DevicePolicy"), "strict");
	device_allow(buf, (size_t)len, list, sizeof(list));
	CHECK_STR(list, "");
	/* before systemd 240 a node path is stat'ed: one that is not there is left out */
	rules[0].allow = false;
	rules[1] = (struct oci_device_rule){ .allow = true, .type = 'c', .has_major = true, .major = 4093,
					     .has_minor = true, .minor = 1, .access = "r" };
	res.n_devices = 2;
	CHECK((len = start_msg(&u, &res, 239, buf, sizeof(buf))) > 0);
	device_allow(buf, (size_t)len, list, sizeof(list));
	CHECK(!strstr(list, "4093"));
	CHECK(!!strstr(list, "/dev/char/1:3 rwm\n") == (access("/dev/char/1:3", F_OK) == 0));

	CHECK(cgsd_device_group(proc_devices, 'c', 136, name, sizeof(name)) == 1);
	CHECK_STR(name, "pts");
	CHECK(cgsd_device_group(proc_devices, 'c', 4, name, sizeof(name)) == 1);     /* two names: a plain one */
	CHECK_STR(name, "tty");
	CHECK(cgsd_device_group(proc_devices, 'c', 200, name, sizeof(name)) == 0);   /* shared name */
	CHECK(cgsd_device_group(proc_devices, 'c', 202, name, sizeof(name)) == 0);   /* a glob */
	CHECK(cgsd_device_group(proc_devices, 'c', 8, name, sizeof(name)) == 0);     /* block only */
	CHECK(cgsd_device_group(proc_devices, 'b', 8, name, sizeof(name)) == 1);
	CHECK_STR(name, "sd");
	CHECK(cgsd_device_group("", 'c', 1, name, sizeof(name)) == 0);
}

/* v2: linux.resources.unified as runc converts it, and blockIO.weight as IOWeight */
static void test_unified_props(void)
{
	struct oci_kv kv[] = {
		{ "memory.high", " 50000000\n" }, { "memory.min", "max" }, { "pids.max", "7" },
		{ "cpu.max", "max 50000" }, { "cpu.weight", "300" }, { "io.max", "8:0 rbps=1" },
		{ "memory.low", "12x" }, { "cpuset.cpus", "1" },
	};
	struct oci_resources res = { .unified = kv, .n_unified = 8, .has_blkio = true };
	uint8_t buf[4096];
	struct dbus_writer w;
	struct dbus_array a;
	struct dbus_msg m;
	int len;

	res.blkio.has_weight = true;
	res.blkio.weight = 500;
	CHECK(cgsd_props_need_version(&res));      /* cpu.max's period, cpuset */
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 1, "a.b", "/a", "a.b", "Set", "a(sv)");
	a = dbw_array_begin(&w, 8);
	cgsd_append_resource_props(&w, &res, true, 243);
	dbw_array_end(&w, a);
	CHECK((len = dbw_finish(&w)) > 0 && dbus_msg_parse(buf, (size_t)len, &m) == 0);
	CHECK(prop_u64(buf, (size_t)len, "MemoryHigh") == 50000000);
	CHECK(prop_u64(buf, (size_t)len, "MemoryMin") == UINT64_MAX);
	CHECK(prop_u64(buf, (size_t)len, "TasksMax") == 7);
	/* "max 50000": no quota, the period */
	CHECK(prop_u64(buf, (size_t)len, "CPUQuotaPerSecUSec") == UINT64_MAX);
	CHECK(prop_u64(buf, (size_t)len, "CPUQuotaPeriodUSec") == 50000);
	CHECK(prop_u64(buf, (size_t)len, "CPUWeight") == 300);
	CHECK(prop_u64(buf, (size_t)len, "IOWeight") == 4950);   /* 500: cgroupfs's io.weight, the same conversion */
	/* a bad number, a file systemd has no property for, cpuset before 244: left out */
	CHECK(!find(buf, (size_t)len, "MemoryLow", 9) && !find(buf, (size_t)len, "AllowedCPUs", 11));
	/* cpu.idle 1: no weight (runc) */
	kv[7] = (struct oci_kv){ "cpu.idle", "1" };
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 1, "a.b", "/a", "a.b", "Set", "a(sv)");
	a = dbw_array_begin(&w, 8);
	cgsd_append_resource_props(&w, &res, true, 252);
	dbw_array_end(&w, a);
	CHECK((len = dbw_finish(&w)) > 0 && !find(buf, (size_t)len, "CPUWeight", 9));
	/* v1: no unified */
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 1, "a.b", "/a", "a.b", "Set", "a(sv)");
	a = dbw_array_begin(&w, 8);
	cgsd_append_resource_props(&w, &res, false, 252);
	dbw_array_end(&w, a);
	CHECK((len = dbw_finish(&w)) > 0 && !find(buf, (size_t)len, "MemoryHigh", 10));
}

/* Properties.Get's answer: a variant; 'v' reads one holding a string. */
static void test_variant(void)
{
	uint8_t buf[512];
	struct dbus_writer w;
	struct dbus_msg m;
	const char *s = NULL;
	int len;

	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 5, "a.b", "/a", "a.b", "Get", "v");
	dbw_signature(&w, "s");
	dbw_string(&w, "/user.slice/user-1000.slice/user@1000.service");
	CHECK((len = dbw_finish(&w)) > 0);
	CHECK(dbus_msg_parse(buf, (size_t)len, &m) == 0);
	CHECK(dbus_msg_read(&m, "v", &s) == 0);
	CHECK_STR(s, "/user.slice/user-1000.slice/user@1000.service");
	check_truncations(buf, (size_t)len);

	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 6, "a.b", "/a", "a.b", "Get", "v");
	dbw_signature(&w, "u");
	dbw_u32(&w, 7);
	CHECK((len = dbw_finish(&w)) > 0);
	CHECK(dbus_msg_parse(buf, (size_t)len, &m) == 0);
	CHECK(dbus_msg_read(&m, "v", &s) == -ENXIO);
}

/* The reply broken at one place: refused. */
static int broken(void (*edit)(uint8_t *p, size_t len))
{
	uint8_t buf[1024];
	struct dbus_msg m;
	size_t len = unhex(reply_hex, buf);

	edit(buf, len);
	return dbus_msg_parse(buf, len, &m);
}

static void set32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);       /* little-endian hosts (x86_64, aarch64) */
}

/* the reply's layout: fields 16..61, padding 61..64, body "o" at 64 (length), 68 (chars), nul at 99 */
static void e_endian(uint8_t *p, size_t n) { (void)n; p[0] = 'X'; }
static void e_version(uint8_t *p, size_t n) { (void)n; p[3] = 2; }
static void e_type(uint8_t *p, size_t n) { (void)n; p[1] = 9; }
static void e_serial(uint8_t *p, size_t n) { (void)n; set32(p + 8, 0); }
static void e_body_long(uint8_t *p, size_t n) { (void)n; set32(p + 4, 0x25); }
static void e_body_short(uint8_t *p, size_t n) { (void)n; set32(p + 4, 0x23); }
static void e_fields_len(uint8_t *p, size_t n) { (void)n; set32(p + 12, 0x2e); }
static void e_str_len(uint8_t *p, size_t n) { (void)n; set32(p + 64, 0x20); }
static void e_str_huge(uint8_t *p, size_t n) { (void)n; set32(p + 64, 0xffffffff); }
static void e_str_short(uint8_t *p, size_t n) { (void)n; set32(p + 64, 0x1e); }
static void e_no_nul(uint8_t *p, size_t n) { (void)n; p[99] = '7'; }
static void e_inner_nul(uint8_t *p, size_t n) { (void)n; p[70] = 0; }
static void e_pad_body(uint8_t *p, size_t n) { (void)n; p[62] = 1; }
static void e_pad_field(uint8_t *p, size_t n) { uint8_t *f = find(p, n, ":1.11", 6); f[6] = 'x'; }
static void e_field_type(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\5\1u\0", 4); f[2] = 's'; }
static void e_no_reply_serial(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\5\1u\0", 4); set32(f + 4, 0); }
static void e_field_zero(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\5\1u\0", 4); f[0] = 0; }
static void e_sig_bad(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\10\1g\0\1o", 6); f[5] = '('; }
static void e_sig_nonul(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\10\1g\0\1o", 6); f[6] = 'o'; }
static void e_sig_type(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\10\1g\0\1o", 6); f[5] = 'u'; }
static void e_variant_sig(uint8_t *p, size_t n) { uint8_t *f = find(p, n, "\10\1g\0\1o", 6); f[1] = 2; }

static void test_malformed(void)
{
	uint8_t buf[1024];
	struct dbus_msg m;
	size_t size, len;
	uint8_t *f;

	CHECK(broken(e_endian) == -EBADMSG);
	CHECK(broken(e_version) == -EBADMSG);
	CHECK(broken(e_type) == -EBADMSG);
	CHECK(broken(e_serial) == -EBADMSG);
	CHECK(broken(e_body_long) == -EBADMSG);
	CHECK(broken(e_body_short) == -EBADMSG);
	CHECK(broken(e_fields_len) == -EBADMSG);
	CHECK(broken(e_str_len) == -EBADMSG);
	CHECK(broken(e_str_huge) == -EBADMSG);
	CHECK(broken(e_str_short) == -EBADMSG);
	CHECK(broken(e_no_nul) == -EBADMSG);
	CHECK(broken(e_inner_nul) == -EBADMSG);
	CHECK(broken(e_pad_body) == -EBADMSG);
	CHECK(broken(e_pad_field) == -EBADMSG);
	CHECK(broken(e_field_type) == -EBADMSG);
	CHECK(broken(e_no_reply_serial) == -EBADMSG);
	CHECK(broken(e_field_zero) == -EBADMSG);
	CHECK(broken(e_sig_bad) == -EBADMSG);
	CHECK(broken(e_sig_nonul) == -EBADMSG);
	CHECK(broken(e_sig_type) == -EBADMSG);
	CHECK(broken(e_variant_sig) == -EBADMSG);

	/* over the cap: refused from the fixed header, before anything is read */
	len = unhex(reply_hex, buf);
	set32(buf + 4, DBUS_MAX_MESSAGE);
	CHECK(dbus_msg_size(buf, &size) == -EMSGSIZE);
	set32(buf + 4, 0xffffffff);
	set32(buf + 12, 0xffffffff);
	CHECK(dbus_msg_size(buf, &size) == -EMSGSIZE);

	/* an error without its name */
	len = unhex(error_hex, buf);
	f = find(buf, len, "\4\1s\0", 4);
	f[0] = 0x70;            /* an unknown field: skipped, so the name is missing */
	CHECK(dbus_msg_parse(buf, len, &m) == -EBADMSG);

	/* a signal whose body has a bool of 2 where the signature says b */
	len = unhex(signal_hex, buf);
	f = find(buf, len, "\4uoss", 5);
	memcpy(f, "\4boss", 5);
	CHECK(dbus_msg_parse(buf, len, &m) == -EBADMSG);        /* 7 is no bool */
	f = find(buf, len, "\7\0\0\0\x1f", 5);
	f[0] = 1;
	CHECK(dbus_msg_parse(buf, len, &m) == 0);
	f[0] = 2;
	CHECK(dbus_msg_parse(buf, len, &m) == -EBADMSG);
}

/* 'B': the same reply, big-endian, read the same; an unknown field skipped. */
static void be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void test_big_endian(void)
{
	uint8_t b[256] = { 'B', DBUS_METHOD_RETURN, 1, 1 };
	struct dbus_msg m;
	const char *s;
	size_t n = 16, fields;

	be32(b + 8, 5);
	/* REPLY_SERIAL u 3 */
	memcpy(b + n, "\5\1u\0", 4);
	be32(b + n + 4, 3);
	n += 8;
	/* an unknown field 0x42 of type as: ["x"] */
	memcpy(b + n, "\x42\2as\0\0\0\0", 8);
	be32(b + n + 8, 6);
	be32(b + n + 12, 1);
	memcpy(b + n + 16, "x\0", 2);
	n += 18;
	n = (n + 7) & ~(size_t)7;
	/* SIGNATURE g "o" */
	memcpy(b + n, "\10\1g\0\1o\0", 7);
	n += 7;
	fields = n - 16;
	be32(b + 12, (uint32_t)fields);
	n = (n + 7) & ~(size_t)7;
	be32(b + n, 3);
	memcpy(b + n + 4, "/ab", 4);
	be32(b + 4, 8);
	n += 8;
	CHECK(dbus_msg_parse(b, n, &m) == 0);
	CHECK(m.big_endian && m.serial == 5 && m.reply_serial == 3);
	CHECK(dbus_msg_read(&m, "o", &s) == 0);
	CHECK_STR(s, "/ab");
	/* the same bytes called little-endian: every length wrong */
	b[0] = 'l';
	CHECK(dbus_msg_parse(b, n, &m) < 0);
}

/* Variants nested deeper than the limit: refused, without recursing forever. */
static void test_deep(void)
{
	enum { DEPTH = 200 };
	static uint8_t b[16 + 8 + 8 + 3 * DEPTH + 16];
	struct dbus_msg m;
	size_t n = 16;

	memcpy(b, "l\2\1\1", 4);
	set32(b + 8, 1);
	memcpy(b + n, "\5\1u\0\1\0\0\0", 8);
	n += 8;
	memcpy(b + n, "\10\1g\0\1v\0", 7);
	n += 7;
	set32(b + 12, (uint32_t)(n - 16));
	n = (n + 7) & ~(size_t)7;
	size_t body = n;
	for (int i = 0; i < DEPTH; i++) {
		memcpy(b + n, "\1v\0", 3);
		n += 3;
	}
	memcpy(b + n, "\1y\0\0", 4);
	n += 4;
	set32(b + 4, (uint32_t)(n - body));
	CHECK(dbus_msg_parse(b, n, &m) == -EBADMSG);
}

int main(void)
{
	test_calls();
	test_replies();
	test_variant();
	test_props();
	test_device_props();
	test_unified_props();
	test_malformed();
	test_big_endian();
	test_deep();
	return unit_report("test_cgroup_dbus");
}
