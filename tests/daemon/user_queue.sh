#!/usr/bin/env bash
# user_queue.sh: one user cannot grow the daemon without bound, and GET /v1/jobs comes a
# page at a time (sim backend, a throwaway user A). A submits 2,000 jobs of about 57 KB in
# one bounded run of curl: those past user-queue-bytes (16 MiB) get 429 naming the limit and
# the user, and migschedd's VmRSS stays under 80 MB (unlimited, the same run took it past
# 120 MB). A follows the pages (limit, after, next) through its jobs, the filters (user,
# state) select, bad arguments get 400 naming them, and reading every page keeps the daemon
# under the same bound. user-queue-limit, changed by a SIGHUP, applies to the next
# submission.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
. "$3/tests/daemon/users_lib.sh"
UA=msqa$SUFFIX UB=msqb$SUFFIX
new_user "$UA"
new_user "$UB"
cat > "$T/d.conf" <<CONF
backend sim
gpu A100-40GB
gpus 1
listen unix:$SOCK
db $T/d.db
on-stop requeue
slurm-reconcile 0
CONF
start_daemon --config "$T/d.conf"
open_socket
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$DPID/status"; }
BOUND_KB=80000
# Under a sanitizer (ASan's quarantine and shadow memory) the bound means nothing: not checked.
rss_within() { [ -n "${MIGSCHED_SANITIZED:-}" ] || [ "$(rss_kb)" -lt $BOUND_KB ]; }
echo "VmRSS at start: $(rss_kb) kB"

# One job of about 57 KB (its env), on the whole GPU: the first runs, the others queue.
python3 - "$T/big.json" <<'PY'
import json, sys
env = {"V%d" % i: "x" * 4000 for i in range(14)}
json.dump({"name": "big", "command": ["true"], "profile": "7g.40gb", "seconds": 36000,
           "env": env}, open(sys.argv[1], "w"))
PY
SIZE=$(stat -c %s "$T/big.json")
URLS=$(for _ in $(seq 2000); do printf 'http://d/v1/jobs '; done)
# shellcheck disable=SC2086  # one URL per word: curl posts the body to each in turn
setpriv --reuid="$UA" --regid="$(id -g "$UA")" --init-groups \
    curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
    --data-binary @"$T/big.json" $URLS > "$T/codes"
OK=$(grep -c '^201$' "$T/codes") FULL=$(grep -c '^429$' "$T/codes")
echo "$SIZE-byte jobs: $OK accepted, $FULL refused (429); VmRSS $(rss_kb) kB"
[ $((OK + FULL)) = 2000 ] || fail "other answers: $(sort "$T/codes" | uniq -c)"
# 16 MiB of queued specs (the running one is not queued), give or take the JSON's spacing.
[ "$OK" -ge 250 ] && [ "$OK" -le $((16777216 / (SIZE - 200) + 1)) ] || fail "$OK accepted"
r=$(ucurl_as "$UA" -X POST --data-binary @"$T/big.json" http://d/v1/jobs)
[ "$(status_of "$r")" = 429 ] && grep -q "user $UA's queued jobs hold [0-9]* bytes of specs; this one's [0-9]* would pass user-queue-bytes (16777216)" <<<"$r" \
    || fail "429 message: $r"
rss_within || fail "VmRSS $(rss_kb) kB after the submissions"
# Another user is not held back.
r=$(ucurl_as "$UB" -X POST -d '{"name": "b", "command": ["true"], "profile": "1g.5gb", "seconds": 1}' http://d/v1/jobs)
[ "$(status_of "$r")" = 201 ] || fail "B refused: $r"

# Pages of 100 as A (who sees the specs), following next: every job once, by id.
next="/v1/jobs?user=$UA&limit=100" pages=0
: > "$T/ids"
while [ "$next" != null ]; do
    r=$(ucurl_as "$UA" "http://d$next")
    [ "$(status_of "$r")" = 200 ] || fail "GET $next: $r"
    body_of "$r" | jq -r '.jobs[].id' >> "$T/ids"
    [ "$(body_of "$r" | jq '.jobs | length')" -le 100 ] || fail "page over the limit"
    next=$(body_of "$r" | jq -r .next)
    pages=$((pages + 1))
    [ "$pages" -le 10 ] || fail "more pages than jobs"
done
[ "$(wc -l < "$T/ids")" = "$OK" ] && sort -n -c "$T/ids" || fail "pages: $(wc -l < "$T/ids") ids, want $OK in order"
echo "$pages pages of 100; VmRSS $(rss_kb) kB"
r=$(ucurl_as "$UA" "http://d/v1/jobs?user=$UA")  # the default page: 4 MiB of specs, then next
n=$(body_of "$r" | jq '.jobs | length')
[ "$n" -ge 60 ] && [ "$n" -lt "$OK" ] && [ "$(body_of "$r" | jq -r .next)" = "/v1/jobs?after=$(body_of "$r" | jq '.jobs[-1].id')&limit=1000&user=$UA" ] &&
    [ "$(body_of "$r" | wc -c)" -lt 5000000 ] || fail "default page: $n jobs, next $(body_of "$r" | jq -r .next)"
rss_within || fail "VmRSS $(rss_kb) kB after reading the pages"
echo "default page: $n jobs in $(body_of "$r" | wc -c) bytes; VmRSS $(rss_kb) kB"
r=$(ucurl_as "$UB" "http://d/v1/jobs?limit=2&state=queued&user=$UA")
[ "$(body_of "$r" | jq -r .next)" = "/v1/jobs?after=3&limit=2&state=queued&user=$UA" ] || fail "next: $r"
body_of "$r" | jq -e '[.jobs[] | select(.spec)] | length == 0' > /dev/null || fail "B sees specs"
r=$(ucurl "http://d/v1/jobs?state=running")
[ "$(body_of "$r" | jq '[.jobs[].state] | unique')" = '[
  "running"
]' ] || fail "state filter: $r"
[ "$(body_of "$(ucurl "http://d/v1/jobs?user=$UB")" | jq '.jobs | length')" = 1 ] || fail "user filter"
[ "$(body_of "$(ucurl "http://d/v1/jobs?user=nobody$SUFFIX")" | jq -c .)" = '{"jobs":[],"next":null}' ] || fail "no such user"
for bad in 'limit=0:limit: must be an integer 1..1000' 'limit=1001:limit: must be an integer' \
           'after=x:after: must be a job id' 'state=asleep:unknown state' 'user=:user: must be' \
           'limit=2&limit=3:limit: is given twice' 'page=2:unknown query argument \"page\"'; do
    r=$(ucurl "http://d/v1/jobs?${bad%%:*}")
    [ "$(status_of "$r")" = 400 ] && grep -qF "${bad#*:}" <<<"$r" || fail "?${bad%%:*}: $r"
done

# user-queue-limit is live: lowered by a SIGHUP, B's next job is refused.
echo "user-queue-limit 1" >> "$T/d.conf"
kill -HUP "$DPID"
await 'grep -q "event=engine.reload.*user_queue_limit=1 " "$T/daemon.log"' 10
r=$(ucurl_as "$UB" -X POST -d '{"name": "b2", "command": ["true"], "profile": "1g.5gb", "seconds": 1}' http://d/v1/jobs)
[ "$(status_of "$r")" = 429 ] && grep -qF "user $UB has 1 jobs queued already (user-queue-limit 1)" <<<"$r" \
    || fail "user-queue-limit after SIGHUP: $r"
stop_daemon TERM 0
echo "user_queue: ok"
