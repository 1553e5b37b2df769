#!/usr/bin/env bash
# migsched experiment: CSV per cell, same bytes whatever the thread count, errors for bad
# options, and Ctrl-C leaves a complete CSV of what was finished.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" experiment --table sigma --reps 4 --threads 1 -o "$tmp/1.csv"
"$bin" experiment --table sigma --reps 4 --threads 3 -o "$tmp/3.csv"
cmp -s "$tmp/1.csv" "$tmp/3.csv" || fail "results depend on --threads"
[ "$(wc -l < "$tmp/1.csv")" = 7 ] || fail "sigma: expected 6 rows"
head -1 "$tmp/1.csv" | grep -q '^table,gpu,workload,n,miso,fixpart_ones,fixpartbest,fixpart_whole,miso_eager,reps$' \
  || fail "sigma header"
"$bin" experiment --table rho --presets 'POORSCALING,WIDETIMES' --n 5,9 --reps 3 --gpu A30 \
  --seed 9 > "$tmp/rho.csv"
python3 - "$tmp/rho.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["gpu"], r["n"], r["reps"]) for r in rows] == [("A30-24GB", "5", "3"), ("A30-24GB", "9", "3")], rows
assert all(float(r["rho"]) >= 1 for r in rows), rows
PY
"$bin" experiment --table popt --n 30 --batch 7 --reps 2 --presets 'GOODSCALING@0.1' > "$tmp/p.csv"
grep -q '^popt,A100-40GB,"GOODSCALING@0.1",30,' "$tmp/p.csv" || fail "popt row"
# --paper-family: FAR without its whole-GPU candidate. The baselines' columns stay the same
# bytes; on A30 GOODSCALING n=10 (where NOMIG often beats the paper's family) rho rises.
"$bin" experiment --table popt --n 30 --batch 7 --reps 3 --presets 'GOODSCALING;POORSCALING' \
  --threads 2 > "$tmp/pd.csv"
"$bin" experiment --table popt --n 30 --batch 7 --reps 3 --presets 'GOODSCALING;POORSCALING' \
  --threads 2 --paper-family > "$tmp/pp.csv"
"$bin" experiment --table rho --gpu A30 --presets 'GOODSCALING,WIDETIMES' --n 10 --reps 30 \
  > "$tmp/rd.csv"
"$bin" experiment --table rho --gpu A30 --presets 'GOODSCALING,WIDETIMES' --n 10 --reps 30 \
  --paper-family > "$tmp/rp.csv"
python3 - "$tmp" <<'PY'
import csv, sys
d = lambda f: list(csv.DictReader(open(sys.argv[1] + "/" + f)))
pd, pp = d("pd.csv"), d("pp.csv")
base = ["miso", "fixbest", "nomig", "fixbest_dataset", "miso_eager", "reps"]
assert len(pd) == len(pp) == 2, (pd, pp)
assert [[r[k] for k in base] for r in pd] == [[r[k] for k in base] for r in pp], (pd, pp)
rd, rp = d("rd.csv")[0], d("rp.csv")[0]
assert float(rd["rho"]) < float(rp["rho"]), (rd, rp)
PY
# search: every column; on batches of 7 the gaps to the proved optimum; search no worse
# than FAR, FIXBEST or MISO in any cell; without a model no agent column.
"$bin" experiment --table search --presets 'PATHO4;POORSCALING,WIDETIMES' --n 7 --batch 7 \
  --reps 3 --model "$src/models/a100-widetimes.bin" > "$tmp/s.csv"
"$bin" experiment --table search --gpu A30 --presets 'GOODSCALING' --n 6 --batch 7 --reps 2 \
  > "$tmp/s30.csv"
# Without --model, away from the source tree: the agent column is empty, and stderr says why.
(cd "$tmp" && "$bin" experiment --table search --presets 'POORSCALING' --n 6 --batch 7 \
  --reps 1 > "$tmp/snomodel.csv" 2> "$tmp/snomodel.err")
grep -q "no agent column: models/a100-widetimes.bin is not here" "$tmp/snomodel.err"
python3 - "$tmp" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/s.csv")))
assert len(rows) == 2, rows
for r in rows:
    for k in ("far", "fixbest", "miso", "miso_eager", "rl"):
        assert float(r["search"]) <= float(r[k]) + 1e-9, (k, r)
    assert float(r["search_gap"]) >= 0 and float(r["worst_search_gap"]) >= float(r["search_gap"])
    assert float(r["search_gap"]) <= float(r["far_gap"]) + 1e-9, r
    assert 0 <= float(r["search_share_optimal"]) <= 1 and r["reps"] == "3", r
a30 = list(csv.DictReader(open(sys.argv[1] + "/s30.csv")))[0]
assert a30["rl"] == "" and a30["search_gap"] != "", a30
PY
set +e
"$bin" experiment --table nope 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "unknown table 'nope'" "$tmp/err" || fail "unknown table: rc $rc"
"$bin" experiment --table rho --n 10,x 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "n:" "$tmp/err" || fail "bad n: rc $rc"
"$bin" experiment --table rho --presets 'NOSUCH' 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -qi "NOSUCH" "$tmp/err" || fail "bad preset: rc $rc"
"$bin" experiment --table rho --reps 0 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "reps 0: rc $rc"
# Ctrl-C: the file holds every cell with the repetitions finished so far.
"$bin" experiment --table popt --reps 100000 --threads 1 -o "$tmp/int.csv" 2> "$tmp/err" &
pid=$!
# Signalled once it catches SIGINT (bit 2 of SigCgt), not after a fixed sleep: a slow start
# would otherwise be killed by the default action.
for _ in $(seq 300); do
  mask=$(sed -n 's/^SigCgt:\s*//p' /proc/$pid/status 2>/dev/null)
  [ -n "$mask" ] && (( 0x$mask & 2 )) && break
  sleep 0.1
done
kill -INT $pid
wait $pid; rc=$?
set -e
[ $rc = 130 ] || fail "interrupted run: rc $rc"
grep -q "interrupted" "$tmp/err" || fail "no interruption message"
[ "$(wc -l < "$tmp/int.csv")" = 6 ] || fail "interrupted CSV incomplete"
# A table that cannot be written is an error, not a silent success.
rc=0; "$bin" experiment --table sigma --n 5 --reps 1 > /dev/full 2> "$tmp/err" || rc=$?
[ $rc = 1 ] || fail "write to a full device: rc $rc"
grep -q "cannot write" "$tmp/err" || fail "write to a full device: $(cat "$tmp/err")"
"$bin" experiment --help | grep -q 'usage: migsched experiment'
echo "experiment: ok"
