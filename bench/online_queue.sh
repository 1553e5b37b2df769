#!/bin/bash
# online_queue.sh: the queue disciplines under load (docs/online.md, "Queue"): mean wait,
# mean turnaround and per-profile p99 wait (type 7 over the pooled jobs of every seed) on
# 4 x A100-40GB, for paper 002's Normal/Long workloads at offered loads 0.6-1.1 and the
# 3:3:2:1 1g/2g/3g/7g mix. Offered load = arrival rate x mean slices x mean work / (4 x 7).
# usage: bench/online_queue.sh MIGSCHED [JOBS] [SEEDS] [EXTRA OPTIONS...]
# (WORKLOADS="normal long mix", LOADS and QUEUES narrow the table; FIRST_SEED=1 by default)
set -eu
bin=$1; jobs=${2:-2000}; seeds=${3:-5}; shift $(( $# < 3 ? $# : 3 ))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# mean work: Normal 150 e^{0.18}, Long 2 x 150 e^{0.18} Phi(0.6) (docs/online.md)
normal=179.5830; long=260.6585
row() {  # label service mix mean_slices load queue [options]
    local label=$1 service=$2 mix=$3 slices=$4 load=$5 queue=$6; shift 6
    local work=$normal; [ "$service" = long ] && work=$long
    local mean; mean=$(awk -v s="$slices" -v w="$work" -v l="$load" 'BEGIN{printf "%.6f", s*w/(l*28)}')
    : >"$tmp/all.csv"
    for s in $(seq "${FIRST_SEED:-1}" $(( ${FIRST_SEED:-1} + seeds - 1 ))); do
        "$bin" online simulate --gpu A100-40GB --gpus 4 --arrival-mean "$mean" --jobs "$jobs" \
            --service "$service" ${mix:+--mix $mix} --seed "$s" --queue "$queue" "$@" \
            --csv "$tmp/j.csv" >/dev/null
        tail -n +2 "$tmp/j.csv" >>"$tmp/all.csv"
    done
    sort -t, -k3,3 -k7,7g "$tmp/all.csv" | awk -F, -v label="$label" -v load="$load" -v q="$queue" '
        function p99(p,   n, h, lo) { n = cnt[p]; h = (n - 1) * 0.99; lo = int(h)
            return lo >= n - 1 ? v[p, n - 1] : v[p, lo] + (h - lo) * (v[p, lo + 1] - v[p, lo]) }
        { if (!($3 in cnt)) ps[++np] = $3; v[$3, cnt[$3]++] = $7; wait += $7; turn += $9; n++ }
        END { printf "%s | %.2f | %s | %.0f | %.0f |", label, load, q, wait / n, turn / n
              for (i = 1; i <= np; i++) printf " %s %.0f", ps[i], p99(ps[i])
              printf "\n" }'
}
echo "workload | load | queue | mean wait s | mean turnaround s | p99 wait s by profile"
queues=${QUEUES:-fcfs-profile fcfs reserve}
for w in ${WORKLOADS:-normal long mix}; do
    for load in ${LOADS:-0.6 0.7 0.8 0.9 1.0 1.1}; do
        [ "$w" = mix ] && [ -z "${LOADS:-}" ] && load=1.05
        for q in $queues; do
            if [ "$w" = mix ]; then
                row "3:3:2:1" normal "1g.5gb:3,2g.10gb:3,3g.20gb:2,7g.40gb:1" 2.444444 "$load" "$q" "$@"
            else
                row "$w" "$w" "" 2.5 "$load" "$q" "$@"
            fi
        done
        [ "$w" = mix ] && [ -z "${LOADS:-}" ] && break
    done
done
