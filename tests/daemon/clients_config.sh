#!/usr/bin/env bash
# clients_config.sh: where the client commands find migschedd. Each setting comes from the
# flag, else MIGSCHED_CONNECT / MIGSCHED_TOKEN_FILE, else the client configuration file
# ($XDG_CONFIG_HOME/migsched/client.conf, else ~/.config/migsched/client.conf), else the
# default; a bad line of the file is refused naming the file and the line, exit 2; a token
# file open to others, or holding more than the token, is refused before any request; a
# token file set for TCP does not get in the way of the socket. `jobs --watch` into a file:
# one snapshot after another, each after an empty line, the jobs submitted meanwhile in
# the later ones, ended by SIGINT or SIGTERM with status 0.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
W=  # the watching client, ended here whatever happens
trap '[ -n "$W" ] && kill "$W" 2>/dev/null; cleanup' EXIT
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --allow-root-jobs true
H=$T/home CONF=$T/home/.config/migsched/client.conf
mkdir -p "$(dirname "$CONF")" "$T/xdg/migsched"
# The client with a clean environment: HOME=$H, nothing else of migsched's set.
cl() { env -u MIGSCHED_CONNECT -u MIGSCHED_TOKEN_FILE -u XDG_CONFIG_HOME HOME="$H" "$@"; }
# reaches WHERE CMD...: the command fails, naming WHERE as the daemon it tried.
reaches() {
    local where=$1
    shift
    "$@" > /dev/null 2> "$T/err" && fail "$* reached a daemon, expected $where"
    grep -q "cannot reach migschedd at $where" "$T/err" || fail "$*: $(cat "$T/err")"
}

# 1. Precedence: flag > environment > file > default.
printf '# the node service\n\nconnect = unix:%s/conf.sock\n' "$T" > "$CONF"
reaches "unix:$T/conf.sock" cl "$M" jobs
cl MIGSCHED_CONNECT="unix:$SOCK" "$M" jobs > /dev/null || fail "MIGSCHED_CONNECT over the file"
reaches "unix:$T/flag.sock" cl MIGSCHED_CONNECT="unix:$SOCK" "$M" jobs --connect "unix:$T/flag.sock"
printf 'connect=unix:%s\n' "$SOCK" > "$CONF"
cl "$M" status > /dev/null || fail "the file's connect"
cl "$M" submit --slices 1 --seconds 1 -- true > /dev/null || fail "submit through the file"
printf 'connect = unix:%s/xdg.sock\n' "$T" > "$T/xdg/migsched/client.conf"
reaches "unix:$T/xdg.sock" cl XDG_CONFIG_HOME="$T/xdg" "$M" jobs
cl XDG_CONFIG_HOME=relative "$M" jobs > /dev/null || fail "a relative XDG_CONFIG_HOME is not ignored"
cl MIGSCHED_CONNECT= "$M" jobs > /dev/null || fail "an empty MIGSCHED_CONNECT is not unset"
cl MIGSCHED_CONNECT=tcp:x "$M" jobs 2> "$T/err"
[ $? = 2 ] && grep -q 'migsched: jobs: MIGSCHED_CONNECT: expected unix:PATH or http://127.0.0.1:PORT, not "tcp:x"' "$T/err" ||
    fail "bad MIGSCHED_CONNECT: $(cat "$T/err")"
rm "$CONF"
if [ ! -e /run/migschedd/migschedd.sock ]; then
    reaches "unix:/run/migschedd/migschedd.sock" cl "$M" jobs
fi

# 2. Bad lines: the file and the line named, exit 2, nothing sent.
bad() {
    printf "$1" > "$CONF"
    cl MIGSCHED_CONNECT="unix:$SOCK" "$M" jobs > /dev/null 2> "$T/err"
    [ $? = 2 ] && grep -qF "migsched: jobs: $CONF:$2" "$T/err" || fail "bad line ($1): $(cat "$T/err")"
}
bad '# ok\n\nconect = unix:/x\n' '3: unknown key "conect" (connect, token-file, timeout)'
bad 'connect unix:/x\n' '1: expected key = value'
bad 'timeout = 0\n' '1: timeout: expected seconds in (0, 86400], not "0"'
bad 'timeout = 5\ntimeout = 6\n' '2: timeout is set twice'
bad 'token-file = rel/tok\n' '1: token-file: expected an absolute path or ~/PATH'
bad 'connect =\n' '1: connect: no value'
bad 'connect = ftp://x\n' '1: connect: expected unix:PATH or http://127.0.0.1:PORT'
printf '  # indented comment\ntimeout = 5\n' > "$CONF"
cl MIGSCHED_CONNECT="unix:$SOCK" "$M" jobs > /dev/null || fail "comments and timeout: $(cat "$T/err")"

# 3. Token files: private, and the token alone. A refusal comes before any request, so no
# TCP daemon is needed: an accepted token goes on to an address where nothing listens.
TCP=http://127.0.0.1:1
printf 'abcdefghijklmnopqrstuvwxyz\n' > "$T/tok"
chmod 644 "$T/tok"
cl "$M" jobs --connect "$TCP" --token-file "$T/tok" 2> "$T/err"
[ $? = 1 ] && grep -qF "migsched: jobs: the token file $T/tok is open to others (mode 0644): it must be readable by its owner only (chmod 600 $T/tok)" "$T/err" ||
    fail "token file 0644: $(cat "$T/err")"
chmod 640 "$T/tok"
cl MIGSCHED_TOKEN_FILE="$T/tok" "$M" jobs --connect "$TCP" 2> "$T/err"
[ $? = 1 ] && grep -q 'is open to others (mode 0640)' "$T/err" || fail "MIGSCHED_TOKEN_FILE 0640: $(cat "$T/err")"
chmod 600 "$T/tok"
reaches "$TCP" cl MIGSCHED_TOKEN_FILE="$T/tok" "$M" jobs --connect "$TCP"
printf 'token-file = ~/tok\nconnect = %s\n' "$TCP" > "$CONF"
cp -p "$T/tok" "$H/tok"
reaches "$TCP" cl "$M" jobs
chmod 604 "$H/tok"
cl "$M" jobs 2> "$T/err"
grep -qF "the token file $H/tok is open to others (mode 0604)" "$T/err" || fail "the file's token-file, ~ expanded: $(cat "$T/err")"
# A token set for TCP is left out on the socket; only the flag's is an error there.
cl MIGSCHED_CONNECT="unix:$SOCK" "$M" jobs > /dev/null || fail "the file's token-file on the socket"
cl "$M" jobs --connect "unix:$SOCK" --token-file "$T/tok" 2> /dev/null
[ $? = 2 ] || fail "--token-file on the socket"
rm "$CONF"
printf 'abcdefghijklmnopqrstuvwxyz\nalice zyxwvutsrqponmlkjihgfedcba\n' > "$T/two"
chmod 600 "$T/two"
cl "$M" jobs --connect "$TCP" --token-file "$T/two" 2> "$T/err"
[ $? = 1 ] && grep -qF "$T/two: expected only the token (or one USER TOKEN line), on one line" "$T/err" ||
    fail "two tokens: $(cat "$T/err")"

# 4. jobs --watch into a file: snapshots one after another; Ctrl-C and SIGTERM end it.
export MIGSCHED_CONNECT="unix:$SOCK"
"$M" jobs --interval 1 2> "$T/err"
[ $? = 2 ] && grep -q -- '--interval goes with --watch' "$T/err" || fail "--interval alone: $(cat "$T/err")"
"$M" jobs --watch --interval 0 2> "$T/err"
[ $? = 2 ] && grep -q -- '--interval: expected seconds in \[0.1, 86400\], not "0"' "$T/err" || fail "--interval 0: $(cat "$T/err")"
snapshots() { grep -c '^ *id  user' "$T/w.out"; }
for sig in INT TERM; do
    "$M" jobs --watch --interval 0.1 > "$T/w.out" 2> "$T/w.err" &
    W=$!
    await '[ "$(snapshots)" -ge 2 ]'
    name=watched$sig
    "$M" submit --slices 1 --seconds 1 --name "$name" -- true > /dev/null || fail "submit $name"
    await "grep -q ' $name ' '$T/w.out'"
    kill -"$sig" "$W"
    rc=0
    wait "$W" || rc=$?
    W=
    [ "$rc" = 0 ] || fail "jobs --watch exited $rc after SIG$sig: $(cat "$T/w.err")"
    [ ! -s "$T/w.err" ] || fail "jobs --watch said: $(cat "$T/w.err")"
    # Every snapshot is the header and the rows, after an empty line (but the first).
    awk 'NR == 1 && !/^ *id  user/ { bad = 1 }
         prev == "" && NR > 1 && !/^ *id  user/ { bad = 1 }
         /^$/ { blanks++ } { prev = $0 }
         END { exit bad || blanks < 2 }' "$T/w.out" || fail "snapshots: $(head -20 "$T/w.out")"
    first=$(awk '/^$/ { exit } { print }' "$T/w.out")
    grep -q " $name " <<<"$first" && fail "the first snapshot has the later job"
done
stop_daemon TERM 0
echo "clients_config: ok"
