#!/usr/bin/env bash
# exec_layout_profile.sh: `migsched layout` (mig-parted YAML and JSON at chosen times) and
# `migsched profile` against the fake NVML (FAR task list and workload CSV inputs, a task
# that cannot run on one slice, the measured model read back). $1 = migsched, $2 = source.
set -u
M=$1
D=$2/tests/data/exec
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

# Layout: the first partition by default, later ones with --at, nothing after the end.
"$M" layout "$D/a100x2_plan.json" > l.yaml || fail "layout"
grep -q '^version: v1$' l.yaml && grep -q '^    - devices: \[1\]$' l.yaml || fail "mig-parted shape"
grep -q '"7g.40gb": 1' l.yaml || fail "first layout is not 7g"
"$M" layout "$D/a100x2_plan.json" --at 0.8 --format mig-parted --name phase2 > l2.yaml || fail "layout --at"
grep -q '^  phase2:$' l2.yaml && grep -q '"3g.20gb": 1' l2.yaml && grep -q '"4g.20gb": 1' l2.yaml \
    || fail "layout at 0.8 s is not 4g+3g"
"$M" layout "$D/a30_plan.json" --at 1000 --format json -o l.json || fail "layout json"
grep -q '"instances": \[\]' l.json || fail "nothing should be alive at the end"
"$M" layout "$D/a30_plan.json" --format yaml 2> /dev/null; [ $? = 2 ] || fail "bad --format"
"$M" layout missing.json 2> err.txt; [ $? = 1 ] && grep -q missing.json err.txt || fail "missing plan"

# Profile: two tasks from a FAR task list; "big" cannot run on one slice.
export FAKE_NVML_GPU=A30-24GB FAKE_NVML_GPUS=1 FAKE_NVML_DELAY_SCALE=0.05 FAKE_NVML_STATE=$T/state
# Our own device locks and default journal: every fake GPU 0 has the same UUID, and another
# test may be running on its own fake GPU 0 beside this one.
export MIGSCHED_RUNTIME_DIR=$T/rt
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
mkdir -p apps/small apps/big
printf '#!/bin/sh\necho "$CUDA_VISIBLE_DEVICES"\n' > apps/small/run.sh
printf '#!/bin/sh\n[ "$MIGSCHED_SLICES" -ge 2 ] || exit 3\n' > apps/big/run.sh
chmod +x apps/*/run.sh
printf '# name dir script\nsmall apps/small run.sh\nbig   apps/big   run.sh\n' > tasks.txt
"$M" profile tasks.txt --device 0 --reps 2 -o w.csv --gpu-model-out model.json --journal j \
    --logs plogs 2> err.txt || fail "profile ($(cat err.txt))"
head -1 w.csv | grep -q '^name,1,2,4,command,cwd$' || fail "profile CSV header: $(head -1 w.csv)"
grep -q '^big,inf,[0-9.e-]*,[0-9.e-]*,./run.sh,' w.csv || fail "big should be inf on size 1: $(cat w.csv)"
grep -q '^small,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*,' w.csv || fail "small times: $(cat w.csv)"
grep -q '^MIG-' plogs/small-size4-rep2.log || fail "profiled task did not see its MIG device"
grep -q '"name": "A30-24GB-profiled"' model.json && grep -q '"reconfig"' model.json || fail "model JSON"
"$M" partitions --gpu model.json > /dev/null || fail "measured model does not load"
[ "$(grep -c '^gi ' state)" = 0 ] || fail "profile left instances"
# The profile feeds schedule and run (with the measured model): "big" is never put on 1 slice.
"$M" schedule w.csv --gpu model.json --json -o plan.json 2> err.txt || fail "schedule the profile ($(cat err.txt))"
"$M" run plan.json --workload w.csv --gpu model.json --journal j --logs rlogs --quiet > out.txt 2> err.txt \
    || fail "run the profiled plan ($(cat err.txt) $(cat out.txt))"
[ "$(grep -c '^gi ' state)" = 0 ] || fail "run of the profiled plan left instances"
# A workload CSV with commands is a task list too.
printf 'name,1,2,4,command\nsmall,1,1,1,true\n' > wl.csv
"$M" profile wl.csv --device 0 --reps 1 --sizes 4 -o w2.csv 2> err.txt || fail "profile CSV ($(cat err.txt))"
grep -q '^small,inf,inf,[0-9.e-]*,true$' w2.csv || fail "only size 4 profiled: $(cat w2.csv)"
# Ctrl-C while a task runs: the task is killed, the instance destroyed, nothing written.
printf '#!/bin/sh\ntouch %s/started\nsleep 5\n' "$PWD" > apps/small/slow.sh; chmod +x apps/small/slow.sh
printf 'slow apps/small slow.sh\n' > slow.txt
(exec "$M" profile slow.txt --device 0 -o w3.csv --journal j 2> err.txt) & pid=$!
for _ in $(seq 200); do [ -e started ] && break; sleep 0.1; done  # slow sanitizer builds
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] && grep -q 'interrupted by SIGINT' err.txt || fail "profile SIGINT: rc $rc $(cat err.txt)"
[ ! -e w3.csv ] || fail "profile wrote output after SIGINT"
[ "$(grep -c '^gi ' state)" = 0 ] || fail "profile left an instance after SIGINT"
# The sim backend simulates the instances and runs the tasks.
"$M" profile wl.csv --backend sim --gpu A100-40GB --device 0 -o w4.csv 2> err.txt || fail "sim profile ($(cat err.txt))"
grep -q '^name,1,2,3,4,7,command$' w4.csv && grep -q '^small,[0-9]' w4.csv || fail "sim profile output: $(cat w4.csv)"
printf 'a b\n' > bad.txt
"$M" profile bad.txt --device 0 -o x.csv 2> err.txt
[ $? = 1 ] && grep -q "line 1: expected 'name dir script'" err.txt || fail "bad task list"
[ ! -e x.csv ] || fail "output written on error"
exit 0
