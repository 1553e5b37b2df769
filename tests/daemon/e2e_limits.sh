#!/usr/bin/env bash
# e2e_limits.sh: migschedd's refusals through HTTP: 429 once queue-limit jobs are queued
# (and `migsched submit` prints the daemon's reason, exit 1), 503 for submissions while a
# SIGTERM waits for a running job (on-stop wait) although status requests and cancels are
# still served, then a clean exit 0 once the job is cancelled.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
start_daemon --allow-root-jobs true --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --queue-limit 3 --on-stop wait
sub() { "$M" submit --connect "unix:$SOCK" --profile 7g.40gb "$@" -- true; }
sub --seconds 600 --name first > /dev/null || fail "submit first"
await '[ "$(count_state running)" = 1 ]' 30
for i in 1 2 3; do sub --seconds 1 --name "q$i" > /dev/null || fail "submit q$i"; done
sub --seconds 1 --name over 2> "$T/err"
[ $? = 1 ] || fail "a fourth queued job was accepted"
grep -q '^migsched: submit: 3 jobs are queued already' "$T/err" || fail "429 message: $(cat "$T/err")"
r=$(ucurl -X POST -d '{"name":"x","command":["true"],"profile":"1g.5gb","seconds":1}' http://d/v1/jobs)
[ "$(status_of "$r")" = 429 ] || fail "queue full: $(status_of "$r")"

# SIGTERM while "first" runs: new jobs get 503, reads and cancels still work; the queued
# jobs stay queued for the next start.
kill -TERM "$DPID"
await '[ "$(status_of "$(ucurl -X POST -d "{\"name\":\"y\",\"command\":[\"true\"],\"profile\":\"1g.5gb\",\"seconds\":1}" http://d/v1/jobs)")" = 503 ]' 10
r=$(ucurl http://d/v1/jobs/1)
[ "$(status_of "$r")" = 200 ] || fail "GET while stopping: $(status_of "$r")"
r=$(ucurl -X DELETE http://d/v1/jobs/1)
[ "$(status_of "$r")" = 200 ] || fail "DELETE while stopping: $(status_of "$r") $(body_of "$r")"
wait "$DPID"
rc=$?
DPID=
[ "$rc" = 0 ] || fail "exit $rc after SIGTERM"
[ ! -e "$SOCK" ] || fail "socket left"
[ "$(sqlite3 "$T/d.db" "SELECT group_concat(state) FROM jobs ORDER BY id")" = cancelled,queued,queued,queued ] \
    || fail "states after the stop: $(sqlite3 "$T/d.db" "SELECT group_concat(state) FROM jobs ORDER BY id")"
echo "e2e_limits: ok"
