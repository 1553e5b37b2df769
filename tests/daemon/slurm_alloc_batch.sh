#!/usr/bin/env bash
# slurm_alloc_batch.sh: a migschedd in mode batch makes no allocations: PUT
# /v1/allocations/{job}/steps/{step} answers 400 "allocations need mode online" before it
# asks Slurm anything (scontrol here fails, as on a node without Slurm, and is never
# called), and nothing is queued.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
FAKE=$T/bin
mkdir -p "$FAKE"
printf '#!/bin/sh\necho called >> "%s/scontrol_calls"\nexit 1\n' "$T" > "$FAKE/scontrol"
chmod +x "$FAKE/scontrol"
PATH="$FAKE:$PATH" start_daemon --backend sim --gpu A100-40GB --gpus 1 --mode batch \
    --listen "unix:$SOCK" --db "$T/d.db"
for body in '{"slices": 3}' '{"profile": "1g.5gb"}'; do
    r=$(ucurl -X PUT -d "$body" http://d/v1/allocations/42/steps/0)
    [ "$(status_of "$r")" = 400 ] || fail "batch mode PUT $body: $r"
    [ "$(body_of "$r" | jq -r .error)" = "allocations need mode online (this migschedd plans batches)" ] ||
        fail "batch mode message: $r"
done
[ ! -e "$T/scontrol_calls" ] || fail "Slurm was asked in mode batch"
[ "$(status_of "$(ucurl http://d/v1/allocations/42)")" = 404 ] || fail "an allocation was made"
[ "$(count_state queued)" = 0 ] || fail "something was queued"
stop_daemon TERM 0
echo "slurm_alloc_batch: ok"
