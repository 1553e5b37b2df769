#!/usr/bin/env bash
# http_strict.sh: requests whose framing or path is ambiguous get a 400 with a JSON error
# naming the problem: two Content-Length headers (equal or not), chunked with a
# Content-Length, a NUL in the path (%00 or the byte), job and Slurm ids not written
# canonically, times keys not written canonically; an error message cut inside a UTF-8
# character is still a JSON body, never a 500 without one.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
start_daemon --backend sim --gpu A30-24GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" --allow-root-jobs true
# raw REQUEST: sends the bytes (printf escapes) on the socket, prints the status line's code
# and the body.
raw() {
    python3 - "$SOCK" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode().decode('unicode_escape').encode('latin-1'))
data = b''
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
        if b'\r\n\r\n' in data:
            head, _, body = data.partition(b'\r\n\r\n')
            cl = [l for l in head.split(b'\r\n') if l.lower().startswith(b'content-length:')]
            if cl and len(body) >= int(cl[0].split(b':')[1]):
                break
except socket.timeout:
    pass
head, _, body = data.partition(b'\r\n\r\n')
print(head.split(b' ')[1].decode() if head else '-')
print(body.decode('utf-8', 'replace'))
PY
}
expect_raw() {  # $1 request, $2 text in the JSON error
    local out
    out=$(raw "$1")
    [ "$(head -n1 <<<"$out")" = 400 ] || fail "request $1: got $(head -c 300 <<<"$out")"
    grep -q '"error":' <<<"$out" && grep -qF -- "$2" <<<"$out" || fail "request $1: body lacks '$2': $out"
}
J='{"name":"x","command":["true"],"slices":1,"seconds":1}'
L=${#J}
expect_raw "POST /v1/jobs HTTP/1.1\r\nHost: d\r\nContent-Length: $L\r\nContent-Length: $L\r\n\r\n$J" "Content-Length"
expect_raw "POST /v1/jobs HTTP/1.1\r\nHost: d\r\nContent-Length: $L\r\nContent-Length: 3\r\n\r\n$J" "Content-Length"
expect_raw "POST /v1/jobs HTTP/1.1\r\nHost: d\r\nTransfer-Encoding: chunked\r\nContent-Length: $L\r\n\r\n$(printf %x "$L")\r\n$J\r\n0\r\n\r\n" "Transfer-Encoding"
expect_raw "GET /v1/jobs%00 HTTP/1.1\r\nHost: d\r\n\r\n" "NUL"
expect_raw "GET /v1/jobs%00/1 HTTP/1.1\r\nHost: d\r\n\r\n" "NUL"
expect_raw "GET /v1/jobs?state=queued%00x HTTP/1.1\r\nHost: d\r\n\r\n" "NUL"
[ "$(count_state queued)" = 0 ] || fail "a refused request made a job"
ucurl -X POST -d "$J" http://d/v1/jobs > /dev/null
for id in 01 +1 %201 -0; do
    out=$(ucurl "http://d/v1/jobs/$id")
    [ "$(status_of "$out")" = 400 ] && grep -q 'not written canonically' <<<"$out" ||
        fail "job id '$id': $out"
done
[ "$(status_of "$(ucurl http://d/v1/jobs/1)")" = 200 ] || fail "job 1"
for id in 07 +7; do
    out=$(ucurl "http://d/v1/allocations/$id")
    [ "$(status_of "$out")" = 400 ] && grep -q 'not written canonically' <<<"$out" ||
        fail "Slurm id '$id': $out"
done
for k in 01 +1 " 1"; do
    out=$(ucurl -X POST -d "{\"name\":\"t\",\"command\":[\"true\"],\"times\":{\"1\":5,\"$k\":9}}" http://d/v1/jobs)
    [ "$(status_of "$out")" = 400 ] && grep -q 'times' <<<"$out" || fail "times key '$k': $out"
done
# 'a' and 19 two-byte characters are 39 bytes: a 40-byte cut ends inside the 20th.
key=a$(printf 'é%.0s' $(seq 30))
out=$(ucurl -X POST -d "{\"name\":\"t\",\"command\":[\"true\"],\"times\":{\"$key\":5}}" http://d/v1/jobs)
[ "$(status_of "$out")" = 400 ] && grep -q '"error":"job: times' <<<"$out" || fail "a cut UTF-8 key: $out"
stop_daemon TERM 0
echo "http_strict: ok"
