#!/usr/bin/env bash
# clients_timeout.sh: a daemon that accepts and never answers, or trickles its reply,
# makes each client command exit 1 at its --timeout with a message naming the daemon and
# the timeout (an outer timeout fails the test if one hangs); a bad --timeout is a usage
# error.
# $1 = migsched, $3 = source dir.
M=$1 SRC=$3
. "$SRC/tests/daemon/lib.sh"
. "$SRC/tests/daemon/fake_migschedd.bash"
start_fake
C=(--connect "unix:$SOCK" --timeout 1)
for hang in silent trickle; do
    jq -n --arg h "$hang" '{"GET /v1/jobs": {hang: $h}, "GET /v1/gpus": {hang: $h},
        "DELETE /v1/jobs/1": {hang: $h}, "POST /v1/jobs": {hang: $h}}' > "$T/routes.json"
    for cmd in "jobs" "status" "cancel 1" "submit --slices 1 --seconds 1 -- true"; do
        timeout 20 "$M" ${cmd%% *} "${C[@]}" ${cmd#"${cmd%% *}"} > "$T/out" 2> "$T/err"
        rc=$?
        [ $rc = 124 ] && fail "$hang: migsched $cmd --timeout 1 still waits after 20 s"
        [ $rc = 1 ] || fail "$hang: migsched $cmd exited $rc: $(cat "$T/err")"
        grep -q "^migsched: ${cmd%% *}: .*migschedd at unix:$SOCK.* within 1 s" "$T/err" ||
            fail "$hang: migsched $cmd: $(cat "$T/err")"
    done
done
for bad in 0 -1 x 1e9 nan inf ""; do
    "$M" jobs --connect "unix:$SOCK" --timeout "$bad" > /dev/null 2> "$T/err"
    rc=$?
    [ $rc = 2 ] && grep -q '^migsched: jobs: --timeout: expected' "$T/err" ||
        fail "--timeout '$bad': exit $rc: $(cat "$T/err")"
done
echo "clients_timeout: ok"
