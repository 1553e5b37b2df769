#!/usr/bin/env bash
# slow_reader.sh: a client that asks for a large answer and then reads it a few bytes at a
# time (never idle long enough for the HTTP server's idle timeout) is cut at
# request-timeout, like one that sends slowly: otherwise each such connection is held for
# good, and peer-connections of them per user (or per 127.x address on TCP) lock the
# others out of the listener.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing"
RT=2
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --allow-root-jobs true --request-timeout $RT --on-stop requeue
# About 2.4 MB of specs (root sees them): more than the socket's buffers hold.
V=$(head -c 4000 /dev/zero | tr '\0' x)
ENV=$(for k in $(seq 10); do printf '"V%d": "%s",' "$k" "$V"; done)
for i in $(seq 50); do
    r=$(ucurl -X POST -d "{\"name\": \"j$i\", \"command\": [\"true\"], \"profile\": \"1g.5gb\", \"seconds\": 3600, \"env\": {${ENV%,}}}" http://d/v1/jobs)
    [ "$(status_of "$r")" = 201 ] || fail "submit $i: $r"
done
python3 - "$SOCK" $RT <<'PY' || fail "the slow reader was not cut"
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET /v1/jobs HTTP/1.1\r\nHost: d\r\n\r\n")
data, start = b"", time.time()
while time.time() - start < 3 * float(sys.argv[2]) + 2:  # a few bytes at a time
    data += s.recv(256)
    time.sleep(0.2)
s.settimeout(5)  # then what is left, at once: all of it unless the daemon cut it
while True:
    try:
        b = s.recv(1 << 16)
    except socket.timeout:
        break
    if not b:
        break
    data += b
head, _, body = data.partition(b"\r\n\r\n")
length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
print("read %d of %s bytes of the answer" % (len(body), length))
sys.exit(0 if length and len(body) < length[0] else 1)
PY
[ "$(status_of "$(ucurl http://d/healthz)")" = 200 ] || fail "no answer after the slow reader"
stop_daemon TERM 0
echo "slow_reader: ok"
