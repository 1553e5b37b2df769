#!/usr/bin/env bash
# starvation.sh: one client cannot lock the others out. 300 half-sent requests (a POST's
# start, then a byte every 2 s, opened again when closed) from one unauthenticated TCP
# peer bound to 127.0.0.2, and then from one throwaway local user on the Unix socket
# (whole headers, the body trickled): meanwhile a client with a valid token on TCP from
# 127.0.0.1, and root and another user on the socket, are each answered within 1 s; the
# slow peer never holds more than peer-connections at once, each of its connections is
# cut at request-timeout however it trickles, and the refusals are logged once per peer,
# not once per connection. The socket part needs root (useradd): it is skipped otherwise.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing"
PEERS=32 RT=4
U1= U2= SLOW=
# The slow client first: a user with a process left cannot be removed.
drop_users() {
    [ -n "$SLOW" ] && kill "$SLOW" 2>/dev/null && wait "$SLOW" 2>/dev/null
    for u in $U1 $U2; do userdel -r "$u" 2>/dev/null; done
    cleanup
}
trap drop_users EXIT
TOKEN=0123456789abcdef0123456789abcdef
printf 'root %s\n' "$TOKEN" > "$T/token"
chmod 600 "$T/token"
chmod 755 "$T"
install -m 644 "$3/tests/daemon/trickle.py" "$T/trickle.py"
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/token" --db "$T/d.db" \
    --peer-connections $PEERS --request-timeout $RT
URL=http://127.0.0.1:$PORT

# Probes every second while the slow client runs ($1: its pid, then the probe command):
# each must print 200 within 1 s.
probe_while() {
    local pid=$1 n=0 code
    shift
    while kill -0 "$pid" 2>/dev/null; do
        code=$("$@" -s -m 1 -o /dev/null -w '%{http_code}' 2>/dev/null)
        [ "$code" = 200 ] || fail "not answered within 1 s while the slow client runs (${code:-no reply}, probe $n: $*)"
        n=$((n + 1))
        sleep 1
    done
    [ "$n" -ge 5 ] || fail "only $n probes ran"
}
# The slow client's summary ($1) within the limits.
check_slow() {
    python3 - "$1" $PEERS $RT <<'PY' || fail "slow client: $(cat "$1")"
import json, sys
s = json.load(open(sys.argv[1]))
peers, rt = int(sys.argv[2]), float(sys.argv[3])
assert s["opened"] >= 300, "it opened only %d connections" % s["opened"]
assert s["max_open"] <= peers, "it held %d connections at once" % s["max_open"]
assert 0 < s["max_life"] <= rt + 2.5, "a connection lived %.1f s" % s["max_life"]
PY
    echo "slow client: $(cat "$1")"
}

# 1. TCP: the slow peer never finishes its headers.
python3 "$T/trickle.py" --tcp "127.0.0.1:$PORT" --bind 127.0.0.2 --count 300 --seconds 12 \
    --interval 2 --ready "$T/ready1" > "$T/slow1.json" &
SLOW=$!
await '[ -e "$T/ready1" ] || ! kill -0 $SLOW 2>/dev/null' 30
probe_while $SLOW curl -H "Authorization: Bearer $TOKEN" "$URL/v1/gpus"
wait $SLOW || fail "the slow client failed"
check_slow "$T/slow1.json"
n=$(grep -c 'event=http.peer_limit .*peer=127.0.0.2' "$T/daemon.log")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "$n peer_limit warnings for 127.0.0.2 (one per minute expected)"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the Unix socket part needs root (useradd)"
    stop_daemon TERM 0
    echo "starvation: ok (tcp only)"
    exit 0
fi

# 2. The Unix socket: a local user trickles bodies; root and another user are answered.
U1=mst$RANDOM$RANDOM U2=mso$RANDOM$RANDOM
# useradd fails while another test holds the passwd lock: a few tries.
add_user() { for _ in 1 2 3 4 5 6 7 8 9 10; do useradd -M -N -s /usr/sbin/nologin "$1" 2>/dev/null && return; sleep 0.5; done; fail "useradd $1"; }
add_user "$U1"
add_user "$U2"
chmod 666 "$SOCK"
mkdir "$T/u1" && chown "$U1" "$T/u1"
AS1=(setpriv --reuid="$U1" --regid="$(id -g "$U1")" --init-groups)
AS2=(setpriv --reuid="$U2" --regid="$(id -g "$U2")" --init-groups)
"${AS1[@]}" /usr/bin/python3 "$T/trickle.py" --unix "$SOCK" --whole-header --count 300 \
    --seconds 12 --interval 2 --ready "$T/u1/ready" > "$T/slow2.json" 2> "$T/slow2.err" &
SLOW=$!
await '[ -e "$T/u1/ready" ] || ! kill -0 $SLOW 2>/dev/null' 30
probe_while $SLOW curl --unix-socket "$SOCK" http://d/v1/gpus
[ "$("${AS2[@]}" curl -s -m 1 -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://d/v1/gpus)" = 200 ] \
    || fail "another user was not answered within 1 s"
wait $SLOW || fail "the slow client failed: $(cat "$T/slow2.err")"
check_slow "$T/slow2.json"
n=$(grep -c "event=http.peer_limit .*peer=uid:$(id -u "$U1")" "$T/daemon.log")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "$n peer_limit warnings for $U1"
grep -q "event=http.request_timeout .*peer=uid:$(id -u "$U1")" "$T/daemon.log" || fail "no request_timeout warning"
stop_daemon TERM 0
echo "starvation: ok"
