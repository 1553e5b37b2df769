#!/usr/bin/env bash
# generate.sh: `migsched generate` is byte-reproducible per seed, writes atomically, and
# rejects bad options with a message and a non-zero status. $1 = migsched, $2 = source dir.
set -u
M=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Same seed, same bytes (stdout and -o); another seed, other bytes.
"$M" generate --gpu A100-40GB --preset MIXEDSCALING,WIDETIMES --n 50 --seed 7 > "$T/a.csv" || fail "generate a"
"$M" generate --gpu A100-40GB --preset MIXEDSCALING,WIDETIMES --n 50 --seed 7 -o "$T/b.csv" || fail "generate b"
"$M" generate --gpu A100-40GB --preset MIXEDSCALING,WIDETIMES --n 50 --seed 8 -o "$T/c.csv" || fail "generate c"
cmp -s "$T/a.csv" "$T/b.csv" || fail "same seed gave different bytes"
cmp -s "$T/a.csv" "$T/c.csv" && fail "different seeds gave the same bytes"
[ "$(head -1 "$T/a.csv")" = "name,1,2,3,4,7" ] || fail "A100 header: $(head -1 "$T/a.csv")"
[ "$(wc -l < "$T/a.csv")" -eq 51 ] || fail "expected 50 tasks"
grep -q '^t0050,' "$T/a.csv" || fail "task names t0001..t0050"

"$M" generate --gpu A30 --preset POORSCALING --n 5 --seed 1 | head -1 | grep -qx 'name,1,2,4' || fail "A30 header"
"$M" generate --gpu A30 --preset GOODSCALING --n 5 --seed 1 --json > "$T/a.json" || fail "json"
"$M" generate --gpu A30 --preset GOODSCALING --n 5 --seed 1 --json > "$T/b.json" || fail "json 2"
cmp -s "$T/a.json" "$T/b.json" || fail "json not reproducible"
grep -q '"gpu": "A30-24GB"' "$T/a.json" || fail "json gpu"
grep -q '"name": "t0005"' "$T/a.json" || fail "json names"

# Overrides: counts on stderr follow footnote 8.
"$M" generate --gpu A100 --n 10 --p 1=0.5,7=0.5 --p-sup 0.2 -v -o "$T/o.csv" 2> "$T/err" || fail "overrides"
grep -q '1: 5 (0 super-linear start), 2: 0 .* 7: 5 (1 super-linear start)' "$T/err" || fail "counts: $(cat "$T/err")"
"$M" generate --gpu A100 --n 4 --tmin 5 --tmax 5 > "$T/t.csv" || fail "tmin=tmax"
[ "$(tail -n +2 "$T/t.csv" | cut -d, -f2 | sort -u)" = 5 ] || fail "t(1) should be 5"

# Errors: status, message, and an existing output left untouched with no temporary files.
echo keep > "$T/out.csv"
expect_fail() {  # status needle args...
    local want=$1 needle=$2; shift 2
    "$M" generate "$@" -o "$T/out.csv" > /dev/null 2> "$T/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "generate $*: status $got, want $want"
    grep -q -- "$needle" "$T/err" || fail "generate $*: message lacks '$needle': $(cat "$T/err")"
    [ "$(cat "$T/out.csv")" = keep ] || fail "generate $*: output was overwritten"
}
expect_fail 1 "unknown preset 'FAST'" --gpu A100 --n 5 --preset FAST
expect_fail 1 "must sum to 1" --gpu A100 --n 5 --p 1=0.5
expect_fail 1 "has no 3-slice" --gpu A30 --n 5 --p 1=0.5,3=0.5
expect_fail 1 "tmin <= tmax" --gpu A100 --n 5 --tmin 50 --tmax 10
expect_fail 1 "p_sup" --gpu A100 --n 5 --p-sup 2
expect_fail 1 "unknown GPU model 'NOPE'" --gpu NOPE --n 5
expect_fail 2 "not a task count" --gpu A100 --n 0
expect_fail 2 "not a task count" --gpu A100 --n 12x
expect_fail 2 "not a non-negative integer" --gpu A100 --n 5 --seed -3
expect_fail 2 "not a number" --gpu A100 --n 5 --tmin abc
expect_fail 2 "SIZE=SHARE" --gpu A100 --n 5 --p 9=1
expect_fail 2 "usage" --gpu A100
[ -z "$(ls "$T" | grep tmp)" ] || fail "temporary files left: $(ls "$T")"
"$M" generate --gpu A100 --n 5 -o "$T/missing/dir.csv" 2> "$T/err" && fail "unwritable output accepted"
grep -q "cannot write" "$T/err" || fail "unwritable output message: $(cat "$T/err")"
# -o onto a pipe writes through it instead of renaming a file over it.
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/from_fifo" &
"$M" generate --gpu A30 --n 3 -o "$T/fifo" || fail "-o fifo"
wait
[ -p "$T/fifo" ] || fail "the pipe was replaced by a file"
[ "$(wc -l < "$T/from_fifo")" -eq 4 ] || fail "nothing came through the pipe"
"$M" generate --help | grep -q "POORSCALING" || fail "--help lists presets"
echo ok
