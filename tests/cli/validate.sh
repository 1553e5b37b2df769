#!/usr/bin/env bash
# validate.sh: `migsched validate` prints metrics for a valid schedule and each violation
# (exit 1) for an invalid one; `migsched bounds` prints the three bounds (hand-checked
# values). $1 = migsched, $2 = source dir.
set -u
M=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$T/w.csv" <<'EOF'
name,1,2,3,4,7
a,4,2,2,1,1
b,6,3,2,2,1
c,2,1,1,1,1
EOF
# 4g@0 runs a and is destroyed; 3g@4 runs b; 2g@0 is created on the freed slots for c.
cat > "$T/s.json" <<'EOF'
{"format": "migsched-schedule/1", "gpu_model": "A100-40GB", "gpus": 1, "algorithm": "hand",
 "instances": [
  {"id": 0, "gpu": 0, "profile": "4g.20gb", "start_slot": 0, "create_start": 0, "create_end": 0.21, "destroy_start": 1.21, "destroy_end": 1.42},
  {"id": 1, "gpu": 0, "profile": "3g.20gb", "start_slot": 4, "create_start": 0.21, "create_end": 0.41, "destroy_start": null, "destroy_end": null},
  {"id": 2, "gpu": 0, "profile": "2g.10gb", "start_slot": 0, "create_start": 1.42, "create_end": 1.59, "destroy_start": null, "destroy_end": null}
 ],
 "tasks": [
  {"name": "a", "index": 0, "instance": 0, "start": 0.21, "end": 1.21},
  {"name": "b", "index": 1, "instance": 1, "start": 0.41, "end": 2.41},
  {"name": "c", "index": 2, "instance": 2, "start": 1.59, "end": 2.59}
 ]}
EOF

# Valid: baseline = (4 + 6 + 2) / 7 (least areas on 1 slice); rho = 2.59 / baseline.
out=$("$M" validate "$T/s.json" --workload "$T/w.csv") || fail "valid schedule rejected: $out"
case "$out" in
"valid makespan=2.590000 baseline=1.714286 l_bound="*" rho=1.5108 p_opt="*) ;;
*) fail "valid output: $out" ;;
esac
echo "$out" | grep -q "creations=3 destructions=1 reconfigurations=1" || fail "counts: $out"
"$M" validate "$T/s.json" --workload "$T/w.csv" --gpu A100-40GB > /dev/null || fail "--gpu"
"$M" validate "$T/s.json" --workload "$T/w.csv" --gantt --width 60 | grep -q '^g0 4g.20gb@0   |+' \
    || fail "gantt"

# Invalid: the 2g is created while the 4g still holds slots 0-3.
sed 's/"create_start": 1.42, "create_end": 1.59/"create_start": 0.41, "create_end": 0.58/; s/"start": 1.59, "end": 2.59/"start": 0.58, "end": 1.58/' \
    "$T/s.json" > "$T/bad.json"
out=$("$M" validate "$T/bad.json" --workload "$T/w.csv"); rc=$?
[ $rc -eq 1 ] || fail "invalid schedule: exit $rc"
echo "$out" | head -1 | grep -qx "invalid: 1 violation" || fail "invalid header: $out"
echo "$out" | grep -q "slot-conflict: instance 0 (gpu 0, 4g.20gb@0) alive 0-1.42 and instance 2" \
    || fail "violation text: $out"

# Bad input: precise message naming file and field, exit 1; usage errors exit 2.
sed 's/"3g.20gb"/"9g.1gb"/' "$T/s.json" > "$T/prof.json"
"$M" validate "$T/prof.json" --workload "$T/w.csv" 2> "$T/err" && fail "bad profile accepted"
grep -q "^migsched validate: $T/prof.json: instances\[1\].profile: unknown profile '9g.1gb' for A100-40GB$" \
    "$T/err" || fail "bad profile message: $(cat "$T/err")"
"$M" validate "$T/s.json" --workload "$T/w.csv" --gpu H100 2> "$T/err"; [ $? -eq 1 ] || fail "model mismatch"
grep -q "gpu_model: the schedule is for 'A100-40GB'" "$T/err" || fail "mismatch msg: $(cat "$T/err")"
"$M" validate "$T/s.json" --workload "$T/missing.csv" 2> /dev/null; [ $? -eq 1 ] || fail "missing workload"
"$M" validate "$T/s.json" 2> /dev/null; [ $? -eq 2 ] || fail "no --workload: want exit 2"
"$M" validate --help | grep -q "^usage: migsched validate" || fail "validate --help"

# Bounds: DESIGN.md's example, one 10 s task that needs 7 slices: baseline 70/7 = 10,
# l_bound 10 + 0.24 (its optimum), l_bound_paper 10 + 0.24 + 0.22; halved on 2 GPUs.
printf 'name,1,2,3,4,7\nbig,,,,,10\n' > "$T/big.csv"
out=$("$M" bounds "$T/big.csv" --gpu A100-40GB) || fail "bounds"
echo "$out" | grep -q "^baseline       10.000000 " || fail "baseline: $out"
echo "$out" | grep -q "^l_bound        10.240000 " || fail "l_bound: $out"
echo "$out" | grep -q "^l_bound_paper  10.460000 " || fail "l_bound_paper: $out"
"$M" bounds "$T/big.csv" --gpu A100-40GB --gpus 2 | grep -q "^l_bound        5.120000 " || fail "--gpus 2"
"$M" bounds "$T/big.csv" 2> /dev/null; [ $? -eq 2 ] || fail "bounds without --gpu: want exit 2"
"$M" bounds "$T/big.csv" --gpu A100 --gpus 0 2> /dev/null; [ $? -eq 2 ] || fail "--gpus 0"
"$M" bounds "$T/nothere.csv" --gpu A100 2> /dev/null; [ $? -eq 1 ] || fail "missing file"
"$M" bounds --help | grep -q "^usage: migsched bounds" || fail "bounds --help"
# From a GPU that already holds the whole instance nothing is created: l_bound = 10 exactly;
# a layout without the 7-slice size still charges its creation.
out=$("$M" bounds "$T/big.csv" --gpu A100-40GB --initial 7) || fail "bounds --initial 7"
echo "$out" | grep -q "^l_bound        10.000000 " || fail "l_bound from 7: $out"
echo "$out" | grep -q "initial layout 7$" || fail "bounds names its layout: $out"
"$M" bounds "$T/big.csv" --gpu A100-40GB --initial 4-3 | grep -q "^l_bound        10.240000 " \
  || fail "l_bound from 4-3"
"$M" bounds "$T/big.csv" --gpu A100-40GB --initial 99 2> "$T/err"; [ $? -eq 1 ] || fail "bad --initial"
grep -q "'99' is not a partition of A100-40GB" "$T/err" || fail "bad --initial message: $(cat "$T/err")"

# validate --initial: a plan made from 7 validates only against the layout it starts from.
"$M" schedule "$T/big.csv" --gpu A100-40GB --algo far --initial 7 --json -o "$T/from7.json" \
  || fail "schedule --initial 7"
"$M" validate "$T/from7.json" --workload "$T/big.csv" --initial 7 | grep -q "^valid makespan=10.000000 " \
  || fail "the plan from 7 does not validate from 7"
"$M" validate "$T/from7.json" --workload "$T/big.csv" > "$T/out"; [ $? -eq 1 ] || fail "from 7 valid from empty"
grep -q "initial-layout: instance 0 (gpu 0, 7g.40gb@0) has no creation" "$T/out" \
  || fail "initial-layout violation: $(cat "$T/out")"
"$M" schedule "$T/big.csv" --gpu A100-40GB --initial device 2> "$T/err"; [ $? -eq 1 ] || fail "schedule --initial device"
grep -q "only \`migsched run\` and migschedd" "$T/err" || fail "--initial device message: $(cat "$T/err")"
echo ok
