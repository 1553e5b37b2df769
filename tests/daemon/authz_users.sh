#!/usr/bin/env bash
# authz_users.sh: who may do what, over the Unix socket with two throwaway users A and B, a
# member C of a throwaway admin group, and root (sim backend): A's job shows A as its user;
# B sees its public fields but not its spec (the secret in its env) nor its history, also
# in the history's listing (several states, newest first), and cannot cancel it (403 naming
# A); A, root and C can see the spec and the history, C and root can cancel it; an admin submits for
# another user, a user cannot; allocations are refused to users (403, nothing made or
# released); a root job is refused unless --allow-root-jobs true; the log names each job's
# user.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
. "$3/tests/daemon/users_lib.sh"
UA=msa$SUFFIX UB=msb$SUFFIX UC=msc$SUFFIX GADM=msadm$SUFFIX
new_group "$GADM"
new_user "$UA"
new_user "$UB"
new_user "$UC" -G "$GADM"
DARGS=(--backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db"
       --admin-group "$GADM" --slurm-gres none --slurm-reconcile 0 --on-stop requeue)
start_daemon "${DARGS[@]}"
open_socket
SECRET=s3cr3t-$SUFFIX
job() { echo "{\"name\": \"$1\", \"command\": [\"true\"], \"profile\": \"1g.5gb\", \"seconds\": 3600${2:-}}"; }
expect() {  # $1 status, $2 text the body must hold (may be ""), $3 the reply
    [ "$(status_of "$3")" = "$1" ] && grep -qF -- "$2" <<<"$(body_of "$3")" ||
        fail "expected $1 with '$2', got: $3"
}
lacks() { ! grep -qF -- "$1" <<<"$2" || fail "'$1' in: $2"; }

# A's job is A's.
r=$(ucurl_as "$UA" -X POST -d "$(job a1 ", \"env\": {\"AWS_SECRET\": \"$SECRET\"}")" http://d/v1/jobs)
expect 201 "\"user\":\"$UA\"" "$r"
expect 201 "$SECRET" "$r"  # the owner's own view
ID=$(body_of "$r" | jq .id)

# B: the public fields, not the spec; no cancel.
r=$(ucurl_as "$UB" "http://d/v1/jobs/$ID")
expect 200 "\"user\":\"$UA\"" "$r"
lacks "$SECRET" "$r"
lacks '"spec"' "$r"
r=$(ucurl_as "$UB" http://d/v1/jobs)
expect 200 "\"name\":\"a1\",\"user\":\"$UA\"" "$r"
lacks "$SECRET" "$r"
r=$(ucurl_as "$UB" -X DELETE "http://d/v1/jobs/$ID")
expect 403 "job $ID belongs to $UA: only its owner or an admin may cancel it" "$r"
[ "$(body_of "$(ucurl "http://d/v1/jobs/$ID")" | jq -r .state)" != cancelled ] || fail "B cancelled A's job"
expect 403 "job $ID belongs to $UA: only its owner or an admin may read its history" \
    "$(ucurl_as "$UB" "http://d/v1/jobs/$ID/history")"
# B connecting with the admin group as its process's gid (as a setgid program could lend
# it) is still no admin: membership is the group database's word.
r=$(setpriv --reuid="$UB" --regid="$(getent group "$GADM" | cut -d: -f3)" --clear-groups \
    curl -s --unix-socket "$SOCK" -w '\n%{http_code}' "http://d/v1/jobs/$ID")
expect 200 "\"user\":\"$UA\"" "$r"
lacks "$SECRET" "$r"

# A, root and the admin-group member C see the spec; C cancels it.
for u in "$UA" root "$UC"; do
    r=$(ucurl_as "$u" "http://d/v1/jobs/$ID")
    [ "$(body_of "$r" | jq -r .spec.env.AWS_SECRET)" = "$SECRET" ] || fail "$u does not see the spec: $r"
    body_of "$r" | jq -e '.logs == null' > /dev/null || fail "logs on sim: $r"
    expect 200 '"transitions":[{"at":' "$(ucurl_as "$u" "http://d/v1/jobs/$ID/history")"
done
expect 200 '"state":"cancelled"' "$(ucurl_as "$UC" -X DELETE "http://d/v1/jobs/$ID")"
# The history (the status page's query): B sees A's finished job's public fields, A its spec.
H='http://d/v1/jobs?state=done,failed,cancelled&order=desc'
r=$(ucurl_as "$UB" "$H")
expect 200 "\"name\":\"a1\",\"user\":\"$UA\",\"state\":\"cancelled\"" "$r"
lacks "$SECRET" "$r"
lacks '"spec"' "$r"
expect 200 "$SECRET" "$(ucurl_as "$UA" "$H&user=$UA")"
# The owner cancels their own.
r=$(ucurl_as "$UA" -X POST -d "$(job a2)" http://d/v1/jobs)
expect 201 "" "$r"
ID2=$(body_of "$r" | jq .id)
expect 200 '"state":"cancelled"' "$(ucurl_as "$UA" -X DELETE "http://d/v1/jobs/$ID2")"

# Submitting for another user: admins only, a user that exists.
r=$(ucurl_as "$UC" -X POST -d "$(job for-a ", \"user\": \"$UA\"")" http://d/v1/jobs)
expect 201 "\"user\":\"$UA\"" "$r"
expect 200 '"state":"cancelled"' "$(ucurl -X DELETE "http://d/v1/jobs/$(body_of "$r" | jq .id)")"  # root cancels
expect 201 "\"user\":\"$UB\"" "$(ucurl -X POST -d "$(job for-b ", \"user\": \"$UB\"")" http://d/v1/jobs)"
expect 403 "only an admin (root or a member of admin-group) may submit for another user; you are $UB" \
    "$(ucurl_as "$UB" -X POST -d "$(job not-a ", \"user\": \"$UA\"")" http://d/v1/jobs)"
expect 400 "job: user: no user \\\"none$SUFFIX\\\" on this node" \
    "$(ucurl -X POST -d "$(job x ", \"user\": \"none$SUFFIX\"")" http://d/v1/jobs)"

# Allocations: root and slurm-user only, whatever the method; nothing changes for others.
expect 403 "only root and slurm-user (slurm) may manage allocations; you are $UB" \
    "$(ucurl_as "$UB" -X PUT -d '{"profile": "1g.5gb"}' http://d/v1/allocations/42/steps/0)"
expect 404 "holds no allocation" "$(ucurl http://d/v1/allocations/42)"
expect 200 "\"user\":\"$UA\"" \
    "$(ucurl -X PUT -d "{\"profile\": \"1g.5gb\", \"user\": \"$UA\"}" http://d/v1/allocations/43/steps/0)"
for u in "$UA" "$UB"; do
    expect 403 "may manage allocations" "$(ucurl_as "$u" -X DELETE http://d/v1/allocations/43)"
    expect 403 "may manage allocations" "$(ucurl_as "$u" -X DELETE http://d/v1/allocations/43/steps/0)"
    expect 403 "may manage allocations" "$(ucurl_as "$u" http://d/v1/allocations/43)"
done
r=$(ucurl http://d/v1/allocations/43)
expect 200 '"steps":[0]' "$r"
lacks '"cancelled"' "$r"

# Root's own job: refused unless allowed.
expect 403 "allow-root-jobs" "$(ucurl -X POST -d "$(job r1)" http://d/v1/jobs)"
grep -q "event=job.submit id=$ID user=$UA name=a1" "$T/daemon.log" || fail "no job.submit with the user"
grep -Eq "event=job.cancel id=$ID user=$UA by=[^ ]+ state=(queued|starting|running)$" "$T/daemon.log" \
    || fail "no cancel with the user"
stop_daemon TERM 0
start_daemon "${DARGS[@]}" --allow-root-jobs true
expect 201 '"user":"root"' "$(ucurl -X POST -d "$(job r2)" http://d/v1/jobs)"
stop_daemon TERM 0
echo "authz_users: ok"
