#!/usr/bin/env bash
# clients.sh: `migsched submit`, `jobs`, `cancel` and `status` against a live migschedd
# (sim): each way of giving a job reaches the daemon as the spec it means (profile,
# slices, times, name, cwd, env, on_interrupt, the command), JOBS.json and a workload CSV
# file; jobs --state and --json, cancel of a queued job and of an ended one (the daemon's
# 409 as "migsched: cancel: ...", exit 1); status as text and JSON; bad usage exits 2
# before any request. Root's jobs are allowed (the tests run as root).
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" --db "$T/d.db" \
    --time-scale 1 --on-stop requeue --allow-root-jobs true
C=(--connect "unix:$SOCK")
spec() { ucurl "http://d/v1/jobs/$1" | sed '$d' | jq -c "$2"; }

# 1. A job from flags: the spec the daemon keeps.
cd "$T"
out=$("$M" submit "${C[@]}" --profile 7g.40gb --seconds 100000 --env A=1 --env B=x=y \
      --on-interrupt fail -- sleep 100000) || fail "submit"
[ "$out" = "submitted job 1 sleep" ] || fail "submit printed: $out"
[ "$(spec 1 '.spec | [.name, .command, .cwd, .env, .on_interrupt, .profile, .seconds]')" = \
  '["sleep",["sleep","100000"],"'"$T"'",{"A":"1","B":"x=y"},"fail","7g.40gb",100000]' ] || fail "spec 1: $(spec 1 .spec)"
"$M" submit "${C[@]}" --slices 2 --seconds 5 --name two --cwd / -- true > /dev/null || fail "slices"
[ "$(spec 2 '[.spec.name, .spec.profile, .spec.cwd]')" = '["two","2g.10gb","/"]' ] || fail "spec 2: $(spec 2 .spec)"
"$M" submit "${C[@]}" --times 1=100,7=20.5 --name timed -- true > /dev/null || fail "times"
[ "$(spec 3 '.spec.times')" = '{"1":100,"7":20.5}' ] || fail "spec 3: $(spec 3 .spec)"
# 2. Files: a JSON array and a workload CSV (commands through sh -c).
printf '[{"name": "f1", "command": ["true"], "profile": "1g.5gb", "seconds": 3},\n {"name": "f2", "command": ["true"], "slices": 1, "seconds": 4}]\n' > jobs.json
"$M" submit "${C[@]}" --file jobs.json --json > sub.json || fail "submit --file json"
[ "$(jq -c '[.[].name]' sub.json)" = '["f1","f2"]' ] || fail "--json output: $(cat sub.json)"
printf 'name,1,2,3,4,7,command,cwd\nw1,10,6,,,2,echo hi,/tmp\n' > jobs.csv
"$M" submit "${C[@]}" --file jobs.csv > /dev/null || fail "submit --file csv"
[ "$(spec 6 '[.spec.name, .spec.command, .spec.cwd, .spec.times]')" = \
  '["w1",["/bin/sh","-c","echo hi"],"/tmp",{"1":10,"2":6,"7":2}]' ] || fail "spec 6: $(spec 6 .spec)"
printf '[{"name": "ok", "command": ["true"], "slices": 1, "seconds": 1}, {"name": "bad", "command": ["true"], "slices": 5, "seconds": 1}]\n' > mixed.json
"$M" submit "${C[@]}" --file mixed.json > /dev/null 2> err
[ $? = 1 ] && grep -q '^migsched: submit: job: slices' err && grep -q 'mixed.json: job 2 (bad) refused; 1 before it were queued' err \
    || fail "refused file job: $(cat err)"
# A size or a profile the GPU lacks: the refusal lists the ones it has.
"$M" submit "${C[@]}" --slices 5 --seconds 1 -- true 2> err
[ $? = 1 ] && grep -q 'job: slices: A100-40GB has no instance of 5 compute slices (its sizes: 1, 2, 3, 4, 7)' err ||
    fail "--slices 5: $(cat err)"
"$M" submit "${C[@]}" --profile 3g.40gb --seconds 1 -- true 2> err
[ $? = 1 ] && grep -q 'has no profile "3g.40gb" (its profiles: 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)' err ||
    fail "--profile 3g.40gb: $(cat err)"

# 3. jobs, cancel, status. Job 1 runs once its instance is made (the sim backend takes the
# modelled creation time, about a quarter of a second at --time-scale 1).
await '[ "$(spec 1 .state)" = "\"running\"" ]'
"$M" jobs "${C[@]}" --state queued > jobs.txt || fail "jobs"
grep -q '^ *2  [^ ]*  *queued .* two  *no GPU has room for 2g.10gb now; 0 queued jobs ahead of it$' jobs.txt || fail "jobs --state queued: $(cat jobs.txt)"
grep -q ' sleep$' jobs.txt && fail "a running job listed as queued: $(cat jobs.txt)"
[ "$("$M" jobs "${C[@]}" --json | jq '.jobs | length')" = 7 ] || fail "jobs --json"
[ "$("$M" cancel "${C[@]}" 2)" = "job 2 two: cancelled" ] || fail "cancel"
"$M" cancel "${C[@]}" 2 2> err
[ $? = 1 ] && grep -q '^migsched: cancel: job 2 is cancelled' err || fail "409: $(cat err)"
"$M" status "${C[@]}" --timeout 5 > status.txt || fail "status"
grep -q '^gpu 0  A100-40GB  GPU-.*busy 7/7 slices' status.txt && grep -q '^  7g.40gb@0  busy        job 1$' status.txt \
    && grep -q '^jobs: queued 5 running 1 done 0 failed 0 cancelled 1$' status.txt || fail "status: $(cat status.txt)"
[ "$("$M" status "${C[@]}" --json | jq -c '[.jobs.running, .gpus[0].instances[0].profile]')" = '[1,"7g.40gb"]' ] || fail "status --json"

# 4. Bad usage: exit 2, nothing sent (the job count stays 7).
for args in "--profile 1g.5gb --seconds 1" "--profile 1g.5gb --times 1=2 -- true" "--seconds 1 -- true" \
            "--times 1=x -- true" "--file jobs.json --name x" "--slices 0 --seconds 1 -- true" \
            "--env =1 --slices 1 --seconds 1 -- true" "--on-interrupt never --slices 1 --seconds 1 -- true" \
            "--bogus"; do
    "$M" submit "${C[@]}" $args > /dev/null 2>&1
    [ $? = 2 ] || fail "submit $args: not a usage error"
done
"$M" jobs --state sleeping "${C[@]}" 2>/dev/null; [ $? = 2 ] || fail "jobs --state sleeping"
"$M" cancel "${C[@]}" 2>/dev/null; [ $? = 2 ] || fail "cancel without id"
"$M" cancel x "${C[@]}" 2>/dev/null; [ $? = 2 ] || fail "cancel x"
"$M" status extra "${C[@]}" 2>/dev/null; [ $? = 2 ] || fail "status extra"
"$M" status --connect "unix:$SOCK" --token-file jobs.json 2>/dev/null; [ $? = 2 ] || fail "token-file on unix"
[ "$("$M" jobs "${C[@]}" --json | jq '.jobs | length')" = 7 ] || fail "a bad usage sent a job"
stop_daemon TERM 0
echo "clients: ok"
