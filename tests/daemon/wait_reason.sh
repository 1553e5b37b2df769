#!/usr/bin/env bash
# wait_reason.sh: a queued job's reason says why it still waits, as things are when asked,
# in GET /v1/jobs/{id}, GET /v1/jobs and `migsched jobs`: in online mode no GPU has room
# for its profile now (and how many queued jobs are ahead of it), in batch mode the next
# batch and when it is due. $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
reason() { ucurl "http://d/v1/jobs/$1" | sed '$d' | python3 -c 'import json, sys; print(json.load(sys.stdin)["reason"])'; }
submit() {
    local r
    r=$(ucurl -X POST -d '{"name": "'$1'", "command": ["true"], "profile": "'$2'", "seconds": '$3'}' http://d/v1/jobs)
    [ "$(status_of "$r")" = 201 ] || fail "submit $1: $r"
}

# Online: the whole GPU is taken for a minute; two jobs wait.
start_daemon --backend sim --gpu A30-24GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --time-scale 1 --allow-root-jobs true
submit big 4g.24gb 60
await '[ "$(count_state running)" = 1 ]'
submit next 4g.24gb 1
submit small 1g.6gb 1
[ "$(reason 2)" = "no GPU has room for 4g.24gb now; 0 queued jobs ahead of it" ] || fail "job 2: $(reason 2)"
[ "$(reason 3)" = "no GPU has room for 1g.6gb now; 1 queued job ahead of it" ] || fail "job 3: $(reason 3)"
ucurl 'http://d/v1/jobs?state=queued' | grep -q '"reason":"no GPU has room for 1g.6gb now; 1 queued job ahead of it"' ||
    fail "the list: $(ucurl 'http://d/v1/jobs?state=queued')"
"$M" jobs --connect "unix:$SOCK" | grep -q 'no GPU has room for 4g.24gb now' || fail "migsched jobs: $("$M" jobs --connect "unix:$SOCK")"
[ "$(reason 1)" = None ] || fail "the running job: $(reason 1)"
# Room again: they run; a finished job keeps no waiting reason.
ucurl -X DELETE http://d/v1/jobs/1 > /dev/null
await '[ "$(count_state done)" = 2 ]'
[ "$(reason 2)" = None ] || fail "job 2 once done: $(reason 2)"
stop_daemon TERM 0

# Batch: a job waits for the next batch, due batch-period after it came.
start_daemon --backend sim --gpu A30-24GB --gpus 1 --listen "unix:$SOCK" --db "$T/b.db" \
    --time-scale 1 --allow-root-jobs true --mode batch --batch-size 10 --batch-period 60
submit b1 1g.6gb 1
case "$(reason 1)" in
"waits for the next batch, due in 60 s" | "waits for the next batch, due in 59 s") ;;
*) fail "batch job 1: $(reason 1)" ;;
esac
stop_daemon TERM 0
echo "wait_reason: ok"
