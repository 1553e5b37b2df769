#!/usr/bin/env bash
# metrics_listener.sh: listen-metrics on a non-loopback address (a dummy interface in a
# network namespace of the test's own): GET /metrics without a token, the running jobs'
# users and names in it; every other path 404, other methods 405, arguments 400, a token not
# looked at; its connections under peer-connections and request-timeout like any listener,
# so a scraper that holds connections open is cut and the API on the Unix socket answers
# throughout. $1 = migsched, $2 = migschedd, $3 = source dir.
if [ -z "${MIGSCHED_TEST_NETNS:-}" ]; then
    unshare --net true 2>/dev/null || { echo "SKIP: no network namespace (needs root)"; exit 77; }
    exec env MIGSCHED_TEST_NETNS=1 unshare --net bash "$0" "$@"
fi
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
# A private address (not 127.0.0.0/8, which listen-metrics would take as well) on the
# namespace's own interface.
ip link set lo up && ip addr add 10.77.0.1/32 dev lo || fail "no address in the namespace"
ADDR=10.77.0.1
URL=http://$ADDR:$PORT
start_daemon --allow-root-jobs true --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" \
    --db "$T/d.db" --listen-metrics "$ADDR:$PORT" --peer-connections 2 --request-timeout 2
"$M" submit --connect "unix:$SOCK" --profile 3g.20gb --seconds 100000 --name 'train "big" 1' \
    -- true > /dev/null || fail "submit"
await '[ "$(count_state running)" = 1 ]' 30

# Anyone may read /metrics there: no token (one sent is ignored).
code=$(curl -s -o "$T/m.txt" -w '%{http_code}' "$URL/metrics")
[ "$code" = 200 ] || fail "GET /metrics: $code"
grep -q '^migsched_running_jobs 1$' "$T/m.txt" || fail "no running job in: $(cat "$T/m.txt")"
grep -Eq '^migsched_job_start_time_seconds\{.*,GPU_I_PROFILE="3g.20gb",.*,user="root",job="train \\"big\\" 1",slurm_job=""\} ' "$T/m.txt" \
    || fail "the running job's series: $(grep job_start "$T/m.txt")"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer nonsense-token-value' "$URL/metrics")
[ "$code" = 200 ] || fail "GET /metrics with a token: $code"
# Nothing else.
for path in / /healthz /v1/jobs /v1/jobs/1 /v1/gpus /metrics/ /metricsx; do
    code=$(curl -s -o "$T/r" -w '%{http_code}' "$URL$path")
    [ "$code" = 404 ] || fail "GET $path on the metrics listener: $code $(cat "$T/r")"
done
for method in POST PUT DELETE; do
    code=$(curl -s -o /dev/null -D "$T/h" -w '%{http_code}' -X "$method" "$URL/metrics")
    [ "$code" = 405 ] && grep -qi '^Allow: GET' "$T/h" || fail "$method /metrics: $code $(cat "$T/h")"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$URL/v1/jobs/1")
[ "$code" = 404 ] || fail "DELETE /v1/jobs/1 on the metrics listener: $code"
[ "$(count_state running)" = 1 ] || fail "the job did not survive the metrics listener"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics?name=x")
[ "$code" = 400 ] || fail "GET /metrics?name=x: $code"

# A scraper holding connections: two (peer-connections) are kept until their deadline
# (request-timeout: nothing sent), a third is closed at once; the API answers meanwhile.
python3 - "$ADDR" "$PORT" "$T" <<'PY' &
import socket, sys
addr, port, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
held = [socket.create_connection((addr, port)) for _ in range(2)]
open(t + "/held", "w").close()
for s in held:  # the watchdog shuts them down: end of stream, however long we wait
    s.settimeout(60)
    assert s.recv(1) == b"", "a held connection got data"
open(t + "/cut", "w").close()
PY
HOLDER=$!
await '[ -e "$T/held" ]' 10
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$URL/metrics")
[ "$code" = 000 ] || fail "a third connection from the same address was served: $code"
[ "$(status_of "$(ucurl http://d/healthz)")" = 200 ] || fail "the API did not answer while the scraper held its connections"
await '[ -e "$T/cut" ]' 30
wait "$HOLDER" || fail "the held connections were not cut at their deadline"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")
[ "$code" = 200 ] || fail "GET /metrics after the cut: $code"
grep -q "event=http.peer_limit peer=$ADDR " "$T/daemon.log" || fail "no http.peer_limit line"
grep -q "event=http.request_timeout peer=$ADDR " "$T/daemon.log" || fail "no http.request_timeout line"
"$M" cancel --connect "unix:$SOCK" 1 > /dev/null || fail "cancel"
stop_daemon TERM 0
echo "metrics_listener: ok"
