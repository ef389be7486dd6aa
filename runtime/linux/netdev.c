#include "runtime/linux/netdev.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "runtime/linux/pidfd.h"
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(0xb7, 0x3)
#endif

struct nl_req {
	struct nlmsghdr h;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
	};
	char attrs[256];
};

static void add_attr(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

static struct nl_req link_req(int type, int flags, int index)
{
	return (struct nl_req){
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = type,
		       .nlmsg_flags = NLM_F_REQUEST | flags },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index },
	};
}

/* The receive buffer: a dump's datagram, or one link's attributes. */
#define NL_BUF 65536

/* The next message for `seq` from the kernel (port 0) into buf: its length,
 * or -errno. A message from another socket of the namespace (a process
 * with CAP_NET_ADMIN there may write to ours) is dropped, not believed. */
static ssize_t nl_recv(int sock, char *buf, uint32_t seq)
{
	for (int foreign = 0; foreign < 64;) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(sock, buf, NL_BUF, MSG_TRUNC, (struct sockaddr *)&from, &fl);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > NL_BUF)
			return -EMSGSIZE;
		if (fl != sizeof(from) || from.nl_pid != 0 || n < (ssize_t)sizeof(struct nlmsghdr) ||
		    ((struct nlmsghdr *)buf)->nlmsg_seq != seq) {
			foreign++;
			continue;
		}
		return n;
	}
	return -EPROTO;
}

static uint32_t nl_seq;

/* One request, its ACK: 0 or -errno. */
static int nl_do(int sock, struct nl_req *req, char *buf)
{
	ssize_t n;

	req->h.nlmsg_flags |= NLM_F_ACK;
	req->h.nlmsg_seq = ++nl_seq;
	if (send(sock, req, req->h.nlmsg_len, 0) < 0)
		return -errno;
	if ((n = nl_recv(sock, buf, req->h.nlmsg_seq)) < 0)
		return (int)n;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	if (h->nlmsg_type != NLMSG_ERROR || n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return -EPROTO;
	return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

struct link {
	int index;
	unsigned flags;
	char name[IFNAMSIZ];
	unsigned char hw[32];
	size_t hw_len;
};

/* RTM_GETLINK by index (name NULL) or by name: 0, -ENODEV or -errno. */
static int get_link(int sock, int index, const char *name, struct link *out, char *buf)
{
	struct nl_req req = link_req(RTM_GETLINK, 0, index);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;

	if (name)
		add_attr(&req, IFLA_IFNAME, name, strlen(name) + 1);
	req.h.nlmsg_seq = ++nl_seq;
	if (send(sock, &req, req.h.nlmsg_len, 0) < 0)
		return -errno;
	if ((n = nl_recv(sock, buf, req.h.nlmsg_seq)) < 0)
		return (int)n;
	if (h->nlmsg_type == NLMSG_ERROR && n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error ? ((struct nlmsgerr *)NLMSG_DATA(h))->error : -EPROTO;
	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len > n ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return -EPROTO;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));

	*out = (struct link){ .index = ifi->ifi_index, .flags = ifi->ifi_flags };
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t l = RTA_PAYLOAD(a);

		if (a->rta_type == IFLA_IFNAME && l > 0 && l <= IFNAMSIZ)
			memcpy(out->name, RTA_DATA(a), l), out->name[l - 1] = '\0';
		else if (a->rta_type == IFLA_ADDRESS && l <= sizeof(out->hw))
			memcpy(out->hw, RTA_DATA(a), l), out->hw_len = l;
	}
	return out->name[0] ? 0 : -EPROTO;
}

static int set_up(int sock, int index, bool up, char *buf)
{
	struct nl_req req = link_req(RTM_NEWLINK, 0, index);

	req.ifi.ifi_flags = up ? IFF_UP : 0;
	req.ifi.ifi_change = IFF_UP;
	return nl_do(sock, &req, buf);
}

struct addr {
	unsigned char family, prefixlen;
	unsigned char ip[16];
};

/* The addresses runc carries over (libcontainer/network_linux.go, as the
 * spec says): permanent (IFA_F_PERMANENT: not from DHCP/SLAAC, no lifetime)
 * and global scope (RT_SCOPE_UNIVERSE: not host/link-local), IPv4 and IPv6. */
static int get_addrs(int sock, int index, struct addr **out, size_t *n, char *buf)
{
	for (int tries = 0; tries < 8; tries++) {
		struct nl_req req = {
			.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)), .nlmsg_type = RTM_GETADDR,
			       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = ++nl_seq },
			.ifa = { .ifa_family = AF_UNSPEC },
		};
		bool done = false, intr = false;

		*n = 0;
		if (send(sock, &req, req.h.nlmsg_len, 0) < 0)
			return -errno;
		while (!done) {
			ssize_t len = nl_recv(sock, buf, req.h.nlmsg_seq);

			if (len < 0)
				return (int)len;
			for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
			     len >= (ssize_t)sizeof(*h) && h->nlmsg_len >= sizeof(*h) && h->nlmsg_len <= (size_t)len;
			     len -= NLMSG_ALIGN(h->nlmsg_len), h = (struct nlmsghdr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len))) {
				if (h->nlmsg_flags & NLM_F_DUMP_INTR)
					intr = true;
				if (h->nlmsg_type == NLMSG_DONE) {
					done = true;
					break;
				}
				if (h->nlmsg_type == NLMSG_ERROR)
					return h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
						       ((struct nlmsgerr *)NLMSG_DATA(h))->error
						       ? ((struct nlmsgerr *)NLMSG_DATA(h))->error : -EPROTO;
				if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)))
					continue;
				struct ifaddrmsg *ifa = NLMSG_DATA(h);
				int alen = (int)IFA_PAYLOAD(h);
				const void *local = NULL, *address = NULL;
				size_t iplen = ifa->ifa_family == AF_INET ? 4 : 16;
				uint32_t flags = ifa->ifa_flags;

				if ((int)ifa->ifa_index != index || (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
					continue;
				for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
					if (a->rta_type == IFA_FLAGS && RTA_PAYLOAD(a) == sizeof(uint32_t))
						memcpy(&flags, RTA_DATA(a), sizeof(flags));
					else if (a->rta_type == IFA_LOCAL && RTA_PAYLOAD(a) == iplen)
						local = RTA_DATA(a);
					else if (a->rta_type == IFA_ADDRESS && RTA_PAYLOAD(a) == iplen)
						address = RTA_DATA(a);
				}
				if (!(flags & IFA_F_PERMANENT) || ifa->ifa_scope != RT_SCOPE_UNIVERSE ||
				    !(local = local ? local : address))
					continue;
				struct addr *grown = realloc(*out, (*n + 1) * sizeof(**out));

				if (!grown)
					return -ENOMEM;
				*out = grown;
				grown[*n] = (struct addr){ .family = ifa->ifa_family, .prefixlen = ifa->ifa_prefixlen };
				memcpy(grown[(*n)++].ip, local, iplen);
			}
		}
		if (!intr)
			return 0;
	}
	return -EAGAIN;
}

/* As runc re-adds one (netlink.AddrAdd with the address and its prefix):
 * local = address, an IPv4 broadcast computed for a prefix below /31. */
static int add_addr(int sock, int index, const struct addr *a, char *buf)
{
	struct nl_req req = {
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)), .nlmsg_type = RTM_NEWADDR,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL },
		.ifa = { .ifa_family = a->family, .ifa_prefixlen = a->prefixlen, .ifa_scope = RT_SCOPE_UNIVERSE,
			 .ifa_index = (unsigned)index },
	};
	size_t iplen = a->family == AF_INET ? 4 : 16;

	add_attr(&req, IFA_LOCAL, a->ip, iplen);
	add_attr(&req, IFA_ADDRESS, a->ip, iplen);
	if (a->family == AF_INET && a->prefixlen < 31) {
		uint32_t ip, mask = a->prefixlen ? htonl(~0u << (32 - a->prefixlen)) : 0, brd;

		memcpy(&ip, a->ip, 4);
		brd = ip | ~mask;
		add_attr(&req, IFA_BROADCAST, &brd, 4);
	}
	return nl_do(sock, &req, buf);
}

/* "eth%d": the name the kernel made of the template (prefix, digits, suffix). */
static bool from_template(const char *pat, const char *name)
{
	const char *p = strstr(pat, "%d");
	size_t pre = p ? (size_t)(p - pat) : 0;

	if (!p || strncmp(pat, name, pre) != 0)
		return false;
	name += pre;
	if (*name < '0' || *name > '9')
		return false;
	while (*name >= '0' && *name <= '9')
		name++;
	return strcmp(name, p + 2) == 0;
}

/* After the move: the device in the container's namespace. The kernel keeps
 * its index unless the namespace has one (a shared, pre-made namespace), then
 * the name finds it; the hardware address must be the one it had. Whatever
 * is found there is the container's own (a process sharing that namespace
 * could swap names): nothing of the host is reached through this socket. */
static int find_moved(int cs, const struct link *host, const char *name, struct link *out, char *buf)
{
	bool tmpl = strchr(name, '%') != NULL;
	int r = get_link(cs, host->index, NULL, out, buf);

	if (r < 0 && r != -ENODEV)
		return r;
	if (r < 0 || !(tmpl ? from_template(name, out->name) : strcmp(name, out->name) == 0)) {
		if (tmpl)
			return -ENODEV;
		if ((r = get_link(cs, 0, name, out, buf)) < 0)
			return r;
	}
	if (out->hw_len != host->hw_len || memcmp(out->hw, host->hw, host->hw_len) != 0)
		return -ENODEV;
	return 0;
}

static int move_one(int hs, int cs, int nsfd, const struct oci_net_device *d, char *buf, struct error *err)
{
	const char *name = d->name && *d->name ? d->name : d->host_name;
	struct nl_req req;
	struct link host, moved;
	struct addr *addrs = NULL;
	size_t n_addrs = 0;
	uint32_t fd = (uint32_t)nsfd;
	char ip[INET6_ADDRSTRLEN];
	int index, r;

	index = (int)if_nametoindex(d->host_name);
	if (!index)
		return error_sys(err, errno, "linux.netDevices[\"%s\"]: no such interface", d->host_name);
	if (strlen(name) >= IFNAMSIZ)
		return error_set(err, EINVAL, "linux.netDevices[\"%s\"].name: too long", d->host_name);
	if ((r = get_link(hs, index, NULL, &host, buf)) < 0)
		return error_sys(err, -r, "linux.netDevices[\"%s\"]: read the interface", d->host_name);
	/* the spec: check first that the move can work (a template always can) */
	if (!strchr(name, '%') && (r = get_link(cs, 0, name, &moved, buf)) != -ENODEV)
		return error_sys(err, r < 0 ? -r : EEXIST, "linux.netDevices[\"%s\"]: %s in the container's "
				 "network namespace", d->host_name, name);
	/* before setting it down: an IPv6 address goes with the "down"
	 * (net.ipv6.conf.*.keep_addr_on_down=0, the default) */
	if ((r = get_addrs(hs, index, &addrs, &n_addrs, buf)) < 0)
		return error_sys(err, -r, "linux.netDevices[\"%s\"]: read its addresses", d->host_name);
	/* down first, as runc: nothing on the host uses it while it goes */
	if ((host.flags & IFF_UP) && (r = set_up(hs, index, false, buf)) < 0) {
		r = error_sys(err, -r, "linux.netDevices[\"%s\"]: set it down", d->host_name);
		goto out;
	}
	/* one RTM_NEWLINK: new namespace and new name together */
	req = link_req(RTM_NEWLINK, 0, index);
	add_attr(&req, IFLA_NET_NS_FD, &fd, sizeof(fd));
	add_attr(&req, IFLA_IFNAME, name, strlen(name) + 1);
	if ((r = nl_do(hs, &req, buf)) < 0) {
		r = error_sys(err, -r, "linux.netDevices[\"%s\"]: move to the container as %s", d->host_name, name);
		if (host.flags & IFF_UP)
			set_up(hs, index, true, buf);   /* as it was (its IPv4 addresses stayed) */
		goto out;
	}
	/* From here a failure leaves the device in the container's namespace,
	 * as runc: it goes with it (a virtual device is destroyed, a physical
	 * one returns to the host's initial namespace). */
	if ((r = find_moved(cs, &host, name, &moved, buf)) < 0) {
		r = error_sys(err, -r, "linux.netDevices[\"%s\"]: find %s in the container's network namespace",
			      d->host_name, name);
		goto out;
	}
	for (size_t i = 0; i < n_addrs; i++)
		if ((r = add_addr(cs, moved.index, &addrs[i], buf)) < 0) {
			inet_ntop(addrs[i].family, addrs[i].ip, ip, sizeof(ip));
			r = error_sys(err, -r, "linux.netDevices[\"%s\"]: add address %s/%u to %s in the container",
				      d->host_name, ip, addrs[i].prefixlen, moved.name);
			goto out;
		}
	if ((r = set_up(cs, moved.index, true, buf)) < 0)
		r = error_sys(err, -r, "linux.netDevices[\"%s\"]: set %s up in the container", d->host_name, moved.name);
out:
	free(addrs);
	return r;
}

/* The network namespace of the process pidfd names: from the pidfd, or
 * (before Linux 6.11) /proc/<pid>/ns/net below a proven procfs, after which
 * the pidfd must still name a live process (the pid was not reused). */
static int netns_of(pid_t pid, int pidfd)
{
	int fd = pidfd_ns_open(pidfd, pid, "net", PIDFD_GET_NET_NAMESPACE);

	if (fd < 0)
		return fd;
	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* A netlink socket of the namespace nsfd: made by a short-lived child of
 * ours that enters it (the runtime itself never does), passed back. */
static int socket_in(int nsfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int sv[2], e = 0, fd = -1, status;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		int s = setns(nsfd, CLONE_NEWNET) < 0 ? -1 : socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

		memset(u.buf, 0, sizeof(u.buf));
		e = s < 0 ? errno : 0;
		if (s < 0) {
			m.msg_control = NULL;
			m.msg_controllen = 0;
		} else {
			c = CMSG_FIRSTHDR(&m);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &s, sizeof(int));
		}
		_exit(sendmsg(sv[1], &m, MSG_NOSIGNAL) < 0);
	}
	close(sv[1]);
	e = EPROTO;
	memset(u.buf, 0, sizeof(u.buf));
	while ((n = recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		m.msg_controllen = 0;
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd >= 0 ? fd : -(e ? e : EPROTO);
}

int netdev_loopback_up(struct error *err)
{
	struct nl_req req = {
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = RTM_NEWLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_flags = IFF_UP, .ifi_change = IFF_UP },
	};
	char reply[512];
	ssize_t n;
	int sock, e = EPROTO;

	add_attr(&req, IFLA_IFNAME, "lo", sizeof("lo"));
	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sock < 0)
		return error_sys(err, errno, "network namespace: bring lo up: netlink socket");
	if (send(sock, &req, req.h.nlmsg_len, 0) < 0) {
		e = errno;
	} else if ((n = recv(sock, reply, sizeof(reply), 0)) < 0) {
		e = errno;
	} else if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		struct nlmsghdr *h = (struct nlmsghdr *)reply;
		struct nlmsgerr *ne = NLMSG_DATA(h);

		e = h->nlmsg_type == NLMSG_ERROR ? -ne->error : EPROTO;
	}
	close(sock);
	return e ? error_sys(err, e, "network namespace: bring lo up") : 0;
}

int netdev_move_all(const struct oci_linux *l, pid_t pid, int pidfd, struct error *err)
{
	int nsfd, hs = -1, cs = -1, r = 0;
	char *buf = NULL;

	if (!l->n_net_devices)
		return 0;
	if ((nsfd = netns_of(pid, pidfd)) < 0)
		return error_sys(err, -nsfd, "linux.netDevices: the container's network namespace");
	if ((hs = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		r = error_sys(err, errno, "linux.netDevices: netlink socket");
	else if ((cs = socket_in(nsfd)) < 0)
		r = error_sys(err, -cs, "linux.netDevices: netlink socket in the container's network namespace");
	else if (!(buf = malloc(NL_BUF)))
		r = error_set(err, ENOMEM, "linux.netDevices: out of memory");
	for (size_t i = 0; i < l->n_net_devices && r == 0; i++)
		r = move_one(hs, cs, nsfd, &l->net_devices[i], buf, err);
	free(buf);
	if (cs >= 0)
		close(cs);
	if (hs >= 0)
		close(hs);
	close(nsfd);
	return r;
}
