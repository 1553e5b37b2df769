#!/usr/bin/env bash
# isolation.sh: device isolation of migschedd's jobs: the nvml backend on the fake NVML (two
# A30s whose minor numbers are 3 and 4, not their indices), a fake device tree of harmless
# character devices and a fake mig-minors file covering every id the fake gives. Two jobs
# running at once on GPU 0 each list exactly their own two capability nodes, the GPU's node
# and the control nodes, and still the unrelated entries; each cannot open the other's
# capability nodes, the other GPU's node or nvidia-modeset; the host's folder is unchanged.
# A missing minors entry, a failure in the child (its tmpfs full) and a GPU whose minor
# number NVML does not give each fail the job, with the reason in its stderr log and in the daemon's
# job.spawn_failed event; `isolation none` runs it unconfined, with a warning at start and
# "isolation": "none" on GET /v1/gpus. Root only (mknod, mount namespaces).
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: device isolation needs root (mknod, mount namespaces)"; exit 77; }
[ -n "${FAKE_NVML_DIR:-}" ] || { echo "SKIP: the fake NVML was not built"; exit 77; }
command -v python3 >/dev/null || fail "python3 is missing"
export LD_LIBRARY_PATH=$FAKE_NVML_DIR FAKE_NVML_STATE=$T/nvml.state FAKE_NVML_GPU=A30-24GB \
    FAKE_NVML_GPUS=2 FAKE_NVML_MINOR_BASE=3 FAKE_NVML_DELAY_SCALE=0.05 MIGSCHED_RUNTIME_DIR=$T/rt
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
DEV=$T/dev MINORS=$T/mig-minors
fake_device_tree "$DEV" "$MINORS" 3 4
mkdir -p "$T/logs" "$T/out"
host_view() { LC_ALL=C ls -lnAR "$DEV"; grep -F " $DEV" /proc/self/mountinfo; }
host_view > "$T/host.before"
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --log-dir "$T/logs" --stop-grace 2 --allow-root-jobs true --dev-dir "$DEV"
       --mig-minors "$MINORS")
start_daemon "${DARGS[@]}"
ucurl http://d/v1/gpus | grep -q '"isolation": *"devices"' || fail "no isolation devices: $(ucurl http://d/v1/gpus)"

# A job lists what it sees, then waits for the list of nodes to try and tries each.
cat > "$T/job.sh" <<'SH'
DEV=$1 OUT=$2
{ LC_ALL=C ls -A "$DEV"; echo --; LC_ALL=C ls -A "$DEV/nvidia-caps"; echo --; cat "$DEV/sub/inside"; } > "$OUT.tmp"
mv "$OUT.tmp" "$OUT.seen"
while [ ! -e "$OUT.try" ]; do sleep 0.05; done
while read -r f; do
    if : < "$DEV/$f" 2>/dev/null; then echo "opened $f"; else echo "refused $f"; fi
done < "$OUT.try" > "$OUT.tmp"
mv "$OUT.tmp" "$OUT.tried"
SH
submit() {
    "$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 30 --name "$1" -- "${@:2}" \
        | awk '{ print $3 }'
}
A=$(submit a /bin/bash "$T/job.sh" "$DEV" "$T/out/a")
B=$(submit b /bin/bash "$T/job.sh" "$DEV" "$T/out/b")
[ -n "$A" ] && [ -n "$B" ] || fail "submit"
await '[ -e "$T/out/a.seen" ] && [ -e "$T/out/b.seen" ]' 60
ucurl http://d/v1/gpus | sed '$d' > "$T/gpus.json"
# Each job's instance (the fake gives a GPU instance's compute instance id 0, as the driver
# gives the first one): what it must see, and what it must not open.
python3 - "$T/gpus.json" "$MINORS" "$T/out" "$A" "$B" <<'PY' || fail "what the jobs see"
import json, sys, os
gpus, minors_path, out, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
minors = dict(l.split() for l in open(minors_path))
inst = {str(i["job"]): i["gi_id"] for g in json.load(open(gpus))["gpus"] for i in g["instances"] if i["job"]}
caps = {}
for j in ids:
    gi = inst[j]
    caps[j] = sorted("nvidia-cap" + minors["gpu3/gi%d/%saccess" % (gi, c)] for c in ("", "ci0/"))
assert not set(caps[ids[0]]) & set(caps[ids[1]]), "not disjoint: %r" % caps
top = sorted(["fd", "nvidia-caps", "nvidia-uvm", "nvidia-uvm-tools", "nvidia3", "nvidiactl", "sub", "unrelated"])
for name, j, other in (("a", ids[0], ids[1]), ("b", ids[1], ids[0])):
    seen = open(os.path.join(out, name + ".seen")).read().split("--\n")
    assert seen[0].split() == top, "%s sees %r, expected %r" % (name, seen[0].split(), top)
    assert sorted(seen[1].split()) == caps[j], "%s sees caps %r, expected %r" % (name, seen[1].split(), caps[j])
    assert seen[2] == "kept\n", "%s: the folder's contents: %r" % (name, seen[2])
    ok = ["nvidia3"] + ["nvidia-caps/" + c for c in caps[j]]
    no = ["nvidia4", "nvidia-modeset", "nvidia-caps/nvidia-cap1", "nvidia-caps/nvidia-cap2"] + \
         ["nvidia-caps/" + c for c in caps[other]]
    with open(os.path.join(out, name + ".try.tmp"), "w") as f:
        f.write("".join(x + "\n" for x in ok + no))
    os.rename(os.path.join(out, name + ".try.tmp"), os.path.join(out, name + ".try"))
    open(os.path.join(out, name + ".want"), "w").write(
        "".join("opened %s\n" % x for x in ok) + "".join("refused %s\n" % x for x in no))
print("capability nodes:", caps)
PY
await '[ "$(count_state done)" = 2 ]' 60
for j in a b; do
    cmp -s "$T/out/$j.tried" "$T/out/$j.want" || fail "job $j opened: $(cat "$T/out/$j.tried")"
done
host_view > "$T/host.after"
cmp -s "$T/host.before" "$T/host.after" || fail "the host's dev-dir changed: $(diff "$T/host.before" "$T/host.after")"

job_state() { ucurl "http://d/v1/jobs/$1" | sed '$d' | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }
# job_fails NAME REASON: a job that must not start: failed, REASON in its stderr log and in
# the daemon's job.spawn_failed event.
job_fails() {
    local id err
    id=$(submit "$1" /bin/sh -c "echo ran > $T/out/$1.ran")
    await '[ "$(job_state '"$id"')" = failed ]' 30
    [ -e "$T/out/$1.ran" ] && fail "$1: the job ran"
    err=$(find "$T/logs" -name "job-$id.1.err")
    grep -qF "$2" "$err" || fail "$1: its stderr log lacks '$2': $(cat "$err")"
    grep "event=job.spawn_failed id=$id " "$T/daemon.log" | grep -qF "$2" \
        || fail "$1: no job.spawn_failed with '$2': $(grep "id=$id " "$T/daemon.log")"
}
# No minors entry for the instance.
cp "$MINORS" "$T/minors.full"
grep -v '^gpu3/' "$T/minors.full" > "$MINORS"
job_fails nominors "device isolation: $MINORS lists no gpu3/gi"
cp "$T/minors.full" "$MINORS"
# A failure in the child, once planned: more long symlinks than the job's tmpfs holds.
python3 -c 'import os, sys
for i in range(2100): os.symlink("x" * 200, "%s/long%04d" % (sys.argv[1], i))' "$DEV"
job_fails childfails "device isolation: cannot make $DEV/long"
rm -f "$DEV"/long*
stop_daemon TERM 0

# No minor number from NVML: said at start, and every job fails.
export FAKE_NVML_FAIL=nvmlDeviceGetMinorNumber:1
start_daemon "${DARGS[@]}"
unset FAKE_NVML_FAIL
grep -q 'event=isolation.unavailable gpu=0 .*nvmlDeviceGetMinorNumber failed' "$T/daemon.log" \
    || fail "no isolation.unavailable at start"
job_fails nominor "device isolation: device 0: reading the GPU's minor number: nvmlDeviceGetMinorNumber failed"
stop_daemon TERM 0

# isolation none: unconfined, and said so.
start_daemon "${DARGS[@]}" --isolation none
grep -q 'event=isolation.none warning="isolation none: jobs can reach every MIG instance on the node"' \
    "$T/daemon.log" || fail "no warning for isolation none"
ucurl http://d/v1/gpus | grep -q '"isolation": *"none"' || fail "GET /v1/gpus does not say none"
id=$(submit open /bin/sh -c "LC_ALL=C ls -A $DEV > $T/out/open.top; LC_ALL=C ls -A $DEV/nvidia-caps | wc -l > $T/out/open.caps")
await '[ "$(count_state done)" = 3 ]' 30
grep -qx nvidia4 "$T/out/open.top" || fail "isolation none hid the other GPU: $(cat "$T/out/open.top")"
[ "$(cat "$T/out/open.caps")" = "$(ls -A "$DEV/nvidia-caps" | wc -l)" ] || fail "isolation none hid capability nodes"
stop_daemon TERM 0
host_view > "$T/host.after"
cmp -s "$T/host.before" "$T/host.after" || fail "the host's dev-dir changed: $(diff "$T/host.before" "$T/host.after")"
echo "isolation: ok"
