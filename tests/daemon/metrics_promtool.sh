#!/usr/bin/env bash
# metrics_promtool.sh: GET /metrics of a live migschedd (sim, jobs running and done) passes
# Prometheus's own parser and linter (`promtool check metrics`, Debian's prometheus package)
# and holds the series docs/daemon.md lists, with DCGM's label names.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v promtool >/dev/null || { echo "SKIP: promtool missing (make deps installs prometheus)"; exit 77; }
start_daemon --allow-root-jobs true --backend sim --gpu A100-40GB --gpus 2 --listen "unix:$SOCK" --db "$T/d.db" --time-scale 50 \
    --on-stop requeue
for i in 1 2 3; do
    "$M" submit --connect "unix:$SOCK" --profile 1g.5gb --seconds 5 --name "short-$i" -- true > /dev/null || fail "submit"
done
for p in 3g.20gb 2g.10gb; do
    "$M" submit --connect "unix:$SOCK" --profile $p --seconds 100000 --name "long-$p" -- true > /dev/null || fail "submit"
done
await '[ "$(count_state done)" = 3 ] && [ "$(count_state running)" = 2 ]' 60
r=$(ucurl http://d/metrics)
[ "$(status_of "$r")" = 200 ] || fail "GET /metrics: $(status_of "$r")"
body_of "$r" > "$T/metrics.txt"
curl -s -D - -o /dev/null --unix-socket "$SOCK" http://d/metrics | grep -qi '^Content-Type: text/plain; version=0.0.4' \
    || fail "content type"
promtool check metrics < "$T/metrics.txt" > "$T/promtool.out" 2>&1 || fail "promtool: $(cat "$T/promtool.out")"
for re in '^migsched_jobs{state="done"} 3$' '^migsched_jobs{state="running"} 2$' '^migsched_running_jobs 2$' \
          '^migsched_jobs_submitted_total 5$' '^migsched_reconfigurations_total [1-9]' \
          '^migsched_job_wait_seconds_count 5$' '^migsched_job_turnaround_seconds_count 3$' \
          '^migsched_instance_creation_seconds_bucket{le="\+Inf"} [1-9]' \
          '^migsched_gpu_fragmentation{gpu="0",UUID="[^"]+",Hostname="[^"]+"} ' \
          '^migsched_gpu_busy_slices{gpu="[01]",UUID=.*} [1-9]' \
          '^migsched_instance_busy{gpu="[01]",UUID="[^"]+",Hostname="[^"]+",GPU_I_PROFILE="3g.20gb",GPU_I_ID="[0-9]+",start="[0-9]",user="root"} 1$' \
          '^# TYPE migsched_job_wait_seconds histogram$'; do
    grep -Eq "$re" "$T/metrics.txt" || fail "no line matching $re in: $(cat "$T/metrics.txt")"
done
stop_daemon TERM 0  # on-stop requeue: the long jobs go back to the queue
echo "metrics_promtool: ok"
