#!/usr/bin/env bash
# metrics_promtool.sh: GET /metrics of a live migschedd (sim, jobs running and done) passes
# Prometheus's own parser and linter (`promtool check metrics`, Debian's prometheus package)
# and holds the series docs/daemon.md lists, with DCGM exporter's label set on every GPU,
# instance and running-job series.
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
# DCGM exporter's labels of a GPU: the sim backend's minor number is its index and its PCI
# bus id is made up from it.
GPU0='gpu="0",UUID="GPU-[0-9a-f-]+",pci_bus_id="00000000:01:00.0",device="nvidia0",modelName="simulated A100-40GB"'
ANYGPU='gpu="[01]",UUID="GPU-[0-9a-f-]+",pci_bus_id="00000000:0[12]:00.0",device="nvidia[01]",modelName="simulated A100-40GB"'
r=$(ucurl http://d/metrics)
[ "$(status_of "$r")" = 200 ] || fail "GET /metrics: $(status_of "$r")"
body_of "$r" > "$T/metrics.txt"
curl -s -D - -o /dev/null --unix-socket "$SOCK" http://d/metrics | grep -qi '^Content-Type: text/plain; version=0.0.4' \
    || fail "content type"
# promtool parses it (exit 1 on any error) and lints it (exit 3): its one finding may be
# DCGM's camelCase modelName, which joining dcgm-exporter's series needs; no other label is
# camelCase, and nothing else is found.
rc=0
promtool check metrics < "$T/metrics.txt" > "$T/promtool.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "promtool (exit $rc): $(cat "$T/promtool.out")"
! grep -v "^migsched_[a-z_]* label names should be written in 'snake_case' not 'camelCase'$" "$T/promtool.out" \
    || fail "promtool: $(cat "$T/promtool.out")"
camel=$(grep -o '[{,][A-Za-z_]*=' "$T/metrics.txt" | tr -d '{,=' | grep '^[a-z][a-z0-9]*[A-Z]' | sort -u)
[ "$camel" = modelName ] || fail "camelCase labels: $camel"
for re in '^migsched_jobs{state="done"} 3$' '^migsched_jobs{state="running"} 2$' '^migsched_running_jobs 2$' \
          '^migsched_jobs_submitted_total 5$' '^migsched_reconfigurations_total [1-9]' \
          '^migsched_job_wait_seconds_count 5$' '^migsched_job_turnaround_seconds_count 3$' \
          '^migsched_instance_creation_seconds_bucket{le="\+Inf"} [1-9]' \
          "^migsched_gpu_fragmentation{$GPU0,Hostname=\"[^\"]+\"} " \
          '^migsched_gpu_busy_slices{gpu="[01]",UUID=.*} [1-9]' \
          "^migsched_instance_busy{$ANYGPU,GPU_I_PROFILE=\"3g.20gb\",GPU_I_ID=\"[0-9]+\",Hostname=\"[^\"]+\",start=\"[0-9]\",user=\"root\"} 1$" \
          "^migsched_job_start_time_seconds{$ANYGPU,GPU_I_PROFILE=\"2g.10gb\",GPU_I_ID=\"[0-9]+\",Hostname=\"[^\"]+\",id=\"[45]\",user=\"root\",job=\"long-2g.10gb\",slurm_job=\"\"} 1[0-9]{9}\.[0-9]{3}$" \
          '^# TYPE migsched_job_wait_seconds histogram$'; do
    grep -Eq "$re" "$T/metrics.txt" || fail "no line matching $re in: $(cat "$T/metrics.txt")"
done
# One job series per running job; every GPU and instance series has DCGM's labels.
[ "$(grep -c '^migsched_job_start_time_seconds{' "$T/metrics.txt")" = 2 ] || fail "not one series per running job"
! grep -E '^migsched_(gpu_fragmentation|gpu_busy_slices|instance_busy|job_start_time_seconds)\{' "$T/metrics.txt" | grep -Ev "^[a-z_]+\{$ANYGPU," \
    || fail "a GPU series without DCGM's labels"
stop_daemon TERM 0  # on-stop requeue: the long jobs go back to the queue
echo "metrics_promtool: ok"
