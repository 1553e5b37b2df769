#!/usr/bin/env bash
# dashboard_metrics.sh: every metric the PromQL of dist/grafana-migsched.json names is one a
# live migschedd (sim, a job running) serves on /metrics or one of dcgm-exporter's documented
# counters (tests/data/dcgm_exporter_counters.csv), the dashboard joins DCGM's MIG series
# on(UUID, GPU_I_ID), and Prometheus's own parser takes every query (promtool check rules).
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2 SRC=$3
. "$SRC/tests/daemon/lib.sh"
command -v promtool >/dev/null || { echo "SKIP: promtool missing (make deps installs prometheus)"; exit 77; }
DASH=$SRC/dist/grafana-migsched.json
start_daemon --allow-root-jobs true --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" \
    --db "$T/d.db" --on-stop requeue  # the long job goes back to the queue at the stop
"$M" submit --connect "unix:$SOCK" --profile 2g.10gb --seconds 100000 --name long -- true > /dev/null \
    || fail "submit"
await '[ "$(count_state running)" = 1 ]' 30
r=$(ucurl http://d/metrics)
[ "$(status_of "$r")" = 200 ] || fail "GET /metrics: $(status_of "$r")"
body_of "$r" > "$T/metrics.txt"
python3 "$SRC/tests/daemon/dashboard_check.py" "$DASH" "$T/metrics.txt" \
    "$SRC/tests/data/dcgm_exporter_counters.csv" "$T/rules.yml" > "$T/check.out" \
    || fail "dashboard: $(grep -v '(migschedd)\|(dcgm-exporter)' "$T/check.out")"
grep -q ': DCGM_FI_PROF_GR_ENGINE_ACTIVE (dcgm-exporter)$' "$T/check.out" || fail "no DCGM_FI_PROF_GR_ENGINE_ACTIVE query"
grep -q ': migsched_job_start_time_seconds (migschedd)$' "$T/check.out" || fail "no per-job query"
grep -q 'DCGM_FI_PROF_GR_ENGINE_ACTIVE{[^}]*} \* on(UUID, GPU_I_ID) group_left' "$DASH" \
    || fail "DCGM's engine activity is not joined on(UUID, GPU_I_ID)"
promtool check rules "$T/rules.yml" > "$T/promtool.out" 2>&1 || fail "promtool: $(cat "$T/promtool.out")"
stop_daemon TERM 0
echo "dashboard_metrics: ok ($(tail -1 "$T/check.out"))"
