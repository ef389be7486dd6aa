#!/usr/bin/python3
"""A stand-in for systemd's D-Bus Manager, for tests/cgroups-systemd.bats.

usage: mock-systemd.py DIR   (on the system bus of the current mount namespace)
       mock-systemd.py DIR --user UID CGROUP
                             (a user's manager, on the session bus of
                             DBUS_SESSION_BUS_ADDRESS: cgroup v2 only; its
                             own cgroup is CGROUP, made and given to UID)

Owns org.freedesktop.systemd1 and serves /org/freedesktop/systemd1
(org.freedesktop.systemd1.Manager):
  StartTransientUnit  makes the unit's cgroup in systemd's own hierarchies
                      (the cgroup2: /sys/fs/cgroup or /sys/fs/cgroup/unified,
                      and name=systemd when mounted), moves PIDs there, then
                      emits JobRemoved(..., "done")
  StopUnit            forgets the unit, removes its dirs when empty, JobRemoved
  GetUnit             the unit's object path, or NoSuchUnit
  AttachProcessesToUnit  moves PIDs into the unit's cgroup (or its sub-cgroup)
  SetUnitProperties   records the properties (update), NoSuchUnit for an unknown unit
  Properties.Get      Manager's Version ("252.33-1~deb12u1", or the file
                      `version` in DIR) and, with --user, ControlGroup: CGROUP
Files in DIR:
  calls       written: one JSON object per call {"method", "name", "mode", "properties"}
  ready       written once the bus name is ours
  fail-start  read: when it exists, StartTransientUnit fails with the error
              named on its first line and the message on its second
  job-result  read: the JobRemoved result of StartTransientUnit (default "done")
  fail-get    read: when it exists, Properties.Get fails as fail-start does
"""
import json
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BUS_NAME = "org.freedesktop.systemd1"
OBJECT = "/org/freedesktop/systemd1"
MANAGER = "org.freedesktop.systemd1.Manager"
CG = "/sys/fs/cgroup"


def hierarchies():
    """systemd's own cgroup hierarchies on this host."""
    if os.path.exists(CG + "/cgroup.controllers"):
        return [CG]
    return [h for h in (CG + "/unified", CG + "/systemd") if os.path.isdir(h)]


def slice_path(name):
    """systemd's expansion: "a-b.slice" -> "/a.slice/a-b.slice"."""
    if name == "-.slice":
        return ""
    parts = name[: -len(".slice")].split("-")
    return "".join("/" + "-".join(parts[: i + 1]) + ".slice" for i in range(len(parts)))


def plain(v):
    """D-Bus values as JSON values."""
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (list, dbus.Array, dbus.Struct, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dbus.Dictionary):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (dbus.String, dbus.ObjectPath, str)):
        return str(v)
    return int(v)


class Failure(dbus.DBusException):
    def __init__(self, name, message):
        super().__init__(message)
        self._dbus_error_name = name


def give(path, uid):
    """A user manager makes its units' cgroups as that user: dir and files."""
    os.chown(path, uid, uid)
    for f in os.listdir(path):
        if os.path.isfile(os.path.join(path, f)):
            os.chown(os.path.join(path, f), uid, uid)


def enable_controllers(path):
    """systemd delegates pids, memory, cpu to a user's manager, down to the unit's parent."""
    parts = path.strip("/").split("/")
    for i in range(len(parts)):
        try:
            with open(CG + "/" + "/".join(parts[:i]) + "/cgroup.subtree_control", "w") as f:
                f.write("+pids +memory +cpu")
        except OSError:
            pass


class Manager(dbus.service.Object):
    def __init__(self, bus, state_dir, user=None):
        super().__init__(bus, OBJECT)
        self.dir = state_dir
        self.units = {}
        self.jobs = 0
        self.user = user            # (uid, its manager's cgroup) or None
        if user:
            os.makedirs(CG + user[1], exist_ok=True)
            give(CG + user[1], user[0])

    def record(self, method, name, mode=None, properties=None):
        call = {"method": method, "name": str(name)}
        if mode is not None:
            call["mode"] = str(mode)
        if properties is not None:
            call["properties"] = {str(k): plain(v) for k, v in properties}
        with open(os.path.join(self.dir, "calls"), "a") as f:
            f.write(json.dumps(call) + "\n")

    def read_control(self, name):
        try:
            with open(os.path.join(self.dir, name)) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return None

    def new_job(self, unit, result):
        self.jobs += 1
        job_id, path = self.jobs, dbus.ObjectPath("%s/job/%d" % (OBJECT, self.jobs))
        GLib.idle_add(lambda: self.JobRemoved(dbus.UInt32(job_id), path, unit, result) and False)
        return path

    @dbus.service.method(MANAGER, in_signature="ssa(sv)a(sa(sv))", out_signature="o")
    def StartTransientUnit(self, name, mode, properties, aux):
        self.record("StartTransientUnit", name, mode, properties)
        fail = self.read_control("fail-start")
        if fail:
            raise Failure(fail[0], fail[1] if len(fail) > 1 else "mock failure")
        if name in self.units:
            # systemd 252's own text (cgroups-systemd-real.bats)
            raise Failure("org.freedesktop.systemd1.UnitExists",
                          "Unit %s was already loaded or has a fragment file." % name)
        props = dict(properties)
        if name.endswith(".slice"):
            path = slice_path(name)
        else:
            path = slice_path(str(props.get("Slice", "system.slice"))) + "/" + name
        if self.user:
            path = self.user[1] + path
            enable_controllers(path)
        for h in hierarchies():
            os.makedirs(h + path, exist_ok=True)
            if self.user:
                d = h + path
                while d != h + self.user[1]:
                    give(d, self.user[0])
                    d = os.path.dirname(d)
            for pid in props.get("PIDs", []):
                with open(h + path + "/cgroup.procs", "w") as f:
                    f.write(str(int(pid)))
        self.units[str(name)] = path
        result = (self.read_control("job-result") or ["done"])[0]
        return self.new_job(name, result)

    @dbus.service.method(MANAGER, in_signature="ss", out_signature="o")
    def StopUnit(self, name, mode):
        self.record("StopUnit", name, mode)
        if name not in self.units:
            raise Failure("org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded." % name)
        path = self.units.pop(str(name))
        for h in hierarchies():
            try:
                os.rmdir(h + path)
            except OSError:
                pass
        return self.new_job(name, "done")

    @dbus.service.method(MANAGER, in_signature="s", out_signature="o")
    def GetUnit(self, name):
        if name not in self.units:
            raise Failure("org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded." % name)
        return dbus.ObjectPath(OBJECT + "/unit/" + "".join(c if c.isalnum() else "_%02x" % ord(c) for c in name))

    @dbus.service.method(MANAGER, in_signature="ssau", out_signature="")
    def AttachProcessesToUnit(self, name, subcgroup, pids):
        self.record("AttachProcessesToUnit", name, subcgroup, [("PIDs", pids)])
        if name not in self.units:
            raise Failure("org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded." % name)
        for h in hierarchies():
            for pid in pids:
                with open(h + self.units[str(name)] + str(subcgroup) + "/cgroup.procs", "w") as f:
                    f.write(str(int(pid)))

    @dbus.service.method(MANAGER, in_signature="sba(sv)", out_signature="")
    def SetUnitProperties(self, name, runtime, properties):
        self.record("SetUnitProperties", name, "runtime" if runtime else "persistent", properties)
        if name not in self.units:
            raise Failure("org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded." % name)

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        self.record("Get", prop)
        fail = self.read_control("fail-get")
        if fail:
            raise Failure(fail[0], fail[1] if len(fail) > 1 else "mock failure")
        if interface == MANAGER and prop == "Version":
            return dbus.String((self.read_control("version") or ["252.33-1~deb12u1"])[0], variant_level=1)
        if interface != MANAGER or prop != "ControlGroup" or not self.user:
            raise Failure("org.freedesktop.DBus.Error.UnknownProperty", "Unknown property %s" % prop)
        return dbus.String(self.user[1], variant_level=1)

    @dbus.service.signal(MANAGER, signature="uoss")
    def JobRemoved(self, job_id, job, unit, result):
        pass


def main():
    state_dir = sys.argv[1]
    user = None
    if len(sys.argv) == 5 and sys.argv[2] == "--user":
        user = (int(sys.argv[3]), sys.argv[4])
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus() if user else dbus.SystemBus()
    name = dbus.service.BusName(BUS_NAME, bus, do_not_queue=True)
    Manager(bus, state_dir, user)
    open(os.path.join(state_dir, "ready"), "w").close()
    GLib.MainLoop().run()
    del name


if __name__ == "__main__":
    main()
