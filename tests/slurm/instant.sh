#!/usr/bin/env bash
# instant.sh: the real single-node Slurm of lib.sh with accounting, migschedd setting each
# job's AdminComment (slurm-admin-comment, the default). Ten `sbatch --wrap true` jobs,
# which end as soon as their task starts, each get their AdminComment naming a 1g.5gb
# instance of the node (scontrol and sacct alike): the plugin starts a task only once its
# job's comment is set, so that no job finishes before it (Slurm refuses the update of a
# finished job). Prints how long the comments held the jobs back (migschedd's held=).
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
M=$1 DD=$2 PLUGIN=${4:-}
SLURM_ACCOUNTING=1
. "$3/tests/slurm/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing"
write_slurm_conf 14 30
start_slurm
start_migschedd
N=10
for k in $(seq $N); do
    env "$TAG" sbatch --parsable --mig=1 --gres=migslice:1 -J "t$k" -o /dev/null --wrap true \
        >> "$T/ids" || fail "sbatch t$k"
done
await '[ -z "$(squeue -h -o %i)" ]' 120
scontrol show job -o > "$T/slurm_jobs.txt"
[ "$(grep -c 'JobState=COMPLETED.*ExitCode=0:0' "$T/slurm_jobs.txt")" = $N ] ||
    fail "not every job completed: $(grep -v 'JobState=COMPLETED' "$T/slurm_jobs.txt" | cut -c1-300)"
await '[ "$(sinfo -h -n "$NODE" -o %T)" = idle ]' 60
await_sacct_comments 60 "$T"
python3 - "$T" <<'PY' || fail "AdminComments: see above"
import re, sys
T = sys.argv[1]
ids = [int(l) for l in open(T + "/ids")]
comments = dict(l.split() for l in open(T + "/sacct.comments"))
want = re.compile(r"migsched:profile=1g\.5gb,gpu=[01],gpu_uuid=GPU-[^,]+,mig_uuid=MIG-\S+$")
bad = {j: comments.get(str(j)) for j in ids if not want.match(comments.get(str(j), "-"))}
log = open(T + "/daemon.log").read()
refused = re.findall(r"event=slurm\.comment_failed .*", log)
assert not bad, "jobs without their AdminComment: %s; migschedd logged %s" % (bad, refused)
held = sorted(float(h) for h in re.findall(r"event=slurm\.comment slurm_job=\d+ held=([0-9.]+)", log))
assert len(held) == len(ids), "%d comments logged for %d jobs" % (len(held), len(ids))
print("%d instant jobs, each with its AdminComment; the comment held a job back %.1f ms "
      "(median), %.1f ms at most" % (len(ids), 1000 * held[len(held) // 2], 1000 * held[-1]))
PY
