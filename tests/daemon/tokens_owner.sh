#!/usr/bin/env bash
# tokens_owner.sh: the token file says who every TCP caller is, so only root (or
# migschedd's own user) may own it: a file of a user's, mode 0600, in which that user
# wrote `root TOKEN`, is refused at start naming its owner (else that token is root on
# TCP), and on SIGHUP (the old tokens keep working).
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
. "$3/tests/daemon/users_lib.sh"
UA=msa$SUFFIX
new_user "$UA"
TOK=rrrrrrrrrrrrrrrr$SUFFIX
printf 'root %s\n' "$TOK" > "$T/tokens"
chmod 600 "$T/tokens"
chown "$UA" "$T/tokens"
ARGS=(--backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --listen "tcp:127.0.0.1:$PORT"
      --token-file "$T/tokens" --db "$T/d.db")
"$DD" "${ARGS[@]}" > "$T/start.log" 2>&1 &
DPID=$!
for _ in $(seq 50); do kill -0 $DPID 2>/dev/null || break; sleep 0.1; done
if kill -0 $DPID 2>/dev/null; then
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" \
        "http://127.0.0.1:$PORT/v1/allocations/1")
    fail "migschedd started with $UA's token file (its root token: GET /v1/allocations/1 -> $code)"
fi
grep -qF "owned by uid $(id -u "$UA")" "$T/start.log" || fail "no reason naming the owner: $(cat "$T/start.log")"
check_log "$T/start.log"
DPID=
# The same on SIGHUP: a root-owned file first, then one of the user's.
chown root "$T/tokens"
start_daemon "${ARGS[@]}"
printf 'root %s2\n' "$TOK" > "$T/tokens.new"
chmod 600 "$T/tokens.new"
chown "$UA" "$T/tokens.new"
mv "$T/tokens.new" "$T/tokens"
kill -HUP "$DPID"
await 'grep -q "owned by uid $(id -u "$UA")" "$T/daemon.log"' 10
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${TOK}2" \
    "http://127.0.0.1:$PORT/v1/gpus")" = 401 ] || fail "the user's new token was taken on SIGHUP"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" \
    "http://127.0.0.1:$PORT/v1/gpus")" = 200 ] || fail "the old token stopped working"
stop_daemon TERM 0
echo "tokens_owner: ok"
