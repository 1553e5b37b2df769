#!/usr/bin/env bash
# status_page.sh: the status page (GET /) of a live migschedd rendered by headless Chromium
# (Debian's chromium, installed by `make test`), its DOM after the page's own fetches checked:
# - online, on the fake NVML with real commands, over TCP with the token in the address's
#   #fragment: every GPU with its slots labelled and its instances' jobs by name and user,
#   the running jobs with elapsed and remaining times (from their declared seconds), a queued
#   one with its reason, the history with a failed job's reason and exit status, a done and
#   a cancelled one, its filter and paging controls; the timeline with a time axis, a "now"
#   line and slot labels;
# - the same address without the token: the prompt to add #token=;
# - batch (sim): the timeline without the batch's finished task, a planned one's expected
#   start, the job waiting for the next batch.
# The history's query (several states, newest first, the next page's link) is checked on
# the API too. Screenshots (online, batch, the token prompt) are kept in the artifacts
# folder printed at the end. The page makes no request outside the daemon.
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v chromium >/dev/null || { echo "SKIP: chromium missing (make test installs it)"; exit 77; }
use_fake_nvml
ART=${MIGSCHED_ARTIFACTS:-$PWD/artifacts}/status_page
mkdir -p "$ART"
TOKEN=fedcba9876543210fedcba9876543210
printf 'root %s\n' "$TOKEN" > "$T/token"
chmod 600 "$T/token"
# chrome OUT URL: the DOM after the page's fetches (virtual time), in $T/OUT.html.
chrome() {
    HOME=$T timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
        --virtual-time-budget=8000 --dump-dom "$2" > "$T/$1.html" 2> "$T/chrome.err" \
        || fail "chromium --dump-dom: $(tail -3 "$T/chrome.err")"
}
# shot NAME URL: a screenshot kept as $ART/NAME.png.
shot() {
    HOME=$T timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
        --hide-scrollbars --window-size=1200,1250 --virtual-time-budget=8000 \
        --screenshot="$T/$1.png" "$2" > /dev/null 2>&1 || fail "chromium --screenshot $1"
    [ "$(head -c 4 "$T/$1.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG written for $1"
    cp "$T/$1.png" "$ART/$1.png"
}
# has FILE TEXT...: each text is in the file (fixed strings).
has() {
    local f=$1; shift
    for text in "$@"; do
        grep -qF -- "$text" "$f" || fail "$(basename "$f") lacks '$text' ($(grep -o 'id="status"[^<]*<' "$f"))"
    done
}
# The rendered timeline (the SVG) or history (its table) alone, for what must and must not
# be there.
part() { python3 -c 'import re,sys; m=re.search(sys.argv[1], open(sys.argv[2]).read(), re.S); print(m.group(0) if m else "")' "$1" "$2"; }
timeline() { part '<svg[^>]*id="timeline".*?</svg>' "$1"; }
history_of() { part '<table id="history">.*?</table>' "$1"; }
URL=http://127.0.0.1:$PORT

# ---- online, nvml on the fake A30 (4 slots), real commands
mkdir -p "$T/logs"
start_daemon --backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/token" --db "$T/d.db" --on-stop requeue \
    --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none
sub() { "$M" submit --connect "unix:$SOCK" "$@" > /dev/null || fail "submit $*"; }
sub --profile 1g.6gb --seconds 1 --name quick-done -- /bin/true
sub --profile 1g.6gb --seconds 1 --name crashing-job -- /bin/sh -c 'echo oops >&2; exit 3'
await '[ "$(count_state done)" = 1 ] && [ "$(count_state failed)" = 1 ]' 60
sub --profile 1g.6gb --seconds 600 --name to-cancel -- /bin/sleep 600
await '[ "$(count_state running)" = 1 ]' 60
[ "$(status_of "$(ucurl -X DELETE http://d/v1/jobs/3)")" = 200 ] || fail "cancel job 3"
sub --profile 2g.12gb --seconds 3600 --name render-two -- /bin/sleep 600
sub --profile 1g.6gb --seconds 1800 --name render-one -- /bin/sleep 600
await '[ "$(count_state running)" = 2 ]' 60
sub --profile 4g.24gb --seconds 60 --name render-waiting -- /bin/sleep 1

# The history's query on the API: finished jobs newest first, a page of 2 and its next.
r=$(ucurl 'http://d/v1/jobs?state=done,failed,cancelled&order=desc&limit=2')
[ "$(status_of "$r")" = 200 ] || fail "history query: $r"
body_of "$r" > "$T/h1.json"
python3 - "$T/h1.json" <<'PY' || fail "history page 1: $(cat "$T/h1.json")"
import json, sys
p = json.load(open(sys.argv[1]))
assert [j["id"] for j in p["jobs"]] == [3, 2], p
assert p["jobs"][1]["state"] == "failed" and p["jobs"][1]["exit_status"] == 3, p
assert p["jobs"][1]["reason"] == "exit status 3", p
assert p["next"] == "/v1/jobs?before=2&limit=2&order=desc&state=done%2Cfailed%2Ccancelled", p
PY
r=$(ucurl "http://d$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["next"])' "$T/h1.json")")
body_of "$r" | grep -q '"jobs":\[{"id":1,"name":"quick-done"' || fail "history page 2: $r"
body_of "$r" | grep -q '"next":null' || fail "history page 2 has a next: $r"
r=$(ucurl 'http://d/v1/jobs?state=failed,done&user=root&order=desc')
[ "$(body_of "$r" | grep -o '"id":' | wc -l)" = 2 ] || fail "failed,done of root: $r"
for bad in 'state=done,asleep:unknown state \"asleep\"' 'state=done,done:repeated state' \
           'order=up:order: must be asc' 'before=0:before: must be a job id' 'limit=5000:limit: must be an integer 1..1000'; do
    r=$(ucurl "http://d/v1/jobs?${bad%%:*}")
    [ "$(status_of "$r")" = 400 ] && grep -qF -- "${bad#*:}" <<<"$r" || fail "GET /v1/jobs?${bad%%:*}: $r"
done
r=$(ucurl 'http://d/v1/plan?live=maybe')
[ "$(status_of "$r")" = 400 ] && grep -qF 'live: must be true or false' <<<"$r" || fail "plan?live=maybe: $r"
# A running job's expected end: its start plus its declared seconds.
ucurl 'http://d/v1/jobs?state=running' | sed '$d' | python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    want = {"render-two": 3600, "render-one": 1800}[j["name"]]
    assert abs(j["expected_end"] - j["started"] - want) < 1e-3, j' || fail "expected_end"

curl -s --unix-socket "$SOCK" http://d/ > "$T/page.html"
grep -Eo '(src|href)="?https?:' "$T/page.html" && fail "the page loads something from outside"
chrome online "$URL/#token=$TOKEN"
O=$T/online.html
has "$O" 'GPU 0 — A30-24GB' 'slot 0' 'slot 3' 'render-two (root)' 'render-one (root)' \
    '2 running, 1 queued' 'online mode' '<td>render-waiting</td><td>root</td>' 'no GPU has room for 4g.24gb' \
    '<td>crashing-job</td><td>root</td><td class="failed">failed</td><td>exit status 3</td><td>3</td>' \
    '<td>quick-done</td><td>root</td><td class="done">done</td><td></td><td>0</td>' \
    '<td class="cancelled">cancelled</td><td>cancelled</td>' \
    'id="history-user"' 'id="history-state"' 'id="history-limit"' 'page 1' \
    '<button type="button" id="history-older" disabled="">' '<div id="token-prompt" hidden="">'
# Elapsed and remaining: render-two declared an hour, so 59m or 1h 00m are left.
grep -qE '<td>render-two</td>.*<td>(59m [0-9]{2}s|1h 00m)</td>' "$O" || fail "no remaining time for render-two"
# Dates: local text, ISO on hover.
grep -qE '<td title="20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z" class="date">' "$O" || fail "no date with its ISO form"
timeline "$O" > "$T/online.svg"
has "$T/online.svg" 'class="axis"' 'class="tick"' 'id="now-line"' '>now<' 'class="slot-label"' \
    '>slot 3<' 'render-two (root)' 'render-one (root)'
grep -q 'to-cancel\|quick-done' "$T/online.svg" && fail "the online timeline shows ended jobs"
shot online "$URL/#token=$TOKEN"
# The history's filter and page size from the address: pages of 2 (the newest two, an older
# page), the failed jobs, a user with none.
chrome paged "$URL/#token=$TOKEN&limit=2"
history_of "$T/paged.html" > "$T/paged.hist"
has "$T/paged.hist" '<td>to-cancel</td>' '<td>crashing-job</td>'
grep -q 'quick-done' "$T/paged.hist" && fail "a page of 2 holds a third job"
has "$T/paged.html" '<button type="button" id="history-older">'
chrome failed "$URL/#token=$TOKEN&state=failed"
history_of "$T/failed.html" > "$T/failed.hist"
has "$T/failed.hist" '<td>crashing-job</td>'
grep -q 'quick-done\|to-cancel' "$T/failed.hist" && fail "the failed jobs' history holds others"
chrome nobody "$URL/#token=$TOKEN&user=nobody-here"
has "$T/nobody.html" 'no finished job matches'

# ---- without the token: the prompt
chrome notoken "$URL/"
has "$T/notoken.html" '<div id="token-prompt">' 'migschedd needs a token' 'HTTP 401' "$URL/#token=YOUR_TOKEN"
shot token "$URL/"
stop_daemon TERM 0

# ---- batch, sim: one GPU, batches of 2. The first (a short task beside a long one): once
# the short one ended, the stored plan still holds it, the page's timeline does not. The
# second (two that need the long one's slots) waits in the plan; a fifth job waits for the
# next batch.
rm -f "$T/nvml.state"
start_daemon --backend sim --gpu A100-40GB --gpus 1 --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/token" --db "$T/b.db" --mode batch \
    --batch-size 2 --batch-period 1000000 --allow-root-jobs true --on-stop requeue
r=$(ucurl 'http://d/v1/plan?live=true')
grep -q '"mode":"batch"' <<<"$r" || fail "before its first plan, the live view does not say batch mode: $r"
sub --profile 1g.5gb --seconds 1 --name batch-short -- true
sub --profile 4g.20gb --seconds 100000 --name batch-long -- true
await '[ "$(count_state done)" = 1 ] && [ "$(count_state running)" = 1 ]' 60
ucurl http://d/v1/plan | grep -q '"name": "batch-short"' || fail "the stored plan lost the ended task before a join"
r=$(ucurl 'http://d/v1/plan?live=true')
grep -q batch-short <<<"$r" && fail "the live plan holds the ended task: $r"
grep -q '"clock":{"t0":' <<<"$r" || fail "live plan without its clock: $r"
chrome batch0 "$URL/#token=$TOKEN"
timeline "$T/batch0.html" > "$T/batch0.svg"
has "$T/batch0.svg" 'id="now-line"' 'batch-long (root)'
grep -q 'batch-short' "$T/batch0.svg" && fail "the batch timeline shows the ended task"
sub --profile 4g.20gb --seconds 50000 --name batch-after -- true
sub --profile 7g.40gb --seconds 20000 --name batch-whole -- true
await '[ "$(ucurl http://d/v1/plan?live=true | grep -o "\"state\":\"planned\"" | wc -l)" = 2 ]' 60
sub --profile 1g.5gb --seconds 10 --name batch-next -- true
chrome batch "$URL/#token=$TOKEN"
B=$T/batch.html
has "$B" 'batch mode' '1 running, 3 queued' 'waits for the next batch' \
    'planned in the running batch' '<td class="done">done</td>' 'batch-short'
for name in batch-after batch-whole; do
    grep -qE "<td>$name</td><td>root</td><td>[^<]+</td><td title=\"[^\"]+\" class=\"date\">[^<]+</td><td>[^<]+</td><td title=\"20[0-9-]+T[0-9:.]+Z\" class=\"date\">[^<]+</td><td>planned in" "$B" \
        || fail "no expected start for $name"
done
grep -qE '<td>batch-next</td>.*<td>unknown</td><td>waits for the next batch' "$B" || fail "batch-next's start is not unknown"
timeline "$B" > "$T/batch.svg"
has "$T/batch.svg" 'class="axis"' 'id="now-line"' 'class="slot-label"' '>slot 7<' \
    'batch-long (root)' 'batch-after (root)' 'batch-whole (root)'
grep -q 'batch-short\|batch-next' "$T/batch.svg" && fail "the batch timeline shows a task it should not"
shot batch "$URL/#token=$TOKEN"
stop_daemon TERM 0
echo "status_page: screenshots in $ART: online.png batch.png token.png"
echo "status_page: ok"
