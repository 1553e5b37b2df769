#!/usr/bin/env bash
# clients_pages.sh: `migsched jobs` and `status` follow the pages of GET /v1/jobs (next
# until null): every job once, in order, with its USER (- when the daemon sends none);
# --user and --state go to the daemon as query arguments; a next that does not advance (a
# page that repeats, ids that do not increase) is an error.
# $1 = migsched, $3 = source dir.
M=$1 SRC=$3
. "$SRC/tests/daemon/lib.sh"
. "$SRC/tests/daemon/fake_migschedd.bash"
start_fake
C=(--connect "unix:$SOCK" --timeout 10)
page1="{\"jobs\": [$(job 1), $(job 2 '.user = "bob" | .state = "running" | .gpu = 0 | .placement = {start: 4} | .attempts = 1')], \"next\": \"/v1/jobs?after=2&limit=2\"}"
page2="{\"jobs\": [$(job 3 'del(.user)'), $(job 4 '.state = "done" | .exit_status = 0')], \"next\": \"/v1/jobs?after=4&limit=2\"}"
page3="{\"jobs\": [$(job 5 '.state = "failed" | .reason = "exit status 1"')], \"next\": null}"
routes 'GET /v1/jobs' 200 "$page1" 'GET /v1/jobs?after=2&limit=2' 200 "$page2" \
       'GET /v1/jobs?after=4&limit=2' 200 "$page3" 'GET /v1/gpus' 200 '{"gpus": []}'
"$M" jobs "${C[@]}" > "$T/out" 2> "$T/err" || fail "jobs: $(cat "$T/err")"
cat > "$T/want" <<'W'
      id  user      state      attempts  gpu@slot  profile     exit  name              reason
       1  alice     queued            0  -         1g.5gb         -  job1              -
       2  bob       running           1  0@4       1g.5gb         -  job2              -
       3  -         queued            0  -         1g.5gb         -  job3              -
       4  alice     done              0  -         1g.5gb         0  job4              -
       5  alice     failed            0  -         1g.5gb         -  job5              exit status 1
W
diff "$T/want" "$T/out" > "$T/diff" || fail "jobs over 3 pages: $(cat "$T/diff")"
[ "$(cat "$T/requests")" = "$(printf 'GET /v1/jobs\nGET /v1/jobs?after=2&limit=2\nGET /v1/jobs?after=4&limit=2')" ] ||
    fail "requests: $(cat "$T/requests")"
[ "$("$M" jobs "${C[@]}" --json | jq -c '[.jobs[].id]')" = '[1,2,3,4,5]' ] || fail "jobs --json over 3 pages"
"$M" status "${C[@]}" > "$T/out" || fail "status: $(cat "$T/out")"
grep -q '^jobs: queued 2 running 1 done 1 failed 1 cancelled 0$' "$T/out" || fail "status over 3 pages: $(cat "$T/out")"
# The filters, as query arguments (the name escaped for a URL); the next links as given.
: > "$T/requests"
"$M" jobs "${C[@]}" --user 'a b&c' --state queued > /dev/null || fail "jobs --user --state"
[ "$(head -1 "$T/requests")" = 'GET /v1/jobs?user=a%20b%26c&state=queued' ] || fail "filters: $(cat "$T/requests")"
# A next that does not advance: the same page again, a page going back, a page without jobs.
for bad in "/v1/jobs?after=2&limit=2:job 3 after job 4" "/v1/jobs:job 1 after job 4"; do
    routes 'GET /v1/jobs' 200 "$page1" 'GET /v1/jobs?after=2&limit=2' 200 "${page2%\"next\"*}\"next\": \"${bad%%:*}\"}"
    timeout 20 "$M" jobs "${C[@]}" > "$T/out" 2> "$T/err"
    rc=$?
    [ $rc = 1 ] && grep -q "does not advance: ${bad#*:}" "$T/err" || fail "next ${bad%%:*}: exit $rc: $(cat "$T/err")"
done
routes 'GET /v1/jobs' 200 "$page1" 'GET /v1/jobs?after=2&limit=2' 200 '{"jobs": [], "next": "/v1/jobs?after=2&limit=2"}'
timeout 20 "$M" jobs "${C[@]}" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 1 ] && grep -q 'does not advance: a page without jobs' "$T/err" || fail "empty page: exit $rc: $(cat "$T/err")"
routes 'GET /v1/jobs' 200 "{\"jobs\": [$(job 2), $(job 1)], \"next\": null}"
"$M" jobs "${C[@]}" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q 'does not advance: job 1 after job 2' "$T/err" || fail "ids going down: $(cat "$T/err")"
echo "clients_pages: ok"
