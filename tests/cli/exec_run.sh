#!/usr/bin/env bash
# exec_run.sh: `migsched run` against the fake NVML (LD_LIBRARY_PATH set by ctest): plans
# on A30 and two A100s complete; dry run; injected failure, killed task, SIGINT and a
# crash + --cleanup leave no instance; foreign instances, MIG off, missing library and
# missing symbol are refused with clear messages. Then safety on a shared GPU: foreign
# instances that reuse a crashed run's slots or GPU-instance ids, or replace an instance
# under a live run, are never destroyed; one run per device (20 races); cleanup refused
# against a live run, stopping leftover tasks after SIGKILL; a journal that cannot be
# written stops the run before any change; arguments checked before the GPU is touched.
# $1 = migsched, $2 = source dir.
set -u
M=$1
D=$2/tests/data/exec
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
export FAKE_NVML_DELAY_SCALE=0.05 FAKE_NVML_GPU=A30-24GB FAKE_NVML_GPUS=1
export MIGSCHED_RUNTIME_DIR=$T/rt  # device locks
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
fresh() { export FAKE_NVML_STATE=$T/state.$1; rm -rf "$FAKE_NVML_STATE" journal logs; }
left() { if [ -e "$FAKE_NVML_STATE" ]; then grep -c '^gi ' "$FAKE_NVML_STATE"; else echo 0; fi; }
# Waits (up to 30 s, for slow sanitizer builds) until a shell condition holds.
await() { for _ in $(seq 300); do eval "$1" && return 0; sleep 0.1; done; fail "timed out: $1"; }
await_task() { await '[ -n "$(ls logs 2>/dev/null)" ]'; }
# Replaces the emulated device's instances, as another user's nvidia-smi would.
plant() { flock "$FAKE_NVML_STATE.lock" sh -c "printf '$1' > '$FAKE_NVML_STATE'"; }
run_a30() { "$M" run "$D/a30_plan.json" --workload "${W:-$D/a30_tasks.csv}" --journal journal \
            --logs logs --report report.json --quiet "$@" > out.txt 2> err.txt; }

# 1. A30 plan: every task ok, its log shows its MIG device, nothing left.
fresh ok
run_a30 || fail "A30 run exited $? ($(cat err.txt))"
grep -q '"ok": true' report.json || fail "report not ok"
[ "$(grep -c '"state": "ok"' report.json)" -ge 40 ] || fail "not every task and op ok"
grep -q '^MIG-fa4e' logs/7-t7.out || fail "task log lacks CUDA_VISIBLE_DEVICES"
grep -q 'largest deviation' out.txt || fail "no deviation table"
[ "$(left)" = 0 ] || fail "instances left after a clean run"

# 1b. Progress piped into a reader that goes away (SIGPIPE) must not skip the cleanup.
fresh pipe
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --journal journal --logs logs 2>&1 | head -1 > /dev/null
sleep 3  # the run goes on after head has exited
[ "$(left)" = 0 ] || fail "instances left after SIGPIPE"

# 2. Two A100s, plan GPU g on device g.
fresh a100; export FAKE_NVML_GPU=A100-40GB FAKE_NVML_GPUS=2
"$M" run "$D/a100x2_plan.json" --workload "$D/a100x2_tasks.csv" --device 0,1 --journal journal \
    --logs logs --quiet > out.txt 2> err.txt || fail "A100 run ($(cat err.txt))"
[ "$(left)" = 0 ] || fail "A100 instances left"
"$M" run "$D/a100x2_plan.json" --workload "$D/a100x2_tasks.csv" --device 0 --quiet 2> err.txt
[ $? = 1 ] && grep -q 'uses 2 GPUs but 1 device was given' err.txt || fail "device count not checked"
export FAKE_NVML_GPU=A30-24GB FAKE_NVML_GPUS=1

# 2b. Plan GPU 0 on device 1: the (compacted) journal names device 1 only; device 0 untouched.
fresh dev1; export FAKE_NVML_GPUS=2
printf 'gpu 0 mig 1\ngi 0 5 4g.24gb 0 1\nci 0 5 0 3\n' > "$FAKE_NVML_STATE"
run_a30 --device 1 || fail "run on device 1 ($(cat err.txt))"
grep -q '^device 1 ' journal && ! grep -q '^device 0 ' journal || fail "device mapping"
[ "$(left)" = 1 ] || fail "device 0's instance touched"
export FAKE_NVML_GPUS=1

# 3. Dry run: the operations in order, nothing touched.
fresh dry
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --dry-run > out.txt || fail "dry run"
grep -q 'nvmlDeviceCreateGpuInstanceWithPlacement(4g.24gb' out.txt || fail "dry run lacks create"
[ ! -e "$FAKE_NVML_STATE" ] || fail "dry run touched the GPU"

# 4. A destroy fails (abort): stop, clean up, report says which call.
fresh fault
FAKE_NVML_FAIL=nvmlGpuInstanceDestroy:2:19 run_a30 --on-failure abort
[ $? = 1 ] || fail "injected failure did not fail the run"
grep -q 'nvmlGpuInstanceDestroy failed: In use by another client' report.json || fail "report lacks the NVML error"
grep -q '"stopped": "destroy of instance' report.json || fail "report lacks the stop reason"
[ "$(left)" = 0 ] || fail "instances left after an injected failure"

# 5. A task killed by SIGKILL (continue): reported, the rest runs, nothing left.
fresh killed
sed 's/^t3,\(.*\),sleep[^,]*$/t3,\1,kill -9 $$/' "$D/a30_tasks.csv" > killed.csv
W=killed.csv run_a30
[ $? = 1 ] || fail "killed task not failing the run"
grep -q '"exit_status": -9' report.json || fail "kill not reported"
grep -q 'killed (signal 9)' out.txt || fail "table lacks the kill"
[ "$(left)" = 0 ] || fail "instances left after a killed task"

# 6. SIGINT in the middle: tasks killed, instances destroyed, report written, exit 130.
fresh sigint
sed 's/,sleep [^,]*$/,sleep 5/' "$D/a30_tasks.csv" > long.csv
(exec "$M" run "$D/a30_plan.json" --workload long.csv --journal journal --logs logs \
    --report report.json --quiet > out.txt 2> err.txt) & pid=$!
await_task; kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] || fail "SIGINT exit status $rc"
grep -q '"stopped": "interrupted (SIGINT)"' report.json || fail "report lacks the interruption"
[ "$(left)" = 0 ] || fail "instances left after SIGINT"

# 7. Crash while creating, then --cleanup. Killed once the GPU instance was journalled
# ("gi"), before its compute instance: the half-made instance is the run's, destroyed.
crash_at() {  # the run killed at the fake NVML's fault $1, leaving an instance
    fresh crash
    echo 'gpu 0 mig 1' > "$FAKE_NVML_STATE"
    FAKE_NVML_FAIL=$1 run_a30
    [ $? = 137 ] || fail "crash did not happen ($1)"
    [ "$(left)" -ge 1 ] || fail "the crash left nothing to clean ($1)"
}
crash_at nvmlGpuInstanceCreateComputeInstance:3:kill
"$M" run --cleanup --journal journal > out.txt 2> err.txt || fail "cleanup ($(cat err.txt))"
grep -q 'its creation was under way at the crash' out.txt || fail "cleanup: $(cat out.txt)"
[ "$(left)" = 0 ] || fail "cleanup left $(left) instances"
# Killed just after NVML made the GPU instance, before its "gi" record: it has no
# recorded identity, so it is reported with its removal and kept.
crash_at nvmlDeviceCreateGpuInstanceWithPlacement:3:killafter
"$M" run --cleanup --journal journal > out.txt 2> err.txt
[ $? = 1 ] && grep -q 'LEFT: .*creation was in flight.*--force.*nvidia-smi mig -i 0 -gi' err.txt \
    || fail "in-flight creation not reported ($(cat err.txt))"
[ "$(left)" = 1 ] || fail "cleanup without --force: $(left) instances"
"$M" run --cleanup --journal journal --force > out.txt 2> err.txt || fail "cleanup --force ($(cat err.txt))"
grep -q '1 leftover instance destroyed' out.txt || fail "cleanup says nothing: $(cat out.txt)"
[ "$(left)" = 0 ] || fail "cleanup left instances"

# 7b. A malformed or missing journal is refused with the line.
printf 'run nvml A30-24GB 1 1\nexploded 0 1\n' > bad.journal
"$M" run --cleanup --journal bad.journal 2> err.txt
[ $? = 1 ] && grep -q 'bad.journal:2: not a journal record' err.txt || fail "bad journal: $(cat err.txt)"
"$M" run --cleanup --journal nothere 2> err.txt
[ $? = 1 ] && grep -q 'nothere' err.txt || fail "missing journal"

# 8. A foreign instance on the plan's slots: refused, named, left alone.
fresh foreign
printf 'gpu 0 mig 1\ngi 0 9 1g.6gb 2 1\nci 0 9 0 0\n' > "$FAKE_NVML_STATE"
run_a30
[ $? = 1 ] && grep -q 'GPU instance 9 (1g.6gb, slots 2-2)' err.txt || fail "foreign instance not refused"
[ "$(left)" = 1 ] || fail "foreign instance touched"
"$M" run --cleanup --journal journal > /dev/null || fail "cleanup with a foreign instance"
[ "$(left)" = 1 ] || fail "cleanup destroyed a foreign instance"

# 8b. --wait: Ctrl-C lets running tasks finish, starts nothing new, cleans up.
fresh wait
sed 's/,sleep [^,]*$/,sleep 0.6/' "$D/a30_tasks.csv" > slow.csv
(exec "$M" run "$D/a30_plan.json" --workload slow.csv --journal journal --logs logs --wait \
    --report report.json --quiet > out.txt 2> err.txt) & pid=$!
await_task; kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] || fail "--wait SIGINT exit status $rc"
grep -q '"exit_status": 0' report.json && ! grep -q '"exit_status": -' report.json \
    || fail "--wait killed a task"
[ "$(left)" = 0 ] || fail "instances left after --wait"

# 8c. --keep-final leaves what the plan keeps alive (FAR's Rodinia plan), --cleanup removes it.
fresh keep
"$M" schedule "$2/data/rodinia_a30_8tasks.csv" --gpu A30-24GB --json -o rodinia.json || fail "schedule"
sed '1s/$/,command/; 2,$s/$/,true/' "$2/data/rodinia_a30_8tasks.csv" > rodinia_cmd.csv
"$M" run rodinia.json --workload rodinia_cmd.csv --keep-final --journal journal --logs logs \
    --quiet > out.txt 2> err.txt || fail "--keep-final run ($(cat err.txt))"
kept=$(left)
[ "$kept" -ge 1 ] || fail "--keep-final kept nothing"
"$M" layout rodinia.json --at 1e9 --format json | grep -c '"profile"' > n.txt
[ "$(cat n.txt)" = "$kept" ] || fail "kept $kept instances, the plan ends with $(cat n.txt)"
"$M" run --cleanup --journal journal > /dev/null && [ "$(left)" = 0 ] || fail "cleanup after --keep-final"

# 9. MIG mode off: refused unless --enable-mig.
fresh migoff
FAKE_NVML_MIG=0 run_a30
[ $? = 1 ] && grep -q 'MIG mode is off; rerun with --enable-mig' err.txt || fail "MIG off not refused"
FAKE_NVML_MIG=0 run_a30 --enable-mig || fail "--enable-mig run"

# 10. No NVML library; an NVML lacking an entry point.
fresh nolib
MIGSCHED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 run_a30
[ $? = 1 ] && grep -q 'cannot load NVML' err.txt || fail "missing library not reported"
LD_LIBRARY_PATH=$FAKE_NVML_OLD_DIR run_a30
[ $? = 1 ] && grep -q 'does not export nvmlDeviceCreateGpuInstanceWithPlacement' report.json \
    || fail "missing symbol not reported"
[ "$(left)" = 0 ] || fail "instances left with a missing symbol"

# 11. The sim backend (virtual time) reproduces the plan; bad input and usage.
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --backend sim --quiet > out.txt \
    || fail "sim run"
grep -q 'largest deviation 0.00 %' out.txt || fail "sim virtual time deviates"
# The bundled Rodinia sample planned by FAR runs as planned in virtual time.
"$M" run rodinia.json --workload "$2/data/rodinia_a30_8tasks.csv" --backend sim --quiet > out.txt \
    || fail "sim run of the Rodinia plan"
grep -q 'largest deviation 0.00 %' out.txt && grep -q '^lu  ' out.txt || fail "Rodinia sim run: $(cat out.txt)"
sed 's/"end": 0.16/"end": 0.17/' "$D/a30_plan.json" > bad.json
"$M" run bad.json --workload "$D/a30_tasks.csv" --backend sim 2> err.txt
[ $? = 1 ] && grep -q 'task-duration' err.txt || fail "invalid plan not refused"
"$M" run "$D/a30_plan.json" 2> /dev/null; [ $? = 2 ] || fail "missing --workload not a usage error"
"$M" run "$D/a30_plan.json" --workload x --on-failure maybe 2> /dev/null; [ $? = 2 ] || fail "bad --on-failure"
"$M" run --help | grep -q -- '--cleanup' || fail "help"

# ---- Safety on a shared GPU: one reproducer per case. ----
# t0 (first on instance 0, 4g.24gb at slot 0) takes $1; the other tasks are short.
slow_t0() { sed "s/^t0,\(.*\),sleep[^,]*\$/t0,\1,$1/" "$D/a30_tasks.csv" > slow.csv; }
run_bg() { "$M" run "$D/a30_plan.json" --workload slow.csv --journal journal --logs logs --quiet \
           "$@" > out.txt 2> err.txt & pid=$!; }
MARK=31.$$  # a task duration no other process on the machine uses (this shell's pid)

# Item 1a: crash inside the first creation, just after NVML made the GPU instance and
# before its "gi" record; someone removes it and creates their own instance on the same
# slots: cleanup reports it (it cannot prove it is not its own) and leaves it alive.
crash_in_first_create() {
    fresh inflight
    echo 'gpu 0 mig 1' > "$FAKE_NVML_STATE"
    FAKE_NVML_FAIL=$1 "$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" \
        --journal journal --logs logs --quiet > /dev/null 2>&1
    [ $? = 137 ] || fail "1a: crash did not happen ($1)"
}
# Someone's instance planted ($1: its serial) after a crash at the fault $2: cleanup reports
# it, saying $3, and leaves it alive.
unproven_left() {
    crash_in_first_create "$2"
    plant "serial $1\ngpu 0 mig 1\ngi 0 1 4g.24gb 0 $1\nci 0 1 0 3\n"
    "$M" run --cleanup --journal journal > out.txt 2> err.txt
    [ $? = 1 ] && grep -q "$3" err.txt || fail "1a: cleanup did not report the unproven instance ($(cat err.txt))"
    grep -q "^gi 0 1 4g.24gb 0 $1\$" "$FAKE_NVML_STATE" || fail "1a: the unproven instance was destroyed"
}
unproven_left 777 nvmlDeviceCreateGpuInstanceWithPlacement:1:killafter \
    'GPU instance 1 (slots 0-3, MIG-.*) sits where a creation was in flight'
# Killed after the "gi" record: someone's instance of another profile at the recorded id
# and slots is not the one recorded, left alone.
crash_in_first_create nvmlGpuInstanceCreateComputeInstance:1:kill
grep -q '^gi 0 1 0 4 4g.24gb$' journal || fail "1a: no gi record: $(cat journal)"
plant 'serial 776\ngpu 0 mig 1\ngi 0 1 2g.12gb 0 776\nci 0 1 0 1\n'
"$M" run --cleanup --journal journal > out.txt 2> err.txt || fail "1a: cleanup ($(cat err.txt))"
grep -q 'GPU instance 1 is not the one the journal recorded' out.txt || fail "1a: $(cat out.txt)"
grep -q '^gi 0 1 2g.12gb 0 776$' "$FAKE_NVML_STATE" || fail "1a: the foreign instance was destroyed"
# The same profile there with a compute instance: the run's (killed once its compute
# instance was made, before "created") or someone else's: reported, left alone.
unproven_left 775 nvmlGpuInstanceCreateComputeInstance:1:kill \
    'was being made at the crash but has a compute instance the journal does not name'

# Item 1b: SIGKILL mid-run, then someone else's instance takes the crashed run's GPU-
# instance id (and slots): cleanup leaves it alive.
fresh reuse
slow_t0 "sleep $MARK"
run_bg
await_task
kill -9 $pid; wait $pid 2> /dev/null
grep -q '^created 0 1 0 4 MIG-' journal || fail "1b: no instance recorded"
plant 'serial 778\ngpu 0 mig 1\ngi 0 1 4g.24gb 0 778\nci 0 1 0 3\n'
"$M" run --cleanup --journal journal > out.txt 2> err.txt || fail "1b: cleanup ($(cat err.txt))"
grep -q 'GPU instance 1 is not the one the journal recorded' out.txt || fail "1b: $(cat out.txt)"
grep -q '^gi 0 1 4g.24gb 0 778$' "$FAKE_NVML_STATE" || fail "1b: the foreign instance was destroyed"
pgrep -f "sleep $MARK" > /dev/null && fail "1b: the crashed run's task still runs"

# Item 1c: during a run, the instance is replaced under it (same id, another profile): the
# run stops with an error naming the change, the foreign instance lives.
fresh swap
slow_t0 "sleep 3"  # the swap must land while it runs: room for a loaded machine
run_bg --report report.json
await_task
plant 'serial 779\ngpu 0 mig 1\ngi 0 1 2g.12gb 0 779\nci 0 1 0 1\n'
wait $pid; rc=$?
[ $rc = 1 ] || fail "1c: the run exited $rc"
grep -q 'device 0 changed: GPU instance 1 is no longer the one migsched created' report.json \
    || fail "1c: report lacks the change ($(cat err.txt))"
grep -q '^gi 0 1 2g.12gb 0 779$' "$FAKE_NVML_STATE" || fail "1c: the foreign instance was destroyed"
[ "$(left)" = 1 ] || fail "1c: $(left) instances"

# Item 2: two runs on one device at once, 20 times: exactly one runs, the other is refused
# naming the winner's PID (so it was refused while the winner held the device), the device
# ends clean. Which one ends first is not checked: under a sanitizer the refused process's
# exit can take longer than the winner's run. Both use the default journal in the runtime
# folder.
fresh race
mkdir race && cd race
printf 'name,1,2,4,command\nt,0.6,0.6,0.6,sleep 0.6\n' > one.csv
"$M" schedule one.csv --gpu A30-24GB --algo nomig --json -o one.json || fail "2: schedule"
for i in $(seq 20); do
    "$M" run one.json --workload one.csv --quiet > a.out 2> a.err & a=$!
    "$M" run one.json --workload one.csv --quiet > b.out 2> b.err & b=$!
    wait $a; rc_a=$?
    wait $b; rc_b=$?
    if [ $rc_a = 0 ]; then winner=$a loser=b rc_loser=$rc_b; else winner=$b loser=a rc_loser=$rc_a; fi
    [ $((rc_a + rc_b)) = 1 ] && [ $rc_loser = 1 ] || fail "2: round $i: exit statuses $rc_a/$rc_b"
    grep -q "GPU GPU-fa4e0000-0000-4000-8000-000000000000 is in use by migsched process $winner" $loser.err \
        || fail "2: round $i: $(cat $loser.err)"
    [ "$(left)" = 0 ] || fail "2: round $i: $(left) instances left"
done
[ -e "$MIGSCHED_RUNTIME_DIR/run-dev0.journal" ] && [ -d "$MIGSCHED_RUNTIME_DIR/run-dev0.logs" ] \
    || fail "2: default journal/logs not in the runtime folder"
[ "$(ls -A | tr '\n' ' ')" = "a.err a.out b.err b.out one.csv one.json " ] \
    || fail "2: the runs left files in the current folder: $(ls -A)"
cd "$T"

# Item 2b: --cleanup against a live run is refused, naming it; the run goes on and cleans up.
fresh live
slow_t0 "sleep 60"  # still running at the checks however slow they are; SIGINT ends it
run_bg
await_task
"$M" run --cleanup --journal journal > c.out 2> c.err
[ $? = 1 ] && grep -q "still running" c.err || fail "2b: cleanup not refused ($(cat c.err))"
grep -q "process $pid" c.err || fail "2b: the refusal does not name the run: $(cat c.err)"
kill -0 $pid 2> /dev/null && [ "$(left)" = 1 ] || fail "2b: the live run was disturbed"
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] && [ "$(left)" = 0 ] || fail "2b: the run ended $rc with $(left) instances"

# Item 3: SIGKILL mid-run with a task that ignores SIGTERM: cleanup kills its process
# group (SIGKILL after the grace period) before destroying the instance; nothing left.
fresh orphans
slow_t0 "trap '' TERM; sleep $MARK"
run_bg
await 'pgrep -f "sleep $MARK" > /dev/null'
kill -9 $pid; wait $pid 2> /dev/null
"$M" run --cleanup --journal journal > out.txt 2> err.txt || fail "3: cleanup ($(cat err.txt))"
grep -q '1 leftover instance destroyed, 1 task process group stopped' out.txt || fail "3: $(cat out.txt)"
grep -q 'SIGKILL' out.txt || fail "3: the task ignoring SIGTERM was not killed: $(cat out.txt)"
pgrep -f "sleep $MARK" > /dev/null && fail "3: a task process survived the cleanup"
[ "$(left)" = 0 ] || fail "3: $(left) instances left"

# Item 3b: a destroy fails (IN_USE): cleanup goes on with the others, reports what it left
# and why, exits 1.
fresh inuse
sed 's/^t2,\(.*\),sleep[^,]*$/t2,\1,sleep 30/' "$D/a30_tasks.csv" > slow.csv
run_bg
await '[ "$(grep -c "^created" journal 2>/dev/null)" = 3 ]'
kill -9 $pid; wait $pid 2> /dev/null
[ "$(left)" = 2 ] || fail "3b: expected two instances, $(left)"
FAKE_NVML_FAIL=nvmlGpuInstanceDestroy:1:19 "$M" run --cleanup --journal journal > out.txt 2> err.txt
[ $? = 1 ] || fail "3b: cleanup with a failed destroy exited 0"
grep -q '1 leftover instance destroyed' out.txt && grep -q 'LEFT: device 0: GPU instance .*In use by another client' err.txt \
    || fail "3b: $(cat out.txt err.txt)"
[ "$(left)" = 1 ] || fail "3b: $(left) instances left"

# Item 4: a journal that cannot be written stops the run before any NVML change; cleanup
# of such a journal does not hang; impossible records are refused with their line.
fresh full
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --journal /dev/full --logs logs 2> err.txt
[ $? = 1 ] && grep -q '/dev/full: cannot open the journal: /dev/full: must be a regular file' err.txt || fail "4: $(cat err.txt)"
[ ! -e "$FAKE_NVML_STATE" ] || fail "4: the device was changed"
timeout 20 "$M" run --cleanup --journal /dev/full 2> err.txt
[ $? = 1 ] && grep -q 'regular file' err.txt || fail "4: cleanup of /dev/full: $(cat err.txt)"
# A write error later (a 1 KiB file size limit, SIGXFSZ ignored so write(2) fails; output
# through a pipe, which the limit does not cover): the run stops cleanly, destroying what
# it made.
fresh efbig
(trap '' XFSZ; ulimit -f 1; exec "$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" \
    --journal journal --logs logs 2>&1) | cat > all.txt
rc=${PIPESTATUS[0]}
[ $rc = 1 ] || fail "4: a failing journal write exited $rc"
grep -q 'stopped early: journal: cannot write the journal' all.txt || fail "4: $(tail -3 all.txt)"
[ "$(left)" = 0 ] || fail "4: $(left) instances left after the journal failed"
check_journal() {
    printf "$1" > bad.journal
    "$M" run --cleanup --journal bad.journal 2> err.txt
    [ $? = 1 ] && grep -q "bad.journal:$2: $3" err.txt || fail "4: journal '$1': $(cat err.txt)"
}
check_journal 'run nvml A30-24GB 1 1\ncreated 0 -1 0 4 MIG-x\n' 2 'needs DEV GI START SIZE UUID'
check_journal 'run nvml Z99-1GB 1 1\n' 1 "'run': unknown GPU model"
check_journal 'run nvml A30-24GB 1 1\ncreated 0 1 3 2 MIG-x\n' 2 'placement outside the GPU model'
check_journal 'run nvml A30-24GB 1 1\nbegin 0 4 1\n' 2 'placement outside the GPU model'
check_journal 'run nvml A30-24GB 1 1\ntask 0 -5 1 0\n' 2 "'task' needs"
check_journal 'run nvml A30-24GB 1 1\ndestroyed 0 1 extra\n' 2 "'destroyed' needs"

# 7. A plan that starts from what the device holds (--initial): 2g.12gb at slots 0 and 2
# (GPU instances 1 and 2). Instance 0 is destroyed where the plan says, instance 1 is kept
# to the end and left, 1g.6gb at slot 0 is created (and destroyed at the end).
IP=$D/a30_initial_plan.json IW=$D/a30_initial_tasks.csv
held='serial 900\ngpu 0 mig 1\ngi 0 1 2g.12gb 0 900\nci 0 1 0 1\ngi 0 2 2g.12gb 2 901\nci 0 2 0 1\n'
run_initial() { "$M" run "$IP" --workload "$IW" --journal journal --logs logs --report report.json \
                --quiet "$@" > out.txt 2> err.txt; }
"$M" run --help | grep -q -- '--initial  *what the devices hold' || fail "7: --help lacks --initial"
for initial in 2-2 device; do
    fresh "initial-$initial"; plant "$held"
    run_initial --initial $initial || fail "7: --initial $initial: exit $? ($(cat err.txt))"
    [ "$(grep -c '"op": "create"' report.json)" = 1 ] || fail "7: --initial $initial: initial instances created"
    grep -q '^MIG-fa4e0000-0001-' logs/0-t0.out && grep -q '^MIG-fa4e0000-0002-' logs/2-t2.out \
        || fail "7: --initial $initial: tasks not on the instances held"
    [ "$(left)" = 1 ] && grep -q '^gi 0 2 2g.12gb 2 901$' "$FAKE_NVML_STATE" \
        || fail "7: --initial $initial: the kept initial instance is not left as it was: $(cat "$FAKE_NVML_STATE")"
done
# Refused before anything changes, naming the difference: the default (empty), a device that
# lacks one, and one with another profile there.
refused() {  # $1 = state, $2 = expected message, then run_initial's arguments
    local st=$1 want=$2; shift 2
    fresh refused; plant "$st"; cp "$FAKE_NVML_STATE" before
    run_initial "$@"
    [ $? = 1 ] && grep -qF -- "$want" err.txt || fail "7: $*: exit $?, $(cat err.txt)"
    cmp -s before "$FAKE_NVML_STATE" || fail "7: $*: the device changed"
}
refused "$held" "--initial empty: the plan does not start from that layout: instance 0 (gpu 0, 2g.12gb@0) has no creation"
one='serial 900\ngpu 0 mig 1\ngi 0 1 2g.12gb 0 900\nci 0 1 0 1\n'
refused "$one" "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device" --initial 2-2
refused "$one" "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device" --initial device
other='serial 900\ngpu 0 mig 1\ngi 0 1 2g.12gb 0 900\nci 0 1 0 1\ngi 0 2 1g.6gb 2 901\nci 0 2 0 0\n'
refused "$other" "GPU 0: 1g.6gb at slot 2 is on the device, not in the plan's layout" --initial 2-2
refused "$held" "--initial 4: the plan does not start from that layout" --initial 4
export FAKE_NVML_GPUS=2  # plan GPU 0 on device 1: the message says which device GPU 0 is
refused 'serial 900\ngpu 1 mig 1\ngi 1 1 2g.12gb 0 900\nci 1 1 0 1\n' \
    "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device; nothing was changed (plan GPU 0 is device 1)" \
    --initial device --device 1
export FAKE_NVML_GPUS=1
# A busy initial instance (someone's process on GPU instance 1) is not destroyed.
fresh busy; plant "${held}proc 0 1 4242\n"
run_initial --initial 2-2
[ $? = 1 ] && grep -q 'compute process 4242 that migsched did not start' report.json \
    || fail "7: busy initial instance: $(cat err.txt)"
grep -q '^gi 0 1 2g.12gb 0 900$' "$FAKE_NVML_STATE" && grep -q '^gi 0 2 2g.12gb 2 901$' "$FAKE_NVML_STATE" \
    || fail "7: a busy initial instance was destroyed"
# The sim backend's GPU holds the --initial layout: the run is the plan from time 0.
"$M" run "$IP" --workload "$IW" --backend sim --initial 2-2 --json > sim.json 2> err.txt \
    || fail "7: sim ($(cat err.txt))"
grep -q '"makespan_planned": 0.36' sim.json && grep -q '"makespan": 0.36' sim.json \
    || fail "7: sim makespan: $(grep makespan sim.json)"
"$M" run "$IP" --workload "$IW" --backend sim --quiet 2> err.txt
[ $? = 1 ] && grep -q 'has no creation' err.txt || fail "7: sim without --initial: $(cat err.txt)"
"$M" run "$IP" --workload "$IW" --dry-run --initial device 2> err.txt
[ $? = 1 ] && grep -q 'a dry run reads no device' err.txt || fail "7: dry run --initial device"

# Item 6: arguments are checked before the device is touched.
fresh args
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --report /nonexistent/r.json 2> err.txt
[ $? = 1 ] && grep -q '/nonexistent/r.json' err.txt || fail "6: --report: $(cat err.txt)"
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --logs /nonexistent/logs 2> err.txt
[ $? = 1 ] && grep -q '/nonexistent/logs: cannot create the log folder' err.txt || fail "6: --logs: $(cat err.txt)"
"$M" run "$D/a30_plan.json" --workload "$D/a30_tasks.csv" --journal /nonexistent/j 2> err.txt
[ $? = 1 ] && grep -q '/nonexistent/j: cannot open the journal' err.txt || fail "6: --journal: $(cat err.txt)"
export FAKE_NVML_GPU=A100-40GB FAKE_NVML_GPUS=2
"$M" run "$D/a100x2_plan.json" --workload "$D/a100x2_tasks.csv" --device 0,0 2> err.txt
[ $? = 1 ] && grep -q 'device 0 is given twice' err.txt || fail "6: --device 0,0: $(cat err.txt)"
export FAKE_NVML_GPU=A30-24GB FAKE_NVML_GPUS=1
sed '1s/$/,cwd/; 2,$s/$/,./; 5s/,\.$/,no-such-dir/' "$D/a30_tasks.csv" > cwd.csv
"$M" run "$D/a30_plan.json" --workload cwd.csv 2> err.txt
[ $? = 1 ] && grep -q 'task t3 (#3): its cwd no-such-dir: No such file or directory' err.txt \
    || fail "6: missing cwd: $(cat err.txt)"
[ ! -e "$FAKE_NVML_STATE" ] || fail "6: the device was changed by a refused run"
# profile: a task that fails on every size is an error and nothing is written.
printf 'name,1,2,4,command\nok,1,1,1,true\nbroken,1,1,1,false\n' > tasks.csv
"$M" profile tasks.csv --device 0 --reps 1 --sizes 1,2 -o prof.csv 2> err.txt
[ $? = 1 ] && grep -q 'task broken failed on every size' err.txt || fail "6: profile: $(cat err.txt)"
[ ! -e prof.csv ] || fail "6: profile wrote its output"
exit 0
