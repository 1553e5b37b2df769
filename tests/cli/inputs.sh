#!/usr/bin/env bash
# inputs.sh: readers refuse what they cannot use at once and say why: a device that never
# ends (/dev/zero), a directory, an input over MIGSCHED_MAX_INPUT_BYTES, times over the
# 1e9 s ceiling, co-run speed-ups, empty traces and job lists, a strict GPU model file.
# $1 = migsched, $2 = source dir.
set -u
M=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect STATUS NEEDLE CMD...: the command exits STATUS and its stderr holds NEEDLE.
expect() {
    local want=$1 needle=$2
    shift 2
    "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    [ "$rc" = "$want" ] || fail "$*: exit $rc, want $want ($(cat "$T/err"))"
    grep -qF -- "$needle" "$T/err" || fail "$*: stderr lacks '$needle': $(cat "$T/err")"
}

# /dev/zero fails at its first NUL byte instead of eating memory (timeout as a guard).
expect 1 "/dev/zero:1: NUL byte at offset 0" timeout 20 "$M" bounds /dev/zero --gpu A30-24GB
expect 1 "$T: is a directory, not a file" "$M" bounds "$T" --gpu A30-24GB
expect 1 "$T: is a directory, not a file" "$M" partitions --gpu "$T"
printf 'name,1\na,1\n' > "$T/w.csv"
MIGSCHED_MAX_INPUT_BYTES=8 expect 1 "$T/w.csv: 11 bytes, over the input limit of 8 bytes" \
    "$M" bounds "$T/w.csv" --gpu A30-24GB
# A pipe has no size: reading stops at the limit.
expect 1 "over the input limit of 4096 bytes" \
    bash -c "yes a,1 | MIGSCHED_MAX_INPUT_BYTES=4096 '$M' bounds /dev/stdin --gpu A30-24GB"
"$M" bounds "$T/w.csv" --gpu A30-24GB > /dev/null || fail "a small workload is refused"

# Times over the ceiling.
printf 'name,1\na,1e300\n' > "$T/big.csv"
expect 1 "is over the ceiling of 1e9 s" "$M" bounds "$T/big.csv" --gpu A30-24GB
printf 'arrival,profile,work\n0,1g.5gb,1e300\n' > "$T/big_trace.csv"
expect 1 "big_trace.csv:2: work '1e300' is over the ceiling" \
    "$M" online simulate --gpu A100-40GB --gpus 1 --trace "$T/big_trace.csv"

# Co-run speeds: a speed-up or a vanishing speed is an input error, never an internal one.
printf 'name,p,a,b\na,2,1,0.5\nb,1,1.5,1\n' > "$T/fast.csv"
expect 1 "speed[1][0]: 1.5 is faster than alone" "$M" cosched "$T/fast.csv" --algo plp
printf 'name,p,a,b\na,2,1,1e-12\nb,1,1,1\n' > "$T/slow.csv"
expect 1 "speed[0][1]: 1e-12 is too small to progress" "$M" cosched "$T/slow.csv" --algo plp

# Empty inputs.
printf 'arrival,profile,work\n' > "$T/empty.csv"
expect 1 "empty.csv: no jobs" "$M" online simulate --gpu A100-40GB --gpus 1 --trace "$T/empty.csv"
expect 2 "--jobs must be a number in [1," \
    "$M" online simulate --gpu A100-40GB --gpus 1 --arrival-mean 10 --jobs 0
printf 'name,num_gpu,gpu_milli,creation_time,deletion_time\np,0,0,0,1\nq,2,1000,0,1\n' \
    > "$T/ali.csv"
expect 1 "ali.csv: no usable pods (2 skipped" \
    "$M" online simulate --gpu A100-40GB --gpus 1 --alibaba "$T/ali.csv"
printf 'name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,0,1\nq,1,2000,0,1\n' \
    > "$T/ali.csv"
expect 1 "ali.csv:3: gpu_milli 2000 is out of range" \
    "$M" online simulate --gpu A100-40GB --gpus 1 --alibaba "$T/ali.csv"

# GPU model files are strict.
cat > "$T/toy.json" <<'EOF'
{"name": "TOY-2", "slots": 2, "slices": 2, "color": "red",
 "profiles": [{"name": "2g.2gb", "slices": 2, "memory_gb": 2, "size_slots": 2, "starts": [0]}],
 "reconfig": {"2": {"create": 0.3, "destroy": 0.4}}}
EOF
expect 1 "toy.json: model: unknown key \"color\"" "$M" partitions --gpu "$T/toy.json"
# A ratio over a tiny denominator prints in %g form, not as 300 digits of %f.
printf 'name,1,2,3,4,7\na,1e-300,,,,\n' > "$T/tiny.csv"
"$M" schedule "$T/tiny.csv" --gpu A100-40GB --algo far --json -o "$T/tiny.json" || fail "tiny plan"
out=$("$M" validate "$T/tiny.json" --workload "$T/tiny.csv") || fail "tiny validate: $out"
case "$out" in *" rho=1.12e+300 "*) ;; *) fail "rho not in %g form: $out" ;; esac
[ ${#out} -lt 300 ] || fail "validate line of ${#out} characters"
out=$("$M" compare "$T/tiny.csv" --gpu A100-40GB --algos far --no-time) || fail "tiny compare"
echo "$out" | grep -q '^far .* 1.12e+300 ' || fail "compare rho: $out"
echo "inputs: ok"
