#!/usr/bin/env bash
# slurm_admission.sh: how long Slurm jobs wait inside the SPANK plugin because the node
# Slurm admitted them to cannot place their MIG instance (docs/cluster.md, "What Slurm is
# told"). The private single-node Slurm of tests/slurm/lib.sh (root; 2 fake A100-40GB, 14
# count-only slices) runs one fixed stream of 24 batch jobs (--mig=1..7, 4-8 s each, one
# submitted every 0.5 s) with a plugin timeout of 600 s, so none fails; then, from
# migschedd's store, each allocation's wait (its start less the plugin's first ask) and from
# Slurm the time each job pended there, and the stream's makespan.
# usage (as root): bench/slurm_admission.sh MIGSCHED MIGSCHEDD SOURCE_DIR PLUGIN LABEL [MIGSCHEDD ARGS...]
# FAKE_NVML_DIR: the fake NVML's folder (build/tests/fake_nvml). The binaries may be another
# commit's (the same source dir's lib.sh starts them); "--slurm-node NODE" is replaced by
# this host's node name.
M=$1 DD=$2 SRC=$3 PLUGIN=$4 LABEL=$5
shift 5
. "$SRC/tests/slurm/lib.sh"
write_slurm_conf 14 600
start_slurm
args=()
for a in "$@"; do [ "$a" = NODE ] && a=$NODE; args+=("$a"); done
start_migschedd --slurm-reconcile 0 "${args[@]}"
# size:seconds, in submission order.
STREAM=(1:8 2:6 1:8 3:6 2:8 1:6 4:6 1:8 3:6 2:6 7:4 1:6 3:8 2:6 1:4 4:6 2:6 3:6 1:6 7:4
        2:6 3:6 1:6 4:4)
t0=$(date +%s.%N)
ids=()
for j in "${STREAM[@]}"; do
    IFS=: read -r size secs <<<"$j"
    id=$(env "$TAG" sbatch --parsable --mig="$size" --gres=migslice:"$size" -o /dev/null \
        --wrap "sleep $secs") && [ -n "$id" ] || fail "sbatch"
    ids+=("$id")
    sleep 0.5
done
await '[ -z "$(squeue -h -o %i)" ]' 600
t1=$(date +%s.%N)
bad=0
for id in "${ids[@]}"; do
    scontrol show job -o "$id" | grep -q 'JobState=COMPLETED' || bad=$((bad + 1))
done
# Slurm's pending time per job (whole seconds: SubmitTime, StartTime).
pend=$(for id in "${ids[@]}"; do
    scontrol show job -o "$id" | tr ' ' '\n' | sed -n 's/^\(SubmitTime\|StartTime\)=//p' |
        xargs -n2 sh -c 'echo $(( $(date -d "$1" +%s) - $(date -d "$0" +%s) ))'
done | awk '{ s += $1 } END { print s + 0 }')
api '/v1/jobs?state=done&limit=100' |
    jq -r '.jobs[] | select(.slurm_job_id != null) | (.started - .submitted)' |
    awk -v label="$LABEL" -v bad="$bad" -v pend="$pend" -v span="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
        { w[n++] = $1; s += $1; if ($1 > 0.5) { k++; ks += $1 } if ($1 > m) m = $1 }
        END { printf "%s | %d | %d | %d | %.1f | %.1f | %d | %.0f\n", label, n, bad, k, ks, m, pend, span }'
