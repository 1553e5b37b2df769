#!/usr/bin/env bash
# log_full.sh: log-dir fills (a tmpfs out of inodes) while jobs are queued on the fake
# NVML: no job fails, whatever its on_interrupt; each goes back to the queue with the
# reason "start failed on this node: ...", its history shows the requeue, and the log has
# a few job.start_failed lines, not one per job per try. Once the disk has room again
# every job runs and ends done; a job waiting out its backoff holds back none behind it.
# Batch mode requeues such jobs the same way. Needs root (mount).
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mount)"; exit 77; }
use_fake_nvml
mkdir "$T/logs"
mount -t tmpfs -o size=256k,nr_inodes=64,mode=0755 tmpfs "$T/logs" 2>/dev/null ||
    { echo "SKIP: cannot mount a tmpfs"; exit 77; }
unmount() {
    [ -n "$DPID" ] && { kill -9 "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=; }
    umount "$T/logs"
    cleanup
}
trap unmount EXIT

# Full: every inode taken (a new log file cannot be made), the owner's folder included.
mkdir -m 0700 "$T/logs/root"
fill() {
    mkdir "$T/logs/fill"
    for i in $(seq 200); do : 2>/dev/null > "$T/logs/fill/$i" || break; done
    : 2>/dev/null > "$T/logs/probe" && fail "the tmpfs is not full"
}
fill
# submit NAME ON_INTERRUPT: a short job on a 1g.6gb instance.
submit() {
    local r
    r=$(ucurl -X POST -d '{"name": "'"$1"'", "command": ["true"], "profile": "1g.6gb",
        "seconds": 1, "on_interrupt": "'"$2"'"}' http://d/v1/jobs)
    [ "$(status_of "$r")" = 201 ] || fail "submit $1: $r"
}
requeues() { sqlite3 "$1" "SELECT count(*) FROM transitions WHERE event = 'requeue'"; }
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --allow-root-jobs true
       --log-dir "$T/logs" --stop-grace 2 --isolation none)
start_daemon "${DARGS[@]}" --db "$T/d.db"
N=5
for i in $(seq 1 $N); do
    oi=retry; [ $(( i % 2 )) = 0 ] && oi=fail
    submit "j$i" "$oi"
done
# Several tries each (the first retries come after 1 s, then 2 s).
await '[ "$(requeues "$T/d.db")" -ge $(( 2 * N )) ]' 60
[ "$(count_state failed)" = 0 ] || fail "jobs failed: $(ucurl 'http://d/v1/jobs?state=failed')"
[ "$(count_state done)" = 0 ] || fail "jobs ran with log-dir full"
jobs=$(ucurl http://d/v1/jobs | sed '$d')
python3 - "$jobs" $N <<'PY' || fail "queued jobs: $jobs"
import json, sys
jobs = json.loads(sys.argv[1])["jobs"]
assert len(jobs) == int(sys.argv[2]), jobs
for j in jobs:
    assert j["state"] in ("queued", "running"), j
    if j["state"] == "queued":
        assert j["reason"].startswith("start failed on this node: "), j
        assert "No space left on device; next try in " in j["reason"], j
PY
h=$(ucurl http://d/v1/jobs/1/history | sed '$d')
grep -q '"event": *"requeue"' <<<"$h" || fail "no requeue in the history: $h"
lines=$(grep -c 'event=job.start_failed' "$T/daemon.log")
tries=$(sqlite3 "$T/d.db" "SELECT count(*) FROM transitions WHERE event = 'requeue'")
echo "job.start_failed lines: $lines for $tries failed starts"
[ "$lines" -ge 1 ] || fail "no job.start_failed line"
[ "$lines" -le 3 ] || fail "$lines job.start_failed lines for $tries failed starts"

# Room again: every job runs and ends done.
rm -rf "$T/logs/fill"
await '[ "$(count_state done)" = '$N' ]' 120
[ "$(count_state failed)" = 0 ] || fail "jobs failed"
grep -q 'event=job.start_failed .*summary=recovered' "$T/daemon.log" || fail "no recovered summary"
stop_daemon TERM 0

# A job waiting out its backoff holds back none behind it: root's folder of log-dir is a
# link (unusable: root's jobs are requeued), nobody's job after it runs and ends done.
rm -rf "$T/logs/root" && ln -s /tmp "$T/logs/root"
start_daemon "${DARGS[@]}" --db "$T/u.db"
for who in root nobody; do
    r=$(ucurl -X POST -d '{"name": "'$who'", "command": ["true"], "profile": "1g.6gb",
        "seconds": 1, "user": "'$who'", "cwd": "/"}' http://d/v1/jobs)
    [ "$(status_of "$r")" = 201 ] || fail "submit for $who: $r"
done
await '[ "$(count_state done)" = 1 ]' 30
r=$(ucurl http://d/v1/jobs/1 | sed '$d')
grep -q '"state":"queued".*"reason":"start failed on this node: .*not a folder' <<<"$r" ||
    fail "root's job: $r"
stop_daemon TERM 0
rm "$T/logs/root" && mkdir -m 0700 "$T/logs/root"

# Batch mode: a job waiting out its backoff is taken into no batch; once there is room,
# every job runs.
fill
start_daemon "${DARGS[@]}" --db "$T/b.db" --mode batch --batch-size 2 --batch-period 0.2
for i in 1 2 3; do
    submit "b$i" fail
done
await '[ "$(requeues "$T/b.db")" -ge 6 ]' 60
[ "$(count_state failed)" = 0 ] || fail "batch jobs failed"
rm -rf "$T/logs/fill"
await '[ "$(count_state done)" = 3 ]' 120
stop_daemon TERM 0
echo "log_full: ok"
