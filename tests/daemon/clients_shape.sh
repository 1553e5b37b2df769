#!/usr/bin/env bash
# clients_shape.sh: replies of the wrong shape make the client commands exit 1 naming the
# field (a missing or wrong-typed id, name, state, attempts, user, next, a GPU's field),
# a reply that is not JSON or not an object too; an error reply's message is shown with its
# HTTP status; a reply without end is cut off.
# $1 = migsched, $3 = source dir.
M=$1 SRC=$3
. "$SRC/tests/daemon/lib.sh"
. "$SRC/tests/daemon/fake_migschedd.bash"
start_fake
C=(--connect "unix:$SOCK" --timeout 10)
# expect 'CMD ARGS' 'PATTERN': the command exits 1 and says PATTERN on stderr.
expect() {
    client "$1"
    local rc=$?
    [ $rc = 1 ] || fail "migsched $1 exited $rc (stdout: $(cat "$T/out")) for $(cat "$T/routes.json")"
    grep -q -- "$2" "$T/err" || fail "migsched $1: expected '$2' in: $(cat "$T/err")"
}
SUBMIT="submit --slices 1 --seconds 1 -- true"
gpus='{"gpus": [{"gpu": 0, "uuid": "GPU-0", "model": "A100-40GB", "slots": 8, "slices": 7,
  "instances": [{"profile": "1g.5gb", "placement": {"start": 0}, "size_slots": 1, "gi_id": 9,
  "mig_uuid": "MIG-0", "state": "busy", "job": 1}], "fragmentation": 0.5, "busy_slices": 1}]}'

# 1. submit: the job it prints.
routes 'POST /v1/jobs' 201 '{"id": 3}'
expect "$SUBMIT" 'malformed reply.*name: missing'
routes 'POST /v1/jobs' 201 "$(job 3 '.id = "3"')"
expect "$SUBMIT" 'malformed reply.*id: expected a positive integer'
routes 'POST /v1/jobs' 201 "$(job 0)"
expect "$SUBMIT" 'malformed reply.*id: expected a positive integer'
routes 'POST /v1/jobs' 201 "$(job 3 '.state = "sleeping"')"
expect "$SUBMIT" 'malformed reply.*state: expected queued, running, done, failed or cancelled'
routes 'POST /v1/jobs' 201 '[3]'
expect "$SUBMIT" 'malformed reply.*expected a JSON object'
routes 'POST /v1/jobs' 201 'submitted'
expect "$SUBMIT" 'POST /v1/jobs: the reply of migschedd at unix:.* is not JSON'
# 2. jobs: each job and the page.
routes 'GET /v1/jobs' 200 '{"jobs": {}}'
expect jobs 'malformed reply.*jobs: expected an array'
routes 'GET /v1/jobs' 200 '{"next": null}'
expect jobs 'malformed reply.*jobs: missing'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1), $(job 2 'del(.name)')], \"next\": null}"
expect jobs 'malformed reply.*jobs\[1\].name: missing'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 '.attempts = -1')], \"next\": null}"
expect jobs 'malformed reply.*jobs\[0\].attempts: expected a non-negative integer'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 '.user = 7')], \"next\": null}"
expect jobs 'malformed reply.*jobs\[0\].user: expected a string'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 '.gpu = 0')], \"next\": null}"
expect jobs 'malformed reply.*jobs\[0\].placement: expected an object'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 '.exit_status = "0"')], \"next\": null}"
expect jobs 'malformed reply.*jobs\[0\].exit_status: expected an integer or null'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1)], \"next\": 2}"
expect jobs 'malformed reply.*next: expected'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1)], \"next\": \"http://elsewhere/v1/jobs?after=1\"}"
expect jobs 'malformed reply.*next: expected'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1)], \"next\": null}"
"$M" jobs "${C[@]}" > "$T/out" || fail "jobs with a good reply: $(cat "$T/out")"
# 3. cancel: the job after.
routes 'DELETE /v1/jobs/1' 200 "$(job 1 '.state = 5')"
expect "cancel 1" 'malformed reply.*state: expected'
routes 'DELETE /v1/jobs/1' 200 "$(job 1 'del(.id)')"
expect "cancel 1" 'malformed reply.*id: missing'
# 4. status: the GPUs and the jobs.
routes 'GET /v1/gpus' 200 "$(jq -c '.gpus[0] |= del(.busy_slices)' <<<"$gpus")" 'GET /v1/jobs' 200 '{"jobs": [], "next": null}'
expect status 'malformed reply.*gpus\[0\].busy_slices: missing'
routes 'GET /v1/gpus' 200 "$(jq -c '.gpus[0].instances[0].state = "lost"' <<<"$gpus")" 'GET /v1/jobs' 200 '{"jobs": [], "next": null}'
expect status 'malformed reply.*gpus\[0\].instances\[0\].state: expected'
routes 'GET /v1/gpus' 200 "$(jq -c '.gpus[0].model = null' <<<"$gpus")" 'GET /v1/jobs' 200 '{"jobs": [], "next": null}'
expect status 'malformed reply.*gpus\[0\].model: expected a string'
routes 'GET /v1/gpus' 200 "$gpus" 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 '.state = null')], \"next\": null}"
expect status 'malformed reply.*jobs\[0\].state: expected'
routes 'GET /v1/gpus' 200 "$gpus" 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1)], \"next\": null}"
"$M" status "${C[@]}" > "$T/out" || fail "status with good replies: $(cat "$T/out")"
# 5. Errors: the daemon's message and status; one without a message named by its status.
routes 'DELETE /v1/jobs/3' 403 '{"error": "job 3 belongs to alice: only its owner or an admin may cancel it"}'
expect "cancel 3" '^migsched: cancel: job 3 belongs to alice: only its owner or an admin may cancel it (HTTP 403)$'
routes 'GET /v1/jobs' 500 'Internal Server Error'
expect jobs '^migsched: jobs: GET /v1/jobs: HTTP 500 from migschedd at unix:.* without an error message (the reply began "Internal Server Error")$'
routes 'GET /v1/jobs' 429 '{"error": 5}'
expect jobs 'HTTP 429 from migschedd at unix:.* without an error message'
# 6. A reply that never ends.
echo '{"GET /v1/jobs": {"hang": "flood"}}' > "$T/routes.json"
expect jobs 'GET /v1/jobs: the reply of migschedd at unix:.* is over 256 MiB'
echo "clients_shape: ok"
