#!/usr/bin/env bash
# exec_run.sh: `migsched run` against the fake NVML (LD_LIBRARY_PATH set by ctest): plans
# on A30 and two A100s complete; dry run; injected failure, killed task, SIGINT and a
# crash + --cleanup leave no instance; foreign instances, MIG off, missing library and
# missing symbol are refused with clear messages. $1 = migsched, $2 = source dir.
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
# Waits (up to 20 s, for slow sanitizer builds) until the run has started a task.
await_task() { for _ in $(seq 200); do [ -n "$(ls logs 2>/dev/null)" ] && return 0; sleep 0.1; done
               fail "no task started"; }
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

# 2b. Plan GPU 0 on device 1: the journal shows device 1, device 0 is untouched.
fresh dev1; export FAKE_NVML_GPUS=2
printf 'gpu 0 mig 1\ngi 0 5 4g.24gb 0 1\nci 0 5 0 3\n' > "$FAKE_NVML_STATE"
run_a30 --device 1 || fail "run on device 1 ($(cat err.txt))"
grep -q '^begin 1 ' journal && ! grep -q '^begin 0 ' journal || fail "device mapping"
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

# 7. Crash while creating (GPU instance made, no compute instance), then --cleanup.
fresh crash
echo 'gpu 0 mig 1' > "$FAKE_NVML_STATE"
FAKE_NVML_FAIL=nvmlGpuInstanceCreateComputeInstance:3:kill run_a30
[ $? = 137 ] || fail "crash did not happen"
[ "$(left)" -ge 1 ] || fail "the crash left nothing to clean"
# The half-made instance has no recorded identity: reported with its removal, kept.
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
exit 0
