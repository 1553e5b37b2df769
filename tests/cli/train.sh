#!/usr/bin/env bash
# migsched train: a tiny run writes a model, resumes from it, is reproducible, and rejects
# bad options and bad checkpoints.
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Model files compared, or rewritten, without the header's cpu_seconds: a measured time,
# the one field a seed does not fix.
model_py='import json, struct, sys
def load(p):
    b = open(p, "rb").read(); n = struct.unpack("<I", b[12:16])[0]
    h = json.loads(b[16:16 + n]); cpu = h.pop("cpu_seconds", None)
    return b[:12], h, b[16 + n:], cpu
if sys.argv[1] == "same":
    a, b = load(sys.argv[2]), load(sys.argv[3])
    sys.exit(0 if a[:3] == b[:3] else 1)
if sys.argv[1] == "cpu":
    print(load(sys.argv[2])[3]); sys.exit(0)
m, h, body, _ = load(sys.argv[2])  # "strip": as written before the field existed
t = json.dumps(h, sort_keys=True, separators=(",", ":")).encode()
open(sys.argv[2], "wb").write(m + struct.pack("<I", len(t)) + t + body)'
same_model() { python3 -c "$model_py" same "$1" "$2"; }
small=(--gpu A30-24GB --preset WIDETIMES --n-batch 4 --levels 7 --hidden 16,16 --envs 4
       --rollout 32 --minibatch 64 --epochs 2 --eval-sets 3 --eval-tasks 8)
"$bin" train "${small[@]}" --steps 256 --out "$dir/a.bin" --seed 5 2>"$dir/log0"
grep -q 'steps 256/256' "$dir/log0"
grep -q 'p_opt' "$dir/log0"
head -c 8 "$dir/a.bin" | grep -q MSRLMODL
# Same seed, same bytes.
"$bin" train "${small[@]}" --steps 256 --out "$dir/b.bin" --seed 5 2>/dev/null
same_model "$dir/a.bin" "$dir/b.bin" || { echo "FAIL: same seed, different model"; exit 1; }
# Resume continues the step count and the CPU count (the process's, kept in the checkpoint).
grep -Eq '^steps 256/256  [0-9]+ steps/s  cpu [0-9]+\.[0-9] s  mean return' "$dir/log0" \
    || { echo "FAIL: no cpu field"; exit 1; }
cpu0=$(python3 -c "$model_py" cpu "$dir/a.bin")
cp "$dir/a.bin" "$dir/old.bin"
"$bin" train "${small[@]}" --steps 512 --out "$dir/a.bin" --seed 5 --resume 2>"$dir/log"
grep -q "resuming $dir/a.bin at 256 steps, cpu " "$dir/log" || { echo "FAIL: resume line"; exit 1; }
grep -q 'steps 512/512' "$dir/log"
# Resumed at or past --steps: nothing to train, said so, the file left as it is.
cp "$dir/a.bin" "$dir/done.bin"
"$bin" train "${small[@]}" --steps 300 --out "$dir/done.bin" --resume 2>"$dir/log2"
grep -q "done.bin is at 512 steps, --steps 300: nothing to train; the file is left" "$dir/log2" \
    || { echo "FAIL: nothing-to-train note"; exit 1; }
cmp -s "$dir/a.bin" "$dir/done.bin" || { echo "FAIL: nothing to train, file changed"; exit 1; }
python3 - "$cpu0" "$(python3 -c "$model_py" cpu "$dir/a.bin")" "$dir/log" <<'PY'
import re, sys
before, after = float(sys.argv[1]), float(sys.argv[2])
cpus = [float(c) for c in re.findall(r"  cpu ([0-9.]+) s", open(sys.argv[3]).read())]
assert before > 0 and cpus and all(c >= round(before, 1) for c in cpus), (before, cpus)
assert after >= before and abs(after - cpus[-1]) < 0.051, (before, after, cpus)
PY
# A checkpoint from before the field resumes with a note, counting CPU from 0.
python3 -c "$model_py" strip "$dir/old.bin"
"$bin" train "${small[@]}" --steps 384 --out "$dir/old.bin" --seed 5 --resume 2>"$dir/log"
grep -q "at 256 steps (the checkpoint has no CPU time: counting from 0)" "$dir/log" \
    || { echo "FAIL: old checkpoint note"; exit 1; }
grep -q 'steps 384/384' "$dir/log"
# The logs draw as learning curves against CPU (plot --curves reads train's own lines).
cat "$dir/log0" "$dir/log" > "$dir/both.log"
"$bin" plot --curves "$dir/both.log" --x cpu -o "$dir/c.svg"
grep -c '<polyline class="curve"' "$dir/c.svg" | grep -qx 1 || { echo "FAIL: curve"; exit 1; }
# The trained policy schedules through `migsched schedule --algo rl` (validated there),
# offline and online, and refuses a GPU it was not trained for.
sample="$2/data/rodinia_a30_8tasks.csv"
"$bin" schedule "$sample" --gpu A30-24GB --algo rl --model "$dir/a.bin" --json > "$dir/s.json"
"$bin" validate "$dir/s.json" --workload "$sample" --gpu A30-24GB | grep -q "^valid"
"$bin" schedule "$sample" --gpu A30-24GB --algo rl --model "$dir/a.bin" --online | grep -q 'rl-online'
set +e
"$bin" schedule "$sample" --gpu A100-40GB --algo rl --model "$dir/a.bin" 2>"$dir/err"; [ $? = 1 ] || { echo "FAIL: wrong GPU"; exit 1; }
grep -q 'does not fit A100-40GB' "$dir/err"
"$bin" schedule "$sample" --gpu A30-24GB --algo rl 2>/dev/null; [ $? = 2 ] || { echo "FAIL: rl without model"; exit 1; }
set -e
# The authors' PPO settings and episodes: separate networks in the header; resuming keeps
# them (a larger file than the shared trunk's); same seed, same bytes.
"$bin" train "${small[@]}" --steps 256 --out "$dir/p.bin" --paper-ppo --minibatch 32 \
    --paper-episodes 2>"$dir/log"
grep -q 'coef 0.0000' "$dir/log"
head -c 400 "$dir/p.bin" | grep -aq '"separate":true'
"$bin" train "${small[@]}" --steps 256 --out "$dir/q.bin" --paper-ppo --minibatch 32 \
    --paper-episodes 2>/dev/null
same_model "$dir/p.bin" "$dir/q.bin" || { echo "FAIL: paper settings not reproducible"; exit 1; }
[ "$(stat -c %s "$dir/p.bin")" -gt "$(stat -c %s "$dir/b.bin")" ] || { echo "FAIL: separate size"; exit 1; }
cp "$dir/p.bin" "$dir/p2.bin"
"$bin" train "${small[@]}" --steps 384 --out "$dir/p.bin" --resume --paper-episodes \
    --epochs 10 --minibatch 32 --ent-coef 0.01,0.00075,0.0005,0 2>"$dir/log"
grep -q 'steps 384/384' "$dir/log"
# The checkpoint holds its training settings: resuming without the options is the same run.
"$bin" train "${small[@]}" --steps 384 --out "$dir/p2.bin" --resume 2>/dev/null
same_model "$dir/p.bin" "$dir/p2.bin" || { echo "FAIL: resume lost the training settings"; exit 1; }
"$bin" schedule "$sample" --gpu A30-24GB --algo rl --model "$dir/p.bin" --json > "$dir/s.json"
"$bin" validate "$dir/s.json" --workload "$sample" --gpu A30-24GB | grep -q "^valid"
# --lr-decay: each update's rate falls from --lr to --lr-min over --steps (printed on the
# progress lines, kept in the header so a resume continues it); --lr-decay none is the
# constant rate, the same bytes as without the option.
"$bin" train "${small[@]}" --steps 512 --eval-every 128 --lr 1e-3 --lr-decay linear \
    --lr-min 1e-4 --out "$dir/d.bin" 2>"$dir/log"
for r in 7.75e-04 5.50e-04 3.25e-04 1.00e-04; do
  grep -q "lr $r" "$dir/log" || { echo "FAIL: linear decay, no lr $r"; exit 1; }
done
head -c 1000 "$dir/d.bin" | grep -aq '"lr_decay":"linear"' || { echo "FAIL: lr_decay header"; exit 1; }
"$bin" train "${small[@]}" --steps 512 --lr 1e-3 --out "$dir/c.bin" 2>"$dir/log"
grep -q "lr 1.00e-03" "$dir/log"
"$bin" train "${small[@]}" --steps 512 --lr 1e-3 --lr-decay none --out "$dir/c2.bin" 2>/dev/null
same_model "$dir/c.bin" "$dir/c2.bin" || { echo "FAIL: --lr-decay none"; exit 1; }
"$bin" train "${small[@]}" --steps 512 --lr 1e-3 --lr-decay cosine --out "$dir/e.bin" 2>/dev/null
! same_model "$dir/c.bin" "$dir/e.bin" || { echo "FAIL: cosine decay changed nothing"; exit 1; }
cp "$dir/d.bin" "$dir/d2.bin"
"$bin" train "${small[@]}" --steps 768 --out "$dir/d.bin" --resume 2>"$dir/log"
grep -q "lr 1.00e-04" "$dir/log" || { echo "FAIL: resume lost the decay"; exit 1; }
# --fine-tune: the settings given to a resume replace the checkpoint's, said on one line.
"$bin" train "${small[@]}" --steps 768 --out "$dir/d2.bin" --resume --fine-tune --lr 2e-4 \
    --lr-decay none 2>"$dir/log"
grep -q "fine-tune: this run's --envs, --rollout, --epochs, --minibatch, --lr, --lr-decay replace the checkpoint's" "$dir/log" \
    || { echo "FAIL: fine-tune line"; exit 1; }
grep -q "lr 2.00e-04" "$dir/log" || { echo "FAIL: fine-tune rate"; exit 1; }
! head -c 1000 "$dir/d2.bin" | grep -aq lr_decay || { echo "FAIL: fine-tune header"; exit 1; }
# A training option recorded in the header: the same seed gives the same bytes and not
# those of b.bin, the header has the option (b.bin's has no KEY), a plain resume keeps it
# and a fine-tune adds it to a checkpoint that had none.
#   header_option NAME "OPTIONS" KEY HEADER "FINE-TUNE OPTIONS" FINE-TUNE-LINE FINE-TUNE-HEADER
header_option() {
  local name=$1 key=$3 hd=$4 fline=$6 fhd=$7 f="$dir/$1.bin"
  local -a opts=($2) fopts=($5)
  fail() { echo "FAIL: $name: $1"; exit 1; }
  "$bin" train "${small[@]}" "${opts[@]}" --steps 256 --seed 5 --out "$f" 2>"$dir/$name.log"
  "$bin" train "${small[@]}" "${opts[@]}" --steps 256 --seed 5 --out "$f.2" 2>/dev/null
  same_model "$f" "$f.2" || fail "not reproducible"
  ! same_model "$f" "$dir/b.bin" || fail "changed nothing"
  head -c 1000 "$f" | grep -aq "$hd" || fail "header"
  ! head -c 1000 "$dir/b.bin" | grep -aq "$key" || fail "header without it"
  "$bin" train "${small[@]}" --steps 384 --out "$f" --resume 2>/dev/null
  head -c 1000 "$f" | grep -aq "$hd" || fail "resume lost it"
  cp "$dir/b.bin" "$f.ft"
  "$bin" train "${small[@]}" --steps 384 --out "$f.ft" --resume --fine-tune "${fopts[@]}" \
      2>"$dir/log"
  grep -q "$fline" "$dir/log" || fail "fine-tune line"
  head -c 1000 "$f.ft" | grep -aq "$fhd" || fail "fine-tune header"
}
# --sorted-share (the dataset: --sorted-tasks, 100 by default).
header_option sorted "--sorted-share 0.5 --sorted-tasks 10" sorted_ \
    '"sorted_share":0.5,"sorted_tasks":10' "--sorted-share 0.25" \
    "fine-tune: this run's --envs, .*, --sorted-share replace the checkpoint's" \
    '"sorted_share":0.25,"sorted_tasks":100'
# --imitate-share (width 0 in the header: all), whose cross-entropy the log shows.
header_option imit "--imitate-share 0.5 --imitate-width 2 --imitate-coef 0.5" imitate_ \
    '"imitate_coef":0.5,"imitate_share":0.5,"imitate_width":2' \
    "--imitate-share 0.25 --imitate-width all" \
    "fine-tune: this run's --envs, .*, --imitate-share, --imitate-width replace" \
    '"imitate_coef":1.0,"imitate_share":0.25,"imitate_width":0'
grep -Eq 'kl [0-9.]+  imitate [0-9.]+  p_opt' "$dir/imit.log" || { echo "FAIL: imitate field"; exit 1; }
! grep -q imitate "$dir/log0" || { echo "FAIL: imitate field without imitation"; exit 1; }
# --demonstrate-share: FAR's demonstrations, counted on the progress line.
header_option demo "--demonstrate-share 0.5" demonstrate_ '"demonstrate_share":0.5' \
    "--demonstrate-share 0.25" \
    "fine-tune: this run's --envs, .*, --demonstrate-share replace" '"demonstrate_share":0.25'
grep -Eq '  demonstrated [0-9]+  p_opt' "$dir/demo.log" || { echo "FAIL: demonstrated field"; exit 1; }
! grep -q demonstrated "$dir/log0" || { echo "FAIL: demonstrated field without them"; exit 1; }
# --demonstrator search: the search scheduler's plans instead of FAR's.
header_option search "--demonstrate-share 0.5 --demonstrator search" demonstrator \
    '"demonstrate_share":0.5,"demonstrator":"search"' \
    "--demonstrate-share 0.25 --demonstrator search" \
    "fine-tune: this run's --envs, .*, --demonstrate-share, --demonstrator replace" \
    '"demonstrate_share":0.25,"demonstrator":"search"'
! same_model "$dir/search.bin" "$dir/demo.bin" || { echo "FAIL: search demonstrated as FAR"; exit 1; }
set +e
"$bin" train "${small[@]}" --steps 64 --online --demonstrate-share 0.5 --out "$dir/x.bin" 2>"$dir/err"
[ $? = 2 ] && grep -q -- "--demonstrate-share: demonstrations are for offline policies" \
    "$dir/err" || { echo "FAIL: --demonstrate-share --online"; exit 1; }
for opt in "--imitate-share 1.5" "--imitate-share x" "--imitate-width 0" "--imitate-coef 0" \
           "--imitate-coef -1" "--demonstrate-share 2" "--demonstrate-share -0.1" "--demonstrator miso"; do
  "$bin" train "${small[@]}" --steps 64 $opt --out "$dir/x.bin" 2>"$dir/err"
  [ $? = 2 ] && grep -q -- "${opt% *}: bad value" "$dir/err" || { echo "FAIL: $opt"; exit 1; }
done
set -e
# --async-reconfig: recorded in the header, kept by a resume; adding it to a checkpoint
# trained without it takes --fine-tune.
"$bin" train "${small[@]}" --steps 256 --seed 5 --async-reconfig --out "$dir/as.bin" 2>/dev/null
head -c 1000 "$dir/as.bin" | grep -aq '"async_reconfig":true' || { echo "FAIL: async header"; exit 1; }
! same_model "$dir/as.bin" "$dir/b.bin" || { echo "FAIL: async changed nothing"; exit 1; }
"$bin" train "${small[@]}" --steps 384 --out "$dir/as.bin" --resume 2>/dev/null
head -c 1000 "$dir/as.bin" | grep -aq '"async_reconfig":true' || { echo "FAIL: resume lost async"; exit 1; }
# A setting a fine-tune may add to a checkpoint trained without it ($1, as the messages
# name it): refused without --fine-tune, then taken, said ($2) and recorded ($3).
added_by_fine_tune() {
  local name=$1 said=$2 header=$3; shift 3
  cp "$dir/b.bin" "$dir/add.bin"
  if "$bin" train "${small[@]}" --steps 384 --out "$dir/add.bin" --resume "$@" 2>"$dir/err"; then
    echo "FAIL: $name added without --fine-tune"; exit 1
  fi
  grep -q "trained without $name: adding it needs --fine-tune" "$dir/err" \
      || { echo "FAIL: $name resume message"; exit 1; }
  "$bin" train "${small[@]}" --steps 384 --out "$dir/add.bin" --resume --fine-tune "$@" \
      2>"$dir/log"
  grep -q "$said" "$dir/log" && head -c 1000 "$dir/add.bin" | grep -aq "$header" \
      || { echo "FAIL: $name fine-tune"; exit 1; }
}
added_by_fine_tune --async-reconfig "reconfigurations no longer stop the clock" \
    '"async_reconfig":true' --async-reconfig
# --longest-first: likewise, and it changes the episodes.
added_by_fine_tune --longest-first "a class's longest task runs first" '"longest_first":true' \
    --longest-first
"$bin" train "${small[@]}" --steps 256 --seed 5 --longest-first --out "$dir/lf.bin" 2>/dev/null
! same_model "$dir/lf.bin" "$dir/b.bin" || { echo "FAIL: longest-first changed nothing"; exit 1; }
# --encoding exact: likewise, from a float checkpoint.
added_by_fine_tune "exact times" "the state shows exact times" '"encoding":"exact"' \
    --encoding exact
"$bin" rl-eval --model "$dir/add.bin" --sets 2 --tasks 8 >/dev/null || { echo "FAIL: exact eval"; exit 1; }
# --levels on a resume: only a fine-tune of a policy with exact times may change them (the
# state does not depend on them there); the header records the new count.
cp "$dir/add.bin" "$dir/lev.bin"
set +e
"$bin" train "${small[@]}" --steps 768 --out "$dir/lev.bin" --resume --levels 250 2>"$dir/err"
[ $? = 1 ] && grep -q "lev.bin has 7 levels: --levels 250 needs --fine-tune and exact times" \
    "$dir/err" || { echo "FAIL: --levels without --fine-tune"; exit 1; }
"$bin" train "${small[@]}" --steps 768 --out "$dir/b.bin" --resume --fine-tune --levels 250 \
    2>"$dir/err"
[ $? = 1 ] && grep -q "needs --fine-tune and exact times" "$dir/err" \
    || { echo "FAIL: --levels on float times"; exit 1; }
set -e
"$bin" train "${small[@]}" --steps 768 --out "$dir/lev.bin" --resume --fine-tune --levels 250 \
    2>"$dir/log"
grep -q "tasks form classes at 250 levels (was 7)" "$dir/log" \
    && head -c 1000 "$dir/lev.bin" | grep -aq '"levels":250' || { echo "FAIL: --levels fine-tune"; exit 1; }
# --soonest-placement: likewise, and it changes the episodes.
added_by_fine_tune --soonest-placement "take the placement that frees soonest" \
    '"soonest_placement":true' --soonest-placement
"$bin" train "${small[@]}" --steps 256 --seed 5 --soonest-placement --out "$dir/sp.bin" 2>/dev/null
! same_model "$dir/sp.bin" "$dir/b.bin" || { echo "FAIL: soonest-placement changed nothing"; exit 1; }
set +e
for bad in 1.5 -0.1 x ""; do
  "$bin" train "${small[@]}" --steps 64 --sorted-share "$bad" --out "$dir/x.bin" 2>"$dir/err"
  [ $? = 2 ] && grep -q -- "--sorted-share: bad value" "$dir/err" \
      || { echo "FAIL: --sorted-share '$bad'"; exit 1; }
done
"$bin" train "${small[@]}" --steps 64 --sorted-tasks 0 --out "$dir/x.bin" 2>"$dir/err"
[ $? = 2 ] && grep -q -- "--sorted-tasks: bad value" "$dir/err" || { echo "FAIL: --sorted-tasks 0"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --online --sorted-share 0.5 --out "$dir/x.bin" 2>"$dir/err"
[ $? = 2 ] && grep -q -- "--sorted-share: sorted batches are for offline policies" "$dir/err" \
    || { echo "FAIL: --sorted-share --online"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --fine-tune --out "$dir/x.bin" 2>"$dir/err"
[ $? = 2 ] && grep -q "resume (for --fine-tune) is required" "$dir/err" || { echo "FAIL: --fine-tune alone"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --lr-decay step --out "$dir/x.bin" 2>"$dir/err"
[ $? = 2 ] && grep -q "lr-decay" "$dir/err" || { echo "FAIL: --lr-decay step"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --lr 1e-4 --lr-min 1e-3 --out "$dir/x.bin" 2>"$dir/err"
[ $? = 1 ] && grep -q "lr-min 0.001 is above --lr 0.0001" "$dir/err" \
    || { echo "FAIL: --lr-min above --lr"; exit 1; }
for bad in 0.01,0.1 0.01,0.1,0.2,x 0.01,0.1,0.2,1.5 -1,0,0,0; do
  "$bin" train "${small[@]}" --steps 64 --ent-coef $bad --out "$dir/x.bin" 2>"$dir/err"
  [ $? = 2 ] || { echo "FAIL: --ent-coef $bad"; exit 1; }
  grep -q "ent-coef" "$dir/err" || { echo "FAIL: --ent-coef message"; exit 1; }
done
set -e
# Slim files hold no optimiser state and are smaller.
"$bin" train "${small[@]}" --steps 128 --out "$dir/s.bin" --slim 2>/dev/null
[ "$(stat -c %s "$dir/s.bin")" -lt "$(stat -c %s "$dir/b.bin")" ] || { echo "FAIL: slim"; exit 1; }
# and no measured CPU time: the same bytes for the same seed.
"$bin" train "${small[@]}" --steps 128 --out "$dir/s2.bin" --slim 2>/dev/null
cmp -s "$dir/s.bin" "$dir/s2.bin" || { echo "FAIL: slim files differ"; exit 1; }
# Usage errors exit 2; a bad checkpoint is named and exits 1.
set +e
"$bin" train --preset WIDETIMES --out "$dir/x.bin" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: missing --steps"; exit 1; }
"$bin" train "${small[@]}" --steps 0 --out "$dir/x.bin" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: --steps 0"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --encoding bits --out "$dir/x.bin" 2>/dev/null; [ $? = 2 ] || { echo "FAIL: encoding"; exit 1; }
"$bin" train --preset NOPE --steps 64 --out "$dir/x.bin" 2>"$dir/err"; [ $? = 1 ] || { echo "FAIL: preset"; exit 1; }
grep -q "unknown preset 'NOPE'" "$dir/err"
echo garbage > "$dir/bad.bin"
"$bin" train "${small[@]}" --steps 64 --out "$dir/bad.bin" --resume 2>"$dir/err"; [ $? = 1 ] || { echo "FAIL: bad checkpoint"; exit 1; }
set -e
grep -q "bad.bin: not a migsched model file" "$dir/err"
[ ! -e "$dir/x.bin" ] || { echo "FAIL: output written on error"; exit 1; }
"$bin" train --help > "$dir/help" && grep -q 'usage: migsched train' "$dir/help"
# rl-eval --order sorted: the same datasets with each one's tasks in class order, so the
# batches of N (and FAR's p_opt on them) differ from the shuffled order's.
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 12 --compare far --order sorted \
    >"$dir/sorted.txt"
grep -q 'seed 2026, tasks in class order, rollout over the 4 best actions within logit gap 1$' \
    "$dir/sorted.txt"
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 12 --compare far --json > "$dir/shuf.json"
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 12 --compare far --json --order sorted \
    > "$dir/sorted.json"
python3 - "$dir/shuf.json" "$dir/sorted.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["order"] == "shuffled" and b["order"] == "sorted", (a, b)
assert a["p_opt"]["far"] != b["p_opt"]["far"], (a, b)
PY
# rl-eval --rollout K --rollout-gap G: the policy improved by rollout (by default over 4
# actions within the policy's calibrated gap, 1 for this uncalibrated one), never above the greedy policy's p_opt (--rollout 1; per batch
# its plan is never longer), and the JSON says the rule (nothing for the greedy policy).
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 12 --json --rollout 1 > "$dir/greedy.json"
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 12 --json --rollout 2 --rollout-gap inf \
    > "$dir/ro.json"
python3 - "$dir/greedy.json" "$dir/ro.json" "$dir/shuf.json" <<'PY'
import json, sys
g, b, d = (json.load(open(p)) for p in sys.argv[1:])
assert "rollout" not in g and "rollout_gap" not in g, g
assert b["rollout"] == 2 and b["rollout_gap"] == "inf", b
assert d["rollout"] == 4 and d["rollout_gap"] == 1, d
assert b["p_opt"]["rl"] <= g["p_opt"]["rl"] + 1e-9, (g, b)
assert d["p_opt"]["rl"] <= g["p_opt"]["rl"] + 1e-9, (g, d)
PY
"$bin" rl-eval --model "$dir/a.bin" --sets 2 --tasks 12 --rollout all --rollout-gap inf \
    | grep -q 'rollout over every allowed action at every decision$'
"$bin" rl-eval --model "$dir/a.bin" --sets 2 --tasks 12 --rollout-gap 0 | grep -q ', greedy$'
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --rollout-gap -1 2>"$dir/err" && exit 1
grep -q -- "--rollout-gap: '-1' is not a number in 0..1000 or inf" "$dir/err" \
    || { echo "FAIL: rl-eval --rollout-gap -1"; exit 1; }
# rl-calibrate: the largest gap of its list whose passes per decision stay within --passes,
# written into the copy's header, which rl-eval then takes by default; bad usage is refused
# and writes nothing.
"$bin" rl-calibrate --model "$dir/a.bin" --passes 3 --sets 2 -o "$dir/cal.bin" > "$dir/cal.txt"
python3 - "$dir/cal.txt" <<'PY'
import re, sys
rows = re.findall(r"^gap ([0-9.]+): ([0-9.]+) passes per decision", open(sys.argv[1]).read(), re.M)
chosen = float(re.search(r"^rollout_gap ([0-9.]+) written", open(sys.argv[1]).read(), re.M)[1])
assert rows and float(rows[0][0]) == 0 and float(rows[0][1]) == 1, rows
within = [float(g) for g, p in rows if float(p) <= 3]
assert chosen == max(within), (rows, chosen)
assert all(float(p) > 3 for g, p in rows if float(g) > chosen), rows
open(sys.argv[1] + ".gap", "w").write(str(chosen))
PY
"$bin" rl-eval --model "$dir/cal.bin" --sets 1 --tasks 12 --json > "$dir/cal.json"
python3 - "$dir/cal.json" "$dir/cal.txt.gap" <<'PY'
import json, sys
d, g = json.load(open(sys.argv[1])), float(open(sys.argv[2]).read())
assert (d.get("rollout_gap", 0) if g else 0) == g, (d, g)
PY
"$bin" rl-calibrate --model "$dir/a.bin" --passes 0.5 -o "$dir/nocal.bin" 2>"$dir/err" && exit 1
grep -q -- "--passes: '0.5' is not a number in 1..1000" "$dir/err" \
    || { echo "FAIL: rl-calibrate --passes 0.5"; exit 1; }
"$bin" rl-calibrate --model "$dir/a.bin" --passes 2 2>"$dir/err" && exit 1
grep -q -- "-o are required" "$dir/err" || { echo "FAIL: rl-calibrate without -o"; exit 1; }
[ ! -e "$dir/nocal.bin" ] || { echo "FAIL: rl-calibrate wrote on bad usage"; exit 1; }
# rl-eval --by-batch: one mean per batch position (N = 4: tasks 1-4, 5-8, 9-10); every
# dataset has each position once, so their mean is the overall p_opt.
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --tasks 10 --compare far --order sorted --json \
    --by-batch > "$dir/bb.json"
python3 - "$dir/bb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pos = d["p_opt_by_batch"]
assert len(pos) == 3, d
for k in ("rl", "far"):
    assert abs(sum(p[k] for p in pos) / 3 - d["p_opt"][k]) < 1e-9, (k, d)
PY
"$bin" rl-eval --model "$dir/a.bin" --sets 2 --tasks 10 --by-batch | grep -q '^batch 3 (tasks 9-10): rl '
set +e
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --rollout x 2>"$dir/err"
[ $? = 2 ] && grep -q "rollout: 'x' is not 1..1000 or all" "$dir/err" \
    || { echo "FAIL: rl-eval --rollout x"; exit 1; }
"$bin" rl-eval --model "$dir/a.bin" --sets 5 --order random 2>"$dir/err"
[ $? = 2 ] && grep -q "order: 'random' is not shuffled or sorted" "$dir/err" \
    || { echo "FAIL: rl-eval --order random"; exit 1; }
"$bin" train "${small[@]}" --steps 64 --online --out "$dir/on.bin" 2>/dev/null
"$bin" rl-eval --model "$dir/on.bin" --sets 2 --by-batch 2>"$dir/err"
[ $? = 2 ] && grep -q "by-batch: an online policy plans each dataset as one queue" "$dir/err" \
    || { echo "FAIL: rl-eval --by-batch online"; exit 1; }
set -e
echo "train: ok"
