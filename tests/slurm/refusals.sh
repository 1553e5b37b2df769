#!/usr/bin/env bash
# refusals.sh: the real single-node Slurm of lib.sh with a plugin timeout of 3 s and
# gpu_model=A100-40GB in plugstack.conf. A --mig size or profile the A100-40GB lacks is
# refused by srun and sbatch before they submit, listing the valid ones (Slurm makes no
# job); a --mig larger than the job's --gres=migslice:N is refused with a message saying so; a --mig that
# cannot be placed (someone else's instances hold slot 0 of both GPUs, so no 7g.40gb fits)
# fails its step after the timeout with a clear message, holds nothing in migschedd, does
# not drain the node, and leaves the foreign instances alone; a job that fits still runs; a
# step that cannot be confined to its instance's device nodes fails saying why; a job whose
# slurmstepd is killed is released by its epilog (reconciliation off); with
# migschedd down a --mig step fails cleanly too.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
M=$1 DD=$2 PLUGIN=${4:-}
. "$3/tests/slurm/lib.sh"
write_slurm_conf 14 3
sed -i 's/$/ gpu_model=A100-40GB/' "$T/plugstack.conf"
start_slurm
# Foreign 1g.5gb instances at slot 0 of each GPU (GPU instance 9, made by "someone else").
printf '%s\n' "gpu 0 mig 1" "gi 0 9 1g.5gb 0 1" "ci 0 9 0 0" \
              "gpu 1 mig 1" "gi 1 9 1g.5gb 0 2" "ci 1 9 0 0" > "$FAKE_NVML_STATE"
# No reconciliation: what releases an allocation here is the plugin alone.
start_migschedd --slurm-reconcile 0
node_state() { sinfo -h -n "$NODE" -o %T; }

# A size or a profile the node's GPU model lacks: refused before submission, no job made.
jobs_made() { scontrol -o show jobs 2>/dev/null | grep -c '^JobId=' || true; }
made=$(jobs_made)
rc=0
env "$TAG" srun -Q --mig=5 --gres=migslice:5 true > "$T/five.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "srun --mig=5 ran"
grep -q 'migsched: --mig=5: no GPU model of this cluster has an instance of 5 compute slices; valid: A100-40GB: 1, 2, 3, 4, 7 or a profile 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb' "$T/five.out" ||
    fail "srun --mig=5 was not refused with the valid sizes: $(cat "$T/five.out")"
rc=0
env "$TAG" sbatch --mig=3g.40gb --gres=migslice:3 -o /dev/null --wrap true > "$T/prof.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "sbatch --mig=3g.40gb was submitted: $(cat "$T/prof.out")"
grep -q 'migsched: --mig=3g.40gb: no GPU model of this cluster has the profile 3g.40gb; valid: A100-40GB' "$T/prof.out" ||
    fail "sbatch --mig=3g.40gb was not refused with the valid profiles: $(cat "$T/prof.out")"
[ "$(jobs_made)" = "$made" ] || fail "Slurm made a job for a refused --mig: $(scontrol -o show jobs)"
echo "refused at submission: $(grep -m1 -o 'migsched: --mig=5: [^;]*' "$T/five.out")"

# --mig above the job's slices: refused, and nothing allocated.
rc=0
env "$TAG" srun -Q --mig=4 --gres=migslice:2 true > "$T/big.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--mig=4 with --gres=migslice:2 ran"
grep -q 'migslice' "$T/big.out" || fail "the refusal does not name the GRES: $(cat "$T/big.out")"
echo "refused, exit $rc: $(grep -m1 migslice "$T/big.out")"
[ "$(live_allocs)" = 0 ] || fail "an allocation is held after the refusal"

# --mig=7 cannot be placed while the foreign instances are there: fails after the timeout.
rc=0
env "$TAG" srun -Q --mig=7 --gres=migslice:7 sh -c 'echo ran' > "$T/nofit.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--mig=7 ran beside the foreign instances: $(cat "$T/nofit.out")"
grep -q ran "$T/nofit.out" && fail "the task ran although its step failed"
grep -q 'no MIG instance for job [0-9]* within 3 s' "$T/nofit.out" ||
    fail "the failure does not say why: $(cat "$T/nofit.out")"
echo "unplaceable, exit $rc: $(grep -m1 'within 3 s' "$T/nofit.out")"
await '[ "$(live_allocs)" = 0 ]' 30
# Idle again once the job's epilog is done (a drained node would never be).
await '[ "$(node_state)" = idle ]' 60
grep -q '^gi 0 9 1g.5gb 0 1' "$FAKE_NVML_STATE" && grep -q '^gi 1 9 1g.5gb 0 2' "$FAKE_NVML_STATE" ||
    fail "a foreign instance was touched: $(cat "$FAKE_NVML_STATE")"

# A job that fits beside them still runs, in a 3g.20gb of its own.
out=$(env "$TAG" srun -Q --mig=3 --gres=migslice:3 sh -c 'echo "$CUDA_VISIBLE_DEVICES"') ||
    fail "--mig=3 failed after the refusals"
case $out in MIG-*) ;; *) fail "--mig=3 saw CUDA_VISIBLE_DEVICES=$out" ;; esac
await '[ "$(live_allocs)" = 0 ]' 30

# Device isolation that cannot be set up (the minors file lists no instance): the step
# fails saying why, runs nothing and holds nothing.
cp "$MINORS" "$T/minors.full"
grep -v '^gpu' "$T/minors.full" > "$MINORS"
rc=0
env "$TAG" srun -Q --mig=2 --gres=migslice:2 sh -c 'echo ran' > "$T/noiso.out" 2>&1 || rc=$?
cp "$T/minors.full" "$MINORS"
[ "$rc" != 0 ] || fail "a step ran without its device isolation"
grep -q ran "$T/noiso.out" && fail "the task ran although it could not be confined"
grep -q "device isolation: $MINORS lists no gpu" "$T/noiso.out" ||
    fail "the failure does not say why: $(cat "$T/noiso.out")"
echo "not confinable, exit $rc: $(grep -m1 'device isolation' "$T/noiso.out")"
await '[ "$(live_allocs)" = 0 ]' 30
await '[ "$(node_state)" = idle ]' 60

# slurmstepd killed: slurm_spank_exit never runs; once Slurm ends the job (scancel: Slurm
# alone notices a dead slurmstepd only much later) the job's epilog releases it.
job=$(env "$TAG" sbatch --parsable --mig=2 --gres=migslice:2 -o "$T/out/killed.out" --wrap 'sleep 120') ||
    fail "sbatch"
await '[ "$(api "/v1/jobs?state=running" | jq ".jobs | length")" = 1 ]' 60
stepd=
for p in $(tagged_pids); do
    tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" | grep -q "^slurmstepd: \[$job.batch\]" && stepd=$p
done
[ -n "$stepd" ] || fail "no slurmstepd for job $job"
kill -9 "$stepd"
scancel "$job"
await '[ "$(live_allocs)" = 0 ]' 60
grep -q "allocation.release .*slurm_job=$job by=epilog" "$T/daemon.log" ||
    fail "job $job's allocation was not released by its epilog: $(grep "slurm_job=$job" "$T/daemon.log")"
await '[ "$(node_state)" = idle ]' 60
echo "slurmstepd of job $job killed: released by the epilog"

# migschedd down: the step fails with a message, the node stays up.
end_pid "$DPID" 30
DPID=
rc=0
env "$TAG" srun -Q --mig=1 --gres=migslice:1 sh -c 'echo ran' > "$T/down.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--mig=1 ran without migschedd"
grep -q ran "$T/down.out" && fail "the task ran without migschedd"
grep -q 'migschedd\|d\.sock' "$T/down.out" || fail "the failure does not name migschedd: $(cat "$T/down.out")"
echo "migschedd down, exit $rc: $(grep -m1 'migschedd\|d\.sock' "$T/down.out")"
await '[ "$(node_state)" = idle ]' 60
echo "slurm_refusals: ok"
