#!/usr/bin/env bash
# migschedd_args.sh: migschedd's command line: --help and --version exit 0; an unknown flag
# or a flag without its value exits 2; a bad configuration file (naming FILE:LINE), a rule
# between keys, a TCP listener without a token file, and a database that cannot be opened
# exit 1 with the reason, leaving no socket behind.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
"$DD" --help | grep -q '^usage: migschedd' || fail "--help"
"$DD" --version | grep -Eq '^migschedd [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
expect() {  # $1 exit status, $2 text on stderr, then the arguments
    local want=$1 text=$2
    shift 2
    "$DD" "$@" > /dev/null 2> "$T/err"
    local rc=$?
    [ "$rc" = "$want" ] || fail "migschedd $* exited $rc, expected $want: $(cat "$T/err")"
    grep -qF -- "$text" "$T/err" || fail "migschedd $*: stderr lacks '$text': $(cat "$T/err")"
    check_log "$T/err"
}
expect 2 'unknown flag \"--colour\"' --colour red
expect 2 '--db: missing value' --backend sim --gpu A30-24GB --gpus 1 --db
expect 2 'unexpected argument \"stray\"' stray
printf 'backend sim\ngpu A30-24GB\ngpus 1\nmode sideways\n' > "$T/bad.conf"
expect 1 "$T/bad.conf:4" --config "$T/bad.conf"
expect 1 'backend sim needs gpu MODEL and gpus N' --backend sim
expect 1 'needs a token-file' --backend sim --gpu A30-24GB --gpus 1 --listen tcp:127.0.0.1:$PORT
mkdir "$T/dir.db"
expect 1 "$T/dir.db" --backend sim --gpu A30-24GB --gpus 1 --listen "unix:$SOCK" --db "$T/dir.db"
[ ! -e "$SOCK" ] || fail "a failed start left its socket"
echo "migschedd_args: ok"
