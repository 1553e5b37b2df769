#!/usr/bin/env python3
"""trickle.py: a slow client for migschedd's tests: COUNT connections, each sending a
request's start (a POST's request line and a few header lines, or with --whole-header the
whole header announcing a large body) and then one byte every INTERVAL seconds; a
connection the server closes is opened again at the next tick. Stops by itself after
SECONDS and prints what it saw as JSON: connections opened, closed by the server, the most
open at once (counted a tick after they were opened, so that those the server closes at
once are not counted) and the longest life of one the server closed."""
import argparse
import json
import select
import socket
import time

p = argparse.ArgumentParser()
p.add_argument("--unix", help="the daemon's socket")
p.add_argument("--tcp", help="HOST:PORT")
p.add_argument("--bind", help="TCP: the local address to connect from")
p.add_argument("--count", type=int, default=300)
p.add_argument("--seconds", type=float, default=16)
p.add_argument("--interval", type=float, default=2)
p.add_argument("--whole-header", action="store_true")
p.add_argument("--ready", help="a file written once the first round of connections is made")
a = p.parse_args()

START = b"POST /v1/jobs HTTP/1.1\r\nHost: d\r\nContent-Type: application/json\r\n"
if a.whole_header:
    START += b"Content-Length: 60000\r\n\r\n["
else:
    START += b"X-Trickle: "


def connect():
    if a.unix:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        where = a.unix
    else:
        host, port = a.tcp.rsplit(":", 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if a.bind:
            s.bind((a.bind, 0))
        where = (host, int(port))
    s.settimeout(0.2)  # a full backlog makes connect wait: count it as not open
    try:
        s.connect(where)
        s.sendall(START)
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


socks = [None] * a.count
born = [0.0] * a.count
stats = {"opened": 0, "closed_by_server": 0, "max_open": 0, "max_life": 0.0}
end = time.monotonic() + a.seconds
first = True
while time.monotonic() < end:
    live = [s for s in socks if s]
    readable = select.select(live, [], [], 0)[0] if live else []
    now = time.monotonic()
    for i, s in enumerate(socks):
        if s is None:
            continue
        closed = False
        if s in readable:
            try:
                closed = True  # an answer (a 401, a 408) or the end: the server is done with it
                s.recv(4096)
            except OSError:
                pass
        if not closed:
            try:
                s.send(b"a")
            except OSError:
                closed = True
        if closed:
            stats["closed_by_server"] += 1
            stats["max_life"] = max(stats["max_life"], now - born[i])
            s.close()
            socks[i] = None
    stats["max_open"] = max(stats["max_open"], sum(1 for s in socks if s))
    for i in range(a.count):
        if socks[i] is None and time.monotonic() < end:
            socks[i] = connect()
            if socks[i]:
                stats["opened"] += 1
                born[i] = time.monotonic()
    if first and a.ready:
        open(a.ready, "w").close()
        first = False
    time.sleep(max(0.0, min(a.interval, end - time.monotonic())))
for s in socks:
    if s:
        s.close()
stats["max_life"] = round(stats["max_life"], 2)
print(json.dumps(stats))
