#!/usr/bin/env bash
# migsched schedule/compare --algo optimal: proved optimum in text and JSON, valid plan,
# same bytes twice, node limit (deterministic, not proved), refusals and bad limits.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
head -6 "$src/data/rodinia_a30_8tasks.csv" > "$tmp/w.csv"   # header + 5 kernels
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal > "$tmp/text"
grep -q '^optimality        proved' "$tmp/text" || fail "text does not say proved"
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --json -o "$tmp/a.json"
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --json -o "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "optimal output differs between runs"
"$bin" validate "$tmp/a.json" --workload "$tmp/w.csv" > /dev/null || fail "optimal plan invalid"
python3 - "$tmp/a.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st = s["stats"]
assert s["algorithm"] == "optimal" and st["proved"] == 1, st
# nodes may be 0: the root's bounds can prove the heuristics' incumbent optimal
assert abs(st["lower_bound"] - s["makespan"]) < 1e-9 and st["nodes"] >= 0, st
assert s["makespan"] >= s["l_bound"] - 1e-9, s
PY
# no heuristic of compare is shorter than the proved optimum
"$bin" compare "$tmp/w.csv" --gpu A30-24GB --algos far,search,fixpartbest,miso,nomig,optimal \
  --csv - --no-time > "$tmp/c.csv"
python3 - "$tmp/c.csv" <<'PY'
import csv, sys
rows = {r["algorithm"]: float(r["makespan"]) for r in csv.DictReader(open(sys.argv[1]))}
assert all(rows["optimal"] <= v + 1e-9 for v in rows.values()), rows
PY
# a node limit: deterministic, says it is not proved, still valid (from 2-1-1, where the
# proof takes hundreds of nodes; from an empty GPU it may take none)
w8=$src/data/rodinia_a30_8tasks.csv
lim=(--gpu A30-24GB --algo optimal --initial 2-1-1 --node-limit 50)
"$bin" schedule "$w8" "${lim[@]}" --json -o "$tmp/l1.json"
"$bin" schedule "$w8" "${lim[@]}" --json -o "$tmp/l2.json"
cmp -s "$tmp/l1.json" "$tmp/l2.json" || fail "node-limited output differs between runs"
"$bin" validate "$tmp/l1.json" --workload "$w8" --initial 2-1-1 > /dev/null ||
  fail "node-limited plan invalid"
grep -q '"proved": 0' "$tmp/l1.json" || fail "node-limited plan claims a proof"
"$bin" schedule "$w8" "${lim[@]}" > "$tmp/text"
grep -q '^optimality        not proved' "$tmp/text" || fail "text does not say not proved"
"$bin" compare "$w8" --gpu A30-24GB --initial 2-1-1 --algos far,optimal --node-limit 50 \
  --no-time > /dev/null
# refusals and bad limits
set +e
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --gpus 2 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'one GPU' "$tmp/err" || fail "--gpus 2: rc $rc"
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --batch 2 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'one batch' "$tmp/err" || fail "--batch 2: rc $rc"
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --time-budget 0 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- '--time-budget' "$tmp/err" || fail "--time-budget 0: rc $rc"
"$bin" schedule "$tmp/w.csv" --gpu A30-24GB --algo optimal --node-limit x 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- '--node-limit' "$tmp/err" || fail "--node-limit x: rc $rc"
"$bin" compare "$tmp/w.csv" --gpu A30-24GB --node-limit -3 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q -- '--node-limit' "$tmp/err" || fail "compare --node-limit -3: rc $rc"
exit 0
