#!/usr/bin/env bash
# conventions.sh: one set of CLI conventions for every command:
# a lost stdout (> /dev/full) fails every command that prints; --json output parses;
# exit 1 for bad input (any unknown name) and 2 for bad usage; a plan is refused for a
# workload whose rows were swapped or renamed; a failing plot leaves no other output file;
# --version. $1 = migsched, $2 = source dir.
set -u
M=$1
S=$2
W=$S/data/rodinia_a30_8tasks.csv
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"

# Inputs: a plan for the sample, a small A100 workload for the learned policy.
"$M" schedule "$W" --gpu A30-24GB --json -o plan.json || fail "schedule the sample"
"$M" generate --gpu A100-40GB --preset GOODSCALING --n 14 --seed 3 -o a100.csv || fail "generate"
MODEL=$S/models/a100-goodscaling.bin
printf 'arrival,profile,work\n0,1g.5gb,10\n1,3g.20gb,20\n2,7g.40gb,5\n' > trace.csv
"$M" cosched generate --setting uniform --n 6 --seed 1 -o co.json || fail "cosched generate"

# A module uses another only through include/migsched/: no #include "../" in src/.
(cd "$S" && grep -rn '^#include "\.\./' src) | while IFS=: read -r file line text; do
    inc=${text#*\"}
    inc=${inc%\"*}
    echo "$file:$line: includes $inc across modules (use a header in include/migsched/)"
done > up.txt
[ ! -s up.txt ] || fail "$(cat up.txt)"

# --version: the CMake project version.
want=$(sed -n 's/^project(migsched VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
[ -n "$want" ] || fail "no project version in CMakeLists.txt"
[ "$("$M" --version)" = "migsched $want" ] || fail "--version: $("$M" --version)"

# Item 7: every command that prints exits non-zero when stdout cannot be written.
full() {
    "$M" "$@" > /dev/null 2> err.txt || fail "fails with a good stdout: migsched $* ($(cat err.txt))"
    "$M" "$@" > /dev/full 2> err.txt
    local rc=$?
    [ $rc -ne 0 ] || fail "exit 0 with stdout on /dev/full: migsched $*"
    [ -s err.txt ] || fail "no message for /dev/full: migsched $*"
}
full --help
full --version
full gpus
full gpus --json
full gpus --help
full partitions --gpu A100-40GB
full partitions --gpu A100-40GB --json
full bounds "$W" --gpu A30-24GB
full bounds "$W" --gpu A30-24GB --json
full bounds --help
full validate plan.json --workload "$W"
full validate plan.json --workload "$W" --json
full compare "$W" --gpu A30-24GB --no-time
full compare "$W" --gpu A30-24GB --no-time --json
full compare "$W" --gpu A30-24GB --no-time --csv -
full compare --help
full schedule "$W" --gpu A30-24GB
full generate --gpu A30 --preset GOODSCALING --n 5 --seed 1
full layout plan.json
full layout plan.json --json
full run plan.json --workload "$W" --backend sim --quiet
full run plan.json --workload "$W" --backend sim --quiet --json
full run plan.json --workload "$W" --dry-run
full run --help
full online simulate --gpu A100-40GB --gpus 2 --trace trace.csv
full online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --json
full online ablation --gpus 2 --jobs 5 --seeds 1
full online ablation --gpus 2 --jobs 5 --seeds 1 --json
full rl-eval --model "$MODEL" --sets 1 --tasks 14 --compare far
full rl-eval --model "$MODEL" --sets 1 --tasks 14 --json
full cosched co.json --algo maxpair
full cosched co.json --algo maxpair --json
full train --help
# More than a stdio buffer: the error comes from a write that failed before the last flush.
full partitions --gpu A100-40GB --canonical --keep-useless --json
full compare "$W" --gpu A30-24GB --no-time --algos far,miso,fixpartbest,nomig,fixpart:1,fixpart:2,fixpart:3,fixpart:4,fixpart:5,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig,far,miso,fixpartbest,nomig

# ... and when stdout is lost, compare and online simulate write none of their files.
"$M" compare "$W" --gpu A30-24GB --no-time --csv lost.csv --plot-dir lostplots > /dev/full 2> /dev/null
[ ! -e lost.csv ] && [ -z "$(ls lostplots 2>/dev/null)" ] || fail "compare wrote files after losing stdout"
"$M" online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --csv lost.csv > /dev/full 2> /dev/null
[ ! -e lost.csv ] || fail "online simulate wrote its CSV after losing stdout"

# --json output parses, with the fields a script needs.
# (in a pipeline json() runs in a subshell: its status, not an exit, reports the failure)
json() { python3 -c "import json,sys; d=json.load(sys.stdin); assert $1, d"; }
"$M" gpus --json | json 'len(d) == 6 and d[0]["name"] == "A30-24GB"' || fail "json: gpus"
"$M" gpus --json | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)[1], open("m.json", "w"))'
"$M" partitions --gpu m.json | grep -q "^A100-40GB: 19 partitions" || fail "gpus --json entry is not a model file"
"$M" bounds "$W" --gpu A30-24GB --json | json 'd["tasks"] == 8 and d["l_bound"] >= d["baseline"] > 0' || fail "json: bounds"
"$M" validate plan.json --workload "$W" --json | json 'd["valid"] and d["metrics"]["makespan"] > 0' || fail "json: validate"
"$M" compare "$W" --gpu A30-24GB --no-time --json | \
    json '[a["algorithm"] for a in d["algorithms"]] == ["far", "search", "miso", "fixpartbest", "nomig"] and d["algorithms"][0]["sigma"] == 1' || fail "json: compare"
"$M" compare "$W" --gpu A30-24GB --no-time --algos fixpart:1-1-1-1 --json 2> /dev/null | \
    json 'not d["algorithms"][0]["feasible"] and "lavaMD" in d["algorithms"][0]["reason"]' || fail "json: compare infeasible"
"$M" run plan.json --workload "$W" --backend sim --quiet --json | json 'd["ok"] and len(d["tasks"]) == 8' || fail "json: run"
"$M" layout plan.json --json | json 'd["format"] and d["gpus"]' || fail "json: layout"
"$M" online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --json | \
    json 'd["jobs"] == 3 and d["policy"] == "frag" and d["makespan"] > 0' || fail "json: online simulate"
"$M" online ablation --gpus 2 --jobs 5 --seeds 1 --json | \
    json 'len(d["rows"]) == 7 and d["rows"][0]["cells"][0]["normalised"] == 1' || fail "json: online ablation"
"$M" rl-eval --model "$MODEL" --sets 1 --tasks 14 --compare far --json | \
    json 'set(d["p_opt"]) == {"rl", "far"} and d["sets"] == 1' || fail "json: rl-eval"
# The same input gives the same bytes.
"$M" compare "$W" --gpu A30-24GB --no-time --json > c1.json
"$M" compare "$W" --gpu A30-24GB --no-time --json > c2.json
cmp -s c1.json c2.json || fail "compare --json not deterministic"

# compare --algos rl --model FILE works (and each needs the other).
"$M" compare a100.csv --gpu A100-40GB --algos far,rl --model "$MODEL" --no-time > rl.txt 2> err.txt \
    || fail "compare with rl: $(cat err.txt)"
grep -q '^rl ' rl.txt || fail "no rl row: $(cat rl.txt)"
"$M" compare a100.csv --gpu A100-40GB --algos far,rl 2> /dev/null; [ $? = 2 ] || fail "rl without --model"

# Exit codes: 1 for an unknown name (algorithm, partition, GPU, policy) or a bad file,
# 2 for a malformed command line.
code() { local want=$1; shift; "$M" "$@" > /dev/null 2> err.txt; local rc=$?
         [ $rc = "$want" ] || fail "exit $rc, want $want: migsched $* ($(cat err.txt))"; }
code 1 schedule "$W" --gpu A30-24GB --algo nope
code 1 schedule "$W" --gpu A30-24GB --algo fixpart:9
code 1 compare "$W" --gpu A30-24GB --algos nope
code 1 compare "$W" --gpu A30-24GB --algos fixpart:9
code 1 rl-eval --model "$MODEL" --compare nope
code 1 cosched co.json --algo nope
code 1 online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --policy nope
code 1 bounds "$W" --gpu NOPE
code 1 bounds missing.csv --gpu A30-24GB
code 2 schedule "$W" --gpu A30-24GB --no-such-option
code 2 schedule "$W"
code 2 compare "$W" --gpu A30-24GB --gpus x
code 2 gpus extra
code 2 validate plan.json
code 2 rl-eval --sets 5
code 2 nosuchcommand
code 2 validate plan.json --workload "$W" --json --gantt
code 2 run plan.json --workload "$W" --dry-run --json
# train names the option it rejects, and the one missing.
code 2 train --preset GOODSCALING --steps 10 --out m.bin --lr 7
grep -q -- "--lr: bad value '7'" err.txt || fail "train bad value: $(cat err.txt)"
code 2 train --preset GOODSCALING --out m.bin
grep -q -- "--steps is required" err.txt || fail "train missing option: $(cat err.txt)"
code 1 train --preset GOODSCALING --steps 10 --out nodir/m.bin
grep -q "nodir/m.bin" err.txt || fail "train --out: $(cat err.txt)"

# Item 5: a plan is refused for a workload with two rows swapped or a task renamed.
{ head -1 "$W"; sed -n 3p "$W"; sed -n 2p "$W"; tail -n +4 "$W"; } > swapped.csv
sed 's/^lu,/lu2,/' "$W" > renamed.csv
for wl in swapped renamed; do
    case $wl in
    swapped) msg="the plan's task 0 is 'particlefilter' but the workload's is 'nw'" ;;
    renamed) msg="the plan's task 2 is 'lu' but the workload's is 'lu2'" ;;
    esac
    code 1 validate plan.json --workload $wl.csv
    grep -q "^migsched validate: plan.json: tasks\[[0-9]*\]: $msg" err.txt || fail "validate $wl: $(cat err.txt)"
    code 1 run plan.json --workload $wl.csv --backend sim --quiet --report $wl.report
    grep -q "^migsched run: plan.json: tasks\[[0-9]*\]: $msg" err.txt || fail "run $wl: $(cat err.txt)"
    [ ! -e $wl.report ] || fail "run $wl wrote a report"
done

# A failing --plot/--svg/--plot-dir leaves no other output file behind.
"$M" online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --csv a.csv \
    --plot nodir/p.svg > out.txt 2> err.txt
[ $? = 1 ] && grep -q "nodir/p.svg" err.txt || fail "online --plot: $(cat err.txt)"
[ ! -e a.csv ] && [ ! -s out.txt ] || fail "online simulate left a.csv or printed a summary"
"$M" online simulate --gpu A100-40GB --gpus 2 --trace trace.csv --csv . > /dev/null 2> err.txt
[ $? = 1 ] && grep -q "is a directory" err.txt || fail "online --csv DIR: $(cat err.txt)"
"$M" cosched experiment --setting uniform --n 4 --instances 1 --direct-max-n 0 -o b.csv \
    --svg nodir/fig 2> err.txt
[ $? = 1 ] && [ ! -e b.csv ] || fail "cosched experiment --svg left b.csv: $(cat err.txt)"
touch notadir
"$M" compare "$W" --gpu A30-24GB --no-time --csv c.csv --plot-dir notadir > /dev/null 2> err.txt
[ $? = 1 ] && [ ! -e c.csv ] || fail "compare --plot-dir left c.csv: $(cat err.txt)"
ls | grep -q '\.tmp' && fail "temporary files left: $(ls)"
echo "conventions: ok"
