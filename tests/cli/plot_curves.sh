#!/usr/bin/env bash
# migsched plot --curves: learning curves of train's and hier train's progress logs (with and
# without a wrapper's "UNIXTIME cpu=SECONDS " prefix, across a resume) as one SVG: one
# polyline per log, the extreme points on the frame's edges, the legend, same bytes twice;
# errors name the file and line.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ppo() { # steps total cpu p_opt: a line as train prints it
  printf 'steps %s/%s  1500 steps/s  cpu %s s  mean return -1.0500 (120 episodes)  entropy 0.461 (coef 0.0100)  kl 0.0044  p_opt %s%% on 100 sets\n' "$@"
}
{ ppo 250 1000 10.0 20.00; ppo 500 1000 20.0 15.00; ppo 750 1000 30.0 12.00; ppo 1000 1000 40.0 10.00; } > "$tmp/a.log"
# The lead's wrapper around a train without its own CPU field, killed and resumed: the
# resumed process counts its CPU from 0 again, the point past the checkpoint (at 600) was
# lost, a line with an empty cpu= and a terminal's rewritten line.
{ echo "1732400000 cpu=5.0 $(ppo 300 1000 x 18.00 | sed 's/  cpu x s//')"
  echo "1732400100 cpu=9.0 $(ppo 600 1000 x 16.00 | sed 's/  cpu x s//')"
  echo "1732400200 exit=137"
  echo "1732400300 cpu=0.1 resuming b.bin at 300 steps"
  printf '1732400400 cpu=4.0 steps 350/1000  1 steps/s\r%s\n' "$(ppo 600 1000 x 14.00 | sed 's/  cpu x s//')"
  echo "1732400500 cpu= $(ppo 900 1000 x 11.00 | sed 's/  cpu x s//')"
  echo "1732400600 exit=0"; } > "$tmp/b.log"
"$bin" plot --curves "$tmp/a.log,$tmp/b.log" -o "$tmp/s.svg"
"$bin" plot --curves "$tmp/a.log,$tmp/b.log" -o "$tmp/s2.svg"
cmp -s "$tmp/s.svg" "$tmp/s2.svg" || fail "same logs, different bytes"
python3 - "$tmp/s.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
lines = [p for p in root.iter(ns + "polyline") if p.get("class") == "curve"]
assert len(lines) == 2, len(lines)
frame = [r for r in root.iter(ns + "rect") if r.get("class") == "frame"][0]
x0, y0 = float(frame.get("x")), float(frame.get("y"))
x1, y1 = x0 + float(frame.get("width")), y0 + float(frame.get("height"))
pts = [[tuple(map(float, q.split(","))) for q in p.get("points").split()] for p in lines]
assert len(pts[0]) == 4 and len(pts[1]) == 3, [len(p) for p in pts]  # 600 was lost
# a.log spans steps 250..1000 and p_opt 20..10 on axes [0, 1000] x [10, 20].
assert abs(pts[0][-1][0] - x1) < 0.01, "max steps not at the right edge"
assert abs(pts[0][0][1] - y0) < 0.01, "max p_opt not at the top"
assert abs(pts[0][-1][1] - y1) < 0.01, "min p_opt not at the bottom"
assert abs(pts[0][0][0] - (x0 + (x1 - x0) / 4)) < 0.01, "250 steps not a quarter across"
texts = [t.text for t in root.iter(ns + "text")]
assert "a" in texts and "b" in texts, texts
assert "p_opt on the evaluation set against environment steps" in texts
PY
# Against CPU: b's resumed points go on from the last point before the resume (5 s).
"$bin" plot --curves "$tmp/b.log" --x cpu -o "$tmp/c.svg" 2> "$tmp/err" && fail "empty cpu= accepted"
grep -q "b.log:6: no CPU time" "$tmp/err" || fail "empty cpu= message: $(cat "$tmp/err")"
sed -i '/cpu= steps/d' "$tmp/b.log"
"$bin" plot --curves "$tmp/a.log,$tmp/b.log" --x cpu --label "own count,wrapper" -o "$tmp/c.svg"
python3 - "$tmp/c.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in ET.parse(sys.argv[1]).getroot().iter(ns + "title")]
assert "own count: cpu s 40, p_opt % 10" in titles, titles
assert "wrapper: cpu s 5, p_opt % 18" in titles, titles
assert "wrapper: cpu s 9, p_opt % 14" in titles, titles  # 5 s before the resume + 4 s
assert not any(t.startswith("wrapper: cpu s 9, p_opt % 16") for t in titles)
PY
# hier train's shipped logs: throughput by default.
h=$src/models/logs
"$bin" plot --curves "$h/hier-w12-c4.log,$h/hier-w12-c4-best.log" -o "$tmp/h.svg"
python3 - "$tmp/h.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert sum(p.get("class") == "curve" for p in root.iter(ns + "polyline")) == 2
texts = [t.text for t in root.iter(ns + "text")]
assert "throughput on the test windows against environment steps" in texts
assert "hier-w12-c4-best" in texts
PY
# Errors: exit 1 naming the file (and line), nothing written; usage errors exit 2.
set +e
echo "resuming nothing" > "$tmp/none.log"
"$bin" plot --curves "$tmp/none.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "none.log:1: malformed resume line" "$tmp/err" || fail "bad resume line: rc $rc"
echo "migsched train: an error" > "$tmp/none.log"
"$bin" plot --curves "$tmp/none.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "none.log: no progress lines" "$tmp/err" || fail "no progress lines: rc $rc"
{ ppo 250 1000 1.0 20.00; ppo 500 1000 2.0 1x.5; } > "$tmp/bad.log"
"$bin" plot --curves "$tmp/a.log,$tmp/bad.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.log:2: malformed p_opt '1x.5%'" "$tmp/err" || fail "bad number: rc $rc $(cat "$tmp/err")"
{ ppo 500 1000 1.0 20.00; ppo 250 1000 2.0 19.00; } > "$tmp/bad.log"
"$bin" plot --curves "$tmp/bad.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.log:2: steps 250 after 500" "$tmp/err" || fail "steps back: rc $rc"
ppo 99999999999999999999 1000 1.0 20.00 > "$tmp/bad.log"
"$bin" plot --curves "$tmp/bad.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.log:1: malformed step count" "$tmp/err" || fail "step overflow: rc $rc"
echo "17 cpu=1.x $(ppo 250 1000 1.0 20.00)" > "$tmp/bad.log"
"$bin" plot --curves "$tmp/bad.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.log:1: malformed cpu= prefix '1.x'" "$tmp/err" || fail "bad prefix: rc $rc"
"$bin" plot --curves "$h/hier-w12-c4.log" --x cpu -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "hier-w12-c4.log:1: no CPU time" "$tmp/err" || fail "no cpu: rc $rc"
"$bin" plot --curves "$h/hier-w12-c4.log" --y p_opt -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "hier-w12-c4.log:1: no p_opt" "$tmp/err" || fail "no p_opt: rc $rc"
"$bin" plot --curves "$tmp/missing.log" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "missing.log" "$tmp/err" || fail "missing log: rc $rc"
"$bin" plot --curves "$tmp/a.log" -o "$tmp/x.png" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "must end in .svg" "$tmp/err" || fail "png: rc $rc"
[ ! -e "$tmp/x.svg" ] && [ ! -e "$tmp/x.png" ] || fail "output written on an error"
"$bin" plot --curves "$tmp/a.log,$tmp/b.log" --label one -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--label count: rc $rc"
"$bin" plot --curves "$tmp/a.log" --x wall -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--x wall: rc $rc"
"$bin" plot --curves "$tmp/a.log" --y loss -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "--y loss: rc $rc"
"$bin" plot --curves "$tmp/a.log" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "no -o: rc $rc"
"$bin" plot --curves "$tmp/a.log" "$tmp/s.json" -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "schedule file with --curves: rc $rc"
"$bin" plot --curves "$tmp/a.log,,$tmp/b.log" -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "empty log name: rc $rc"
set -e
[ ! -e "$tmp/x.svg" ] || fail "output written on a usage error"
"$bin" plot --curves x --help | grep -q 'usage: migsched plot --curves' || fail "help"
echo "plot_curves: ok"
