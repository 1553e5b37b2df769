# fake_migschedd.bash: what the client tests against a misbehaving daemon share (sourced
# after lib.sh, with $SRC the source dir): the fake (fake_migschedd.py) on $SOCK answering
# from $T/routes.json, a well-formed job, routes, and a check that output is plain text.
# Starts the fake; its requests go to $T/requests. lib.sh's cleanup kills it.
start_fake() {
    echo '{}' > "$T/routes.json"
    DPID=$(python3 "$SRC/tests/daemon/fake_migschedd.py" "$SOCK" "$T/routes.json" "$T/requests") ||
        fail "the fake daemon did not start"
}
# job ID [JQ]: a job as GET /v1/jobs/ID shows it (owned by alice, queued), changed by JQ.
job() {
    jq -nc --argjson id "$1" '{id: $id, name: "job\($id)", user: "alice", state: "queued",
        attempts: 0, submitted: 1.5, started: null, ended: null, gpu: null, profile: "1g.5gb",
        placement: null, mig_uuid: null, exit_status: null, slurm_job_id: null} | '"${2:-.}"
}
# routes 'METHOD TARGET' STATUS JSON ['METHOD TARGET' STATUS JSON]...: the fake's answers.
routes() {
    local r='{}'
    while [ $# -ge 3 ]; do
        r=$(jq -c --arg k "$1" --argjson s "$2" --arg b "$3" '.[$k] = {status: $s, body: $b}' <<<"$r")
        shift 3
    done
    echo "$r" > "$T/routes.json"
}
# Fails unless the file holds only printable ASCII and newlines.
plain_text() {
    [ "$(LC_ALL=C tr -d '\040-\176\n' < "$1" | wc -c)" = 0 ] ||
        fail "$2: raw control or non-ASCII bytes: $(cat -v "$1" | head -5)"
}
# client 'CMD ARGS': `migsched CMD ARGS` with the options in C, stopped by a guard if it
# hangs; stdout and stderr in $T/out and $T/err; its exit status is client's.
client() {
    local cmd=${1%% *}
    timeout 20 "$M" $cmd "${C[@]}" ${1#"$cmd"} > "$T/out" 2> "$T/err"
}
