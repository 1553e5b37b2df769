#!/usr/bin/env bash
# hier_exec.sh: `migsched hier` (paper 004): Table VII's setups, every policy, readers'
# errors, determinism, and a plan carried out on the fake NVML (LD_LIBRARY_PATH set by
# ctest) with a fake nvidia-cuda-mps-control: daemons started in and stopped before
# destroying each MPS instance, tasks given the daemon's pipe and their thread share.
# $1 = migsched, $2 = source dir.
set -u
M=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

# 1. Table VII: 7, 19, 60 setups for C = 2, 3, 4 (MPS-only 5, 9, 10).
for c in 2:7:5 3:19:9 4:60:10; do
    IFS=: read -r n all mps <<< "$c"
    "$M" hier setups --c "$n" --json > s.json || fail "setups --c $n"
    got=$(grep -c '"family": "\(mps\|mig\|hier\)"' s.json)
    [ "$got" = "$all" ] || fail "C=$n: $got Table VII setups, expected $all"
    [ "$(grep -c '"family": "mps"' s.json)" = "$mps" ] || fail "C=$n: MPS-only count"
done
"$M" hier setups --c 3 | grep -q 'private:3g(100)+4g(10+90)  *\[{(0.375)}, 0.5m\] + \[(0.1)+(0.9), {0.5}, 0.5m\]' \
    || fail "setups listing lacks the V-A5 notation"

# 2. Every policy plans a window; time sharing is throughput 1; C_max bounds the sets.
cat > job.sh <<'SH'
echo "$1 pct=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none} pipe=${CUDA_MPS_PIPE_DIRECTORY:-none} dev=$CUDA_VISIBLE_DEVICES" >> "$(dirname "$0")/tasks.log"
SH
{ echo "name,command"; for j in lavaMD stream kmeans sp_solver_B qs_Coral_P1 bt_solver_C; do
      echo "$j,sh $T/job.sh $j"; done; } > win.csv
for p in timeshare mig2 mps default optimal; do
    "$M" hier --window win.csv --policy $p --json > $p.json || fail "policy $p"
done
grep -q '"throughput": 1,\|"throughput": 1.0' timeshare.json || fail "time sharing throughput is not 1"
"$M" hier --window win.csv --policy optimal --cmax 2 --json > c2.json || fail "cmax 2"
! grep -q '"mps:[0-9]*+[0-9]*+' c2.json || fail "C_max 2 gave a set of 3"
"$M" hier --window win.csv --policy rl 2> err.txt; [ $? = 1 ] && grep -q 'no model' err.txt || fail "rl without a model"

# 3. Readers: file and line in every message, exit 1, nothing printed on stdout.
printf 'name\nlavaMD\nnope\n' > bad.csv
"$M" hier --window bad.csv --policy mps > out.txt 2> err.txt
[ $? = 1 ] && grep -q 'bad.csv:3: job .nope.: unknown job' err.txt && [ ! -s out.txt ] || fail "unknown job"
printf 'setup,jobs,times\nmps:10+90,lavaMD;stream,1;x\n' > bad_corun.csv
"$M" hier --window win.csv --policy mps --corun bad_corun.csv 2> err.txt
[ $? = 1 ] && grep -q "bad_corun.csv:2: field 'times': time 2 ('x')" err.txt || fail "bad co-run table"
"$M" hier --window win.csv --policy mps --cmax 5 2> err.txt; [ $? = 2 ] || fail "cmax 5 accepted"

# 4. A measured table replaces the model.
printf 'setup,jobs,times\nmps:30+70,lavaMD;stream,70;65\n' > corun.csv
"$M" hier --window win.csv --policy mps --corun corun.csv --json > m.json || fail "measured table"
grep -q '"corun": "measured"' m.json && grep -q '"setup": "mps:30+70"' m.json || fail "table not used"

# 5. Determinism: the experiment gives the same bytes for the same seed.
"$M" hier experiment --window 6 --mixes 1 --seed 3 --json > e1.json || fail "experiment"
"$M" hier experiment --window 6 --mixes 1 --seed 3 --json > e2.json
cmp -s e1.json e2.json || fail "experiment not deterministic"
grep -q '"policies"' e1.json && grep -q '"optimal"' e1.json && ! grep -q '"rl"' e1.json || fail "experiment JSON"
"$M" hier experiment --window 6 --cmax 2-3 --mixes 1 --json > e3.json || fail "experiment ranges"
[ "$(grep -c '"default_layout"' e3.json)" = 2 ] || fail "two sweep points expected"

# 6. Execution: the plan as MIG instances with MPS daemons, dry run then the fake NVML.
cat > control <<'SH'
#!/bin/sh
if [ "$1" = -d ]; then what=start; else what="$(cat)"; fi
echo "$what vis=$CUDA_VISIBLE_DEVICES pipe=$CUDA_MPS_PIPE_DIRECTORY" >> "$(dirname "$0")/control.log"
[ -z "${CONTROL_FAIL:-}" ]
SH
chmod +x control
export FAKE_NVML_DELAY_SCALE=0.01 FAKE_NVML_GPU=A100-40GB FAKE_NVML_GPUS=1 MIGSCHED_MPS_CONTROL=$T/control
# Our own device locks: every fake GPU 0 has the same UUID, and another test may be running
# on its own fake GPU 0 beside this one ("GPU ... is in use by migsched process").
export MIGSCHED_RUNTIME_DIR=$T/rt
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY CONTROL_FAIL
left() { if [ -e "$FAKE_NVML_STATE" ]; then grep -c '^gi ' "$FAKE_NVML_STATE"; else echo 0; fi; }
for p in optimal default; do
    "$M" hier --window win.csv --policy $p --exec-out x$p > /dev/null || fail "exec-out $p"
    "$M" validate x$p/plan.json --workload x$p/workload.json > /dev/null || fail "$p plan invalid"
    "$M" run x$p/plan.json --workload x$p/workload.json --mps x$p/mps.json --dry-run > dry.txt || fail "dry run $p"
    [ "$(grep -c 'start MPS in instance' dry.txt)" = "$(grep -c 'stop MPS in instance' dry.txt)" ] || fail "dry run start/stop"
    export FAKE_NVML_STATE=$T/state.$p; rm -f control.log tasks.log
    "$M" run x$p/plan.json --workload x$p/workload.json --mps x$p/mps.json --mps-root "$T/mps" \
        --journal journal --logs logs --quiet > out.txt 2> err.txt || fail "run $p ($(cat err.txt))"
    [ "$(left)" = 0 ] || fail "$p: instances left"
    [ "$(wc -l < tasks.log)" = 6 ] || fail "$p: not every job ran"
    starts=$(grep -c '^start vis=MIG-' control.log); quits=$(grep -c '^quit vis=MIG-' control.log)
    [ "$starts" -ge 1 ] && [ "$starts" = "$quits" ] || fail "$p: daemons started $starts, stopped $quits"
    grep "pipe=$T/mps/dev0-inst" tasks.log | grep -q 'dev=MIG-' || fail "$p: no task reached a daemon"
    [ $p = default ] || grep -q 'stream pct=[0-9]* pipe=/' tasks.log || fail "optimal: no thread share"
done
grep -q 'stream pct=none pipe=/' tasks.log || fail "default MPS: a share was set"
grep -q 'lavaMD pct=none pipe=none' tasks.log || fail "a job alone was given a daemon"
"$M" hier --window win.csv --policy optimal --exec-out xo > /dev/null
grep -q 'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=[0-9]' xo/workload.json || fail "no thread share in the launch lines"

# 7. A daemon that fails to start: the instance's tasks are skipped, it is destroyed anyway.
export FAKE_NVML_STATE=$T/state.fail CONTROL_FAIL=1
"$M" run xoptimal/plan.json --workload xoptimal/workload.json --mps xoptimal/mps.json \
    --mps-root "$T/mps" --journal journal --logs logs --report rep.json --quiet > out.txt 2> err.txt
[ $? = 1 ] || fail "failed daemon not reported"
grep -q "control' -d' failed (exit status 1)" rep.json || fail "report lacks the daemon failure"
[ "$(left)" = 0 ] || fail "instances left after a failed daemon"
unset CONTROL_FAIL
"$M" run xoptimal/plan.json --workload xoptimal/workload.json --mps-root /tmp --dry-run 2> err.txt
[ $? = 2 ] || fail "--mps-root without --mps accepted"
echo '{"format": "migsched-mps/1", "instances": [99]}' > badmps.json
"$M" run xoptimal/plan.json --workload xoptimal/workload.json --mps badmps.json --dry-run 2> err.txt
[ $? = 1 ] && grep -q 'instances\[0\]: must be an instance id' err.txt || fail "bad mps.json"
echo ok
