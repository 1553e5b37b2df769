#!/usr/bin/env bash
# schedule.sh: `migsched schedule` with FAR: the make-run job (tree, Gantt, metrics), JSON
# output (reproducible apart from compute_seconds, written atomically), batches, and bad
# options or input rejected with a message and status 2 (usage) or 1 (input).
# $1 = migsched, $2 = source dir.
set -u
M=$1
S=$2
W=$S/data/rodinia_a30_8tasks.csv
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The make-run job: tree view, Gantt and the metrics (numbers checked by hand in
# tests/test_far_golden.c).
"$M" schedule "$W" --gpu A30-24GB --algo far --tree > "$T/run.txt" || fail "make run job"
grep -q 'Node(start=0, size=2, tasks=\[lavaMD\], ends=\[21.817\])' "$T/run.txt" || fail "tree: $(cat "$T/run.txt")"
grep -q 'Node(start=3, size=1, tasks=\[pathfinder, lu\], ends=\[20.893, 29.491\])' "$T/run.txt" || fail "tree leaf"
grep -q '^makespan  *29.491 s' "$T/run.txt" || fail "makespan"
for k in baseline l_bound rho p_opt reconfigurations 'compute time'; do
  grep -q "^$k " "$T/run.txt" || fail "metric $k missing"
done
grep -q 'lavaMD' "$T/run.txt" || fail "gantt"

# JSON: same input, same bytes apart from the measured compute time; -o writes the same.
strip() { sed 's/"compute_seconds": [0-9.e+-]*//' "$1"; }
"$M" schedule "$W" --gpu A30-24GB --json > "$T/a.json" || fail "json a"
"$M" schedule "$W" --gpu A30-24GB --json -o "$T/b.json" || fail "json b"
[ "$(strip "$T/a.json")" = "$(strip "$T/b.json")" ] || fail "json not reproducible"
grep -q '"format": "migsched-schedule/1"' "$T/a.json" || fail "format"
grep -q '"algorithm": "search"' "$T/a.json" || fail "default algorithm"
"$M" schedule "$W" --gpu A30-24GB --algo far --json | grep -q '"algorithm": "far"' || fail "far"

# search: budget and threads; same seed and threads, same bytes; never worse than FAR.
for th in 1 2; do
  "$M" schedule "$W" --gpu A30 --algo search --threads $th --seed 5 --json > "$T/s1.json" || fail "search"
  "$M" schedule "$W" --gpu A30 --algo search --threads $th --seed 5 --json > "$T/s2.json" || fail "search"
  cmp -s "$T/s1.json" "$T/s2.json" || fail "search not deterministic with $th threads"
  "$M" validate "$T/s1.json" --workload "$W" > /dev/null || fail "search plan invalid"
done
"$M" schedule "$W" --gpu A30 --algo search --time-budget 1 --batch 3 --concat overlap --gpus 2 \
  --json > "$T/sb.json" || fail "search batches"
"$M" validate "$T/sb.json" --workload "$W" > /dev/null || fail "search batches invalid"
"$M" schedule "$W" --gpu A30 --time-budget 0 > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "budget 0"
grep -q -- '--time-budget' "$T/e" || fail "budget message"
"$M" schedule "$W" --gpu A30 --threads 0 > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "threads 0"
"$M" schedule "$W" --gpu A30 --algo far --model x.bin > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "model with far"
"$M" schedule "$W" --gpu A30-24GB --algo far-norefine --json | grep -q '"algorithm": "far-norefine"' || fail "far-norefine"

# Batches and concatenation modes, several GPUs, refinement limit.
for c in trivial reverse overlap; do
  "$M" schedule "$W" --gpu A30-24GB --algo far --batch 3 --concat $c > "$T/b_$c.txt" || fail "batch $c"
  grep -q '^batches  *3' "$T/b_$c.txt" || fail "batch count ($c)"
done
grep -q '^p_move_swap' "$T/b_overlap.txt" || fail "p_move_swap"
"$M" schedule "$W" --gpu A30-24GB --gpus 3 --refine-iters 1 --tree | grep -q '^GPU 2 ' || fail "3 GPUs"

# FAR's rule options on an A100 workload: valid plans, each different from the default.
"$M" generate --gpu A100-40GB --preset MIXEDSCALING,WIDETIMES --n 30 --seed 2 -o "$T/a100.csv" || fail "generate"
"$M" schedule "$T/a100.csv" --gpu A100-40GB --json > "$T/def.json" || fail "default"
for o in --four-runs-three --tie-right-first; do
  "$M" schedule "$T/a100.csv" --gpu A100-40GB $o --json > "$T/opt.json" || fail "$o"
  "$M" validate "$T/opt.json" --workload "$T/a100.csv" > /dev/null || fail "$o plan invalid"
  cmp -s "$T/def.json" "$T/opt.json" && fail "$o changes nothing"
done
"$M" schedule --help | grep -q -- '--four-runs-three' || fail "help --four-runs-three"

# Usage errors: status 2 and a message.
"$M" schedule "$W" > /dev/null 2> "$T/e" ; [ $? -eq 2 ] || fail "missing --gpu"
grep -q 'migsched schedule: --gpu' "$T/e" || fail "missing --gpu message"
"$M" schedule "$W" --gpu A30 --algo nope > /dev/null 2> "$T/e"; [ $? -eq 1 ] || fail "unknown algo"
"$M" schedule "$W" --gpu A30 --concat sideways > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "bad concat"
"$M" schedule "$W" --gpu A30 --gpus 0 > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "gpus 0"
"$M" schedule "$W" --gpu A30 --batch x > /dev/null 2> "$T/e"; [ $? -eq 2 ] || fail "batch x"
"$M" schedule --help | grep -q 'usage: migsched schedule' || fail "help"

# Baselines through the same command; an infeasible fixed partition is an input error.
"$M" schedule "$W" --gpu A30 --algo fixpart:2-1-1 --json > "$T/fp.json" || fail "fixpart:2-1-1"
"$M" validate "$T/fp.json" --workload "$W" > /dev/null || fail "fixpart plan invalid"
"$M" schedule "$W" --gpu A30 --algo fixpart:1-1-1-1 > /dev/null 2> "$T/e"; [ $? -eq 1 ] || fail "infeasible fixpart"
grep -q 'lavaMD' "$T/e" || fail "infeasible fixpart message: $(cat "$T/e")"
# Same input, same bytes (measured times are left out of the JSON unless --timings).
"$M" schedule "$W" --gpu A30 --json > "$T/a.json" && "$M" schedule "$W" --gpu A30 --json > "$T/b.json"
cmp -s "$T/a.json" "$T/b.json" || fail "schedule --json not deterministic"
grep -q compute_seconds "$T/a.json" && fail "compute_seconds without --timings"
"$M" schedule "$W" --gpu A30 --json --timings | grep -q compute_seconds || fail "--timings"

# Input errors: status 1, the file named, nothing written.
"$M" schedule "$T/none.csv" --gpu A30 -o "$T/out.json" --json 2> "$T/e"; [ $? -eq 1 ] || fail "missing file"
grep -q 'none.csv' "$T/e" || fail "missing file message: $(cat "$T/e")"
[ -e "$T/out.json" ] && fail "output written on error"
printf 'name,1,2,3\nx,1,1,1\n' > "$T/bad.csv"
"$M" schedule "$T/bad.csv" --gpu A30 > /dev/null 2> "$T/e"; [ $? -eq 1 ] || fail "size 3 on an A30"
"$M" schedule "$W" --gpu NOPE > /dev/null 2> "$T/e"; [ $? -eq 1 ] || fail "unknown gpu"

# The learned scheduler on a queue longer than its N = 14: each queue mode validates, the
# default guard reports which plan won (text and JSON), --no-guard gives the agent's plan
# (never shorter than the guarded one), and the rl-only options go with --algo rl alone.
MODEL=$S/models/a100-widetimes.bin
"$M" generate --gpu A100-40GB --preset WIDETIMES --n 20 --seed 3 -o "$T/w20.csv" || fail "generate"
for q in fill split best; do
  "$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-queue $q --no-guard \
    --json > "$T/rl_$q.json" || fail "rl $q"
  "$M" validate "$T/rl_$q.json" --workload "$T/w20.csv" > /dev/null || fail "rl $q invalid"
  grep -q '"guard": 0' "$T/rl_$q.json" || fail "rl $q guard stat"
done
grep -q '"rl_queue": 1' "$T/rl_split.json" || fail "split stat"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --json > "$T/rl_g.json" || fail "rl guarded"
grep -q '"guard_won": [012]' "$T/rl_g.json" || fail "guard_won json"
grep -q '"head_far_makespan"' "$T/rl_g.json" || fail "head_far json"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" | grep -q '^guard_won ' || fail "guard_won text"
mk() { sed -n 's/.*"makespan": \([0-9.e+-]*\),.*/\1/p' "$1" | head -1; }
awk -v g="$(mk "$T/rl_g.json")" -v a="$(mk "$T/rl_best.json")" 'BEGIN { exit !(g <= a) }' || fail "guard longer than the agent"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-queue bogus 2>"$T/err"
[ $? = 2 ] && grep -q 'fill, split or best' "$T/err" || fail "--rl-queue bogus"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo far --no-guard 2>"$T/err"
[ $? = 2 ] && grep -q -- '--no-guard goes with --algo rl' "$T/err" || fail "--no-guard with far"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo far --rl-queue fill 2>/dev/null
[ $? = 2 ] || fail "--rl-queue with far"
# --rl-rollout K --rl-rollout-gap G: the policy improved by rollout (by default over its 4
# best actions within the gap calibrated for it, models/README.md) validates, is never longer than the greedy agent's plan
# (--rl-rollout 1; the greedy action is always a candidate), and the JSON says the rule.
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-queue fill --no-guard \
  --rl-rollout 1 --json > "$T/rl_greedy.json" || fail "rl greedy"
grep -q '"rollout"' "$T/rl_greedy.json" && fail "greedy rollout stat"
gap=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["rollout_gap"])' \
  < "$T/rl_fill.json") || fail "the default rule's gap"
for k in "3 --rl-rollout-gap inf" "all --rl-rollout-gap inf" "4 --rl-rollout-gap $gap"; do
  f="$T/rl_ro_${k%% *}.json"
  "$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-queue fill --no-guard \
    --rl-rollout $k --json > "$f" || fail "rl rollout $k"
  "$M" validate "$f" --workload "$T/w20.csv" > /dev/null || fail "rl rollout $k invalid"
  awk -v r="$(mk "$f")" -v g="$(mk "$T/rl_greedy.json")" 'BEGIN { exit !(r <= g) }' \
    || fail "rollout $k longer than the greedy agent"
done
grep -q '"rollout": 3' "$T/rl_ro_3.json" || fail "rollout stat"
grep -q '"rollout_gap"' "$T/rl_ro_3.json" && fail "rollout_gap stat at every decision"
grep -q '"rollout": -1' "$T/rl_ro_all.json" || fail "rollout all stat"
grep -q '"rollout": 4' "$T/rl_fill.json" || fail "the default rule's width"
cmp -s <(mk "$T/rl_fill.json") <(mk "$T/rl_ro_4.json") || fail "the default rule is not 4 within $gap"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-rollout-gap x 2>"$T/err"
[ $? = 2 ] && grep -q -- '--rl-rollout-gap must be a number in 0..1000 or inf' "$T/err" \
  || fail "--rl-rollout-gap x"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo rl --model "$MODEL" --rl-rollout 0 2>"$T/err"
[ $? = 2 ] && grep -q -- '--rl-rollout must be 1..1000 or all' "$T/err" || fail "--rl-rollout 0"
"$M" schedule "$T/w20.csv" --gpu A100-40GB --algo far --rl-rollout 2 2>"$T/err"
[ $? = 2 ] && grep -q -- '--rl-rollout goes with --algo rl' "$T/err" || fail "--rl-rollout with far"
echo "schedule: ok"
