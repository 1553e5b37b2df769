#!/usr/bin/env bash
# migsched hier train (paper 004's DQN agent): a tiny run writes a model that `migsched hier
# --policy rl` and `hier experiment --model` use, same seed gives the same bytes, SIGINT
# leaves a loadable checkpoint (exit 130), bad options and bad models are refused; the
# rollout --lookahead (and --lookahead-depth) of `hier` and `hier experiment`; --expert-pretrain.
# $1 = migsched, $2 = source dir.
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
small=(--window 6 --cmax 3 --hidden 16,16,8 --batch 8 --replay 200 --learn-start 20
       --target-every 20)
"$bin" hier train "${small[@]}" --steps 300 --eval-every 150 --seed 3 --out "$dir/a.bin" 2>"$dir/log"
grep -q 'steps 150/300' "$dir/log" || fail "no progress line at 150"
grep -q 'steps 300/300 .*throughput [0-9.]* on 12 test windows (optimum [0-9.]*' "$dir/log" \
    || fail "no final evaluation line"
grep -Eq '^steps 300/300  [0-9]+ s  cpu [0-9]+\.[0-9] s  [0-9]+ steps/s' "$dir/log" || fail "no cpu field"
"$bin" plot --curves "$dir/log" --x cpu -o "$dir/c.svg" || fail "plot --curves of the log"
head -c 8 "$dir/a.bin" | grep -q MSRLMODL || fail "not a model file"
grep -aq '"format":"migsched-dqn-model/1"' "$dir/a.bin" || fail "not a DQN model"
grep -aq '"env_kind":"hier"' "$dir/a.bin" || fail "env_kind"
# Same seed, same bytes.
"$bin" hier train "${small[@]}" --steps 300 --eval-every 150 --seed 3 --out "$dir/b.bin" 2>/dev/null
cmp -s "$dir/a.bin" "$dir/b.bin" || fail "same seed, different model"

# --expert-pretrain: supervised updates on the exact action values, alone with --steps 0;
# progress lines, the count in the model file, same seed same bytes.
pre=(--ri-weight 0 --rf-weight 0 --best-setup --expert-pretrain 40 --eval-every 20 --seed 5)
"$bin" hier train "${small[@]}" "${pre[@]}" --steps 0 --out "$dir/e.bin" 2>"$dir/elog" \
    || fail "hier train --expert-pretrain"
grep -Eq '^pretrain 20/40  [0-9]+ s  cpu [0-9.]+ s  [0-9]+ updates/s  loss [0-9.]+  throughput [0-9.]+ on 12 test windows' \
    "$dir/elog" || fail "no pretrain progress line"
grep -q '^steps ' "$dir/elog" && fail "DQN steps after --steps 0"
"$bin" plot --curves "$dir/elog" -o "$dir/e.svg" || fail "plot --curves of a pre-training log"
grep -aq '"expert_pretrain":40' "$dir/e.bin" || fail "pre-training not recorded in the model"
"$bin" hier train "${small[@]}" "${pre[@]}" --steps 0 --out "$dir/e2.bin" 2>/dev/null
cmp -s "$dir/e.bin" "$dir/e2.bin" || fail "--expert-pretrain: same seed, different model"
"$bin" hier train "${small[@]}" "${pre[@]}" --steps 100 --out "$dir/e3.bin" 2>"$dir/elog" \
    || fail "--expert-pretrain then DQN steps"
grep -q '^steps 100/100 ' "$dir/elog" || fail "no DQN steps after pre-training"

# The model plans windows (valid plans: the command checks them) and the experiment.
{ echo name; for j in lavaMD stream kmeans sp_solver_B qs_Coral_P1 bt_solver_C lud_A dwt2d; do
      echo $j; done; } > "$dir/win.csv"
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/a.bin" --cmax 3 --lookahead 1 \
    --json > "$dir/p.json" || fail "hier --policy rl"
grep -q '"throughput"' "$dir/p.json" || fail "no throughput in the rl plan"
"$bin" hier experiment --window 6 --cmax 3 --mixes 1 --model "$dir/a.bin" --json > "$dir/e.json" \
    || fail "hier experiment --model"
grep -q '"rl"' "$dir/e.json" || fail "no rl policy in the experiment"
# --lookahead: the rollout plan is never slower than the greedy one and is reported.
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/a.bin" --cmax 3 --lookahead 3 \
    --json > "$dir/p3.json" || fail "hier --policy rl --lookahead 3"
t1=$(sed -n 's/^  "total": \(.*\),$/\1/p' "$dir/p.json")
t3=$(sed -n 's/^  "total": \(.*\),$/\1/p' "$dir/p3.json")
[ -n "$t1" ] && [ -n "$t3" ] || fail "no total in the rl plans"
awk -v a="$t3" -v b="$t1" 'BEGIN { exit !(a <= b * (1 + 1e-12)) }' || fail "lookahead slower: $t3 > $t1"
"$bin" hier experiment --window 6 --cmax 3 --mixes 1 --model "$dir/a.bin" --lookahead 2 --json \
    > "$dir/e2.json" || fail "hier experiment --lookahead"
grep -q '"lookahead": 2' "$dir/e2.json" || fail "no lookahead in the experiment's JSON"
grep -q '"lookahead_depth": 1' "$dir/e2.json" || fail "no lookahead depth in the experiment's JSON"
# --lookahead-depth 2: never slower than depth 1.
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/a.bin" --cmax 3 --lookahead 3 \
    --lookahead-depth 2 --json > "$dir/p32.json" || fail "hier --policy rl --lookahead-depth 2"
grep -q '"lookahead_depth": 2' "$dir/p32.json" || fail "no lookahead depth in the plan's JSON"
t32=$(sed -n 's/^  "total": \(.*\),$/\1/p' "$dir/p32.json")
awk -v a="$t32" -v b="$t3" 'BEGIN { exit !(a <= b * (1 + 1e-12)) }' || fail "depth 2 slower: $t32 > $t3"
set +e
for k in 0 9 x; do
    "$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/a.bin" --lookahead $k 2>"$dir/err"
    [ $? = 2 ] || fail "--lookahead $k accepted"
    grep -q -- '--lookahead must be an integer in 1..8' "$dir/err" || fail "--lookahead $k message"
done
for d in 0 4 x; do
    "$bin" hier experiment --model "$dir/a.bin" --lookahead-depth $d 2>"$dir/err"
    [ $? = 2 ] || fail "--lookahead-depth $d accepted"
    grep -q -- '--lookahead-depth must be an integer in 1..3' "$dir/err" || fail "--lookahead-depth $d message"
done
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/a.bin" --cmax 4 2>"$dir/err"
[ $? = 1 ] || fail "C_max above the model's accepted"
grep -q 'up to 3 jobs' "$dir/err" || fail "C_max message"
echo garbage > "$dir/bad.bin"
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/bad.bin" 2>"$dir/err"
[ $? = 1 ] || fail "bad model accepted"
grep -q "bad.bin: not a migsched model file" "$dir/err" || fail "bad model message"

# SIGINT: the run stops after its current steps, writes a loadable model, exits 130.
"$bin" hier train "${small[@]}" --steps 100000000 --eval-every 200 --seed 4 --out "$dir/c.bin" 2>/dev/null &
pid=$!
for _ in $(seq 1 100); do sleep 0.2; [ -e "$dir/c.bin" ] && break; done
sleep 1
kill -INT $pid
wait $pid
[ $? = 130 ] || fail "SIGINT exit status"
set -e
"$bin" hier --window "$dir/win.csv" --policy rl --model "$dir/c.bin" --cmax 3 > /dev/null \
    || fail "checkpoint after SIGINT does not load"

# Usage errors exit 2 and write nothing.
set +e
"$bin" hier train --steps 10 2>/dev/null; [ $? = 2 ] || fail "missing --out"
"$bin" hier train --out "$dir/x.bin" --cmax 5 2>/dev/null; [ $? = 2 ] || fail "--cmax 5"
"$bin" hier train --out "$dir/x.bin" --steps 0 2>/dev/null; [ $? = 2 ] || fail "--steps 0"
"$bin" hier train --out "$dir/x.bin" --hidden 16,x 2>/dev/null; [ $? = 2 ] || fail "--hidden"
for bad in "--expert-pretrain 10" "--expert-pretrain -1 --ri-weight 0" \
           "--expert-pretrain x --ri-weight 0"; do
    "$bin" hier train --out "$dir/x.bin" $bad 2>"$dir/err"; [ $? = 2 ] || fail "$bad accepted"
    grep -q -- '--expert-pretrain\|bad value' "$dir/err" || fail "$bad: message"
done
grep -q -- '--expert-pretrain needs --ri-weight 0' <("$bin" hier train --out "$dir/x.bin" \
    --expert-pretrain 10 2>&1) || fail "--expert-pretrain without --ri-weight 0: message"
"$bin" hier train --out "$dir/x.bin" --window 17 --ri-weight 0 --expert-pretrain 5 --steps 0 \
    2>"$dir/err"; [ $? = 1 ] || fail "--expert-pretrain at W 17 accepted"
grep -q -- '--expert-pretrain: window 17' "$dir/err" || fail "W 17 message"
set -e
[ ! -e "$dir/x.bin" ] || fail "output written on a usage error"
"$bin" hier train --help | grep -q 'usage: migsched hier train' || fail "help"
echo "hier_train: ok"
