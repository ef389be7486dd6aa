#!/usr/bin/env python3
"""unix-listener.py MODE SOCKET: the far end of --console-socket / --pidfd-socket.

Made under SOCKET.tmp and renamed to SOCKET once ready, so a client never
sees a socket that is not yet what the mode says.

  stuck  a listener that never accepts and whose backlog is full (listen(0)
         plus one pending connection of its own): a connect() to it blocks.
         Lives until killed (at most 60 s).
  recv   accepts one connection, receives one message and prints the bytes
         of its payload (Python's repr: b'...'), then "fds=N" and, for one
         fd, "tty=True|False" (a pty master is a tty); then keeps the fd
         open, reading it, until its other side is gone (the container's
         process must not lose its terminal). Exit 1 without a message.
"""
import array
import os
import signal
import socket
import sys
import time


def listen(path, backlog):
    tmp = path + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(tmp)
    s.listen(backlog)
    return s, tmp


def stuck(path):
    s, tmp = listen(path, 0)
    pending = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pending.connect(tmp)   # the one slot of the backlog, never accepted
    os.rename(tmp, path)
    while True:
        time.sleep(3600)


def recv(path):
    s, tmp = listen(path, 1)
    os.rename(tmp, path)
    conn, _ = s.accept()
    fds = array.array("i")
    msg, anc, _, _ = conn.recvmsg(4096, socket.CMSG_SPACE(4 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    if not msg and not fds:
        print("no message", file=sys.stderr)
        return 1
    print(repr(msg))
    print("fds=%d" % len(fds))
    if len(fds) == 1:
        print("tty=%s" % os.isatty(fds[0]))
    sys.stdout.flush()
    try:
        while fds and os.read(fds[0], 4096):
            pass
    except OSError:   # EIO: the pty's other side is closed
        pass
    for fd in fds:
        os.close(fd)
    return 0


def main():
    signal.alarm(60)   # never outlives a test by much
    if len(sys.argv) != 3 or sys.argv[1] not in ("stuck", "recv"):
        print(__doc__, file=sys.stderr)
        return 2
    return stuck(sys.argv[2]) if sys.argv[1] == "stuck" else recv(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
