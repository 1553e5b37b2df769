#!/usr/bin/env bash
# destroy_failed.sh: an idle instance in a job's way cannot be destroyed four times in a
# row (the fake NVML's FAKE_NVML_FAIL): instance.destroy_failed is logged once with its
# error and once with the count when the destruction succeeds, not once per try; then the
# job runs. $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
use_fake_nvml
export FAKE_NVML_FAIL=nvmlGpuInstanceDestroy:1,nvmlGpuInstanceDestroy:2,nvmlGpuInstanceDestroy:3,nvmlGpuInstanceDestroy:4
mkdir "$T/logs"
start_daemon --backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db" \
    --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none
submit() {
    local r
    r=$(ucurl -X POST -d '{"name": "'$1'", "command": ["true"], "profile": "'$2'", "seconds": 1}' http://d/v1/jobs)
    [ "$(status_of "$r")" = 201 ] || fail "submit $1: $r"
}
submit small 1g.6gb
await '[ "$(count_state done)" = 1 ]'
submit whole 4g.24gb  # the small job's idle instance is in its way
await '[ "$(count_state done)" = 2 ]' 60
grep 'event=instance.destroy_failed' "$T/daemon.log"
lines=$(grep -c 'event=instance.destroy_failed' "$T/daemon.log")
[ "$lines" = 2 ] || fail "$lines instance.destroy_failed lines for 4 failed destructions"
grep -q 'event=instance.destroy_failed .*repeated=3 summary=recovered' "$T/daemon.log" ||
    fail "no summary with the count"
stop_daemon TERM 0
echo "destroy_failed: ok"
