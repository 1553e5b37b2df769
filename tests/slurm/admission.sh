#!/usr/bin/env bash
# admission.sh: the real single-node Slurm of lib.sh (2 fake A100-40GB, 14 slices) with
# someone else's 1g.5gb instances at slot 0 of both GPUs, so no 7g.40gb or 4g.20gb fits and
# the largest placeable instance is a 3g.20gb (slots 4-7). Checks, with the plugin's
# requeue_exit=75 and slurm.conf's RequeueExit=75:
# - Slurm counting slices only (migschedd's slurm-node off, the default) admits a --mig=7
#   batch job; its task exits 75 at the plugin's timeout, before running anything, and Slurm
#   requeues it (PENDING, Restarts=1, ExitCode=75:0); migschedd keeps no allocation of it
#   and counts it unplaced in its metrics.
# - A placed job's AdminComment (scontrol show job) names its profile, GPU index and UUID
#   and MIG UUID, as migschedd's /v1/jobs and /v1/gpus have them, and /v1/jobs gives its
#   allocation's wait_seconds.
# - With slurm-node set, migschedd keeps the node's migslice count at what it can place
#   (the running allocations' slices plus the largest placeable instance, at least 7): with
#   two 3g.20gb running (slots 4-7 of both GPUs) it is 8 (a 2g.10gb fits), so Slurm keeps a third --mig=3
#   job PENDING (Reason=Resources) and never sends it to the node, still runs a --mig=1, and
#   runs the third once the others end.
# - Placements keep room for the sizes of Slurm's pending jobs (a held 3g.20gb): the unit
#   test's hand-checked case on the real Slurm.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
M=$1 DD=$2 PLUGIN=${4:-}
. "$3/tests/slurm/lib.sh"
write_slurm_conf 14 3
sed -i 's|$| requeue_exit=75|' "$T/plugstack.conf"
echo "RequeueExit=75" >> "$T/slurm.conf"
start_slurm
printf '%s\n' "gpu 0 mig 1" "gi 0 9 1g.5gb 0 1" "ci 0 9 0 0" \
              "gpu 1 mig 1" "gi 1 9 1g.5gb 0 2" "ci 1 9 0 0" > "$FAKE_NVML_STATE"
start_migschedd --slurm-reconcile 0
field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
node_gres() { scontrol show node -o "$NODE" | tr ' ' '\n' | sed -n 's/^Gres=//p'; }
metric() { api /metrics | awk -v k="$1" '$1 == k { print $2 }'; }

# Admitted by the count, unplaceable: the task exits 75 and Slurm requeues the job.
job=$(env "$TAG" sbatch --parsable --mig=7 --gres=migslice:7 -o "$T/out/seven.out" --wrap 'echo ran') ||
    fail "sbatch --mig=7"
await "[ \"\$(field $job Restarts)\" = 1 ]" 60
[ "$(field "$job" JobState)" = PENDING ] || fail "job $job is $(field "$job" JobState) after its requeue"
[ "$(field "$job" ExitCode)" = 75:0 ] || fail "job $job's exit code is $(field "$job" ExitCode)"
grep -q ran "$T/out/seven.out" 2>/dev/null && fail "job $job's script ran"
grep -q "migsched: job $job --mig=7: no MIG instance for job $job within 3 s .*the task exits 75 for RequeueExit" \
    "$T/log/slurmd.log" || fail "slurmd's log does not say why job $job exited 75"
scancel "$job"
await '[ "$(live_allocs)" = 0 ]' 30
[ "$(metric migsched_allocations_unplaced_total)" -ge 1 ] ||
    fail "the unplaced allocation is not counted: $(api /metrics | grep allocations_)"
[ "$(metric migsched_allocations_no_room_total)" -ge 1 ] || fail "no allocation counted as finding no room"
echo "--mig=7 admitted on 14 counted slices: exit 75, requeued (Restarts=1), nothing held"

# A placed job's AdminComment names its instance.
job=$(env "$TAG" sbatch --parsable --mig=3 --gres=migslice:3 -o "$T/out/three.out" --wrap 'sleep 30') ||
    fail "sbatch --mig=3"
await "[ \"\$(api '/v1/jobs?state=running' | jq '.jobs | length')\" = 1 ]" 60
a=$(api '/v1/jobs?state=running' | jq -c '.jobs[0]')
gpu=$(jq -r .gpu <<<"$a")
mig=$(jq -r .mig_uuid <<<"$a")
uuid=$(api /v1/gpus | jq -r --argjson g "$gpu" '.gpus[] | select(.gpu == $g) | .uuid')
jq -e '.wait_seconds >= 0' <<<"$a" > /dev/null || fail "no wait_seconds in the allocation: $a"
want="migsched:profile=3g.20gb,gpu=$gpu,gpu_uuid=$uuid,mig_uuid=$mig"
await "[ \"\$(field $job AdminComment)\" = '$want' ]" 30
echo "job $job: AdminComment=$(field "$job" AdminComment); waited $(jq .wait_seconds <<<"$a") s"
scancel "$job"
await '[ "$(live_allocs)" = 0 ]' 30

# slurm-node: the count is what the node can place (at least 7, the largest instance,
# so that Slurm takes every --mig at submission); Slurm keeps what does not fit.
end_pid "$DPID" 30
DPID=
start_migschedd --slurm-reconcile 0 --slurm-node "$NODE" --slurm-sync 1
await '[ "$(node_gres)" = migslice:7 ]' 30
grep -q "slurm.node node=$NODE gres=migslice:7" "$T/daemon.log" || fail "the update is not logged"
running_allocs() { api '/v1/jobs?state=running' | jq '[.jobs[] | select(.slurm_job_id != null)] | length'; }
# Two 3g.20gb fill slots 4-7 of both GPUs: a third has no room, a 1g.5gb or 2g.10gb has
# (slots 1-3): the count is 6 held + 2.
one=$(env "$TAG" sbatch --parsable --mig=3 --gres=migslice:3 -o /dev/null --wrap 'sleep 20') || fail "sbatch"
two=$(env "$TAG" sbatch --parsable --mig=3 --gres=migslice:3 -o /dev/null --wrap 'sleep 20') || fail "sbatch"
await '[ "$(running_allocs)" = 2 ]' 60
await '[ "$(node_gres)" = migslice:8 ]' 30
small=$(env "$TAG" sbatch --parsable --mig=1 --gres=migslice:1 -o "$T/out/small.out" --wrap 'echo "$CUDA_VISIBLE_DEVICES"') ||
    fail "sbatch --mig=1"
await "[ \"\$(field $small JobState)\" = COMPLETED ]" 60
grep -q '^MIG-' "$T/out/small.out" || fail "the --mig=1 job saw $(cat "$T/out/small.out")"
three=$(env "$TAG" sbatch --parsable --mig=3 --gres=migslice:3 -o /dev/null --wrap 'sleep 1') || fail "sbatch"
sleep 3
[ "$(field "$three" JobState)" = PENDING ] || fail "job $three is $(field "$three" JobState)"
[ "$(field "$three" Reason)" = Resources ] || fail "job $three waits for $(field "$three" Reason)"
[ "$(field "$three" Restarts)" = 0 ] || fail "job $three was started"
grep -q "allocation.new .*slurm_job=$three " "$T/daemon.log" && fail "job $three reached the node"
# The 3g.20gb jobs end: the count rises and Slurm starts the waiting one, which is placed.
scancel "$one" "$two"
await "[ \"\$(field $three JobState)\" = COMPLETED ]" 60
grep -q "allocation.new .*slurm_job=$three " "$T/daemon.log" || fail "job $three did not run in migschedd"
echo "slurm-node: migslice 7 idle, 8 with two 3g.20gb running: a 1g ran, a third 3g was kept PENDING (Resources) and ran after them"

# Placements keep room for Slurm's pending sizes: the unit test's hand-checked case, with
# someone else's 1g.5gb at GPU 0 slot 4 and GPU 1 slots 0 and 4, and a 3g.20gb job held
# pending in Slurm (squeue lists it PENDING). The policy alone puts a 2g.10gb at GPU 0 slot
# 0, the node's last room for a 3g; it goes to GPU 1 slots 2-3.
end_pid "$DPID" 30
DPID=
printf '%s\n' "serial 10" "gpu 0 mig 1" "gi 0 9 1g.5gb 4 1" "ci 0 9 0 0" \
              "gpu 1 mig 1" "gi 1 9 1g.5gb 0 2" "ci 1 9 0 0" "gi 1 10 1g.5gb 4 3" "ci 1 10 0 0" \
    > "$FAKE_NVML_STATE"
start_migschedd --slurm-reconcile 0 --slurm-node "$NODE" --slurm-sync 1
held=$(env "$TAG" sbatch --parsable --hold --mig=3 --gres=migslice:3 -o /dev/null --wrap true) ||
    fail "sbatch --hold"
[ "$(squeue -h -t PD -o '%i %b' | grep "^$held ")" = "$held gres:migslice:3" ] ||
    fail "squeue does not list job $held pending: $(squeue -h -t PD -o '%i %b')"
sleep 3  # the Slurm agent reads the pending jobs every second
two=$(env "$TAG" sbatch --parsable --mig=2 --gres=migslice:2 -o /dev/null --wrap true) || fail "sbatch --mig=2"
await "[ \"\$(field $two JobState)\" = COMPLETED ]" 60
at=$(api '/v1/jobs?state=done&limit=100' |
    jq -r --argjson j "$two" '.jobs[] | select(.slurm_job_id == $j) | "\(.gpu) \(.placement.start)"')
[ "$at" = "1 2" ] || fail "job $two's 2g.10gb went to GPU and start \"$at\", not 1 2"
scancel "$held"
echo "a 3g.20gb pending in Slurm: the 2g.10gb went to GPU 1 slot 2, keeping GPU 0's slots 0-3"
echo "slurm_admission: ok"
