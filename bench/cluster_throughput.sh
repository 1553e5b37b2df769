#!/bin/bash
# cluster_throughput.sh: how many --mig jobs a cluster of tests/cluster/cluster.sh (K nodes
# of 2 A100-40GB) runs per second when Slurm always has more queued: one job array per
# size (sbatch --array, so that submitting costs nothing), tasks that end at once, timed
# from the submission to the last job's end (jobcomp records counted). Prints one line per
# size: "size S: N jobs in T s, R jobs/s". As root, like the cluster.
# usage: bench/cluster_throughput.sh [JOBS per size] [NODES] [SIZES...] (300 4 1 3 7)
set -eu
S=$(cd "$(dirname "$0")/.." && pwd)
jobs=${1:-300}; nodes=${2:-4}; shift $(( $# < 2 ? $# : 2 ))
sizes=${*:-1 3 7}
tmp=$(mktemp -d)
trap 'bash "$S/tests/cluster/cluster.sh" stop "$tmp/c"; rm -rf "$tmp"' EXIT
bash "$S/tests/cluster/cluster.sh" start "$tmp/c" --nodes "$nodes" > /dev/null
. "$tmp/c/env"
for size in $sizes; do
    before=$(wc -l < "$tmp/c/jobcomp.txt" 2>/dev/null || echo 0)
    t0=$(date +%s.%N)
    sbatch -Q --array="1-$jobs" --gres=migslice:"$size" --mig="$size" -o /dev/null --wrap true
    while [ $(( $(wc -l < "$tmp/c/jobcomp.txt" 2>/dev/null || echo 0) - before )) -lt "$jobs" ]; do sleep 0.2; done
    t1=$(date +%s.%N)
    bad=$(tail -n "$jobs" "$tmp/c/jobcomp.txt" | grep -vc 'JobState=COMPLETED' || true)
    awk -v s="$size" -v n="$jobs" -v a="$t0" -v b="$t1" -v bad="$bad" \
        'BEGIN { printf "size %s: %d jobs in %.1f s, %.2f jobs/s (%d not COMPLETED)\n", s, n, b - a, n / (b - a), bad }'
done
