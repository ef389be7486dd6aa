/* Pure decisions: which kernel calls a mounts[] entry needs. No syscalls here,
 * so tests/unit/test_rootfs_plan.c checks them without root. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rootfs/internal.h"

static const struct { unsigned long ms; uint64_t attr; } flag_map[] = {
	{ MS_RDONLY, MOUNT_ATTR_RDONLY },
	{ MS_NOSUID, MOUNT_ATTR_NOSUID },
	{ MS_NODEV, MOUNT_ATTR_NODEV },
	{ MS_NOEXEC, MOUNT_ATTR_NOEXEC },
	{ MS_NODIRATIME, MOUNT_ATTR_NODIRATIME },
	{ MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW },
};
#define MS_ATIME (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

/* The atime setting is an enum in mount_setattr: pick the one the options ask
 * for ("norelatime" means strictatime, "atime"/"nostrictatime" relatime). */
static int atime_mode(unsigned long set, unsigned long clr)
{
	if (set & MS_NOATIME)
		return MOUNT_ATTR_NOATIME;
	if (set & MS_STRICTATIME)
		return MOUNT_ATTR_STRICTATIME;
	if (set & MS_RELATIME)
		return MOUNT_ATTR_RELATIME;
	if (clr & MS_RELATIME)
		return MOUNT_ATTR_STRICTATIME;
	if (clr & (MS_NOATIME | MS_STRICTATIME))
		return MOUNT_ATTR_RELATIME;
	return -1;
}

void rootfs_ms_to_attr(unsigned long set, unsigned long clr, struct mount_attr *a)
{
	int mode = atime_mode(set, clr);

	for (size_t i = 0; i < sizeof(flag_map) / sizeof(flag_map[0]); i++) {
		if (set & flag_map[i].ms)
			a->attr_set |= flag_map[i].attr;
		else if (clr & flag_map[i].ms)
			a->attr_clr |= flag_map[i].attr;
	}
	if (mode >= 0) {
		a->attr_clr |= MOUNT_ATTR__ATIME;
		a->attr_set = (a->attr_set & ~(uint64_t)MOUNT_ATTR__ATIME) | (uint64_t)mode;
	}
}

void rootfs_attr_fix_atime(struct mount_attr *a)
{
	uint64_t mode = a->attr_set & MOUNT_ATTR__ATIME;

	if (!mode && !(a->attr_clr & MOUNT_ATTR__ATIME))
		return;
	/* "ratime" arrives as clearing NOATIME: back to the default, relatime */
	if (mode & MOUNT_ATTR_NOATIME)
		mode = MOUNT_ATTR_NOATIME;
	else if (mode & MOUNT_ATTR_STRICTATIME)
		mode = MOUNT_ATTR_STRICTATIME;
	a->attr_clr |= MOUNT_ATTR__ATIME;
	a->attr_set = (a->attr_set & ~(uint64_t)MOUNT_ATTR__ATIME) | mode;
}

unsigned long rootfs_attr_apply_ms(const struct mount_attr *a, unsigned long flags)
{
	for (size_t i = 0; i < sizeof(flag_map) / sizeof(flag_map[0]); i++) {
		if (a->attr_clr & flag_map[i].attr)
			flags &= ~flag_map[i].ms;
		if (a->attr_set & flag_map[i].attr)
			flags |= flag_map[i].ms;
	}
	if (a->attr_clr & MOUNT_ATTR__ATIME) {
		flags &= ~MS_ATIME;
		switch (a->attr_set & MOUNT_ATTR__ATIME) {
		case MOUNT_ATTR_NOATIME: flags |= MS_NOATIME; break;
		case MOUNT_ATTR_STRICTATIME: flags |= MS_STRICTATIME; break;
		default: flags |= MS_RELATIME; break;
		}
	}
	return flags;
}

unsigned long rootfs_mount_propagation_ms(enum oci_propagation p)
{
	switch (p) {
	case OCI_PROP_PRIVATE: return MS_PRIVATE;
	case OCI_PROP_RPRIVATE: return MS_PRIVATE | MS_REC;
	case OCI_PROP_SHARED: return MS_SHARED;
	case OCI_PROP_RSHARED: return MS_SHARED | MS_REC;
	case OCI_PROP_SLAVE: return MS_SLAVE;
	case OCI_PROP_RSLAVE: return MS_SLAVE | MS_REC;
	case OCI_PROP_UNBINDABLE: return MS_UNBINDABLE;
	case OCI_PROP_RUNBINDABLE: return MS_UNBINDABLE | MS_REC;
	default: return 0;
	}
}

unsigned long rootfs_propagation_ms(enum oci_rootfs_propagation_mode p)
{
	/* the two enums list the same modes in the same order */
	return p == OCI_ROOTFS_PROP_DEFAULT ? 0 : rootfs_mount_propagation_ms((enum oci_propagation)p);
}

static unsigned long mount_propagation(const struct oci_mount *m)
{
	unsigned long p = rootfs_mount_propagation_ms(m->propagation);

	/* a parser may also have left the bits in flags */
	if (!p && (m->flags & MS_PROPAGATION))
		p = m->flags & (MS_PROPAGATION | MS_REC);
	return p;
}

static bool is_type(const struct oci_mount *m, const char *t)
{
	return m->type && strcmp(m->type, t) == 0;
}

bool rootfs_path_equal(const char *a, const char *b)
{
	for (;;) {
		while (*a == '/' && (a[1] == '/' || a[1] == '\0' || (a[1] == '.' && (a[2] == '/' || !a[2]))))
			a += a[1] == '.' ? 2 : 1;
		while (*b == '/' && (b[1] == '/' || b[1] == '\0' || (b[1] == '.' && (b[2] == '/' || !b[2]))))
			b += b[1] == '.' ? 2 : 1;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++, b++;
	}
}

/* ---- binds: runc 1.2+'s rule for a bind's flags ----
 * A bind whose options set or clear no flag keeps the flags of its source.
 * One that sets or clears any gets exactly the flags it asks for, as runc's
 * MS_BIND|MS_REMOUNT does: ro, nosuid, nodev, noexec and nosymfollow not
 * asked for are cleared; the atime setting (with nodiratime) changes only
 * when one is asked for, and then as the kernel reads it: relatime unless
 * noatime, strictatime over both, nodiratime only if asked ("atime",
 * "norelatime" alone change nothing). Only the top mount of an rbind; the
 * r* options come after, recursively. */
#define MS_LOCKABLE (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
#define MS_BIND_EXACT (MS_LOCKABLE | MS_NOSYMFOLLOW)
#define MS_ATIME_ALL (MS_ATIME | MS_NODIRATIME)

/* the per-mount flags that asking for SET gives a mount whose flags were OLD */
static unsigned long bind_flags_asked(unsigned long set, unsigned long old)
{
	unsigned long f = set & MS_BIND_EXACT;

	if (!(set & MS_ATIME_ALL))
		return f | (old & MS_ATIME_ALL);
	if (set & MS_STRICTATIME)
		f |= MS_STRICTATIME;
	else
		f |= set & MS_NOATIME ? MS_NOATIME : MS_RELATIME;
	return f | (set & MS_NODIRATIME);
}

/* flags (from bind_flags_asked) -> the top mount's attributes; the atime
 * setting only with_atime (unknown otherwise: left as it is) */
static void bind_attr(unsigned long f, bool with_atime, struct mount_attr *a)
{
	memset(a, 0, sizeof(*a));
	rootfs_ms_to_attr(f & MS_BIND_EXACT, ~f & MS_BIND_EXACT, a);
	if (!with_atime)
		return;
	rootfs_ms_to_attr(f & (MS_ATIME | MS_NODIRATIME), ~f & MS_NODIRATIME, a);
	if (!(f & MS_ATIME)) {
		a->attr_clr |= MOUNT_ATTR__ATIME;
		a->attr_set = (a->attr_set & ~(uint64_t)MOUNT_ATTR__ATIME) | MOUNT_ATTR_STRICTATIME;
	}
}

/* B applied after A, as one mount_setattr on a mount without children */
static void attr_then(struct mount_attr *a, const struct mount_attr *b)
{
	uint64_t keep = ~(uint64_t)MOUNT_ATTR__ATIME;

	if (b->attr_clr & MOUNT_ATTR__ATIME) {
		a->attr_clr |= MOUNT_ATTR__ATIME;
		a->attr_set = (a->attr_set & keep) | (b->attr_set & MOUNT_ATTR__ATIME);
	}
	a->attr_set = (a->attr_set & ~(b->attr_clr & keep)) | (b->attr_set & keep);
	a->attr_clr = (a->attr_clr & ~(b->attr_set & keep)) | (b->attr_clr & keep);
	if (b->propagation)
		a->propagation = b->propagation;
}

static void bind_plan(const struct oci_mount *m, const struct mount_attr *top, struct mount_plan *p)
{
	unsigned long prop = mount_propagation(m);

	p->top = *top;
	memset(&p->rec, 0, sizeof(p->rec));
	p->rec.attr_set = m->attr_set;
	p->rec.attr_clr = m->attr_clr;
	rootfs_attr_fix_atime(&p->rec);
	if (prop & MS_REC)
		p->rec.propagation = prop & MS_PROPAGATION;
	else
		p->top.propagation = prop;
	if (!p->recursive && !p->remount) {
		/* one mount, no children: everything is "top" */
		attr_then(&p->top, &p->rec);
		memset(&p->rec, 0, sizeof(p->rec));
	}
}

static unsigned long plain_flags(const struct oci_mount *m)
{
	return m->flags & ~(MS_PROPAGATION | MS_BIND | MS_REC | MS_REMOUNT);
}

int rootfs_bind_plan_locked(const struct oci_mount *m, unsigned long src, struct mount_plan *p,
			    unsigned long *bad)
{
	unsigned long set = plain_flags(m), want = bind_flags_asked(set, src);
	struct mount_attr top;

	*bad = 0;
	if (!p->exact)
		return 0;
	/* what the kernel would refuse: a locked flag cleared, the atime changed */
	if ((src & MS_LOCKABLE & ~want) || (want & MS_ATIME_ALL) != (src & MS_ATIME_ALL)) {
		/* then, as runc: the source's locked flags kept, unless the
		 * entry clears one or asks for another atime setting */
		if ((*bad = m->clear_flags & src & (MS_LOCKABLE | MS_ATIME_ALL)))
			return ROOTFS_LOCKED_CLEAR;
		if ((set & MS_ATIME_ALL) && (set & MS_ATIME_ALL) != (src & MS_ATIME_ALL)) {
			*bad = src & MS_ATIME_ALL;
			return ROOTFS_LOCKED_ATIME;
		}
		want = bind_flags_asked(set | (src & (MS_LOCKABLE | MS_ATIME_ALL)), src);
	}
	bind_attr(want, true, &top);
	bind_plan(m, &top, p);
	return 0;
}

unsigned long rootfs_statvfs_ms(unsigned long f)
{
	/* fs/statfs.c: ST_RDONLY..ST_NOEXEC, ST_NOATIME and ST_NODIRATIME are
	 * the MS_* bits; ST_RELATIME (0x1000) and ST_NOSYMFOLLOW (0x2000) are not */
	unsigned long ms = f & (MS_LOCKABLE | MS_NOATIME | MS_NODIRATIME);

	if (f & 0x1000)
		ms |= MS_RELATIME;
	if (f & 0x2000)
		ms |= MS_NOSYMFOLLOW;
	return ms & (MS_NOATIME | MS_RELATIME) ? ms : ms | MS_STRICTATIME;
}

const char *rootfs_ms_names(unsigned long ms, char *buf, size_t size)
{
	static const struct { unsigned long ms; const char *name; } names[] = {
		{ MS_RDONLY, "ro" }, { MS_NOSUID, "nosuid" }, { MS_NODEV, "nodev" }, { MS_NOEXEC, "noexec" },
		{ MS_NOATIME, "noatime" }, { MS_RELATIME, "relatime" }, { MS_STRICTATIME, "strictatime" },
		{ MS_NODIRATIME, "nodiratime" }, { MS_NOSYMFOLLOW, "nosymfollow" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((ms & names[i].ms) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", names[i].name);
	return buf;
}

void rootfs_mount_plan_make(const struct oci_mount *m, struct mount_plan *p)
{
	unsigned long prop = mount_propagation(m);
	unsigned long flags = plain_flags(m);
	struct mount_attr rec = { .attr_set = m->attr_set, .attr_clr = m->attr_clr };

	memset(p, 0, sizeof(*p));
	rootfs_attr_fix_atime(&rec);
	p->bind = m->is_bind || (m->flags & MS_BIND);
	p->remount = m->flags & MS_REMOUNT;
	if (p->bind) {
		struct mount_attr top = { 0 };

		p->recursive = m->flags & MS_REC;
		if (p->remount)   /* "bind,remount": the options change only what they name */
			rootfs_ms_to_attr(flags & MS_PERMOUNT, m->clear_flags & MS_PERMOUNT, &top);
		else if ((p->exact = flags || m->clear_flags))
			bind_attr(bind_flags_asked(flags, 0), (flags & MS_ATIME_ALL) != 0, &top);
		bind_plan(m, &top, p);
		return;
	}
	/* a new filesystem: flags go straight to mount(2); r* attributes are
	 * the same as plain ones on a mount without children */
	p->ms_flags = rootfs_attr_apply_ms(&rec, flags & ~m->clear_flags);
	if (!(p->ms_flags & MS_ATIME) && (m->clear_flags & MS_ATIME)) {
		struct mount_attr a = { 0 };

		rootfs_ms_to_attr(0, m->clear_flags & MS_ATIME, &a);
		p->ms_flags = rootfs_attr_apply_ms(&a, p->ms_flags);
	}
	p->top.propagation = prop & MS_PROPAGATION;
	if (p->remount)
		p->ms_flags |= MS_REMOUNT;
	else if (p->ms_flags & MS_RDONLY && (is_type(m, "tmpfs") || rootfs_path_equal(m->destination, "/dev"))) {
		/* mounts below it still need their mountpoints created */
		p->ms_flags &= ~MS_RDONLY;
		p->defer_ro = true;
	}
}

enum dest_kind rootfs_dest_kind_for(const struct oci_mount *m, mode_t src_mode)
{
	if ((m->is_bind || (m->flags & MS_BIND)) && !S_ISDIR(src_mode))
		return DEST_FILE;
	return DEST_DIR;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (path[0] == '/' && path[1] == '/')
		path++;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool rootfs_path_clean(const char *p)
{
	if (p[0] != '/' || !p[1])
		return false;
	for (const char *s = p; *s; s++) {
		if (*s != '/')
			continue;
		if (s[1] == '/' || s[1] == '\0' ||
		    (s[1] == '.' && (s[2] == '/' || !s[2] || (s[2] == '.' && (s[3] == '/' || !s[3])))))
			return false;
	}
	return true;
}

const char *rootfs_child_name(const char *parent, const char *dest)
{
	size_t n = strlen(parent);

	if (strncmp(dest, parent, n) != 0 || dest[n] != '/' || strchr(dest + n + 1, '/') ||
	    !rootfs_path_clean(parent) || !rootfs_path_clean(dest))
		return NULL;
	return dest + n + 1;
}

bool rootfs_dest_is_guarded(const struct oci_mount *m)
{
	return is_type(m, "proc") || is_type(m, "sysfs") ||
	       rootfs_path_equal(m->destination, "/proc") || rootfs_path_equal(m->destination, "/sys") ||
	       under(m->destination, "/proc");
}

bool rootfs_is_bind_of_dev(const struct oci_mount *m)
{
	return (m->is_bind || (m->flags & MS_BIND)) && rootfs_path_equal(m->destination, "/dev");
}
