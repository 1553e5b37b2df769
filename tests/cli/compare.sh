#!/usr/bin/env bash
# migsched compare: one validated row per algorithm, deterministic without times, plots,
# infeasible FIXPART reported, errors for unknown algorithms and bad files.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
w=$src/data/rodinia_a30_8tasks.csv
"$bin" compare "$w" --gpu A30-24GB --csv - --no-time > "$tmp/a.csv"
"$bin" compare "$w" --gpu A30-24GB --csv "$tmp/b.csv" --no-time > "$tmp/text"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "compare output differs between runs"
python3 - "$tmp/a.csv" <<'PY'
import csv, sys
rows = {r["algorithm"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert list(rows) == ["far", "search", "miso", "fixpartbest", "nomig"], list(rows)
# search is at least as good as every other algorithm on the sample.
assert all(float(rows["search"]["makespan"]) <= float(r["makespan"]) for r in rows.values())
assert rows["far"]["sigma"] == "1.000000", rows["far"]
# NOMIG on an empty A30: the whole GPU's creation (0.13 s), then the sum of the 4-slice
# times, no reconfiguration.
t4 = [1.18849, 0.501269, 8.53057, 17.3214, 0.316071, 1.01767, 6.38692, 20.6617]
assert abs(float(rows["nomig"]["makespan"]) - 0.13 - sum(t4)) < 1e-5, rows["nomig"]
assert rows["nomig"]["reconfigurations"] == "0", rows["nomig"]
for r in rows.values():
    assert float(r["rho"]) >= 1 and float(r["makespan"]) > 0, r
PY
# From a GPU that holds the whole instance already NOMIG creates nothing and no slice idles;
# from 2-1-1 every row still validates (the command exits 1 otherwise) and search still wins.
"$bin" compare "$w" --gpu A30-24GB --initial 4 --algos nomig --csv - --no-time > "$tmp/whole.csv"
"$bin" compare "$w" --gpu A30-24GB --initial 2-1-1 --csv - --no-time > "$tmp/p211.csv"
python3 - "$tmp/whole.csv" "$tmp/p211.csv" <<'PY'
import csv, sys
whole = next(csv.DictReader(open(sys.argv[1])))
t4 = [1.18849, 0.501269, 8.53057, 17.3214, 0.316071, 1.01767, 6.38692, 20.6617]
assert abs(float(whole["makespan"]) - sum(t4)) < 1e-5, whole
assert whole["reconfigurations"] == "0" and float(whole["idle_fraction"]) == 0, whole
rows = {r["algorithm"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert all(float(rows["search"]["makespan"]) <= float(r["makespan"]) for r in rows.values())
PY
"$bin" compare "$w" --gpu A30-24GB --initial 2-1-1 --algos nomig --no-time | head -1 \
  | grep -qx 'initial layout: 2-1-1' || fail "the text table does not name its initial layout"
if "$bin" compare "$w" --gpu A30-24GB --initial 3-3 2> "$tmp/err"; then fail "bad --initial accepted"; fi
grep -q "'3-3' is not a partition of A30-24GB" "$tmp/err" || fail "bad --initial message: $(cat "$tmp/err")"
# fixpart:1-1-1-1 cannot run lavaMD: reported, the others still run.
"$bin" compare "$w" --gpu A30-24GB --algos far,fixpart:1-1-1-1,fixpart:3 --no-time \
  > "$tmp/out" 2> "$tmp/err"
grep -q '^fixpart:1-1-1-1 *infeasible' "$tmp/out" || fail "infeasible row missing"
grep -q 'lavaMD' "$tmp/err" || fail "infeasible reason missing"
grep -q '^fixpart:3 ' "$tmp/out" || fail "fixpart by index missing"
# Several GPUs: every algorithm still validates (the command exits 1 otherwise).
"$bin" compare "$w" --gpu A30-24GB --gpus 3 --algos far,miso,miso-eager,fixpartbest,nomig \
  --no-time --csv - > "$tmp/g3.csv"
[ "$(wc -l < "$tmp/g3.csv")" = 6 ] || fail "--gpus 3 rows"
# FAR's rule options reach FAR's row (the fixed partition's does not change).
"$bin" generate --gpu A100-40GB --preset MIXEDSCALING,WIDETIMES --n 30 --seed 2 -o "$tmp/a100.csv"
"$bin" compare "$tmp/a100.csv" --gpu A100-40GB --algos far,fixpartbest --no-time --csv - > "$tmp/d.csv"
"$bin" compare "$tmp/a100.csv" --gpu A100-40GB --algos far,fixpartbest --no-time --csv - \
  --tie-right-first > "$tmp/r.csv"
[ "$(grep ^far, "$tmp/d.csv")" != "$(grep ^far, "$tmp/r.csv")" ] || fail "--tie-right-first ignored"
[ "$(grep ^fixpartbest, "$tmp/d.csv" | cut -d, -f2)" = "$(grep ^fixpartbest, "$tmp/r.csv" | cut -d, -f2)" ] \
  || fail "fixpartbest changed"
# rl's options reach rl's row: the agent alone (--no-guard) is never shorter than the guarded
# plan, and improved by rollout (by default, or over 3 actions at every decision) it is never
# longer than the greedy agent alone (--rl-rollout 1).
model=$src/models/a100-widetimes.bin
"$bin" generate --gpu A100-40GB --preset WIDETIMES --n 20 --seed 5 -o "$tmp/w20.csv"
mk() { "$bin" compare "$tmp/w20.csv" --gpu A100-40GB --algos rl --model "$model" --no-time --csv - "$@" \
  | grep ^rl, | cut -d, -f2; }
guarded=$(mk) alone=$(mk --no-guard --rl-queue fill) greedy=$(mk --no-guard --rl-queue fill --rl-rollout 1)
rollout=$(mk --no-guard --rl-queue fill --rl-rollout 3 --rl-rollout-gap inf)
awk -v g="$guarded" -v a="$alone" -v r="$rollout" -v y="$greedy" \
  'BEGIN { exit !(g <= a && a <= y && r <= y) }' \
  || fail "rl options: guarded $guarded, alone $alone, rollout $rollout, greedy $greedy"
# Plots, one per algorithm.
"$bin" compare "$w" --gpu A30-24GB --algos far,miso,fixpart:2-1-1 --plot-dir "$tmp/plots" > /dev/null
for f in far miso fixpart_2-1-1; do [ -s "$tmp/plots/$f.html" ] || fail "no plot $f"; done
# Errors.
set +e
"$bin" compare "$w" --gpu A30-24GB --algos far,bogus 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "unknown algorithm 'bogus'" "$tmp/err" || fail "unknown algorithm: rc $rc"
"$bin" compare "$w" --gpu A30-24GB --algos fixpart:3-3 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "not a partition" "$tmp/err" || fail "bad partition: rc $rc"
"$bin" compare "$tmp/missing.csv" --gpu A30-24GB 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "missing.csv" "$tmp/err" || fail "missing file: rc $rc"
"$bin" compare "$w" 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "no --gpu: rc $rc"
"$bin" compare "$w" --gpu A30-24GB --algos far --no-guard 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--no-guard goes with rl" "$tmp/err" || fail "--no-guard without rl: rc $rc"
"$bin" compare "$tmp/w20.csv" --gpu A100-40GB --algos rl --model "$model" --rl-rollout 0 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--rl-rollout must be" "$tmp/err" || fail "--rl-rollout 0: rc $rc"
set -e
"$bin" compare --help | grep -q 'usage: migsched compare'
echo "compare: ok"
