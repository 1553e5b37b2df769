#!/usr/bin/env bash
# e2e_nvml.sh: migschedd with the nvml backend against the fake NVML (an emulated A30 whose
# state lives in a file) running real `sleep` commands submitted with `migsched submit`.
# SIGKILL mid-run and a restart: every job ends done exactly once by the store's history,
# no job's runs overlap (each run stamps its start and end), nothing is lost; then a
# foreign instance planted on the GPU is never touched, and after a clean stop (SIGTERM) no
# instance the daemon made is left.
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v sqlite3 >/dev/null || fail "sqlite3 is missing (make deps)"
use_fake_nvml
left() { if [ -e "$FAKE_NVML_STATE" ]; then grep -c '^gi ' "$FAKE_NVML_STATE"; else echo 0; fi; }
# Unconfined jobs: the fake GPU has no device nodes (isolation.sh gives them some).
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none)
mkdir -p "$T/logs"
start_daemon "${DARGS[@]}"

# 12 jobs of 1.5 s; each run appends "start NAME PID T", then "end NAME PID T", and/or
# "stopped NAME PID T" when SIGTERM stops it (the restart stops the runs the killed daemon
# left, possibly just after one wrote its end). SIGTERM goes to the run's whole process
# group, so a record must need no child process (a `date` killed mid-line left a line
# without its time): bash's EPOCHREALTIME and one printf, a single O_APPEND write.
N=12
PROFILES=(1g.6gb 2g.12gb 1g.6gb 4g.24gb)
cat > "$T/job.sh" <<'SH'
LC_ALL=C  # EPOCHREALTIME's decimal point is the locale's
rec() { printf '%s %s %s %s\n' "$1" "$NAME" $$ "$EPOCHREALTIME" >> "$RUNS"; }
NAME=$1 RUNS=$2
trap 'rec stopped; exit 143' TERM
rec start
sleep 1.5
rec end
SH
for i in $(seq 1 $N); do
    "$M" submit --connect "unix:$SOCK" --profile "${PROFILES[$(( i % 4 ))]}" --seconds 1.5 \
        --name "n$i" -- /bin/bash "$T/job.sh" "n$i" "$T/runs.txt" > /dev/null || fail "submit n$i"
done
await '[ "$(count_state done)" -ge 2 ] && [ "$(count_state running)" -ge 1 ]' 60
stop_daemon KILL 137
[ "$(left)" -ge 1 ] || fail "no instance alive at the kill: nothing to reconcile"
start_daemon "${DARGS[@]}"
await '[ "$(count_state done)" = '$N' ]' 120
check_history "$T/d.db" $N
cat "$T/history"
ucurl http://d/v1/jobs | sed '$d' > "$T/jobs.json"
python3 - "$T/jobs.json" "$T/runs.txt" $N <<'PY' || fail "runs check"
import json, sys, collections
jobs = json.load(open(sys.argv[1]))["jobs"]
assert len(jobs) == int(sys.argv[3]), "jobs lost or doubled"
for j in jobs:
    assert j["state"] == "done" and j["exit_status"] == 0, j
    assert j["mig_uuid"].startswith("MIG-"), j
runs = collections.defaultdict(lambda: collections.defaultdict(dict))
for n, line in enumerate(open(sys.argv[2]), 1):
    assert len(line.split()) == 4 and line.endswith("\n"), "runs.txt:%d: %r" % (n, line)
    what, name, pid, t = line.split()
    runs[name][pid][what] = float(t)
assert len(runs) == int(sys.argv[3]), "jobs without a run: " + str(sorted(runs))
stopped = 0
for name, by_pid in runs.items():
    # A run stopped before it wrote its start, or killed (SIGKILL after the grace) before
    # its trap wrote, still has one record: its span is from its first to its last.
    spans = sorted((min(r.values()), max(r.values()), r) for r in by_pid.values())
    # one run at a time: each run's last sign of life comes before the next one starts
    for (s0, e0, r0), (s1, _, _) in zip(spans, spans[1:]):
        assert e0 < s1, name + ": runs overlap " + str(spans)
    assert "end" in spans[-1][2], name + ": its last run did not end: " + str(spans)
    stopped += sum("stopped" in r for r in by_pid.values())
print("runs stopped at the restart:", stopped)
PY

# A foreign instance (made by someone else) is never touched; a clean stop removes ours.
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name last -- sleep 1 > /dev/null
await '[ "$(count_state done)" = '$((N + 1))' ]' 60
stop_daemon TERM 0
[ "$(left)" = 0 ] || fail "$(left) instances left after a clean stop: $(cat "$FAKE_NVML_STATE")"
printf 'gpu 0 mig 1\ngi 0 9 1g.6gb 3 1\nci 0 9 0 9\n' > "$FAKE_NVML_STATE"
start_daemon "${DARGS[@]}"
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name beside -- sleep 1 > /dev/null
await '[ "$(count_state done)" = '$((N + 2))' ]' 60
stop_daemon TERM 0
grep -q '^gi 0 9 1g.6gb 3 1' "$FAKE_NVML_STATE" || fail "the foreign instance was touched: $(cat "$FAKE_NVML_STATE")"
[ "$(left)" = 1 ] || fail "instances left beside the foreign one: $(cat "$FAKE_NVML_STATE")"
# Without a gpu key the model is the device's: jobs are parsed against the A30 found.
start_daemon --backend nvml --devices 0 --listen "unix:$SOCK" --db "$T/d2.db" --log-dir "$T/logs" \
    --allow-root-jobs true --isolation none
ucurl http://d/v1/gpus | grep -q '"model": *"A30-24GB"' || fail "no A30 model learnt: $(ucurl http://d/v1/gpus)"
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name learnt -- true > /dev/null \
    || fail "a job for the learnt model was refused"
stop_daemon TERM 0
echo "e2e_nvml: ok"
