#include "runtime/linux/netdev.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct nl_req {
	struct nlmsghdr h;
	struct ifinfomsg ifi;
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

/* One RTM_NEWLINK: new namespace and new name together. */
static int move_one(int sock, const struct oci_net_device *d, pid_t pid, struct error *err)
{
	const char *name = d->name && *d->name ? d->name : d->host_name;
	struct nl_req req = {
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = RTM_NEWLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	char reply[512];
	uint32_t nspid = pid;
	ssize_t n;

	req.ifi.ifi_index = if_nametoindex(d->host_name);
	if (!req.ifi.ifi_index)
		return error_sys(err, errno, "linux.netDevices[\"%s\"]: no such interface", d->host_name);
	if (strlen(name) >= IFNAMSIZ)
		return error_set(err, EINVAL, "linux.netDevices[\"%s\"].name: too long", d->host_name);
	add_attr(&req, IFLA_NET_NS_PID, &nspid, sizeof(nspid));
	add_attr(&req, IFLA_IFNAME, name, strlen(name) + 1);
	if (send(sock, &req, req.h.nlmsg_len, 0) < 0)
		return error_sys(err, errno, "linux.netDevices[\"%s\"]: netlink", d->host_name);
	n = recv(sock, reply, sizeof(reply), 0);
	if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		struct nlmsghdr *h = (struct nlmsghdr *)reply;
		struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_type == NLMSG_ERROR && e->error)
			return error_sys(err, -e->error, "linux.netDevices[\"%s\"]: move to the container as %s",
					 d->host_name, name);
		return 0;
	}
	return error_sys(err, n < 0 ? errno : EPROTO, "linux.netDevices[\"%s\"]: netlink reply", d->host_name);
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

int netdev_move_all(const struct oci_linux *l, pid_t pid, struct error *err)
{
	int sock, r = 0;

	if (!l->n_net_devices)
		return 0;
	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sock < 0)
		return error_sys(err, errno, "linux.netDevices: netlink socket");
	for (size_t i = 0; i < l->n_net_devices && r == 0; i++)
		r = move_one(sock, &l->net_devices[i], pid, err);
	close(sock);
	return r;
}
