#!/usr/bin/env bash
# tokens.sh: who a caller is. On TCP the token-file's `USER TOKEN` lines: two throwaway
# users' tokens each authenticate as that user (the access log's user= and uid=, at
# log-level debug), through curl and through `migsched --token-file` with the user's own
# one-line file and with a `USER TOKEN` line; a wrong token, or none, gets 401 everywhere
# but GET / and GET /healthz (/metrics included); an unauthenticated POST is answered 401
# before its body is read (a raw client that never sends the body gets it at once; curl
# uploading 64 MB reads it every time and stops sending). On the Unix socket the caller is
# the peer's uid. SIGHUP re-reads the file; a bad one is refused naming FILE:LINE and the
# old tokens keep working. Needs root (useradd): skipped otherwise.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (useradd)"; exit 77; }
command -v python3 >/dev/null || fail "python3 is missing"
UA=mta$RANDOM$RANDOM UB=mtb$RANDOM$RANDOM
drop_users() { userdel -r "$UA" 2>/dev/null; userdel -r "$UB" 2>/dev/null; cleanup; }
trap drop_users EXIT
# useradd fails while another test holds the passwd lock: a few tries.
add_user() { for _ in 1 2 3 4 5 6 7 8 9 10; do useradd -M -N -s /usr/sbin/nologin "$1" 2>/dev/null && return; sleep 0.5; done; fail "useradd $1"; }
add_user "$UA"
add_user "$UB"
TA=aaaaaaaaaaaaaaaa$RANDOM TB=bbbbbbbbbbbbbbbb$RANDOM TB2=cccccccccccccccc$RANDOM
cat > "$T/tokens" <<EOF
# node operators' tokens
$UA $TA

	$UB   $TB
EOF
chmod 600 "$T/tokens"
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/tokens" --db "$T/d.db" --log-level debug
URL=http://127.0.0.1:$PORT
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
# The access log's last line for a path: "user=NAME uid=N".
who_of() { grep "event=http.request .*path=$1 " "$T/daemon.log" | tail -1 | grep -o 'user=.*'; }

# 1. Each user's token is that user.
[ "$(code -H "Authorization: Bearer $TA" "$URL/v1/gpus")" = 200 ] || fail "$UA's token"
[ "$(who_of /v1/gpus)" = "user=$UA uid=$(id -u "$UA")" ] || fail "A's request logged as $(who_of /v1/gpus)"
[ "$(code -H "Authorization: Bearer $TB" "$URL/v1/plan")" = 200 ] || fail "$UB's token"
[ "$(who_of /v1/plan)" = "user=$UB uid=$(id -u "$UB")" ] || fail "B's request logged as $(who_of /v1/plan)"
printf '%s\n' "$TA" > "$T/a.token"
printf '%s %s\n' "$UB" "$TB" > "$T/b.line"
chmod 600 "$T/a.token" "$T/b.line"
"$M" jobs --connect "$URL" --token-file "$T/a.token" > /dev/null || fail "migsched with A's own token file"
[ "$(who_of /v1/jobs)" = "user=$UA uid=$(id -u "$UA")" ] || fail "migsched as A logged as $(who_of /v1/jobs)"
"$M" jobs --connect "$URL" --token-file "$T/b.line" > /dev/null || fail "migsched with a USER TOKEN line"
[ "$(who_of /v1/jobs)" = "user=$UB uid=$(id -u "$UB")" ] || fail "migsched as B logged as $(who_of /v1/jobs)"
printf 'x y z\n' > "$T/bad.token"
chmod 600 "$T/bad.token"
"$M" jobs --connect "$URL" --token-file "$T/bad.token" 2> "$T/err"
[ $? = 1 ] && grep -q 'bad.token: expected only the token (or one USER TOKEN line), on one line' "$T/err" || fail "3 fields: $(cat "$T/err")"

# 2. Without a valid token only the page and the probe are served.
for p in /v1/jobs /v1/gpus /v1/plan /metrics /v1/allocations/7; do
    [ "$(code "$URL$p")" = 401 ] || fail "$p without a token"
    [ "$(code -H "Authorization: Bearer ${TA}x" "$URL$p")" = 401 ] || fail "$p with a wrong token"
    [ "$(code -H "Authorization: Bearer ${TA:0:16}" "$URL$p")" = 401 ] || fail "$p with a prefix of a token"
done
[ "$(who_of /metrics)" = "user=- uid=-" ] || fail "a refused request logged as $(who_of /metrics)"
[ "$(code -H "Authorization: Bearer $TA" "$URL/metrics")" = 200 ] || fail "/metrics with a token"
[ "$(code "$URL/")" = 200 ] && [ "$(code "$URL/healthz")" = 200 ] || fail "the public paths"
[ "$(code -X POST -d '{}' "$URL/healthz")" = 401 ] || fail "POST /healthz without a token"

# 3. An unauthenticated POST is answered before its body is read.
python3 - "$PORT" <<'PY' || fail "the raw client got no 401 before sending its body"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: d\r\nContent-Type: application/json\r\n"
          b"Content-Length: 60000\r\n\r\n")
s.settimeout(5)
reply = b""
while b"\r\n\r\n" not in reply:
    chunk = s.recv(4096)
    if not chunk:
        break
    reply += chunk
assert reply.startswith(b"HTTP/1.1 401"), reply[:80]
PY
head -c 64000000 /dev/zero > "$T/big"
for i in $(seq 20); do
    r=$(curl -s -o /dev/null -w '%{http_code} %{size_upload}' -H 'Expect:' -X POST \
        --data-binary "@$T/big" "$URL/v1/jobs")
    [ "${r% *}" = 401 ] || fail "large unauthenticated POST $i: $r"
    [ "${r#* }" -lt 32000000 ] || fail "large unauthenticated POST $i: the whole body was read ($r)"
done
r=$(curl -s -o /dev/null -w '%{http_code} %{size_upload}' -X POST --data-binary "@$T/big" "$URL/v1/jobs")
[ "$r" = "401 0" ] || fail "with Expect: 100-continue: $r"
[ "$(code -H "Authorization: Bearer $TA" "$URL/v1/gpus")" = 200 ] || fail "served after the large bodies"

# 4. The Unix socket: the caller is the peer's uid, whatever token it sends.
chmod 755 "$T"
chmod 666 "$SOCK"
setpriv --reuid="$UA" --regid="$(id -g "$UA")" --init-groups \
    curl -s -o /dev/null -H "Authorization: Bearer $TB" --unix-socket "$SOCK" http://d/v1/plan
[ "$(who_of /v1/plan)" = "user=$UA uid=$(id -u "$UA")" ] || fail "A on the socket logged as $(who_of /v1/plan)"

# 5. SIGHUP: B's token replaced; a bad file is refused and the tokens stay.
printf '%s %s\n%s %s\n' "$UA" "$TA" "$UB" "$TB2" > "$T/tokens"
kill -HUP "$DPID"
await 'grep -q "event=config.reloaded" "$T/daemon.log"' 10
[ "$(code -H "Authorization: Bearer $TB" "$URL/v1/gpus")" = 401 ] || fail "B's old token after the reload"
[ "$(code -H "Authorization: Bearer $TB2" "$URL/v1/gpus")" = 200 ] || fail "B's new token after the reload"
printf '%s %s\nroot %s\n' "$UA" "$TA" "$TA" > "$T/tokens"
kill -HUP "$DPID"
await 'grep -q "event=config.reload_refused.*tokens:2: the token of line 1 listed again" "$T/daemon.log"' 10
[ "$(code -H "Authorization: Bearer $TB2" "$URL/v1/gpus")" = 200 ] || fail "B's token after a refused reload"
stop_daemon TERM 0
echo "tokens: ok"
