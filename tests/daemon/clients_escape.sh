#!/usr/bin/env bash
# clients_escape.sh: terminal escapes from the daemon (ESC [ 2J, an OSC title, BEL, DEL, a
# C1 control, invalid UTF-8) in job names, users, profiles, reasons, GPU models and error messages
# are printed escaped by jobs, status, cancel and submit, as text and as --json: nothing
# but printable ASCII reaches the terminal.
# $1 = migsched, $3 = source dir.
M=$1 SRC=$3
. "$SRC/tests/daemon/lib.sh"
. "$SRC/tests/daemon/fake_migschedd.bash"
start_fake
C=(--connect "unix:$SOCK" --timeout 10)
# run 'CMD ARGS' RC: the command exits RC; stdout and stderr hold only plain text.
run() {
    client "$1"
    local rc=$?
    [ $rc = "$2" ] || fail "migsched $1 exited $rc: $(cat "$T/err")"
    plain_text "$T/out" "migsched $1 (stdout)"
    plain_text "$T/err" "migsched $1 (stderr)"
}
# ESC [ 2J (clear), OSC 0 (the window title) ended by BEL, DEL, U+009B (CSI), a newline.
evil='\u001b[2J\u001b]0;owned\u0007x\u007f\u009b31m\ny'
shown='\x1b[2J\x1b]0;owned\x07x\x7f\u009b31m\ny'
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 1 ".name = \"$evil\" | .user = \"\\u001b[1m$evil\" | .profile = \"\\u001bP1\" | .reason = \"\\u001b[5m$evil\"")], \"next\": null}"
run jobs 0
grep -qF "$shown" "$T/out" && grep -qF '\x1b[1m' "$T/out" && grep -qF '\x1bP1' "$T/out" &&
    grep -qF '\x1b[5m' "$T/out" || fail "jobs: $(cat "$T/out")"
run "jobs --json" 0
[ "$(jq -r '.jobs[0].name' "$T/out")" = "$(printf '\033[2J\033]0;owned\007x\177\302\23331m\ny')" ] || fail "jobs --json changed the name: $(cat "$T/out")"
routes 'POST /v1/jobs' 201 "$(job 2 ".name = \"$evil\"")"
run "submit --slices 1 --seconds 1 -- true" 0
grep -qF "submitted job 2 $shown" "$T/out" || fail "submit: $(cat "$T/out")"
run "submit --json --slices 1 --seconds 1 -- true" 0
routes 'DELETE /v1/jobs/2' 200 "$(job 2 ".name = \"$evil\" | .state = \"cancelled\"")"
run "cancel 2" 0
grep -qF "job 2 $shown: cancelled" "$T/out" || fail "cancel: $(cat "$T/out")"
# The daemon's errors.
routes 'DELETE /v1/jobs/3' 409 "{\"error\": \"job 3 $evil\"}"
run "cancel 3" 1
grep -qF "migsched: cancel: job 3 $shown (HTTP 409)" "$T/err" || fail "cancel's error: $(cat "$T/err")"
routes 'POST /v1/jobs' 400 "{\"error\": \"$evil\"}"
run "submit --slices 1 --seconds 1 -- true" 1
grep -qF "migsched: submit: $shown (HTTP 400)" "$T/err" || fail "submit's error: $(cat "$T/err")"
# status: a GPU's model and UUID, an instance's profile.
routes 'GET /v1/gpus' 200 "{\"gpus\": [{\"gpu\": 0, \"uuid\": \"GPU-$evil\", \"model\": \"$evil\", \"slots\": 8,
    \"slices\": 7, \"instances\": [{\"profile\": \"$evil\", \"placement\": {\"start\": 0}, \"size_slots\": 1,
    \"gi_id\": 1, \"mig_uuid\": \"MIG-1\", \"state\": \"idle\", \"job\": null}], \"fragmentation\": 0,
    \"busy_slices\": 0}]}" 'GET /v1/jobs' 200 '{"jobs": [], "next": null}'
run status 0
[ "$(grep -cF "$shown" "$T/out")" = 2 ] || fail "status: $(cat "$T/out")"
run "status --json" 0
# Invalid UTF-8 (a lone C1 byte, 0xff, ESC) in a body that is not JSON, and in an error.
jq -n '{"GET /v1/jobs": {status: 200, hex: "7b226a6f6273223a5b7b226e616d65223a22ff9b1b5b324a227d5d7d"},
        "DELETE /v1/jobs/4": {status: 502, hex: "9b1b5b324aff0a62616420676174657761790d"}}' > "$T/routes.json"
run jobs 1
grep -qF 'is not JSON' "$T/err" || fail "jobs, invalid UTF-8: $(cat "$T/err")"
run "cancel 4" 1
grep -qF 'without an error message (the reply began "\x9b\x1b[2J\xff\nbad gateway\r")' "$T/err" || fail "cancel, invalid UTF-8: $(cat "$T/err")"
echo "clients_escape: ok"
