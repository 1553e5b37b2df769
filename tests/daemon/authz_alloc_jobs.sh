#!/usr/bin/env bash
# authz_alloc_jobs.sh: a Slurm job's allocation is a job owned by the Slurm job's user, but
# only root and slurm-user manage it: its user cannot cancel it through DELETE /v1/jobs/ID
# (403, the allocation still held), which would free the instance the Slurm job was told to
# use while its steps still run there; root and admins still can.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
. "$3/tests/daemon/users_lib.sh"
UA=msa$SUFFIX
new_user "$UA"
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --slurm-gres none --slurm-reconcile 0 --on-stop requeue
open_socket
r=$(ucurl -X PUT -d "{\"profile\": \"1g.5gb\", \"user\": \"$UA\"}" http://d/v1/allocations/43/steps/0)
[ "$(status_of "$r")" = 200 ] || fail "no allocation: $r"
ID=$(body_of "$(ucurl_as "$UA" "http://d/v1/jobs?user=$UA")" | jq '.jobs[] | select(.slurm_job_id == 43) | .id')
[ -n "$ID" ] || fail "the allocation is not among $UA's jobs"
r=$(ucurl_as "$UA" -X DELETE "http://d/v1/jobs/$ID")
[ "$(status_of "$r")" = 403 ] && grep -qF "allocation" <<<"$(body_of "$r")" ||
    fail "the Slurm job's user cancelled its allocation through /v1/jobs: $r"
r=$(ucurl http://d/v1/allocations/43)
[ "$(status_of "$r")" = 200 ] && grep -qF '"steps":[0]' <<<"$(body_of "$r")" ||
    fail "the allocation is gone: $r"
r=$(ucurl -X DELETE "http://d/v1/jobs/$ID")
[ "$(status_of "$r")" = 200 ] || fail "root cannot cancel the allocation's job: $r"
stop_daemon TERM 0
echo "authz_alloc_jobs: ok"
