#!/usr/bin/env bash
# migsched gpus / partitions: the expected counts (19 on A100, 5 on A30, 13 canonical).
set -euo pipefail
bin=$1
count() { "$bin" partitions "$@" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["partitions"]))'; }
check() { [ "$1" = "$2" ] || { echo "FAIL: $3: got $1, expected $2"; exit 1; }; }
check "$(count --gpu A100-40GB)" 19 "A100 partitions"
check "$(count --gpu H100-80GB)" 19 "H100 partitions"
check "$(count --gpu A30-24GB)" 5 "A30 partitions"
check "$(count --gpu A100-40GB --canonical)" 13 "A100 canonical"
check "$(count --gpu A30-24GB --canonical)" 4 "A30 canonical"
"$bin" partitions --gpu A100-40GB --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["gpu"] == "A100-40GB"
first = d["partitions"][0][0]
assert first == {"profile": "7g.40gb", "start_slot": 0, "size_slots": 8, "slices": 7}, first
'
"$bin" gpus | grep -q '^A30-24GB'
err=$(mktemp)
if "$bin" partitions --gpu V100 2>"$err"; then echo "FAIL: unknown GPU accepted"; exit 1; fi
grep -q "unknown GPU model 'V100'" "$err"
rm -f "$err"
"$bin" partitions --help | grep -q 'usage: migsched partitions'
echo "partitions: ok"
