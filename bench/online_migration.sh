#!/bin/bash
# online_migration.sh: sensitivity of paper 002's scheduler to the migration cost (docs/online.md,
# "Departure migration"): mean turnaround and migrations per run, averaged over seeds, on
# the four workloads of paper 002 (4 x A100-40GB, 500 jobs), for each cost with the
# cost-aware rule and the unconditional one, and without migration.
# usage: bench/online_migration.sh MIGSCHED [SEEDS] [COSTS...]
set -eu
bin=$1; seeds=${2:-10}; shift $(( $# < 2 ? $# : 2 ))
costs=${*:-1 10 30 120}
run() {  # service mean options... -> "turnaround migrations" averaged over seeds
    local service=$1 mean=$2; shift 2
    for s in $(seq 1 "$seeds"); do
        "$bin" online simulate --gpu A100-40GB --gpus 4 --arrival-mean "$mean" --jobs 500 \
            --service "$service" --seed "$s" --json "$@" | jq -r '"\(.mean_turnaround) \(.migrations)"'
    done | awk '{ t += $1; m += $2; n++ } END { printf "%.1f (%.1f)", t / n, m / n }'
}
echo "workload | no migration | cost s | cost-aware: turnaround s (migrations) | always: turnaround s (migrations)"
for w in "normal 25" "long 25" "normal 50" "long 50"; do
    set -- $w
    none=$(run "$1" "$2" --no-migration)
    for c in $costs; do
        echo "$1($2) | $none | $c | $(run "$1" "$2" --migration-cost "$c") | $(run "$1" "$2" --migration-cost "$c" --migration-rule always)"
    done
done
