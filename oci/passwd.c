#include "oci/passwd.h"

#include <stdio.h>
#include <string.h>

/* A uid field: decimal digits only, no sign, no blank, no overflow. */
static bool uid_field_is(const char *f, uid_t uid)
{
	unsigned long long v = 0;

	if (!*f)
		return false;
	for (; *f; f++) {
		if (*f < '0' || *f > '9')
			return false;
		v = v * 10 + (unsigned)(*f - '0');
		if (v > (uid_t)-1)
			return false;
	}
	return v == uid;
}

/* One NUL-terminated line: its home when its uid is s->uid. */
static bool line_home(struct oci_passwd_scan *s, char *line)
{
	char *fld[7], *p = line;
	int i;

	for (i = 0; i < 7; i++) {   /* name:pw:uid:gid:gecos:dir:shell */
		fld[i] = p;
		if (!(p = strchr(p, ':')))
			break;
		*p++ = '\0';
	}
	if (i < 5 || !uid_field_is(fld[2], s->uid) || !fld[5][0])
		return false;
	snprintf(s->home, s->size, "%s", fld[5]);
	return true;
}

void oci_passwd_scan_init(struct oci_passwd_scan *s, uid_t uid, char *home, size_t size)
{
	s->uid = uid;
	s->home = home;
	s->size = size;
	s->found = s->skip = false;
	s->have = 0;
	snprintf(home, size, "/");
}

bool oci_passwd_scan_feed(struct oci_passwd_scan *s, const char *data, size_t n)
{
	while (n && !s->found) {
		const char *nl = memchr(data, '\n', n);
		size_t seg = nl ? (size_t)(nl - data) : n;

		if (!s->skip && seg < sizeof(s->line) - s->have) {
			memcpy(s->line + s->have, data, seg);
			s->have += seg;
		} else {
			s->skip = true;
			s->have = 0;
		}
		if (nl) {
			if (!s->skip) {
				s->line[s->have] = '\0';
				s->found = line_home(s, s->line);
			}
			s->skip = false;
			s->have = 0;
			seg++;
		}
		data += seg;
		n -= seg;
	}
	return s->found;
}

bool oci_passwd_scan_end(struct oci_passwd_scan *s)
{
	if (!s->found && !s->skip && s->have) {
		s->line[s->have] = '\0';
		s->found = line_home(s, s->line);
	}
	s->have = 0;
	return s->found;
}
