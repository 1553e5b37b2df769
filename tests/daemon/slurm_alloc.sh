#!/usr/bin/env bash
# slurm_alloc.sh: Slurm jobs' allocations on the sim backend, without Slurm: the SPANK
# plugin's own client code (tests/spank_driver.c) against migschedd, with stand-in
# `squeue` and `scontrol` on PATH. Checks: a step's tasks get the job's instance
# (CUDA_VISIBLE_DEVICES=MIG-...), a nested step reuses it, the step count, release by the
# last step and by the epilog, slurm_job_id in GET /v1/jobs, the DCGM mapping files, --mig
# over the job's migslice GRES refused, the wait's timeout, an allocation held through a
# clean restart and through a SIGKILL, the reconciliation releasing the allocation of a
# vanished job and keeping every allocation while squeue fails.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = spank_driver.
M=$1 DD=$2 DRV=$4
. "$3/tests/daemon/lib.sh"
BATCH=4294967291  # SLURM_BATCH_SCRIPT, the batch script's step id
FAKE=$T/bin MAP=$T/map
mkdir -p "$FAKE" "$MAP"
# squeue prints $T/running (the jobs Slurm has running) or fails when $T/squeue_fails exists.
cat > "$FAKE/squeue" <<EOF
#!/bin/sh
[ -e "$T/squeue_fails" ] && { echo "squeue: error: Unable to contact slurm controller" >&2; exit 1; }
echo "\$*" > "$T/squeue_args.\$\$" && mv "$T/squeue_args.\$\$" "$T/squeue_args"  # read meanwhile
cat "$T/running"
EOF
# scontrol show job ID: the job's migslice count from $T/gres.ID, 7 by default.
cat > "$FAKE/scontrol" <<EOF
#!/bin/sh
id=\$4; n=7; [ -e "$T/gres.\$id" ] && n=\$(cat "$T/gres.\$id")
echo "JobId=\$id JobName=t UserId=u(1) TresPerNode=gres:migslice:\$n Partition=debug"
EOF
chmod +x "$FAKE/squeue" "$FAKE/scontrol"
: > "$T/running"
ARGS="socket=$SOCK timeout=20"
start() {
    PATH="$FAKE:$PATH" start_daemon --backend sim --gpu A100-40GB --gpus 2 --listen "unix:$SOCK" \
        --db "$T/d.db" --hpc-job-mapping-dir "$MAP" --slurm-reconcile 0.3
}
start
# A job the plugin asks for is one Slurm runs (squeue lists it).
acquire() { echo "$1" >> "$T/running"; "$DRV" "$ARGS" acquire "$@"; }
alloc() { ucurl "http://d/v1/allocations/$1" | sed '$d'; }
field() { jq -r "$2" <<<"$(alloc "$1")"; }

# A job's batch step and a nested srun step share one instance; two tasks of a step count once.
out=$(acquire 101 $BATCH 3g.20gb) || fail "acquire 101: $out"
uuid=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' <<<"$out")
[[ $uuid == MIG-* ]] || fail "no MIG uuid: $out"
grep -q '^MIGSCHED_MIG_PROFILE=3g.20gb$' <<<"$out" || fail "profile: $out"
out2=$(acquire 101 0 3) || fail "nested step: $out2"
[ "$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' <<<"$out2")" = "$uuid" ] || fail "nested step got another instance"
acquire 101 0 3 > /dev/null || fail "second task of step 0"
[ "$(field 101 '.steps | join(",")')" = "0,$BATCH" ] || fail "steps: $(alloc 101)"
[ "$(field 101 .state)" = running ] || fail "state: $(alloc 101)"
gi=$(field 101 .gi_id) gpu=$(field 101 .gpu)
[ "$(cat "$MAP/$gpu.$gi")" = 101 ] || fail "mapping file $gpu.$gi: $(ls "$MAP")"
r=$(ucurl http://d/v1/jobs)
[ "$(body_of "$r" | jq '[.jobs[] | select(.slurm_job_id == 101)] | length')" = 1 ] || fail "slurm_job_id in /v1/jobs: $r"
# Another size for the same job is a conflict.
r=$(ucurl -X PUT -d '{"slices": 1}' http://d/v1/allocations/101/steps/5)
[ "$(status_of "$r")" = 409 ] || fail "other size: $r"
grep -q 'holds an allocation of 3g.20gb; this step asks for 1g.5gb' <<<"$r" || fail "409 message: $r"
# The last step's release frees it: done, its instance idle, its mapping file gone.
"$DRV" "$ARGS" release 101 0 || fail "release step 0"
[ "$(field 101 .state)" = running ] || fail "released with a step left"
"$DRV" "$ARGS" release 101 $BATCH || fail "release the batch step"
[ "$(status_of "$(ucurl http://d/v1/allocations/101)")" = 404 ] || fail "still live after the last step"
[ ! -e "$MAP/$gpu.$gi" ] || fail "mapping file left"
r=$(ucurl 'http://d/v1/jobs?state=done')
[ "$(body_of "$r" | jq '[.jobs[] | select(.slurm_job_id == 101)] | length')" = 1 ] || fail "101 not done: $r"
"$DRV" "$ARGS" release 101 0 || fail "a release of a released job must not fail"

# The epilog releases every step at once.
acquire 102 $BATCH 2 > /dev/null && acquire 102 1 2 > /dev/null || fail "acquire 102"
"$DRV" "$ARGS" epilog 102 || fail "epilog"
[ "$(status_of "$(ucurl http://d/v1/allocations/102)")" = 404 ] || fail "102 live after the epilog"

# --mig over the job's migslice GRES is refused with the reason; nothing is allocated.
echo 2 > "$T/gres.103"
acquire 103 0 3g.20gb 2> "$T/err" && fail "--mig=3g.20gb over migslice:2 accepted"
grep -q 'Slurm job 103 asks --mig=3g.20gb (3 compute slices) but holds 2 migslice on this node: submit it with --gres=migslice:3 or more' "$T/err" ||
    fail "GRES message: $(cat "$T/err")"
[ "$(status_of "$(ucurl http://d/v1/allocations/103)")" = 404 ] || fail "103 allocated"
acquire 103 0 nope 2> "$T/err" && fail "a bad --mig accepted"
grep -q 'expected a MIG profile' "$T/err" || fail "--mig message: $(cat "$T/err")"
acquire 103 0 4g.40gb 2> "$T/err" && fail "a profile the model lacks accepted"
grep -q 'A100-40GB has no profile "4g.40gb"' "$T/err" || fail "profile message: $(cat "$T/err")"

# Both GPUs full: a third job waits, times out with the reason, and its queued allocation
# goes with its step.
acquire 104 0 7 > /dev/null && acquire 105 0 7 > /dev/null || fail "acquire 104, 105"
echo 106 >> "$T/running"
"$DRV" "socket=$SOCK timeout=0.5" acquire 106 0 1 2> "$T/err" && fail "106 placed on full GPUs"
grep -q 'no MIG instance for job 106 within 0.5 s' "$T/err" || fail "timeout message: $(cat "$T/err")"
[ "$(field 106 .state)" = queued ] || fail "106: $(alloc 106)"
"$DRV" "$ARGS" release 106 0 || fail "release 106"
[ "$(status_of "$(ucurl http://d/v1/allocations/106)")" = 404 ] || fail "106 still queued"
"$DRV" "$ARGS" epilog 105 || fail "epilog 105"

# A clean stop keeps held allocations; the restart holds them again (same GPU, placement,
# UUID recorded, steps) and they release as before.
[ "$(field 104 .state)" = running ] || fail "104 not running"
gpu104=$(field 104 .gpu) start104=$(field 104 .placement.start) uuid104=$(field 104 .mig_uuid)
stop_daemon TERM 0
grep -q 'allocations_held=1' "$T/daemon.log" || fail "stop did not keep the allocation"
start
[ "$(field 104 .state)" = running ] || fail "104 after restart: $(alloc 104)"
[ "$(field 104 .gpu)/$(field 104 .placement.start)/$(field 104 .mig_uuid)" = "$gpu104/$start104/$uuid104" ] ||
    fail "104 moved: $(alloc 104)"
[ "$(field 104 .steps[0])" = 0 ] || fail "104's step lost"
[ -e "$MAP/$gpu104.$(field 104 .gi_id)" ] || fail "104's mapping file after restart"
# ... and through a SIGKILL.
stop_daemon KILL 137
start
[ "$(field 104 .state)" = running ] || fail "104 after SIGKILL: $(alloc 104)"
# Its instance is never given to another job meanwhile: 7 slices held on its GPU.
r=$(ucurl http://d/v1/gpus)
[ "$(body_of "$r" | jq ".gpus[] | select(.gpu == $gpu104) | .busy_slices")" = 7 ] || fail "gpus: $r"

# Reconciliation: while squeue fails nothing is released; once it answers, the vanished
# job's allocation is released and the running job's kept.
acquire 107 0 1 > /dev/null || fail "acquire 107"
touch "$T/squeue_fails"
await 'grep -q "slurm.reconcile_failed" "$T/daemon.log"' 10
sleep 1
[ "$(field 104 .state)" = running ] && [ "$(field 107 .state)" = running ] || fail "released while squeue failed"
echo 107 > "$T/running.new" && mv "$T/running.new" "$T/running"  # squeue may read it now
rm "$T/squeue_fails"
await '[ "$(status_of "$(ucurl http://d/v1/allocations/104)")" = 404 ]' 10
[ "$(field 107 .state)" = running ] || fail "107 released although running"
grep -q 'event=allocation.release id=[0-9]* user=root slurm_job=104 by=reconcile' "$T/daemon.log" || fail "reconcile log"
grep -q -- '--all --noheader --format=%A --states=RUNNING,COMPLETING,SUSPENDED,CONFIGURING,STOPPED' "$T/squeue_args" ||
    fail "squeue arguments: $(cat "$T/squeue_args")"
"$DRV" "$ARGS" epilog 107 || fail "epilog 107"
[ -z "$(ls "$MAP")" ] || fail "mapping files left: $(ls "$MAP")"
# migschedd unreachable: the plugin names the socket.
stop_daemon TERM 0
acquire 108 0 1 2> "$T/err" && fail "acquired without migschedd"
grep -q "cannot reach migschedd at unix:$SOCK" "$T/err" || fail "unreachable message: $(cat "$T/err")"
echo "slurm_alloc: ok"
