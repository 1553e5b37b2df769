#!/usr/bin/env bash
# exec_sim_state.sh: `migsched apply` and `export` rehearsed on simulated GPUs kept in a
# state file (--state, --gpus): the file is made once and persists; apply, a re-apply that
# changes nothing, --check after apply (only the differences, exit 0/1/3), an export that
# applies back onto a fresh file, a config naming GPU 1 of two, busy and foreign instances
# planted in the file, concurrent applies (one at a time by the device lock, the file whole
# throughout), corrupt files refused naming the file and the field with nothing written,
# configs that do not fit named instance by instance, and usage errors. $1 = migsched,
# $2 = source dir.
set -u
M=$1
D=$2/tests/data/migparted
T=$(mktemp -d)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
    wait 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$T"
export MIGSCHED_RUNTIME_DIR=$T/rt
S=$T/s.json
apply() { "$M" apply -f "$D/examples.yaml" --state "$S" "$@" > out.txt 2> err.txt; }
# A failing command must leave the file exactly as it was.
unchanged() { cp "$S" before; "$@" > out.txt 2> err.txt; rc=$?; cmp -s "$S" before || fail "state changed by: $*"; return $rc; }
instances() { grep -c '"gi":' "$S"; }

# 1. Without the file and without --gpus: refused; with --gpus the file is made.
"$M" export --state "$S" > out.txt 2> err.txt; [ $? = 1 ] && grep -q "s.json does not exist (create it with --gpus" err.txt \
    || fail "missing state: $(cat err.txt)"
[ ! -e "$S" ] || fail "a state made without --gpus"
apply -c all-balanced --gpus 2xA100-40GB || fail "first apply ($(cat err.txt))"
grep -q '"format": "migsched-sim-state/1"' "$S" && [ "$(grep -c '"model": "A100-40GB"' "$S")" = 2 ] \
    || fail "new state: $(cat "$S")"
grep -q 'GPU 1 (A100-40GB): kept 0, destroyed 0, created 4' out.txt || fail "summary: $(cat out.txt)"
[ "$(instances)" = 8 ] || fail "instances after all-balanced: $(instances)"

# 2. The same config again changes nothing, byte for byte; --gpus must then agree.
cp "$S" applied
apply -c all-balanced || fail "re-apply ($(cat err.txt))"
grep -q 'GPU 0 (A100-40GB): kept 4, destroyed 0, created 0' out.txt || fail "re-apply changed things: $(cat out.txt)"
cmp -s "$S" applied || fail "re-apply rewrote the state"
apply -c all-balanced --gpus 2xA100-40GB || fail "matching --gpus ($(cat err.txt))"
unchanged "$M" apply -f "$D/examples.yaml" -c all-balanced --state "$S" --gpus A100-40GB; [ $rc = 1 ] \
    && grep -q 's.json holds 2 GPUs (A100-40GB,A100-40GB), not the 1 of --gpus (A100-40GB)' err.txt \
    || fail "--gpus mismatch: $(cat err.txt)"

# 3. --check after apply: in step, exit 0; another config: only the differences, exit 1.
unchanged "$M" apply -f "$D/examples.yaml" -c all-balanced --state "$S" --check; [ $rc = 0 ] || fail "check in step ($(cat err.txt))"
[ "$(cat out.txt)" = "GPU 0: already holds the layout
GPU 1: already holds the layout" ] || fail "check in step printed: $(cat out.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-2g.10gb --state "$S" --check; [ $rc = 1 ] || fail "check out of step: rc $rc"
grep -q '^GPU 0: destroy 1g.5gb at 2; destroy 1g.5gb at 3; destroy 3g.20gb at 4; create 2g.10gb at 2; create 2g.10gb at 4$' out.txt \
    || fail "check differences: $(cat out.txt)"
! grep -q 'keep\|nvml' out.txt || fail "check printed more than the differences: $(cat out.txt)"
grep -q "GPU 0 does not hold config 'all-2g.10gb' (5 changes needed)" err.txt || fail "check message: $(cat err.txt)"

# 4. A config naming GPU 1 only changes GPU 1, and on a one-GPU file it is refused.
cat > gpu1.yaml << 'EOF'
version: v1
mig-configs:
  gpu1-3g:
    - devices: [1]
      mig-enabled: true
      mig-devices: {"3g.20gb": 2}
EOF
gpu0() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["gpus"][0]))' "$S"; }
gpu0 > gpu0.before
"$M" apply -f gpu1.yaml -c gpu1-3g --state "$S" > out.txt 2> err.txt || fail "gpu1-3g ($(cat err.txt))"
python3 - "$S" << 'EOF' || fail "gpu1-3g state: $(cat "$S")"
import json, sys
g1 = json.load(open(sys.argv[1]))["gpus"][1]
assert [(i["profile"], i["start"]) for i in g1["instances"]] == [("3g.20gb", 0), ("3g.20gb", 4)], g1
EOF
gpu0 | cmp -s - gpu0.before || fail "gpu1-3g changed GPU 0"
grep -q '^GPU 1 (A100-40GB): kept 1, destroyed 3, created 1' out.txt && ! grep -q '^GPU 0' out.txt \
    || fail "gpu1-3g output: $(cat out.txt)"
one=$T/one.json
"$M" apply -f gpu1.yaml -c gpu1-3g --state "$one" --gpus A100-40GB > out.txt 2> err.txt; [ $? = 1 ] \
    && grep -q "gpu1.yaml:4:7: config 'gpu1-3g' names GPU 1, but there is 1 GPU" err.txt || fail "GPU 1 of one: $(cat err.txt)"
"$M" apply -f "$D/examples.yaml" -c all-disabled --devices 0 --state "$S" > out.txt 2> err.txt || fail "disable GPU 0 ($(cat err.txt))"

# 5. Export round trip: the export applies back as it is, and onto a fresh file rebuilds it.
"$M" export --state "$S" -o e.yaml || fail "export"
grep -q 'mig-enabled: false' e.yaml && grep -q '"3g.20gb": 2' e.yaml || fail "export: $(cat e.yaml)"
unchanged "$M" apply -f e.yaml -c current --state "$S" --check; [ $rc = 0 ] || fail "export not in step ($(cat out.txt))"
"$M" apply -f e.yaml -c current --state fresh.json --gpus 2xA100-40GB > out.txt 2> err.txt || fail "export onto a fresh state ($(cat err.txt))"
"$M" export --state fresh.json -o e2.yaml || fail "export of the fresh state"
diff <(grep -v '^#' e.yaml) <(grep -v '^#' e2.yaml) > /dev/null || fail "round trip: $(diff e.yaml e2.yaml)"
"$M" apply -f e.yaml -c current --state fresh.json --gpus 1xA100-40GB > out.txt 2> err.txt; [ $? = 1 ] \
    || fail "--gpus against the fresh file"

# 6. Busy and foreign instances planted in the file: a busy one is never destroyed (apply
# refuses naming its PID, nothing changed); idle ones are destroyed whoever made them, as
# on NVML; MIG mode cannot be disabled under a busy one.
cat > planted.json << 'EOF'
{"format": "migsched-sim-state/1", "serial": 0, "gpus": [
 {"model": "A100-40GB", "uuid": "GPU-51300000-aaaa-4000-8000-000000000001", "mig": true, "instances": [
  {"gi": 5, "profile": "3g.20gb", "start": 4, "uuid": "MIG-feed-1", "pids": [4242]},
  {"gi": 9, "profile": "4g.20gb", "start": 0, "uuid": "MIG-feed-2"}]}]}
EOF
P=$T/planted.json
cp "$P" planted.orig
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --state "$P" > out.txt 2> err.txt; [ $? = 1 ] \
    && grep -q "GPU 0: config 'all-1g.5gb' needs the slots of: 3g.20gb at slot 4 (GPU instance 5, MIG-feed-1), used by PID 4242; nothing was changed" err.txt \
    || fail "busy planted: $(cat err.txt)"
cmp -s "$P" planted.orig || fail "a refused apply changed the planted state"
"$M" apply -f "$D/examples.yaml" -c all-disabled --state "$P" > out.txt 2> err.txt; [ $? = 1 ] \
    && grep -q 'used by PID 4242' err.txt && cmp -s "$P" planted.orig || fail "disable under a busy instance: $(cat err.txt)"
cat > keep.yaml << 'EOF'
version: v1
mig-configs:
  keep-3g:
    - devices: all
      mig-enabled: true
      mig-devices: {"3g.20gb": 1, "2g.10gb": 2}
EOF
"$M" apply -f keep.yaml -c keep-3g --state "$P" > out.txt 2> err.txt || fail "apply around a busy instance ($(cat err.txt))"
grep -q 'keep 3g.20gb at slot 4 (GPU instance 5, MIG-feed-1) (busy)' out.txt && grep -q 'destroy 4g.20gb at slot 0 (GPU instance 9' out.txt \
    || fail "busy kept, idle foreign destroyed: $(cat out.txt)"
grep -q '"pids": \[' "$P" && grep -q 'MIG-feed-1' "$P" && ! grep -q 'MIG-feed-2' "$P" || fail "planted after apply: $(cat "$P")"

# 7. Concurrent applies: one at a time (the device lock refuses the others), the file whole
# and valid all along, in the end one of the two layouts.
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --state "$S" > /dev/null 2>&1 || fail "reset before the race"
for i in $(seq 1 8); do
    c=all-1g.5gb
    [ $((i % 2)) = 0 ] && c=all-2g.10gb
    "$M" apply -f "$D/examples.yaml" -c "$c" --state "$S" > "race$i.out" 2> "race$i.err" &
    pids+=($!)
done
for i in $(seq 1 20); do
    "$M" export --state "$S" > /dev/null 2> reader.err || fail "a reader saw a broken state: $(cat reader.err)"
done
ok=0
for k in "${!pids[@]}"; do
    if wait "${pids[$k]}"; then
        ok=$((ok + 1))
    else
        i=$((k + 1))
        grep -q 'is in use by \(migsched process [0-9]*\|another migsched process\)' "race$i.err" || fail "race $i failed otherwise: $(cat "race$i.err")"
    fi
done
pids=()
[ "$ok" -ge 1 ] || fail "no apply of the race succeeded"
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --state "$S" --check > /dev/null 2>&1; a=$?
"$M" apply -f "$D/examples.yaml" -c all-2g.10gb --state "$S" --check > /dev/null 2>&1; b=$?
[ $a = 0 ] || [ $b = 0 ] || fail "after the race the GPUs hold neither layout: $(cat "$S")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$S" || fail "state not JSON after the race"
ls "$T" | grep -q '^s\.json\.[A-Za-z0-9]\{6\}$' && fail "a temporary file was left: $(ls "$T")"

# 8. Corrupt or malformed files: refused naming the file and the field, nothing written.
apply -c all-2g.10gb || fail "all-2g.10gb after the race ($(cat err.txt))"
cp "$S" good.json
head -c 200 good.json > "$S"
unchanged "$M" export --state "$S"; [ $rc = 1 ] && grep -q "s.json:[0-9]*:[0-9]*: not JSON" err.txt || fail "truncated state: $(cat err.txt)"
unchanged "$M" apply -f "$D/examples.yaml" -c all-balanced --state "$S"; [ $rc = 1 ] && grep -q 'not JSON' err.txt \
    || fail "apply on a truncated state: $(cat err.txt)"
sed 's/"start": 0,/"start": 3,/' good.json > "$S"
unchanged "$M" apply -f "$D/examples.yaml" -c all-balanced --state "$S" --gpus 2xA100-40GB; [ $rc = 1 ] \
    && grep -q "s.json: gpus\[0\].instances\[0\].start: 3 is not an allowed placement of 2g.10gb on A100-40GB (0, 2, 4)" err.txt \
    || fail "bad placement: $(cat err.txt)"
sed 's/"mig": true/"mig": "yes"/' good.json > "$S"
unchanged "$M" export --state "$S"; [ $rc = 1 ] && grep -q 's.json: gpus\[0\].mig: must be true or false' err.txt \
    || fail "bad mig: $(cat err.txt)"
cp good.json "$S"

# 9. Configs that do not fit: each instance named with why; --check cannot tell (3).
cat > nofit.yaml << 'EOF'
version: v1
mig-configs:
  three-3g:
    - devices: all
      mig-enabled: true
      mig-devices: {"3g.20gb": 3}
  too-big:
    - devices: [1]
      mig-enabled: true
      mig-devices: {"7g.40gb": 1, "1g.5gb": 1}
  other-model:
    - devices: [0]
      mig-enabled: true
      mig-devices: {"2g.12gb": 1, "1g.5gb": 1, "4g.24gb": 1}
EOF
unchanged "$M" apply -f nofit.yaml -c three-3g --state "$S"; [ $rc = 1 ] \
    && grep -q "nofit.yaml:4:7: config 'three-3g' on GPU 0: the target does not fit on a A100-40GB: 3 x 3g.20gb: at most 2 fit on the GPU; memory slices: 12 needed, the GPU has 8; compute slices: 9 needed, the GPU has 7" err.txt \
    || fail "three 3g: $(cat err.txt)"
unchanged "$M" apply -f nofit.yaml -c too-big --state "$S" --check; [ $rc = 3 ] \
    && grep -q "on GPU 1: the target does not fit on a A100-40GB: memory slices: 9 needed, the GPU has 8; compute slices: 8 needed, the GPU has 7" err.txt \
    || fail "too big (rc $rc): $(cat err.txt)"
unchanged "$M" apply -f nofit.yaml -c other-model --state "$S"; [ $rc = 1 ] \
    && grep -q "nofit.yaml:14:21: mig-devices: '2g.12gb' is not a profile of GPU 0 (A100-40GB: .*, 7g.40gb); nor are 14:48: '4g.24gb'$" err.txt \
    || fail "other model's profile: $(cat err.txt)"

# 10. MIG mode off in the file: --mode-only turns it on; usage errors.
apply -c all-disabled --devices 0 || fail "disable GPU 0 ($(cat err.txt))"
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 0 --state "$S" --check --mode-only; [ $rc = 1 ] \
    && grep -q '^GPU 0: enable MIG mode$' out.txt || fail "mode check: $(cat out.txt)"
apply -c all-1g.5gb --devices 0 --mode-only || fail "mode-only ($(cat err.txt))"
unchanged "$M" apply -f "$D/examples.yaml" -c all-1g.5gb --devices 0 --state "$S" --check --mode-only; [ $rc = 0 ] \
    && grep -q '^GPU 0: already holds the MIG mode of the layout$' out.txt || fail "mode check after: $(cat out.txt)"
"$M" apply -f "$D/examples.yaml" -c all-1g.5gb --state "$S" --backend nvml 2> err.txt; [ $? = 2 ] \
    && grep -q -- '--state is for --backend sim' err.txt || fail "--state with nvml"
"$M" export --gpus 2xA100-40GB 2> err.txt; [ $? = 2 ] && grep -q -- '--gpus goes with --state' err.txt || fail "--gpus alone"
"$M" export --state new.json --gpus 2xA99 2> err.txt; [ $? = 1 ] && grep -q "'A99' is not a built-in GPU model" err.txt \
    && [ ! -e new.json ] || fail "bad --gpus: $(cat err.txt)"
"$M" apply --help | grep -q -- '--state FILE' || fail "apply --help lacks --state"
exit 0
