#!/usr/bin/env bash
# slurm_alloc_nvml.sh: a Slurm job's allocation on the nvml backend (the fake NVML): the
# instance the job was told of (its MIG UUID) survives a SIGKILL and a clean stop of
# migschedd untouched (the restart adopts it from the journal instead of destroying it),
# the other instance the killed daemon left idle is destroyed, and the release after the
# restarts makes the instance idle; a clean stop then leaves nothing of ours.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = spank_driver; FAKE_NVML_DIR from ctest.
M=$1 DD=$2 DRV=$4
. "$3/tests/daemon/lib.sh"
use_fake_nvml
gis() { if [ -e "$FAKE_NVML_STATE" ]; then grep '^gi ' "$FAKE_NVML_STATE"; fi; }
# The short job runs unconfined: the fake GPU has no device nodes (isolation.sh has some).
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --slurm-gres none --slurm-reconcile 0 --hpc-job-mapping-dir "$T/map"
       --isolation none)
mkdir -p "$T/logs" "$T/map"
start_daemon "${DARGS[@]}"
ARGS="socket=$SOCK timeout=20"
field() { ucurl "http://d/v1/allocations/$1" | sed '$d' | jq -r "$2"; }
out=$("$DRV" "$ARGS" acquire 501 0 2g.12gb) || fail "acquire: $out"
uuid=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' <<<"$out")
gi=$(field 501 .gi_id)
[ "$(cat "$T/map/0.$gi")" = 501 ] || fail "mapping file"
# A short job leaves an idle instance of ours beside it.
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name short -- true > /dev/null ||
    fail "submit"
await '[ "$(count_state done)" = 1 ]' 30
[ "$(gis | wc -l)" = 2 ] || fail "expected 2 instances: $(gis)"
for sig in KILL TERM; do
    stop_daemon $sig $([ $sig = KILL ] && echo 137 || echo 0)
    start_daemon "${DARGS[@]}"
    [ "$(field 501 .state)" = running ] || fail "after SIG$sig: $(field 501 .)"
    [ "$(field 501 .mig_uuid)" = "$uuid" ] || fail "uuid changed after SIG$sig"
    gis | grep -q "^gi 0 $gi " || fail "instance $gi gone after SIG$sig: $(gis)"
    [ "$(gis | wc -l)" = 1 ] || fail "after SIG$sig the idle instance should be gone: $(gis)"
    [ "$(cat "$T/map/0.$gi")" = 501 ] || fail "mapping file after SIG$sig"
done
grep -q 'event=recover.adopt gpu=0 gi='"$gi"' start=[0-9]* slurm_job=501' "$T/daemon.log" ||
    fail "no adoption logged"
"$DRV" "$ARGS" release 501 0 || fail "release"
[ "$(field 501 .state)" = null ] || fail "still live"
[ ! -e "$T/map/0.$gi" ] || fail "mapping file left"
stop_daemon TERM 0
[ -z "$(gis)" ] || fail "instances left after the stop: $(gis)"
echo "slurm_alloc_nvml: ok"
