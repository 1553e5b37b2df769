#!/usr/bin/env python3
"""fake_migschedd.py: a stand-in for migschedd on a Unix socket that misbehaves on purpose,
for the client tests (tests/daemon/clients_*.sh).

usage: fake_migschedd.py SOCKET ROUTES.json LOG
Binds SOCKET, goes to the background and prints its pid (the caller's to kill). Each
request is answered from ROUTES.json, read again for every request so that a test can
change it between calls: {"METHOD TARGET": ANSWER}, TARGET the path with its query, or the
path alone to match any query; ANSWER one of
  {"status": N, "body": TEXT}    TEXT as UTF-8 (a lone surrogate "\\udc9b" is the byte 9b)
  {"status": N, "hex": BYTES}    the body's bytes in hex
  {"hang": "silent"}             never answers (reads until the client goes)
  {"hang": "trickle"}            200 announcing a long body, then a byte every 0.2 s
  {"hang": "flood"}              200 with a body that has no end
Anything else is a 404. Each request's "METHOD TARGET" is appended to LOG. It exits by
itself after LIFETIME_S seconds, so that a client that hangs cannot keep it up.
"""
import json
import os
import socket
import sys
import threading
import time

LIFETIME_S = 60


def read_request(conn, pending):
    """One request's (method, target) off conn, its body skipped; None at the end."""
    while b"\r\n\r\n" not in pending[0]:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        pending[0] += chunk
    head, rest = pending[0].split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, target = lines[0].split(" ")[:2]
    length = 0
    for line in lines[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == "content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        rest += chunk
    pending[0] = rest[length:]
    return method, target


def answer(conn, status, body):
    conn.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % (status, len(body)) + body)


def serve(conn, routes_path, log):
    pending = [b""]
    while True:
        req = read_request(conn, pending)
        if req is None:
            return
        method, target = req
        with open(log, "a") as f:
            f.write("%s %s\n" % (method, target))
        with open(routes_path) as f:
            routes = json.load(f)
        r = routes.get("%s %s" % (method, target)) or \
            routes.get("%s %s" % (method, target.split("?")[0]))
        if r is None:
            answer(conn, 404, b'{"error": "no route"}')
        elif r.get("hang") == "silent":
            while conn.recv(65536):
                pass
            return
        elif r.get("hang") == "trickle":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000\r\n\r\n")
            while True:
                conn.sendall(b" ")
                time.sleep(0.2)
        elif r.get("hang") == "flood":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
            chunk = b" " * (1 << 20)
            while True:
                conn.sendall(chunk)
        elif "hex" in r:
            answer(conn, r["status"], bytes.fromhex(r["hex"]))
        else:
            answer(conn, r["status"], r["body"].encode("utf-8", "surrogateescape"))


def guarded(conn, routes_path, log):
    try:
        with conn:
            serve(conn, routes_path, log)
    except OSError:
        pass  # the client went away


def main():
    sock_path, routes_path, log = sys.argv[1:4]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(16)
    pid = os.fork()
    if pid:
        print(pid)
        return
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    threading.Timer(LIFETIME_S, lambda: os._exit(0)).start()
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=guarded, args=(conn, routes_path, log), daemon=True).start()


if __name__ == "__main__":
    main()
