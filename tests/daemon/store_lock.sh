#!/usr/bin/env bash
# store_lock.sh: one daemon per store. A second migschedd on the same db (another socket)
# refuses at once, naming the holder's pid, and the first keeps serving; the lock file
# beside the db is 0600 with the holder's pid and is never followed as a link; two
# daemons on different sockets without --db each get their own store (SOCKET.db).
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
SIM=(--backend sim --gpu A30-24GB --gpus 1)
start_daemon "${SIM[@]}" --listen "unix:$SOCK" --db "$T/d.db"
[ "$(stat -c %a "$T/d.db.lock" 2>/dev/null)" = 600 ] || fail "no 0600 lock file beside the db"
[ "$(cat "$T/d.db.lock")" = "$DPID" ] || fail "the lock file holds '$(cat "$T/d.db.lock")', not $DPID"
timeout 20 "$DD" "${SIM[@]}" --listen "unix:$T/other.sock" --db "$T/d.db" > /dev/null 2> "$T/err"
rc=$?
[ "$rc" = 1 ] || fail "a second daemon on the store exited $rc, expected 1: $(cat "$T/err")"
grep -qF "db $T/d.db: in use by migschedd pid $DPID" "$T/err" || fail "second daemon: $(cat "$T/err")"
check_log "$T/err"
[ ! -e "$T/other.sock" ] || fail "the refused daemon left its socket"
[ "$(status_of "$(ucurl http://d/healthz)")" = 200 ] || fail "the first daemon stopped answering"
stop_daemon TERM 0
# A link where the lock file goes is refused, never followed.
echo keep > "$T/target"
ln -s "$T/target" "$T/l.db.lock"
timeout 20 "$DD" "${SIM[@]}" --listen "unix:$SOCK" --db "$T/l.db" > /dev/null 2> "$T/err"
rc=$?
[ "$rc" = 1 ] && grep -qF "$T/l.db.lock" "$T/err" || fail "a linked lock file: rc $rc: $(cat "$T/err")"
check_log "$T/err"
[ "$(cat "$T/target")" = keep ] || fail "the lock's link target was written"
# No shared default store for ad-hoc runs.
start_daemon "${SIM[@]}" --listen "unix:$SOCK"
A=$DPID
SOCK2=$T/d2.sock
"$DD" "${SIM[@]}" --listen "unix:$SOCK2" >> "$T/daemon.log" 2>&1 &
B=$!
await '[ "$(curl -s -o /dev/null -w "%{http_code}" --unix-socket "$SOCK2" http://d/healthz)" = 200 ] || ! kill -0 $B 2>/dev/null'
kill -0 "$B" 2>/dev/null || { kill -9 "$A"; fail "a second ad-hoc daemon on another socket did not start"; }
ucurl -X POST -d '{"name": "a", "command": ["true"], "slices": 1, "seconds": 1}' http://d/v1/jobs > /dev/null
[ -f "$SOCK.db" ] && [ -f "$SOCK2.db" ] || { kill -9 "$B"; fail "the stores are not SOCKET.db"; }
n=$(curl -s --unix-socket "$SOCK2" http://d/v1/jobs | grep -o '"id":' | wc -l)
kill -TERM "$B"; wait "$B"
[ "$n" = 0 ] || fail "the daemon on $SOCK2 sees the other's job"
stop_daemon TERM 0
# Only a tcp listener: the db must be given.
printf 'root %s\n' "0123456789abcdef0123456789abcdef" > "$T/tokens"; chmod 600 "$T/tokens"
timeout 20 "$DD" "${SIM[@]}" --listen "tcp:127.0.0.1:$PORT" --token-file "$T/tokens" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q "db" "$T/err" || fail "tcp only without db: $(cat "$T/err")"
check_log "$T/err"
echo "store_lock: ok"
