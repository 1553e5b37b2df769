#!/usr/bin/env bash
# e2e_sim.sh: migschedd with the sim backend on loopback. Bad requests get the right 4xx
# (malformed, unknown field, 413, 404, 405 with Allow, 401 on TCP without or with a wrong
# token) and the daemon keeps serving; a second daemon on the same socket is refused;
# SIGHUP applies a live key and refuses a restart-only one; 1,000 jobs submitted
# concurrently by 8 `migsched submit` processes; SIGKILL mid-run and a restart; every job
# completes exactly once with its whole transition history (store + API); SIGTERM stops
# cleanly and removes the socket.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v sqlite3 >/dev/null || fail "sqlite3 is missing (make deps)"

TOKEN=0123456789abcdef0123456789abcdef
printf 'root %s\n' "$TOKEN" > "$T/token"
chmod 600 "$T/token"
write_conf() {  # $1: log level, $2: GPUs
    cat > "$T/d.conf" <<CONF
backend sim
gpu A100-40GB
gpus $2
listen unix:$SOCK
listen tcp:127.0.0.1:$PORT
token-file $T/token
db $T/d.db
time-scale 400
allow-root-jobs true
log-level $1
CONF
}
write_conf info 2
start_daemon --config "$T/d.conf"
URL=http://127.0.0.1:$PORT

# 1. Bad requests: the right status and message, and the daemon keeps serving.
check() {  # $1 expected status, $2 a text the body must hold, then curl's arguments
    local want=$1 text=$2
    shift 2
    local r
    r=$(ucurl "$@")
    [ "$(status_of "$r")" = "$want" ] || fail "$* -> $(status_of "$r"), expected $want: $(body_of "$r")"
    grep -qF -- "$text" <<<"$(body_of "$r")" || fail "$* -> body lacks '$text': $(body_of "$r")"
}
check 400 'job:' -X POST -d '{"name": "x",' http://d/v1/jobs
check 400 'unknown' -X POST -d '{"name":"x","command":["true"],"profile":"1g.5gb","seconds":1,"gpus":2}' http://d/v1/jobs
check 400 'A100-40GB has no profile' -X POST -d '{"name":"x","command":["true"],"profile":"3g.40gb","seconds":1}' http://d/v1/jobs
check 400 'seconds' -X POST -d '{"name":"x","command":["true"],"profile":"1g.5gb","seconds":-1}' http://d/v1/jobs
head -c 70000 /dev/zero | tr '\0' ' ' > "$T/big.json"
check 413 'request body over 65536 bytes' -X POST --data-binary "@$T/big.json" http://d/v1/jobs
check 413 'request body over' -X POST -H 'Transfer-Encoding: chunked' --data-binary "@$T/big.json" http://d/v1/jobs
check 404 'no job' http://d/v1/jobs/999999
check 404 'no job \"abc\"' http://d/v1/jobs/abc
check 404 'no route' http://d/v2/nothing
check 405 'allowed: GET, POST' -X PUT http://d/v1/jobs
curl -s -D "$T/h" -o /dev/null --unix-socket "$SOCK" -X DELETE http://d/v1/gpus
grep -qi '^Allow: GET' "$T/h" || fail "405 without Allow"
check 400 'unknown state \"sleeping\"' 'http://d/v1/jobs?state=sleeping'
check 400 'unknown query argument \"colour\"' 'http://d/v1/jobs?colour=red'
r=$(curl -s -D "$T/h" -w '\n%{http_code}' "$URL/v1/jobs")
[ "$(status_of "$r")" = 401 ] || fail "tcp without a token: $(status_of "$r")"
grep -qi '^WWW-Authenticate: Bearer' "$T/h" || fail "401 without WWW-Authenticate"
r=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer ${TOKEN}x" "$URL/v1/jobs")
[ "$(status_of "$r")" = 401 ] || fail "tcp with a wrong token: $(status_of "$r")"
r=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $TOKEN" "$URL/v1/gpus")
[ "$(status_of "$r")" = 200 ] || fail "tcp with the token: $(status_of "$r")"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" = 200 ] || fail "healthz on tcp"
check 200 '"gpus"' http://d/v1/gpus

# The client's errors: the daemon's message after "migsched: CMD:", exit 1.
"$M" submit --profile 3g.40gb --seconds 5 --connect "unix:$SOCK" -- true 2> "$T/err"
[ $? = 1 ] && grep -q '^migsched: submit: job: profile: A100-40GB has no profile' "$T/err" \
    || fail "client error: $(cat "$T/err")"
"$M" jobs --connect "$URL" 2> "$T/err"
[ $? = 1 ] && grep -q '^migsched: jobs: missing or wrong bearer token' "$T/err" || fail "client 401"
"$M" jobs --connect "unix:$T/nothing.sock" 2> "$T/err"
[ $? = 1 ] && grep -q "cannot reach migschedd at unix:$T/nothing.sock" "$T/err" || fail "no socket"
"$M" cancel 999999 --connect "unix:$SOCK" 2> "$T/err"
[ $? = 1 ] && grep -q '^migsched: cancel: ' "$T/err" || fail "cancel of no job"

# 2. A second daemon on the same socket is refused and leaves the first alone.
"$DD" --config "$T/d.conf" --db "$T/other.db" 2> "$T/err2"
[ $? = 1 ] && grep -q 'another migschedd is listening' "$T/err2" || fail "second daemon: $(cat "$T/err2")"
check_log "$T/err2"
check 200 '"status":"ok"' http://d/healthz

# 3. SIGHUP: a live key applies; a key that needs a restart is refused and changes nothing.
write_conf debug 2
kill -HUP "$DPID"
await 'grep -q "event=config.reloaded" "$T/daemon.log"' 10
write_conf debug 3
kill -HUP "$DPID"
await 'grep -q "event=config.reload_refused.*gpus" "$T/daemon.log"' 10
write_conf info 2
kill -HUP "$DPID"
check 200 '"gpus"' http://d/v1/gpus

# 4. 1,000 jobs from 8 concurrent clients (125 each, one keep-alive connection per client).
PROFILES=(1g.5gb 2g.10gb 3g.20gb 1g.5gb 4g.20gb 1g.5gb 2g.10gb 7g.40gb)
for c in $(seq 0 7); do
    {
        printf '['
        for i in $(seq 0 124); do
            [ "$i" = 0 ] || printf ','
            printf '{"name":"c%d-j%d","command":["true"],"profile":"%s","seconds":%d}' \
                "$c" "$i" "${PROFILES[$(( (c + i) % 8 ))]}" $(( 2 + (c * 7 + i * 13) % 19 ))
        done
        printf ']\n'
    } > "$T/jobs$c.json"
done
pids=
for c in $(seq 0 7); do
    "$M" submit --file "$T/jobs$c.json" --connect "unix:$SOCK" > "$T/sub$c.out" 2> "$T/sub$c.err" &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a client failed: $(cat "$T"/sub*.err | head -3)"; done
cat "$T"/sub*.out | awk '{print $3}' | sort -u > "$T/ids"
[ "$(wc -l < "$T/ids")" = 1000 ] || fail "1000 distinct ids acknowledged: $(wc -l < "$T/ids") ($(cat "$T"/sub*.err | head -3))"

# 5. SIGKILL mid-run, restart: nothing acknowledged is lost, nothing runs twice.
await '[ "$(count_state done)" -ge 100 ]' 120
stop_daemon KILL 137
done_at_kill=$(sqlite3 "$T/d.db" "SELECT count(*) FROM jobs WHERE state='done'")
[ "$done_at_kill" -lt 1000 ] || fail "every job was done before the kill: no mid-run crash tested"
start_daemon --config "$T/d.conf"
await '[ "$(count_state done)" = 1000 ]' 300
echo "killed with $done_at_kill of 1000 done"

# Every job through the API: done, once.
ucurl http://d/v1/jobs | sed '$d' > "$T/jobs.json"
python3 - "$T/jobs.json" "$T/ids" <<'PY' || fail "API check"
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
ids = {int(x) for x in open(sys.argv[2]).read().split()}
assert {j["id"] for j in jobs} == ids, "the jobs are not the ones acknowledged"
names = [j["name"] for j in jobs]
assert len(set(names)) == 1000, "a job was doubled"
bad = [j for j in jobs if j["state"] != "done" or j["exit_status"] != 0 or j["attempts"] < 1]
assert not bad, bad[:3]
PY
check_history "$T/d.db" 1000
cat "$T/history"
grep -q 'interrupted runs requeued: [1-9]' "$T/history" || echo "note: no run was in flight at the kill"

# 6. Clean stop: exit 0, socket removed, and the daemon restarts on the same database.
stop_daemon TERM 0
[ ! -e "$SOCK" ] || fail "socket left after SIGTERM"
echo "e2e_sim: ok"
