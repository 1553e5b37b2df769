#!/bin/bash
# online.sh: `migsched online simulate|ablation|sweep`: outputs, determinism, bad input errors.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fails=$((fails + 1)); fi; }

# generated workload, every output
"$bin" online simulate --gpu A100-40GB --gpus 4 --arrival-mean 25 --jobs 150 --seed 3 \
    --check --csv "$tmp/jobs.csv" --plot "$tmp/plot.svg" --save-trace "$tmp/trace.csv" >"$tmp/out" 2>&1
check "simulate exits 0" "[ $? -eq 0 ]"
check "summary printed" "grep -q 'mean turnaround' '$tmp/out'"
check "per-job csv has 150 jobs" "[ \$(wc -l <'$tmp/jobs.csv') -eq 151 ]"
check "csv header" "head -1 '$tmp/jobs.csv' | grep -q '^name,arrival,profile,work,start,end,wait,exec,turnaround,gpu,migrations$'"
check "svg written" "grep -q '<svg' '$tmp/plot.svg' && grep -q 'polyline' '$tmp/plot.svg'"
# replaying the saved trace gives the same jobs CSV
"$bin" online simulate --gpu A100-40GB --gpus 4 --trace "$tmp/trace.csv" --csv "$tmp/jobs2.csv" >/dev/null 2>&1
check "trace replay identical" "cmp -s <(cut -d, -f2- '$tmp/jobs.csv') <(cut -d, -f2- '$tmp/jobs2.csv')"
# same seed, same bytes
"$bin" online simulate --gpu A100-40GB --gpus 4 --arrival-mean 25 --jobs 150 --seed 3 >"$tmp/o1"
"$bin" online simulate --gpu A100-40GB --gpus 4 --arrival-mean 25 --jobs 150 --seed 3 >"$tmp/o2"
check "deterministic" "cmp -s '$tmp/o1' '$tmp/o2'"
for p in firstfit-static firstfit-dynamic; do
    "$bin" online simulate --gpu A30 --gpus 2 --arrival-mean 50 --jobs 60 --service long --policy $p --check >"$tmp/out" 2>&1
    check "policy $p runs" "[ $? -eq 0 ] && grep -q 'policy $p' '$tmp/out'"
done
"$bin" online simulate --gpu H100 --gpus 3 --arrival-mean 20 --jobs 80 --no-migration --no-balance \
    --mix 1g.10gb:2,1g.20gb,3g.40gb --tau 0.6 --kappa 0 --check >"$tmp/out" 2>&1
check "switches and memory-distinct mix" "[ $? -eq 0 ] && grep -q 'balance off, dynamic on, migration off' '$tmp/out' && grep -q 'migrations 0' '$tmp/out'"
# queue disciplines and the migration rule: named in the summary and the JSON, deterministic
for q in fcfs-profile fcfs reserve; do
    "$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 120 --seed 4 --queue $q \
        --reserve-after 30 --migration-rule always --migration-cost 10 --check >"$tmp/q1" 2>&1
    check "queue $q runs" "[ $? -eq 0 ] && grep -q 'migration always), queue $q' '$tmp/q1'"
    "$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 120 --seed 4 --queue $q \
        --reserve-after 30 --migration-rule always --migration-cost 10 --check >"$tmp/q2" 2>&1
    check "queue $q deterministic" "cmp -s '$tmp/q1' '$tmp/q2'"
done
check "reserve names its threshold" "grep -q 'queue reserve after 30 s' '$tmp/q1'"
"$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 50 --json >"$tmp/j" 2>&1
check "json names the defaults" "jq -e '.queue == \"reserve\" and .reserve_after == 7200 and .migration_rule == \"cost-aware\"' '$tmp/j' >/dev/null"
"$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 5 --queue lifo 2>"$tmp/err"
check "bad --queue" "[ $? -eq 2 ] && grep -q \"queue must be fcfs-profile, fcfs or reserve, got 'lifo'\" '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 5 --migration-rule never 2>"$tmp/err"
check "bad --migration-rule" "[ $? -eq 2 ] && grep -q 'migration-rule must be cost-aware or always' '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 8 --jobs 5 --reserve-after -1 2>"$tmp/err"
check "bad --reserve-after" "[ $? -eq 2 ] && grep -q 'reserve-after must be a number' '$tmp/err'"
"$bin" online ablation --gpus 2 --jobs 20 --seeds 1 --queue fcfs --migration-rule always >"$tmp/out" 2>&1
check "ablation takes the queue options" "[ $? -eq 0 ] && grep -q 'Long(50)' '$tmp/out'"
# the real Alibaba trace (first 300 one-GPU pods)
ali="$src/../shared/data/alibaba-openb-2023/openb_pod_list_default.csv"
if [ -f "$ali" ]; then
    "$bin" online simulate --gpu A100-40GB --gpus 8 --alibaba "$ali" --limit 300 >"$tmp/out" 2>"$tmp/err"
    check "alibaba runs" "[ $? -eq 0 ] && grep -q '300 jobs' '$tmp/out' && grep -q 'one-GPU pods kept' '$tmp/err'"
fi
# ablation prints the four workloads and the baseline row at 1.000
"$bin" online ablation --gpus 4 --jobs 40 --seeds 1 >"$tmp/out" 2>&1
check "ablation" "[ $? -eq 0 ] && grep -q 'Long(50)' '$tmp/out' && grep -q '^firstfit-static *1.000' '$tmp/out'"

# timeline CSV: Fig. 6's desired and actual instances per profile
"$bin" online simulate --gpu A100-40GB --gpus 2 --arrival-mean 20 --jobs 60 --seed 2 \
    --timeline "$tmp/tl.csv" --plot "$tmp/tl.svg" >"$tmp/out" 2>&1
check "timeline written" "[ $? -eq 0 ] && head -1 '$tmp/tl.csv' | grep -q '^t,fragmentation,instances,busy,queued,desired_1g.5gb,actual_1g.5gb,'"
check "timeline ends empty" "tail -1 '$tmp/tl.csv' | awk -F, '{for (i = 6; i <= NF; i += 2) if (\$i != 0) exit 1}'"
check "plot has the desired/actual panel" "grep -q 'desired (dashed) and actual (solid)' '$tmp/tl.svg' && grep -q 'stroke-dasharray' '$tmp/tl.svg'"
# the plot is well formed, a line per timeline column and a red mark per migration
check "plot shows the timeline's columns" "python3 - '$tmp/tl.csv' '$tmp/tl.svg' '$tmp/out' <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
cols = open(sys.argv[1]).readline().strip().split(',')[1:]
root = ET.parse(sys.argv[2]).getroot()
curves = [p for p in root.iter(ns + 'polyline') if p.get('class') == 'curve']
assert len(curves) == len(cols), (len(curves), cols)
texts = [t.text for t in root.iter(ns + 'text')]
for c in cols[4:]:
    kind, prof = c.split('_', 1)
    assert prof + ' ' + kind in texts, c
marks = [l for l in root.iter(ns + 'line') if l.get('stroke-opacity') == '0.5']
assert len(marks) == int(re.search(r'migrations (\\d+)', open(sys.argv[3]).read()).group(1))
PY"
check "tpot printed" "grep -q 'mean time per output token (ms): 1g.5gb' '$tmp/out'"
# the paper's Fig. 5 baselines
for p in owp elasticbatch; do
    "$bin" online simulate --gpu A100-40GB --gpus 3 --arrival-mean 20 --jobs 80 --policy $p --check >"$tmp/out" 2>&1
    check "policy $p runs" "[ $? -eq 0 ] && grep -q 'policy $p,' '$tmp/out' && grep -q 'migrations 0' '$tmp/out'"
done
# the static layout on a generated workload is chosen out of sample; --layout tuned needs a generator
"$bin" online simulate --gpu A100-40GB --gpus 2 --trace "$tmp/trace.csv" --policy firstfit-static --layout tuned 2>"$tmp/err"
check "tuned needs a generator" "[ $? -eq 2 ] && grep -q 'tuned needs a generated workload' '$tmp/err'"
# ablation on one GPU: no static layout holds 1g+2g+3g+4g, so those rows are n/a, not a failure
"$bin" online ablation --gpus 1 --jobs 30 --seeds 1 >"$tmp/out" 2>&1
check "ablation --gpus 1 exits 0" "[ $? -eq 0 ] && grep -q '^firstfit-static *n/a' '$tmp/out' && grep -q '^all (+migration) *n/a \[' '$tmp/out'"
# sweep: every policy per load, CSV and SVG, same seed -> same bytes
"$bin" online sweep --load 0.6:0.8:0.1 --jobs 60 --seeds 2 --csv "$tmp/s1.csv" --plot "$tmp/s1.svg" >"$tmp/s1.out" 2>&1
check "sweep exits 0" "[ $? -eq 0 ]"
check "sweep csv has 6 policies x 3 loads" "[ \$(wc -l <'$tmp/s1.csv') -eq 19 ] && grep -q '^frag/fcfs-profile,0.7000,' '$tmp/s1.csv' && head -1 '$tmp/s1.csv' | grep -q '^policy,load,arrival_mean,turnaround,makespan,wait,execution,utilisation,fragmentation,layout,wait_p50_1g.5gb,wait_p99_1g.5gb,tpot_ms_1g.5gb'"
check "sweep static layout named" "grep -q '^firstfit-static,0.6000,.*,\(packed\|small-first\|spread\|grouped\),' '$tmp/s1.csv'"
check "sweep svg" "grep -q '<svg' '$tmp/s1.svg' && [ \$(grep -c '<polyline' '$tmp/s1.svg') -eq 30 ]"
# the five panels' points are the CSV's turnaround, wait, utilisation and fragmentation
check "sweep svg shows the csv" "python3 - '$tmp/s1.csv' '$tmp/s1.svg' <<'PY'
import csv, sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
rows = list(csv.DictReader(open(sys.argv[1])))
root = ET.parse(sys.argv[2]).getroot()
titles = [c.find(ns + 'title').text for c in root.iter(ns + 'circle')]
assert len(titles) == 5 * len(rows), len(titles)
for panel, col in ((0, 'turnaround'), (1, 'wait'), (3, 'utilisation'), (4, 'fragmentation')):
    for k, r in enumerate(rows):
        name, rest = titles[panel * len(rows) + k].split(': ')
        load, y = rest.split(', ')
        assert name == r['policy'] and float(load.split()[1]) == float(r['load']), (name, r)
        assert abs(float(y.split()[1]) - float(r[col])) <= 1e-4 * max(1, float(r[col])), col
texts = [t.text for t in root.iter(ns + 'text')]
assert all(r['policy'] in texts for r in rows)
PY"
"$bin" online sweep --load 0.6:0.8:0.1 --jobs 60 --seeds 2 --csv "$tmp/s2.csv" --plot "$tmp/s2.svg" >"$tmp/s2.out" 2>&1
check "sweep deterministic" "cmp -s '$tmp/s1.csv' '$tmp/s2.csv' && cmp -s '$tmp/s1.svg' '$tmp/s2.svg' && cmp -s '$tmp/s1.out' '$tmp/s2.out'"
"$bin" online sweep --load 0.6:0.8:0.1 --jobs 60 --seeds 2 --seed 9 --csv "$tmp/s3.csv" >/dev/null 2>&1
check "sweep seed matters" "! cmp -s '$tmp/s1.csv' '$tmp/s3.csv'"
"$bin" online sweep --load 0.5 --policies frag,owp --jobs 40 --seeds 1 >"$tmp/out" 2>&1
check "sweep one load, two policies" "[ $? -eq 0 ] && [ \$(grep -c '^\(frag\|owp\) ' '$tmp/out') -eq 2 ]"
"$bin" online sweep --load 1.1:0.5:0.1 --csv "$tmp/none.csv" 2>"$tmp/err"
check "sweep bad load" "[ $? -eq 1 ] && grep -q 'LO <= HI' '$tmp/err' && [ ! -e '$tmp/none.csv' ]"
"$bin" online sweep --policies frag,nope 2>"$tmp/err"
check "sweep bad policy" "[ $? -eq 1 ] && grep -q \"unknown policy 'nope'\" '$tmp/err'"
"$bin" online sweep --policies frag/lifo 2>"$tmp/err"
check "sweep bad queue" "[ $? -eq 1 ] && grep -q \"unknown queue discipline 'lifo'\" '$tmp/err'"
"$bin" online sweep --seeds 0 2>"$tmp/err"
check "sweep bad seeds" "[ $? -eq 2 ] && grep -q -- '--seeds' '$tmp/err'"

# bad input: clear message naming the line, exit 1, nothing written
printf 'arrival,profile,work\n0,1g.5gb,10\n3,2g.10gb,abc\n' >"$tmp/bad.csv"
"$bin" online simulate --gpu A100-40GB --gpus 2 --trace "$tmp/bad.csv" --csv "$tmp/none.csv" 2>"$tmp/err"
check "bad work exits 1" "[ $? -eq 1 ]"
check "error names the line" "grep -q 'bad.csv:3: work' '$tmp/err'"
check "no output file" "[ ! -e '$tmp/none.csv' ]"
printf 'arrival,profile,work\n0,5g.25gb,10\n' >"$tmp/bad2.csv"
"$bin" online simulate --gpu A100-40GB --gpus 2 --trace "$tmp/bad2.csv" 2>"$tmp/err"
check "bad profile" "[ $? -eq 1 ] && grep -q 'bad2.csv:2: profile' '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 2 --trace "$tmp/missing.csv" 2>"$tmp/err"
check "missing file" "[ $? -eq 1 ] && grep -q 'missing.csv' '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 0 --jobs 5 --arrival-mean 5 2>/dev/null
check "bad --gpus is usage error" "[ $? -eq 2 ]"
"$bin" online simulate --gpu A100-40GB --gpus 2 --jobs 5 --arrival-mean 5 --policy nope 2>"$tmp/err"
check "bad policy" "[ $? -eq 1 ] && grep -q \"unknown policy 'nope'\" '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 2 --jobs 5 --arrival-mean 5 --mix 1g.5gb:x 2>"$tmp/err"
check "bad mix" "[ $? -eq 1 ] && grep -q 'mix' '$tmp/err'"
"$bin" online simulate --gpu A100-40GB --gpus 2 2>/dev/null
check "no workload is usage error" "[ $? -eq 2 ]"
"$bin" online simulate --gpu A100-40GB --gpus 1 --policy firstfit-static \
    --trace <(printf 'arrival,profile,work\n0,4g.20gb,1\n0,3g.20gb,1\n0,2g.10gb,1\n0,1g.5gb,1\n') 2>"$tmp/err"
check "static layout without room" "[ $? -eq 1 ] && grep -q 'no room' '$tmp/err'"
"$bin" online --help >/dev/null && "$bin" online simulate --help >/dev/null && "$bin" online ablation --help >/dev/null && "$bin" online sweep --help >/dev/null
check "help" "[ $? -eq 0 ]"

[ $fails -eq 0 ] && echo "online.sh: all passed"
exit $fails
