#!/usr/bin/python3
"""cri.py: a small CRI client that drives containerd's CRI plugin the way
kubelet does (tests/cri.bats). Python with Debian's python3-grpcio and
python3-protobuf; api_pb2.py is compiled by tests/lib/cri/build-proto.sh from
the CRI api.proto in Debian's containerd source package.

  cri.py SOCKET METHOD [JSON]
      one unary call of runtime.v1.RuntimeService or ImageService (METHOD as
      in api.proto, e.g. RunPodSandbox), the request as proto3 JSON; prints
      the response as JSON (default values included). A gRPC error: its code
      and message on stderr, exit status 1.
  cri.py stream URL [STDIN]
      a streaming exec/attach (the URL from Exec/Attach) as kubectl does it
      over a websocket, subprotocol v4.channel.k8s.io; STDIN, if given, is
      sent on channel 0. The process's stdout/stderr are copied to ours; the
      exit status is the process's (from the v4 status on channel 3).
"""
import base64
import json
import os
import socket
import struct
import sys
import urllib.parse

sys.path.insert(0, os.environ.get("CRI_PB2_DIR", os.path.dirname(os.path.abspath(__file__))))


def die(msg):
    print("cri: " + msg, file=sys.stderr)
    sys.exit(1)


def call(sock, method, body):
    import grpc
    from google.protobuf import json_format
    import api_pb2

    for svc in api_pb2.DESCRIPTOR.services_by_name.values():
        m = svc.methods_by_name.get(method)
        if m:
            break
    else:
        die(method + ": no such CRI method")
    req_cls = getattr(api_pb2, m.input_type.name)
    resp_cls = getattr(api_pb2, m.output_type.name)
    req = json_format.Parse(body or "{}", req_cls())
    with grpc.insecure_channel("unix://" + sock) as ch:
        fn = ch.unary_unary("/%s/%s" % (svc.full_name, method),
                            request_serializer=req_cls.SerializeToString,
                            response_deserializer=resp_cls.FromString)
        try:
            resp = fn(req, timeout=float(os.environ.get("CRI_TIMEOUT", "60")))
        except grpc.RpcError as e:
            die("%s: %s: %s" % (method, e.code().name, e.details()))
    print(json_format.MessageToJson(resp, including_default_value_fields=True, indent=None))


def ws_send(s, payload):
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x82, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x82, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x82, 0x80 | 127, n)
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def read_exact(f, n):
    data = f.read(n)
    if len(data) != n:
        raise EOFError
    return data


def ws_frames(f):
    while True:
        try:
            b0, b1 = read_exact(f, 2)
        except EOFError:
            return
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", read_exact(f, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", read_exact(f, 8))[0]
        mask = read_exact(f, 4) if b1 & 0x80 else None
        data = read_exact(f, n)
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        if b0 & 0x0F == 8:  # close
            return
        yield data


def stream(url, stdin):
    u = urllib.parse.urlsplit(url)
    s = socket.create_connection((u.hostname, u.port), timeout=60)
    key = base64.b64encode(os.urandom(16)).decode()
    path = u.path + ("?" + u.query if u.query else "")
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
               "Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n" % (path, u.netloc, key)).encode())
    f = s.makefile("rb")
    status = f.readline().decode(errors="replace").strip()
    while f.readline() not in (b"\r\n", b""):
        pass
    if " 101 " not in status + " ":
        die("stream: %s: %s" % (url, status))
    if stdin is not None:
        ws_send(s, b"\x00" + stdin.encode())
    rc = None
    for data in ws_frames(f):
        if not data:
            continue
        ch, data = data[0], data[1:]
        if ch in (1, 2):
            out = sys.stdout if ch == 1 else sys.stderr
            out.buffer.write(data)
            out.flush()
        elif ch == 3 and data:
            st = json.loads(data)
            if st.get("status") == "Success":
                rc = 0
            elif st.get("reason") == "NonZeroExitCode":
                causes = st.get("details", {}).get("causes", [])
                rc = int(next(c["message"] for c in causes if c.get("reason") == "ExitCode"))
            else:
                die("stream: " + st.get("message", str(st)))
    if rc is None:
        die("stream: connection closed without a status")
    sys.exit(rc)


def main(argv):
    if len(argv) >= 2 and argv[0] == "stream":
        stream(argv[1], argv[2] if len(argv) > 2 else None)
    elif len(argv) in (2, 3):
        call(argv[0], argv[1], argv[2] if len(argv) > 2 else None)
    else:
        die("usage: cri.py SOCKET METHOD [JSON] | cri.py stream URL [STDIN]")


if __name__ == "__main__":
    main(sys.argv[1:])
