#!/usr/bin/env bash
# migsched plot: SVG (well-formed, every task named) and self-contained HTML from a
# schedule file; names from the file or from --workload; errors for bad arguments.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
w=$src/data/rodinia_a30_8tasks.csv
"$bin" schedule "$w" --gpu A30-24GB --algo miso --json -o "$tmp/s.json"
"$bin" plot "$tmp/s.json" -o "$tmp/s.svg"
"$bin" plot "$tmp/s.json" -o "$tmp/s.html" --workload "$w" --title "MISO on Rodinia"
python3 - "$tmp/s.svg" "$tmp/s.html" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(ns + "title")]
for name in ["particlefilter", "nw", "lu", "lavaMD", "huffman", "heartwall", "gaussian", "pathfinder"]:
    assert any(t.startswith(name + " (task") for t in titles), name
classes = [r.get("class") for r in root.iter(ns + "rect")]
assert classes.count("create") == 5 and classes.count("destroy") == 4, classes
html = open(sys.argv[2]).read()
assert html.startswith("<!DOCTYPE html>") and "MISO on Rodinia" in html and "data-tip" in html
assert "src=" not in html and "href=" not in html
PY
set +e
"$bin" plot "$tmp/s.json" -o "$tmp/s.png" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q '.svg or .html' "$tmp/err" || fail "bad extension: rc $rc"
[ ! -e "$tmp/s.png" ] || fail "half-written output"
"$bin" plot "$tmp/none.json" -o "$tmp/x.svg" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'none.json' "$tmp/err" || fail "missing schedule: rc $rc"
"$bin" plot "$tmp/s.json" 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "no -o: rc $rc"
set -e
echo "plot: ok"
