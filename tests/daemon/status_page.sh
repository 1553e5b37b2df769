#!/usr/bin/env bash
# status_page.sh: the status page (GET /) of a live migschedd rendered by headless Chromium
# (Debian's chromium, installed by `make test`): on the TCP listener with the token in the
# address's #fragment, the DOM after the page's own fetches shows every GPU, its instances
# and the running and queued jobs by name and user; a screenshot PNG is written. The page makes no
# request outside the daemon (no external URL in it).
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
command -v chromium >/dev/null || { echo "SKIP: chromium missing (make test installs it)"; exit 77; }
TOKEN=fedcba9876543210fedcba9876543210
printf 'root %s\n' "$TOKEN" > "$T/token"
chmod 600 "$T/token"
start_daemon --backend sim --gpu A100-40GB --gpus 2 --listen "unix:$SOCK" \
    --listen "tcp:127.0.0.1:$PORT" --token-file "$T/token" --db "$T/d.db" --on-stop requeue \
    --allow-root-jobs true
sub() { "$M" submit --connect "http://127.0.0.1:$PORT" --token-file "$T/token" "$@" > /dev/null || fail "submit $*"; }
sub --profile 7g.40gb --seconds 100000 --name render-big -- true
sub --profile 4g.20gb --seconds 100000 --name render-four -- true
sub --profile 3g.20gb --seconds 100000 --name render-three -- true
sub --profile 7g.40gb --seconds 100000 --name render-waiting -- true
await '[ "$(count_state running)" = 3 ]' 60
curl -s --unix-socket "$SOCK" http://d/ > "$T/page.html"
grep -Eo '(src|href)="?https?:' "$T/page.html" && fail "the page loads something from outside"
HOME=$T timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
    --virtual-time-budget=6000 --dump-dom "http://127.0.0.1:$PORT/#token=$TOKEN" > "$T/dom.html" 2> "$T/chrome.err" \
    || fail "chromium --dump-dom: $(tail -3 "$T/chrome.err")"
for text in 'GPU 0 — A100-40GB' 'GPU 1 — A100-40GB' 'render-big' 'render-four' 'render-three' \
            'render-waiting' '7g.40gb @0' '3 running, 1 queued' '<th>user</th>' \
            '<td>render-big</td><td>root</td>'; do
    grep -qF "$text" "$T/dom.html" || fail "the rendered page lacks '$text' ($(grep -o 'id="status"[^<]*<' "$T/dom.html"))"
done
HOME=$T timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
    --hide-scrollbars --window-size=1100,900 --virtual-time-budget=6000 \
    --screenshot="$T/page.png" "http://127.0.0.1:$PORT/#token=$TOKEN" > /dev/null 2>&1 \
    || fail "chromium --screenshot"
[ "$(head -c 4 "$T/page.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG written"
[ -n "${MIGSCHED_KEEP_PNG:-}" ] && cp "$T/page.png" "$MIGSCHED_KEEP_PNG"
stop_daemon TERM 0
echo "status_page: ok"
