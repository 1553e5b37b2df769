# lib.sh: what the daemon's end-to-end tests share: a temporary folder, starting
# migschedd and waiting for it, curl over its Unix socket or TCP, and checks.
# Sourced by tests/daemon/*.sh with $M (migsched) and $DD (migschedd) set.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/fixtures_lib.sh"
T=$(mktemp -d)
DPID=
LOGFMT_CHECK=$(dirname "${BASH_SOURCE[0]}")/logfmt_check.py
# Whether every line in the files (by default $T/daemon.log, where start_daemon sends the
# daemon's stderr) is strict logfmt; says which lines are not.
log_ok() {
    local f=("$@")
    [ $# -gt 0 ] || { [ -f "$T/daemon.log" ] || return 0; f=("$T/daemon.log"); }
    python3 "$LOGFMT_CHECK" "${f[@]}" >&2 || { echo "FAIL: migschedd's log is not logfmt" >&2; return 1; }
}
# A test that captured the daemon's stderr elsewhere checks it too.
check_log() { log_ok "$@" || exit 1; }
# At every exit: the daemon killed, its log checked (a bad line fails the test), the folder
# removed.
cleanup() {
    [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
    local bad=0
    log_ok || bad=1
    rm -rf "$T"
    [ "$bad" = 0 ] || exit 1
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    [ -f "$T/daemon.log" ] && { echo "--- daemon log (tail)" >&2; tail -20 "$T/daemon.log" >&2; }
    exit 1
}
SOCK=$T/d.sock
# A TCP port for this run: free when the test starts (bind tells if not).
PORT=$(( 20000 + ($$ * 7 + RANDOM) % 30000 ))
# curl on the Unix socket: prints the body, the status code on the last line.
ucurl() { curl -s --unix-socket "$SOCK" -w '\n%{http_code}' "$@"; }
status_of() { tail -n1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }
# Starts migschedd with the arguments in the background (log in $T/daemon.log, appended)
# and waits until it answers on the socket.
start_daemon() {
    "$DD" "$@" >>"$T/daemon.log" 2>&1 &
    DPID=$!
    await '[ "$(curl -s -o /dev/null -w "%{http_code}" --unix-socket "$SOCK" http://d/healthz)" = 200 ] || ! kill -0 $DPID 2>/dev/null'
    kill -0 "$DPID" 2>/dev/null || fail "migschedd did not start"
}
# Sends a signal and waits for the daemon to exit; $2: the exit status expected.
stop_daemon() {
    kill "-$1" "$DPID"
    local rc=0
    wait "$DPID" || rc=$?
    DPID=
    [ "$rc" = "$2" ] || fail "migschedd exited $rc after SIG$1, expected $2"
}
count_state() { ucurl "http://d/v1/jobs?state=$1" | sed '$d' | grep -o '"id":' | wc -l; }
# check_history DB N: N jobs in the store, each one's history submit, then start/finish or
# start/interrupt pairs, each transition from the state the previous one left, one finish
# to done, as many starts as attempts. Writes the summary to $T/history.
check_history() {
    sqlite3 -separator ' ' "$1" \
        "SELECT t.job, t.event, t.from_state, t.to_state, j.attempts FROM transitions t JOIN jobs j ON j.id = t.job ORDER BY t.job, t.seq" |
    awk -v want="$2" '
        $1 != job { if (job != "") end_job(); job = $1; prev = "new"; starts = 0; fin = 0; att = $5; first = 1 }
        {
            if (first && $2 != "submit") { print "job " job ": first event " $2; bad = 1 }
            first = 0
            if ($3 != prev) { print "job " job ": " $2 " from " $3 " after " prev; bad = 1 }
            prev = $4
            if ($2 == "start") starts++
            if ($2 == "finish") fin++
            if ($2 == "interrupt") interrupts++
        }
        function end_job() {
            n++
            if (fin != 1 || prev != "done" || starts != att) { print "job " job ": finishes " fin ", ends " prev ", starts " starts ", attempts " att; bad = 1 }
        }
        END { end_job(); if (n != want) { print n " jobs with history"; bad = 1 }
              print "interrupted runs requeued: " interrupts + 0; exit bad }' > "$T/history" \
            || fail "history: $(head -5 "$T/history")"
}
# The nvml backend on the fake NVML (one A30 whose state lives in $T/nvml.state, fast
# reconfigurations, journals and locks in $T/rt); the test is skipped when it was not built.
use_fake_nvml() {
    [ -n "${FAKE_NVML_DIR:-}" ] || { echo "SKIP: the fake NVML was not built"; exit 77; }
    export LD_LIBRARY_PATH=$FAKE_NVML_DIR FAKE_NVML_STATE=$T/nvml.state FAKE_NVML_GPU=A30-24GB \
        FAKE_NVML_GPUS=1 FAKE_NVML_DELAY_SCALE=0.05 MIGSCHED_RUNTIME_DIR=$T/rt
    unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
}
