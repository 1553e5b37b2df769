#!/usr/bin/env bash
# poison.sh: a job that kills the daemon each time it runs (`kill -9 $PPID`, the daemon
# being its parent) is not retried forever: after max-attempts (3 by default) runs lost to
# daemon crashes it fails with the reason "interrupted 3 times" and the daemon keeps
# running. Every job carries its reason ("exit status 3") in GET /v1/jobs/{id} and
# `migsched jobs`, and GET /v1/jobs/{id}/history lists its transitions with their reasons.
# Finished jobs are pruned once older than retention, at start and as commits come.
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
use_fake_nvml
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none)
mkdir -p "$T/logs"
start_daemon "${DARGS[@]}"
job() { ucurl "http://d/v1/jobs/$1" | sed '$d'; }
field() { job "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"; }

"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name three -- \
    /bin/sh -c 'exit 3' > /dev/null || fail "submit three"
await '[ "$(field 1 state)" = failed ]' 60
[ "$(field 1 reason)" = "exit status 3" ] || fail "job 1's reason: $(job 1)"
"$M" jobs --connect "unix:$SOCK" | grep -q ' exit status 3$' || fail "migsched jobs: no reason"

# The poison job: each start kills the daemon. Restarted in a bounded loop (as systemd's
# Restart=on-failure would), it must end failed within max-attempts + 1 starts.
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name poison -- \
    /bin/sh -c 'kill -9 $PPID; sleep 5' > /dev/null || fail "submit poison"
state=
for round in 1 2 3 4 5 6; do
    # Dead (the job killed it) or up with the job failed: either ends the round.
    await '! kill -0 $DPID 2>/dev/null || [ "$(field 2 state 2>/dev/null)" = failed ]' 60
    if kill -0 "$DPID" 2>/dev/null; then state=failed; break; fi
    wait "$DPID"
    DPID=
    "$DD" "${DARGS[@]}" >>"$T/daemon.log" 2>&1 &
    DPID=$!
done
[ "$state" = failed ] || fail "the poison job is still retried after $round daemon starts"
[ "$(field 2 reason)" = "interrupted 3 times" ] || fail "job 2's reason: $(job 2)"
[ "$(field 2 attempts)" = 3 ] || fail "job 2 ran other than 3 times: $(job 2)"
"$M" jobs --connect "unix:$SOCK" | grep -q ' interrupted 3 times$' || fail "migsched jobs"
sleep 1
kill -0 "$DPID" 2>/dev/null || fail "the daemon died after failing the poison job"

# The history: submit, then three start/interrupt pairs, the last one failing the job.
h=$(ucurl http://d/v1/jobs/2/history)
[ "$(status_of "$h")" = 200 ] || fail "history: $h"
body_of "$h" | python3 -c '
import json, sys
h = json.load(sys.stdin)
assert h["job"] == 2, h
ts = h["transitions"]
assert [t["event"] for t in ts] == ["submit"] + ["start", "interrupt"] * 3, ts
assert all(isinstance(t["at"], float) for t in ts), ts
assert ts[2]["reason"] == ts[4]["reason"] == "interrupted by a daemon crash, requeued", ts
assert ts[-1]["to"] == "failed" and ts[-1]["reason"] == "interrupted 3 times", ts
assert ts[0]["reason"] is None and ts[0]["from"] == "new", ts
' || fail "history body: $(body_of "$h")"
[ "$(status_of "$(ucurl http://d/v1/jobs/9/history)")" = 404 ] || fail "history of no job"
[ "$(status_of "$(ucurl -X DELETE http://d/v1/jobs/2/history)")" = 405 ] || fail "DELETE history"
stop_daemon TERM 0

# Retention: at start the finished jobs older than it are pruned, and again as commits
# come once it is due (every retention / 10 at most).
sleep 1.2
start_daemon "${DARGS[@]}" --retention 1
[ "$(status_of "$(ucurl http://d/v1/jobs/1)")" = 404 ] || fail "job 1 not pruned at start"
[ "$(status_of "$(ucurl http://d/v1/jobs/2/history)")" = 404 ] || fail "job 2 not pruned"
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name ok -- true > /dev/null
await '[ "$(count_state done)" = 1 ]' 60
sleep 1.2
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name ok2 -- true > /dev/null
[ "$(status_of "$(ucurl http://d/v1/jobs/3)")" = 404 ] || fail "job 3 not pruned: $(job 3)"
[ "$(sqlite3 "$T/d.db" 'SELECT count(*) FROM transitions WHERE job <= 3')" = 0 ] ||
    fail "transitions of pruned jobs left"
grep -q 'event=store.prune jobs=2 done=0 failed=2' "$T/daemon.log" || fail "no prune logged"
stop_daemon TERM 0
echo PASS
