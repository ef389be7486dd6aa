# A stand-in systemd for the --systemd-cgroup suites (cgroups-systemd.bats,
# cgroups-systemd-user.bats): no real systemd runs these tests.
#
# fake_systemd DIR TYPE LISTEN [MOCK_ARG...]: a mount namespace with its
# own /run holding /run/systemd/system (sd_booted), a private dbus-daemon of
# TYPE (system or session) listening on the path LISTEN (as that namespace
# sees it), and
# tests/lib/mock-systemd.py DIR MOCK_ARG... playing systemd's Manager on it
# (DIR gets its `calls`). Sets NS_PID, DBUS_PID and MOCK_PID, which the
# caller's teardown kills.

FAKE_SYSTEMD_PYTHON=/usr/bin/python3

# fake_systemd_missing: why the host cannot run the stand-in (empty: it can)
fake_systemd_missing() {
	local t
	for t in dbus-daemon unshare nsenter; do
		command -v "$t" >/dev/null || { echo "$t is not installed (make deps)"; return; }
	done
	"$FAKE_SYSTEMD_PYTHON" -c 'import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib' \
		2>/dev/null || { echo "$FAKE_SYSTEMD_PYTHON with python3-dbus and python3-gi is needed (make deps)"; return; }
	[[ -d /run/systemd/system ]] && echo "systemd runs this host: the test would talk to the real one"
	return 0
}

fake_systemd() {
	local dir="$1" type="$2" listen="$3" socket i
	shift 3
	cat >"$dir/bus.conf" <<-EOF
		<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
		 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
		<busconfig>
		  <type>$type</type>
		  <listen>unix:path=$listen</listen>
		  <auth>EXTERNAL</auth>
		  <policy context="default">
		    <allow user="*"/>
		    <allow own="*"/>
		    <allow send_destination="*"/>
		    <allow receive_sender="*"/>
		  </policy>
		</busconfig>
	EOF
	unshare -m --propagation private sh -c \
		'mount -t tmpfs -o mode=0755 tinyrun-test-run /run && mkdir -p /run/systemd/system /run/dbus && exec sleep 3600' \
		</dev/null >"$dir/ns.log" 2>&1 3>&- 4>&- &
	NS_PID=$!
	socket="/proc/$NS_PID/root$listen"
	for ((i = 0; i < 200; i++)); do
		[[ -d "/proc/$NS_PID/root/run/systemd/system" ]] && break
		sleep 0.05
	done
	[[ -d "/proc/$NS_PID/root/run/systemd/system" ]] || fail "no private /run: $(cat "$dir/ns.log")"
	nsenter -t "$NS_PID" -m -- dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile \
		</dev/null >"$dir/dbus.log" 2>&1 3>&- 4>&- &
	DBUS_PID=$!
	for ((i = 0; i < 200; i++)); do
		[[ -S "$socket" ]] && break
		sleep 0.05
	done
	[[ -S "$socket" ]] || fail "no $type bus: $(cat "$dir/dbus.log")"
	DBUS_SESSION_BUS_ADDRESS="unix:path=$listen" nsenter -t "$NS_PID" -m -- \
		"$FAKE_SYSTEMD_PYTHON" "$TESTS_DIR/lib/mock-systemd.py" "$dir" "$@" \
		</dev/null >"$dir/mock.log" 2>&1 3>&- 4>&- &
	MOCK_PID=$!
	wait_for_file "$dir/ready" || fail "the mock did not start: $(cat "$dir/dbus.log" "$dir/mock.log")"
}

# fake_systemd_stop: the mock, its bus and the namespace (by pid)
fake_systemd_stop() {
	local pid
	for pid in "${MOCK_PID:-}" "${DBUS_PID:-}" "${NS_PID:-}"; do
		[[ -n "$pid" ]] || continue
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	return 0
}

# fake_systemd_calls METHOD: the mock's recorded calls of METHOD, one JSON object a line
fake_systemd_calls() {
	[[ -f "$SD/calls" ]] || return 0
	jq -c --arg m "$1" 'select(.method == $m)' "$SD/calls"
}
