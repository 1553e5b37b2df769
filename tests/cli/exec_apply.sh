#!/usr/bin/env bash
# exec_apply.sh: `migsched apply` and `migsched export` against the fake NVML (two A100s):
# mig-parted's example configs parse and apply, a second apply changes nothing, MIG mode off
# and on again, `layout` output and `export` output are accepted, a busy instance makes
# apply refuse (naming it and its PID) and change nothing, so does another process's lock
# on one of the GPUs, --dry-run changes nothing, --check and --mode-only, and
# bad YAML, an unknown profile, an unknown config and a GPU out of range are clear errors
# that change nothing. $1 = migsched, $2 = source dir.
set -u
M=$1
D=$2/tests/data/migparted
P=$2/tests/data/exec
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
export FAKE_NVML_DELAY_SCALE=0 FAKE_NVML_GPU=A100-40GB FAKE_NVML_GPUS=2 FAKE_NVML_STATE=$T/state
export MIGSCHED_RUNTIME_DIR=$T/rt
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
count() { grep -c "^gi $1 " state; }
apply() { "$M" apply -f "$D/examples.yaml" "$@" > out.txt 2> err.txt; }
# A failing command must leave the device exactly as it was.
unchanged() { cp state before; "$@" > out.txt 2> err.txt; rc=$?; cmp -s state before || fail "state changed by: $*"; return $rc; }

# 1. The examples apply; the same config again keeps everything.
apply -c all-balanced || fail "all-balanced ($(cat err.txt))"
[ "$(count 0)" = 4 ] && [ "$(count 1)" = 4 ] || fail "all-balanced instance counts"
grep -q 'GPU 1 (A100-40GB): kept 0, destroyed 0, created 4' out.txt || fail "summary: $(cat out.txt)"
apply -c all-balanced || fail "all-balanced again"
grep -q 'GPU 0 (A100-40GB): kept 4, destroyed 0, created 0' out.txt || fail "second apply changed things"
apply -c all-1g.5gb || fail "all-1g.5gb ($(cat err.txt))"
[ "$(count 0)" = 7 ] && [ "$(count 1)" = 7 ] || fail "all-1g.5gb counts"
grep -q 'kept 2, destroyed 2, created 5' out.txt || fail "all-1g.5gb should keep the two 1g.5gb: $(cat out.txt)"
apply -c custom-config || fail "custom-config ($(cat err.txt))"
"$M" export > e.yaml || fail "export"
grep -A4 'devices: \[0\]' e.yaml | grep -q '"1g.5gb": 7' || fail "GPU 0 after custom-config: $(cat e.yaml)"
grep -A6 'devices: \[1\]' e.yaml | grep -q '"3g.20gb": 1' || fail "GPU 1 after custom-config: $(cat e.yaml)"

# 2. The export applies as it is (nothing to do), and on a cleared device rebuilds the layout.
"$M" apply -f e.yaml -c current > out.txt 2> err.txt || fail "export not accepted ($(cat err.txt))"
[ "$(grep -c 'destroyed 0, created 0' out.txt)" = 2 ] || fail "export re-applied changed things"
cp state custom
apply -c all-disabled || fail "all-disabled ($(cat err.txt))"
grep -q '^gpu 0 mig 0$' state && [ "$(count 0)" = 0 ] || fail "MIG not disabled"
grep -q 'nvmlDeviceSetMigMode(DISABLE)' out.txt || fail "disable not reported"
"$M" export --devices 1 --name off -o off.yaml || fail "export MIG off"
grep -q 'mig-enabled: false' off.yaml && ! grep -q 'devices: \[0\]' off.yaml || fail "export of MIG off: $(cat off.yaml)"
apply -c all-enabled || fail "all-enabled ($(cat err.txt))"
grep -q '^gpu 1 mig 1$' state && [ "$(count 1)" = 0 ] || fail "MIG not enabled"
"$M" apply -f e.yaml -c current > out.txt 2> err.txt || fail "export onto a clear GPU ($(cat err.txt))"
"$M" export > e2.yaml && diff <(grep -v '^#' e.yaml) <(grep -v '^#' e2.yaml) > /dev/null || fail "layout not rebuilt"

# 3. `migsched layout` output is accepted.
"$M" layout "$P/a100x2_plan.json" --at 0.8 > l.yaml || fail "layout"
"$M" apply -f l.yaml -c migsched > out.txt 2> err.txt || fail "layout not accepted ($(cat err.txt))"
"$M" export > e3.yaml
for g in 0 1; do
    diff <(sed -n "/devices: \[$g\]/,/devices/p" l.yaml | grep '^        "') \
         <(sed -n "/devices: \[$g\]/,/devices/p" e3.yaml | grep '^        "') > /dev/null \
        || fail "GPU $g does not hold the layout's instances"
done

# 4. A busy instance in the way: refused, named with its PID, nothing changed.
apply -c all-3g.20gb || fail "all-3g.20gb"
gi=$(grep '^gi 0 ' state | head -1 | cut -d' ' -f3)
printf 'proc 0 %s 777\n' "$gi" >> state
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb; [ $rc = 1 ] || fail "busy: exit $rc"
grep -q 'GPU 0: .*3g.20gb at slot [04] (GPU instance '"$gi"', MIG-fa4e.*used by PID 777; nothing was changed' err.txt \
    || fail "busy refusal message: $(cat err.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-disabled; [ $rc = 1 ] && grep -q 'disables MIG' err.txt \
    || fail "MIG disabled under a busy instance: $(cat err.txt)"
apply -c all-balanced --devices 0 || fail "a target that keeps the busy 3g ($(cat err.txt))"
grep -q 'keep 3g.20gb .* (busy)' out.txt || fail "busy 3g not kept: $(cat out.txt)"

# 4b. Another process holds GPU 1's lock: refused before GPU 0 is touched either.
lock=$(ls "$MIGSCHED_RUNTIME_DIR"/GPU-*1.lock)
flock "$lock" sleep 3 &
locker=$!
sleep 0.5
unchanged "$M" apply -f "$D/examples.yaml" -c all-3g.20gb; [ $rc = 1 ] && grep -q 'is in use by another migsched process' err.txt \
    || fail "locked GPU: $(cat err.txt)"
wait $locker

# 5. --dry-run prints the NVML operations and changes nothing.
unchanged "$M" apply -f "$D/examples.yaml" -c all-2g.10gb --devices 1 --dry-run; [ $rc = 0 ] || fail "dry run ($(cat err.txt))"
grep -q 'nvmlDeviceCreateGpuInstanceWithPlacement(2g.10gb' out.txt && grep -q 'nvmlGpuInstanceDestroy' out.txt \
    && grep -q 'dry run: nothing changed' out.txt || fail "dry-run output: $(cat out.txt)"

# 5b. --check (mig-parted's assert): exit 0 only when nothing is to do; --mode-only.
unchanged "$M" apply -f "$D/examples.yaml" -c all-2g.10gb --devices 1 --check; [ $rc = 1 ] \
    && grep -q "GPU 1 does not hold config 'all-2g.10gb' (5 changes needed)" err.txt || fail "check: $(cat err.txt)"
"$M" export > now.yaml
unchanged "$M" apply -f now.yaml -c current --check; [ $rc = 0 ] || fail "check of the held layout: $(cat err.txt)"
apply -c all-disabled --devices 1 || fail "disable GPU 1"
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 1 --check --mode-only; [ $rc = 1 ] \
    && grep -q "does not hold the MIG mode of config" err.txt || fail "mode check: $(cat err.txt)"
apply -c all-1g.5gb --devices 1 --mode-only || fail "mode-only ($(cat err.txt))"
grep -q '^gpu 1 mig 1$' state && [ "$(count 1)" = 0 ] && grep -q 'GPU 1 (A100-40GB): MIG mode on' out.txt \
    || fail "mode-only should enable MIG and create nothing: $(cat out.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 1 --check --mode-only; [ $rc = 0 ] || fail "mode check after"

# 6. Bad input: clear errors, nothing changed.
unchanged "$M" apply -f "$D/bad_syntax.yaml" -c broken; [ $rc = 1 ] && grep -q 'bad_syntax.yaml:[0-9]*:[0-9]*: not valid YAML' err.txt \
    || fail "bad YAML: $(cat err.txt)"
unchanged "$M" apply -f "$D/bad_profile.yaml" -c wrong; [ $rc = 1 ] \
    && grep -q "bad_profile.yaml:8:9: mig-devices: '5g.25gb' is not a profile of GPU 0 (A100-40GB: " err.txt \
    || fail "unknown profile: $(cat err.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-7g; [ $rc = 1 ] && grep -q "no config 'all-7g' (it has: all-disabled, " err.txt \
    || fail "unknown config: $(cat err.txt)"
unchanged "$M" apply -f "$D/bad_device.yaml" -c far; [ $rc = 1 ] && grep -q "bad_device.yaml:4:7: config 'far' names GPU 5, but there are 2 GPUs" err.txt \
    || fail "GPU out of range in the config: $(cat err.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 7; [ $rc = 1 ] && grep -q 'GPU 7 does not exist' err.txt \
    || fail "--devices out of range: $(cat err.txt)"
unchanged "$M" apply -f missing.yaml -c x; [ $rc = 1 ] && grep -q 'missing.yaml' err.txt || fail "missing file"
"$M" apply -f "$D/examples.yaml" 2> /dev/null; [ $? = 2 ] || fail "missing -c"
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --backend gpu 2> /dev/null; [ $? = 2 ] || fail "bad --backend"
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 0,0 2> /dev/null; [ $? = 2 ] || fail "repeated --devices"
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --backend sim 2> /dev/null; [ $? = 2 ] || fail "sim without --gpu"

# 6b. The nvidia-mig-parted shim of docs/cluster.md, called as the GPU operator's MIG
# manager calls mig-parted.
sed -n '/^#!\/bin\/sh$/,/^```$/p' "$2/docs/cluster.md" | sed '$d' > nvidia-mig-parted
grep -q 'exec migsched apply --check' nvidia-mig-parted || fail "no shim in docs/cluster.md"
mkdir -p bin && ln -sf "$M" bin/migsched
shim() { PATH="$T/bin:$PATH" sh nvidia-mig-parted "$@" > out.txt 2> err.txt; }
shim assert --valid-config -f "$D/examples.yaml" -c all-3g.20gb || fail "shim valid-config ($(cat err.txt))"
shim assert -f "$D/examples.yaml" -c all-3g.20gb; [ $? = 1 ] || fail "shim assert before apply"
shim -d apply --mode-only -f "$D/examples.yaml" -c all-3g.20gb || fail "shim mode-only ($(cat err.txt))"
shim -d apply -f "$D/examples.yaml" -c all-3g.20gb || fail "shim apply ($(cat err.txt))"
shim assert -f "$D/examples.yaml" -c all-3g.20gb || fail "shim assert after apply ($(cat err.txt))"
shim assert --valid-config -f "$D/examples.yaml" -c nope; [ $? = 1 ] || fail "shim valid-config of a missing config"
shim export && grep -q '"3g.20gb": 2' out.txt || fail "shim export"
shim generate-config; [ $? = 2 ] || fail "shim unknown command"

# 7. The sim backend: an empty simulated GPU.
"$M" apply -f "$D/examples.yaml" -c all-balanced --backend sim --gpu A100-40GB > out.txt || fail "sim apply"
grep -q 'GPU 0 (A100-40GB): kept 0, destroyed 0, created 4' out.txt || fail "sim apply output"
exit 0
