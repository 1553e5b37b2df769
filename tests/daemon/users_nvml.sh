#!/usr/bin/env bash
# users_nvml.sh: two throwaway users on the nvml backend (the fake NVML, real processes),
# each over one transport: A on the Unix socket (the caller is the peer's uid), B over TCP
# with B's own token. Each one's `id -u` job runs as that user and its output file is
# theirs, mode 0600; over either transport the other user can neither read a job's env nor
# cancel it (403 naming the owner), while root and a member of the admin group can; a user's
# PUT or GET of an allocation is 403 and changes nothing; root's own job is refused.
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
. "$3/tests/daemon/users_lib.sh"
use_fake_nvml
UA=msa$SUFFIX UB=msb$SUFFIX UC=msc$SUFFIX GADM=msadm$SUFFIX
new_group "$GADM"
new_user "$UA"
new_user "$UB"
new_user "$UC" -G "$GADM"
TOK_A=tokA-$SUFFIX-0123456789 TOK_B=tokB-$SUFFIX-0123456789 TOK_C=tokC-$SUFFIX-0123456789
printf '%s %s\n%s %s\n%s %s\n' "$UA" "$TOK_A" "$UB" "$TOK_B" "$UC" "$TOK_C" > "$T/tokens"
chmod 600 "$T/tokens"
echo "$TOK_B" > "/home/$UB/token"
chown "$UB:" "/home/$UB/token" && chmod 600 "/home/$UB/token"
mkdir -m 755 "$T/logs"
start_daemon --backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/tokens" --db "$T/d.db" \
    --log-dir "$T/logs" --admin-group "$GADM" --isolation none --stop-grace 2
open_socket
as() { local u=$1; shift; (cd / && setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups "$@"); }
tcurl() { local tok=$1; shift; curl -s -w '\n%{http_code}' -H "Authorization: Bearer $tok" "$@"; }
TCP=http://127.0.0.1:$PORT
expect() {  # $1 status, $2 text the body must hold (may be ""), $3 the reply
    [ "$(status_of "$3")" = "$1" ] && grep -qF -- "$2" <<<"$(body_of "$3")" ||
        fail "expected $1 with '$2', got: $3"
}
lacks() { ! grep -qF -- "$1" <<<"$2" || fail "'$1' in: $2"; }
SUB=(--profile 1g.6gb --seconds 1 --json)

# Root's own job is refused by default.
"$M" submit --connect "unix:$SOCK" "${SUB[@]}" -- id -u > /dev/null 2> "$T/err" &&
    fail "root's job was accepted"
grep -q 'allow-root-jobs' "$T/err" || fail "root's refusal: $(cat "$T/err")"

# Each user's `id -u`: A through the socket, B through TCP with B's token.
idA=$(as "$UA" "$M" submit --connect "unix:$SOCK" "${SUB[@]}" -- id -u | jq '.[0].id') ||
    fail "A's submission"
idB=$(as "$UB" "$M" submit --connect "$TCP" --token-file "/home/$UB/token" "${SUB[@]}" \
      -- id -u | jq '.[0].id') || fail "B's submission over TCP"
await '[ "$(count_state done)" = 2 ]' 60
for pair in "$UA:$idA" "$UB:$idB"; do
    u=${pair%%:*} id=${pair#*:}
    job=$(ucurl "http://d/v1/jobs/$id" | sed '$d')
    [ "$(jq -r .user <<<"$job")" = "$u" ] || fail "job $id's user: $job"
    out=$(jq -r .logs.stdout <<<"$job")
    [ "$(cat "$out")" = "$(id -u "$u")" ] || fail "job $id printed '$(cat "$out")', not $u's uid"
    [ "$(stat -c '%U %a' "$out")" = "$u 600" ] || fail "job $id's output: $(stat -c '%U %a' "$out")"
done

# A's long job with a secret: B sees neither its env (socket, TCP) nor may cancel it.
SECRET=s3cr3t-$SUFFIX
long=$(as "$UA" "$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 100 --json \
       --env "AWS_SECRET=$SECRET" -- sleep 100 | jq '.[0].id')
r=$(ucurl_as "$UB" "http://d/v1/jobs/$long")
expect 200 "\"user\":\"$UA\"" "$r"
lacks "$SECRET" "$r"
r=$(tcurl "$TOK_B" "$TCP/v1/jobs/$long")
expect 200 "\"user\":\"$UA\"" "$r"
lacks "$SECRET" "$r"
expect 403 "belongs to $UA" "$(ucurl_as "$UB" -X DELETE "http://d/v1/jobs/$long")"
expect 403 "belongs to $UA" "$(tcurl "$TOK_B" -X DELETE "$TCP/v1/jobs/$long")"
# Its owner, the admin (over TCP) and root read the env; the admin cancels.
expect 200 "$SECRET" "$(tcurl "$TOK_A" "$TCP/v1/jobs/$long")"
expect 200 "$SECRET" "$(tcurl "$TOK_C" "$TCP/v1/jobs/$long")"
expect 200 "$SECRET" "$(ucurl "http://d/v1/jobs/$long")"
expect 200 '"state":"cancelled"' "$(tcurl "$TOK_C" -X DELETE "$TCP/v1/jobs/$long")"
long2=$(as "$UA" "$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 100 --json \
        -- sleep 100 | jq '.[0].id')
expect 200 '"state":"cancelled"' "$(ucurl -X DELETE "http://d/v1/jobs/$long2")"

# Allocations: a user's PUT and GET are 403 over either transport, and nothing changes.
jobs_now() { ucurl "http://d/v1/jobs" | sed '$d' | jq -c '[.jobs[] | [.id, .state]]'; }
before=$(jobs_now)
ALLOC=(-X PUT -H 'Content-Type: application/json' -d '{"profile": "1g.6gb"}')
expect 403 "" "$(ucurl_as "$UA" "${ALLOC[@]}" "http://d/v1/allocations/42/steps/0")"
expect 403 "" "$(tcurl "$TOK_B" "${ALLOC[@]}" "$TCP/v1/allocations/42/steps/0")"
expect 403 "" "$(tcurl "$TOK_C" "$TCP/v1/allocations/42")"
[ "$(jobs_now)" = "$before" ] || fail "a refused allocation changed the jobs: $(jobs_now)"
expect 404 "" "$(ucurl "http://d/v1/allocations/42")"
stop_daemon TERM 0
echo "users_nvml: ok"
