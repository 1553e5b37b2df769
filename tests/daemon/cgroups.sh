#!/usr/bin/env bash
# cgroups.sh: every migschedd job (nvml backend, fake NVML) in a cgroup of its own under
# cgroup-root, found wherever the unified hierarchy is mounted.
#  1. A job whose process exits leaving a background child, a setsid child and one that
#     ignores SIGTERM ends with its process; its instance drains (SIGTERM, then cgroup.kill
#     after stop-grace) and is used again only once they are gone: the next job on it never
#     meets them.
#  2. A cancel stops a setsid child too.
#  3. After a SIGKILL of the daemon, the restart stops a running job's setsid child by the
#     cgroup its journal record names, and removes the dead daemon's folder; so does
#     `migsched run --cleanup` on the journal a killed daemon left; a start leaves the
#     folder of a live process alone, whatever its name.
#  4. A clean stop leaves no cgroup; `cgroup-root none` says jobs are tracked by process
#     group; a cgroup-root that is not on cgroup v2, or where no process can be moved (a
#     threaded subtree), stops the start naming the key.
# Needs root and a writable cgroup v2 hierarchy. $1 = migsched, $2 = migschedd, $3 = source
# dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
use_fake_nvml
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (cgroups)"; exit 77; }
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -n1)
[ -n "$CG2" ] || { echo "SKIP: no cgroup v2 hierarchy is mounted"; exit 77; }
ROOT=$CG2/migsched-test-$$
mkdir "$ROOT" 2>/dev/null || { echo "SKIP: cannot make a cgroup under $CG2"; exit 77; }
TAG=$$  # the leftovers' sleeps carry it, so that only this test's are found
finish() {
    [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
    pkill -9 -f "sleep 9[0-9]$TAG" 2>/dev/null
    find "$ROOT" -depth -type d -exec rmdir {} \; 2>/dev/null
    cleanup
}
trap finish EXIT
alive() { pgrep -f "sleep 9[$1]$TAG" | wc -l; }
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none
       --cgroup-root "$ROOT")
mkdir -p "$T/logs"
submit() {  # submit PROFILE NAME SHELL-COMMAND: prints the job's id
    "$M" submit --connect "unix:$SOCK" --profile "$1" --seconds 1 --name "$2" -- /bin/sh -c "$3" \
        | awk '{print $3}'
}
state() { ucurl "http://d/v1/jobs/$1" | sed '$d' | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
field() { ucurl "http://d/v1/jobs/$1" | sed '$d' | python3 -c 'import json,sys; print(json.load(sys.stdin)['"\"$2\""'])'; }

# A start sweeps only the folders of processes that are gone: that of a live engine in
# another program (a test binary embeds the engine) keeps its empty job cgroup, which that
# engine may be about to move a job into.
sleep 98$TAG &
other=$!
mkdir -p "$ROOT/migschedd-$other/job-1.1" || fail "a live process's folder"
start_daemon "${DARGS[@]}"
grep -q "event=cgroup.root path=$ROOT/migschedd-$DPID\$" "$T/daemon.log" || fail "no cgroup.root"
[ -d "$ROOT/migschedd-$other/job-1.1" ] || fail "the start removed live process $other's job cgroup"
kill "$other"
wait "$other" 2>/dev/null
rmdir "$ROOT/migschedd-$other/job-1.1" "$ROOT/migschedd-$other"

# 1. Leftovers: the job's process exits at once. The whole GPU's profile, so that the
#    second job is given the same instance.
id1=$(submit 4g.24gb left "sleep 91$TAG & setsid sleep 92$TAG & (trap '' TERM; exec sleep 93$TAG) & echo > '$T/spawned'; exit 0")
id2=$(submit 4g.24gb next "pgrep -f 'sleep 9[123]$TAG' > '$T/seen'; exit 0")
await '[ "$(state "$id1")" = done ]' 30
[ -e "$T/spawned" ] || fail "job $id1 did not start its children"
grep -q "event=job.leftovers id=$id1 " "$T/daemon.log" || fail "no job.leftovers for job $id1"
# Done with its process; the child ignoring SIGTERM keeps the instance draining until
# cgroup.kill, stop-grace later.
await 'ucurl http://d/v1/gpus | grep -q "\"state\": *\"draining\""' 10
await '[ "$(alive 123)" = 0 ]' 10
await '[ "$(state "$id2")" = done ]' 30
[ ! -e "$ROOT/migschedd-$DPID/job-$id1.1" ] || fail "job $id1's cgroup is left"
[ "$(field "$id2" mig_uuid)" = "$(field "$id1" mig_uuid)" ] || fail "job $id2 had another instance"
[ ! -s "$T/seen" ] || fail "job $id2 met job $id1's leftovers: $(cat "$T/seen")"

# 2. A cancel reaches a setsid child.
id3=$(submit 1g.6gb cancelled "setsid sleep 94$TAG & exec sleep 95$TAG")
await '[ "$(alive 45)" = 2 ]' 30
"$M" cancel "$id3" --connect "unix:$SOCK" > /dev/null || fail "cancel $id3"
[ "$(state "$id3")" = cancelled ] || fail "job $id3 is $(state "$id3")"
await '[ "$(alive 45)" = 0 ]' 10

# 3. A crash: the restart stops the running job's setsid child by its cgroup.
id4=$(submit 1g.6gb crashed "setsid sleep 96$TAG & exec sleep 97$TAG")
await '[ "$(alive 67)" = 2 ] && [ "$(state "$id4")" = running ]' 30
old=$DPID
stop_daemon KILL 137
[ "$(alive 67)" = 2 ] || fail "the job's processes died with the daemon"
grep -q "^task 0 [0-9]* [0-9]* $id4 $ROOT/migschedd-$old/job-$id4.1\$" "$T/rt/run-dev0.journal" \
    || fail "no task record with its cgroup: $(cat "$T/rt/run-dev0.journal")"
pids=$(pgrep -f "sleep 9[67]$TAG")
start_daemon "${DARGS[@]}"
for p in $pids; do  # the job's next run may have started already: these are the last one's
    s=$(ps -o stat= -p "$p") && [ "${s#Z}" = "$s" ] && fail "recovery left: $(ps -o pid=,args= -p "$p")"
done
grep -q "event=recover.stop_cgroup cgroup=$ROOT/migschedd-$old/job-$id4.1 job=$id4" "$T/daemon.log" \
    || fail "no recover.stop_cgroup"
[ ! -e "$ROOT/migschedd-$old" ] || fail "the dead daemon's cgroup folder is left"

await '[ "$(state "$id4")" = running ] && [ "$(alive 67)" = 2 ]' 30
# 3b. `migsched run --cleanup` on a crashed daemon's journal stops the job the same way.
old=$DPID
stop_daemon KILL 137
[ "$(alive 67)" = 2 ] || fail "the job's processes died with the daemon"
"$M" run --cleanup --device 0 > "$T/cleanup.out" 2>&1 || fail "cleanup: $(cat "$T/cleanup.out")"
grep -q "stopped 1 task cgroup of the crashed run" "$T/cleanup.out" \
    || fail "cleanup said: $(cat "$T/cleanup.out")"
[ "$(alive 67)" = 0 ] || fail "cleanup left: $(pgrep -af "sleep 9[67]$TAG")"
[ ! -e "$ROOT/migschedd-$old/job-$id4.2" ] || fail "cleanup left the job's cgroup"
start_daemon "${DARGS[@]}"

# 4. A clean stop leaves no cgroup (the job's last run, cancelled, was in one).
await '[ "$(state "$id4")" = running ] && [ "$(alive 67)" = 2 ]' 30
[ "$(field "$id4" attempts)" = 3 ] || fail "job $id4 was not run again"
"$M" cancel "$id4" --connect "unix:$SOCK" > /dev/null || fail "cancel $id4"
await '[ "$(alive 67)" = 0 ]' 10
stop_daemon TERM 0
[ -z "$(find "$ROOT" -mindepth 1 -type d)" ] || fail "cgroups left after a clean stop: $(find "$ROOT" -mindepth 1 -type d)"
start_daemon "${DARGS[@]/#$ROOT/none}"
grep -q 'event=cgroup.unavailable reason="cgroup-root is none"' "$T/daemon.log" \
    || fail "cgroup-root none not said"
stop_daemon TERM 0
rc=0
"$DD" "${DARGS[@]/#$ROOT/$T}" > "$T/out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "cgroup-root $T: $T: not a folder of a cgroup v2 file system" "$T/out" \
    || fail "a cgroup-root off cgroup v2 (exit $rc): $(cat "$T/out")"
# A cgroup-root where a folder can be made but no process moved (a threaded subtree).
mkdir -p "$ROOT/thr/t" && echo threaded > "$ROOT/thr/t/cgroup.type" || fail "threaded cgroup"
rc=0
"$DD" "${DARGS[@]/#$ROOT/$ROOT/thr/t}" > "$T/out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "cgroup-root $ROOT/thr/t: cgroup .*/probe: cannot move process [0-9]* into it: Operation not supported" "$T/out" \
    || fail "a threaded cgroup-root (exit $rc): $(cat "$T/out")"
[ -z "$(find "$ROOT/thr/t" -mindepth 1 -type d)" ] || fail "the refused start left cgroups"
echo "cgroups: ok"
