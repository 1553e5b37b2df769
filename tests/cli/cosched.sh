#!/usr/bin/env bash
# cosched.sh: `migsched cosched` end to end: generate, every algorithm, errors, experiment.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" cosched --help | grep -q "cosched generate" || fail "help"
"$bin" cosched generate --setting uniform --n 25 --seed 7 -o "$tmp/a.json"
"$bin" cosched generate --setting uniform --n 25 --seed 7 > "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "generate is not deterministic"
"$bin" cosched generate --setting uniform --n 25 --seed 8 | cmp -s - "$tmp/a.json" && fail "seed ignored"

for algo in plp caterpillar nonpreemptive maxpair direct sequential; do
  "$bin" cosched "$tmp/a.json" --algo "$algo" --time-limit 2 --json > "$tmp/$algo.out"
  for key in makespan preemptions intervals; do
    grep -q "\"$key\"" "$tmp/$algo.out" || fail "$algo: no $key in JSON"
  done
  "$bin" cosched "$tmp/a.json" --algo "$algo" --time-limit 2 --plot "$tmp/$algo.svg" | grep -q "makespan" \
    || fail "$algo: text output"
  grep -q "<svg" "$tmp/$algo.svg" || fail "$algo: plot"
  python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$tmp/$algo.svg" \
    || fail "$algo: plot not well formed"
done
grep -q '"preemptions": 0' "$tmp/nonpreemptive.out" || fail "nonpreemptive preempts"

# A measured catalogue file is accepted (here: a tiny hand-made one).
printf 'name,p,k1,k2\nk1,1.0,0.4,0.9\nk2,2.0,0.8,0.0\n' > "$tmp/cat.csv"
"$bin" cosched generate --setting weighted --n 6 --catalogue "$tmp/cat.csv" -o "$tmp/c.json"
"$bin" cosched "$tmp/c.json" --algo caterpillar > /dev/null

# Bad input: exit 1, message names the file and the problem, nothing written.
printf 'name,p,a,b\na,1,1,0.5\nb,1,0.5\n' > "$tmp/bad.csv"
set +e
"$bin" cosched "$tmp/bad.csv" --algo plp 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] || fail "bad csv exit $rc"
grep -q "bad.csv: line 3" "$tmp/err" || fail "bad csv message: $(cat "$tmp/err")"
set +e
"$bin" cosched "$tmp/a.json" --algo nope 2> /dev/null; rc=$?
"$bin" cosched generate --setting uniform --n 0 2> /dev/null; rc2=$?
"$bin" cosched generate --setting uniform --n 5 --catalogue "$tmp/bad.csv" -o "$tmp/never.json" 2> /dev/null; rc3=$?
set -e
[ $rc -eq 1 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 1 ] || fail "usage exits $rc $rc2 $rc3"
[ ! -e "$tmp/never.json" ] || fail "output written on error"

"$bin" cosched experiment --setting random --n 8,16 --instances 2 --direct-max-n 8 \
  --direct-limit 1 -o "$tmp/exp.csv" --svg "$tmp/exp" 2> "$tmp/summary"
head -1 "$tmp/exp.csv" | grep -q "^setting,n,instance,algorithm,makespan" || fail "csv header"
[ "$(grep -c ',direct,' "$tmp/exp.csv")" -eq 2 ] || fail "direct rows"
[ "$(grep -c ',caterpillar,' "$tmp/exp.csv")" -eq 4 ] || fail "caterpillar rows"
for f in fig13 fig14 fig15; do grep -q "<svg" "$tmp/exp-$f.svg" || fail "$f"; done
# The figures are well formed, a line per algorithm, a point per size it ran at (direct
# only at n = 8), and the running time's axis has its ticks at powers of ten.
python3 - "$tmp/exp" <<'PY'
import math, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
for fig, lines, points in (("fig13", 1, 2), ("fig14", 3, 5), ("fig15", 5, 9)):
    root = ET.parse(sys.argv[1] + "-" + fig + ".svg").getroot()
    curves = [p for p in root.iter(ns + "polyline") if p.get("class") == "curve"]
    assert len(curves) == lines, (fig, len(curves))
    assert len(list(root.iter(ns + "circle"))) == points, fig
    if fig == "fig15":
        ticks = [float(t.text) for t in root.iter(ns + "text") if t.get("text-anchor") == "end"]
        assert len(ticks) >= 2, ticks
        assert all(abs(math.log10(v) - round(math.log10(v))) < 1e-9 for v in ticks), ticks
        titles = [t.text for t in root.iter(ns + "title")]
        assert any(t.startswith("direct: n 8, y ") for t in titles), titles
PY
grep -q "cat_ppt" "$tmp/summary" || fail "summary"
echo ok
