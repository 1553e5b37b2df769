#!/usr/bin/env bash
# cluster_compare.sh: Slurm's static MIG against migsched's dynamic MIG on the real Slurm
# cluster of tests/cluster/cluster.sh (4 nodes x 2 fake A100-40GB), and the cluster
# simulator (`migsched online simulate --nodes 4 --gpus 2`) on the very same job stream.
#
# The stream, per offered load L: the Alibaba trace mapped to MIG profiles, simulated at
# load L with the static best chosen on its first half (`--static-layout best`); of the
# evaluated second half (`--save-trace`), the first JOBS jobs of at most CAP s of work (the
# trace's tail of pods living for days would set the time scale alone), set to load L
# again on that window by the simulator (`--trace --load L`, which saves it). Arrivals and
# works are then divided by one factor F, chosen so that the longer of the simulator's two
# makespans takes 80 % of MINUTES; each job is an sbatch of `sleep work/F` submitted at its
# scaled arrival, with a time limit of its scaled work rounded up to minutes, plus one.
#   static-best: every GPU partitioned once by the simulator's chosen layout (cluster.sh
#     --static: a mig-parted config applied by `migsched apply`, typed gpu GRES); a job asks
#     --gres=gpu:TYPE:1 of the smallest type that holds its profile, as the simulator does.
#   dynamic: migschedd on every node with slurm-node (--slurm-node) and the plugin's
#     timeout=60 requeue_exit=75 with RequeueExit=75 (docs/cluster.md); a job asks
#     --mig=PROFILE --gres=migslice:C.
# From Slurm's jobcomp/filetxt records (SubmitTime, StartTime, EndTime: whole seconds) and,
# under dynamic, each allocation's wait in the plugin (migschedd's /v1/jobs wait_seconds,
# added to Slurm's start): waits and turnarounds, makespan and slice utilisation, all
# multiplied by F back into the trace's seconds, as the simulator's. plugin_waits counts
# allocations whose plugin wait was over 0.5 s. Per load and policy, two lines:
#   cluster_compare load=L policy=P mean_wait=... util=... plugin_waits=N source=sim
#   cluster_compare load=L policy=P mean_wait=... util=... plugin_waits=N source=cluster
# (the static layout's policy named static-best, as the simulator names its choice), then
# the per-profile waits of both, and the mean waits' difference.
#
# usage (as root): bench/cluster_compare.sh [--jobs N] [--minutes M] [--cap S] [--loads "L..."]
#                                           [--policies "static-best dynamic"] [--out DIR]
# Defaults: 250 jobs, 4 minutes, cap 3600 s, loads 0.6 0.8 1.0, both policies. The trace is
# $MIGSCHED_ALIBABA or shared/data next to (or above) the source tree; --out keeps every
# run's records (jobcomp, migschedd's jobs, the stream) in DIR. Skips (exit 0, saying why)
# when not root or without Slurm or the trace.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$S/build}
M=${MIGSCHED:-$BUILD/migsched}
CLUSTER=$S/tests/cluster/cluster.sh
JOBS=250 MINUTES=4 CAP=3600 LOADS="0.6 0.8 1.0" POLICIES="static-best dynamic" OUTDIR=
NODES=4 GPUS=2 GPU=A100-40GB
while [ $# -gt 0 ]; do
    case $1 in
    --jobs) JOBS=$2 ;;
    --minutes) MINUTES=$2 ;;
    --cap) CAP=$2 ;;
    --loads) LOADS=$2 ;;
    --policies) POLICIES=$2 ;;
    --out) OUTDIR=$2 ;;
    *) sed -n '/^# usage/,/^# Defaults/p' "$0" >&2; exit 2 ;;
    esac
    shift 2 || exit 2
done
skip() {
    echo "cluster_compare: skipped, $*"
    exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (the cluster's namespaces and daemons)"
for p in slurmctld slurmd sbatch munged ip nsenter curl jq; do
    command -v "$p" > /dev/null || skip "no $p (make deps deps-test)"
done
[ -x "$M" ] || skip "no migsched at $M (build it)"
TRACE=${MIGSCHED_ALIBABA:-}
for t in "$S/shared/data" "$S/../shared/data" "$S/../../shared/data"; do
    [ -n "$TRACE" ] && break
    [ -f "$t/alibaba-openb-2023/openb_pod_list_default.csv" ] &&
        TRACE=$t/alibaba-openb-2023/openb_pod_list_default.csv
done
[ -n "$TRACE" ] && [ -f "$TRACE" ] || skip "no Alibaba trace (set MIGSCHED_ALIBABA)"

TMP=$(mktemp -d)
C=$TMP/c
cleanup() {
    bash "$CLUSTER" stop "$C" 2> /dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sim() { "$M" online simulate --gpu "$GPU" --nodes "$NODES" --gpus "$GPUS" "$@"; }

# --- the static layout as a mig-parted config, and each profile's type in it ---

# partition_names P: the profile names of partition P (sizes in slot order, e.g. 4-3).
partition_names() {
    "$M" partitions --gpu "$GPU" | awk -v p="$1" '$2 == p { for (i = 3; i <= NF; i++) { sub("@.*", "", $i); print $i } }'
}
# static_config LAYOUT FILE: config "static" of LAYOUT (one partition for every GPU, or a
# comma list of one per GPU).
static_config() {
    local parts i=0 p
    IFS=, read -ra parts <<< "$1"
    {
        echo "version: v1"
        echo "mig-configs:"
        echo "  static:"
        for p in "${parts[@]}"; do
            if [ "${#parts[@]}" = 1 ]; then echo "    - devices: all"; else echo "    - devices: [$i]"; fi
            echo "      mig-enabled: true"
            echo "      mig-devices:"
            partition_names "$p" | sort | uniq -c | awk '{ printf "        \"%s\": %d\n", $2, $1 }'
            i=$((i + 1))
        done
    } > "$2"
}
# The layout's types, "name slices memory" per line.
layout_types() {
    local p
    for p in ${1//,/ }; do partition_names "$p"; done | sort -u |
        sed -n 's/^\([0-9]*\)g\.\([0-9]*\)gb.*/& \1 \2/p'
}

# --- one run on the cluster ---

# run_cluster POLICY STREAM F LAYOUT OUT: submits the stream scaled by F, waits for every
# job, and leaves OUT/jobcomp.txt, OUT/plugin.txt (slurm job id, wait s) and OUT/jobs.tsv.
run_cluster() {
    local policy=$1 stream=$2 f=$3 layout=$4 out=$5 types=$TMP/types t0 now k=0
    local off sl lim prof c type held opts
    mkdir -p "$out"
    layout_types "$layout" > "$types"
    # name offset_us sleep_s limit_min profile slices type held_slices
    awk -F, -v f="$f" -v types="$types" '
        BEGIN { while ((getline l < types) > 0) { split(l, t, " "); tn[++nt] = t[1]; ts[nt] = t[2]; tm[nt] = t[3] } }
        NR == 1 { next }
        { if (a0 == "") a0 = $1
          split($2, q, "g."); cp = q[1] + 0; mp = q[2] + 0
          best = 0
          for (i = 1; i <= nt; i++)
              if (ts[i] >= cp && tm[i] >= mp && (!best || ts[i] < ts[best] || (ts[i] == ts[best] && tm[i] < tm[best])))
                  best = i
          s = $3 / f; lim = int(s / 60) + (s % 60 > 0) + 1
          printf "j%d %d %.3f %d %s %d %s %d\n", NR - 1, ($1 - a0) / f * 1e6, s, lim, $2, cp,
              best ? tn[best] : "none", best ? ts[best] : 0 }' "$stream" > "$out/jobs.tsv"
    if [ "$policy" = dynamic ]; then
        bash "$CLUSTER" start "$C" --nodes "$NODES" --gpus "$GPUS" --gpu "$GPU" --slurm-node \
            --timeout 60 --requeue-exit 75 > "$out/start.log" 2>&1 || { cat "$out/start.log" >&2; return 1; }
    else
        static_config "$layout" "$TMP/static.yaml"
        bash "$CLUSTER" start "$C" --nodes "$NODES" --gpus "$GPUS" --gpu "$GPU" \
            --static "$TMP/static.yaml:static" > "$out/start.log" 2>&1 || { cat "$out/start.log" >&2; return 1; }
    fi
    export SLURM_CONF=$C/slurm.conf
    t0=${EPOCHREALTIME/./}
    while read -r name off sl lim prof c type held; do
        now=${EPOCHREALTIME/./}
        [ $((t0 + off - now)) -le 0 ] || sleep "$(printf '%d.%06d' $(((t0 + off - now) / 1000000)) $(((t0 + off - now) % 1000000)))"
        if [ "$policy" = dynamic ]; then opts=(--mig="$prof" --gres=migslice:"$c"); else opts=(--gres=gpu:"$type":1); fi
        sbatch -Q -o /dev/null -J "$name" --time="$lim" "${opts[@]}" --wrap "sleep $sl" < /dev/null > /dev/null ||
            echo "cluster_compare: sbatch of $name failed" >&2
        k=$((k + 1))
    done < "$out/jobs.tsv"
    local deadline=$((SECONDS + MINUTES * 60 * 3 + 120))
    while [ -n "$(squeue -h -o %i 2> /dev/null)" ] || ! squeue -h > /dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "cluster_compare: jobs still queued at the deadline" >&2; break; }
        sleep 1
    done
    cp "$C/jobcomp.txt" "$out/jobcomp.txt"
    : > "$out/plugin.txt"
    if [ "$policy" = dynamic ]; then
        for n in $(seq "$NODES"); do
            curl -s --unix-socket "$C/node$n/d.sock" "http://d/v1/jobs?state=done&limit=1000" |
                jq -r '.jobs[] | select(.slurm_job_id != null) | "\(.slurm_job_id) \(.wait_seconds)"' >> "$out/plugin.txt"
        done
    fi
    bash "$CLUSTER" stop "$C"
    unset SLURM_CONF
}

# cluster_line LOAD POLICY F OUT: the cluster_compare line and per-profile lines of a run.
cluster_line() {
    awk -v load="$1" -v policy="$2" -v f="$3" -v slices=$((NODES * GPUS * 7)) -v pf="$4/plugin.txt" -v jt="$4/jobs.tsv" '
        function t(s, d) { gsub(/[-T:]/, " ", s); return mktime(s) }
        function q(a, n, p,   h, lo) { h = (n - 1) * p; lo = int(h); return lo >= n - 1 ? a[n] : a[lo + 1] + (h - lo) * (a[lo + 2] - a[lo + 1]) }
        function sort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
        BEGIN { while ((getline l < pf) > 0) { split(l, x, " "); pw[x[1]] = x[2] }
                while ((getline l < jt) > 0) { split(l, x, " "); prof[x[1]] = x[5]; held[x[1]] = x[8] ? x[8] : x[6] } }
        { delete v; for (i = 1; i <= NF; i++) { k = index($i, "="); if (k) v[substr($i, 1, k - 1)] = substr($i, k + 1) }
          if (!(v["Name"] in prof)) next
          id[v["Name"]] = v["JobId"]; st[v["Name"]] = v["JobState"]
          sub_[v["Name"]] = t(v["SubmitTime"]); beg[v["Name"]] = t(v["StartTime"]); fin[v["Name"]] = t(v["EndTime"]) }
        END {
            first = -1; last = 0
            for (j in prof) {
                if (!(j in st) || st[j] != "COMPLETED") { bad++; continue }
                w = pw[id[j]] + 0; if (w > 0.5) waits++
                wait = (beg[j] - sub_[j] + w) * f; turn = (fin[j] - sub_[j]) * f
                n++; W[n] = wait; T[n] = turn; sw += wait; stt += turn
                p = prof[j]; pn[p]++; PW[p, pn[p]] = wait; PT[p, pn[p]] = turn; psw[p] += wait; pst[p] += turn
                busy += held[j] * (fin[j] - beg[j] - w) * f
                if (first < 0 || sub_[j] < first) first = sub_[j]; if (fin[j] > last) last = fin[j] }
            span = (last - first) * f
            sort(W, n); sort(T, n)
            printf "cluster_compare load=%.2f policy=%s mean_wait=%.3f p50_wait=%.3f p99_wait=%.3f mean_turnaround=%.3f util=%.4f plugin_waits=%d source=cluster\n",
                load, policy, sw / n, q(W, n, 0.5), q(W, n, 0.99), stt / n, busy / (slices * span), waits
            printf "  cluster %s: %d jobs, %d not COMPLETED, makespan %.0f s (F %.1f: Slurm times in whole seconds, %.0f s of the trace)\n", policy, n, bad, span, f, f
            for (p in pn) {
                delete a; delete b
                for (i = 1; i <= pn[p]; i++) { a[i] = PW[p, i]; b[i] = PT[p, i] }
                sort(a, pn[p]); sort(b, pn[p])
                printf "    cluster %-8s %4d jobs  wait mean %.1f p50 %.1f p99 %.1f s  turnaround mean %.1f p50 %.1f p99 %.1f s\n",
                    p, pn[p], psw[p] / pn[p], q(a, pn[p], 0.5), q(a, pn[p], 0.99), pst[p] / pn[p], q(b, pn[p], 0.5), q(b, pn[p], 0.99) } }
    ' "$4/jobcomp.txt"
}

for L in $LOADS; do
    d=$TMP/load$L
    mkdir -p "$d"
    layout=$(sim --alibaba "$TRACE" --load "$L" --save-trace "$d/eval.csv" 2> /dev/null |
        sed -n 's/^static layout \([^:]*\):.*/\1/p')
    [ -n "$layout" ] || { echo "cluster_compare: the simulator chose no static layout at load $L" >&2; exit 1; }
    awk -F, -v n="$JOBS" -v cap="$CAP" 'NR == 1 || ($3 <= cap && k++ < n)' "$d/eval.csv" > "$d/window.csv"
    sim --trace "$d/window.csv" --load "$L" --static-layout "$layout" --save-trace "$d/stream.csv" > "$d/sim.txt" 2>&1 ||
        { cat "$d/sim.txt" >&2; exit 1; }
    sim --trace "$d/window.csv" --load "$L" --static-layout "$layout" --summary-line |
        sed "s/policy=static-[^ ]*/policy=static-best/; s/\$/ source=sim/" > "$d/sim.lines"
    f=$(awk -v m="$MINUTES" '/makespan/ { x = $2 + 0; if (x > mx) mx = x } END { printf "%.3f", mx / (m * 60 * 0.8) }' "$d/sim.txt")
    echo "load $L: static best layout $layout (chosen on the trace's first half); $(($(wc -l < "$d/stream.csv") - 1)) jobs of <= $CAP s," \
        "the first of the evaluated half, time factor $f"
    for P in $POLICIES; do
        grep "policy=$P " "$d/sim.lines"
        if run_cluster "$P" "$d/stream.csv" "$f" "$layout" "$d/$P"; then
            cluster_line "$L" "$P" "$f" "$d/$P" | tee "$d/$P/line"
        else
            echo "cluster_compare: the $P run at load $L failed" >&2
        fi
        label=$([ "$P" = dynamic ] && echo dynamic || echo static-[^ ]*)
        sed -n "/^$label\$/,/^  makespan/p" "$d/sim.txt" | sed -n 's/^  \([0-9]g\.[^ ]*\) *\(.*\)/    sim     \1 \2/p'
        awk -v a="$(sed -n 's/.* mean_wait=\([^ ]*\).*/\1/p' "$d/sim.lines" | sed -n "$([ "$P" = dynamic ] && echo 1 || echo 2)p")" \
            -v b="$(sed -n 's/.* mean_wait=\([^ ]*\).*/\1/p' "$d/$P/line" 2> /dev/null | head -1)" \
            'BEGIN { if (b != "" && a > 0) printf "  mean wait: cluster %.1f s, sim %.1f s, cluster/sim %.2f\n", b, a, b / a }'
    done
done
[ -z "$OUTDIR" ] || { mkdir -p "$OUTDIR" && cp -r "$TMP"/load* "$OUTDIR"/; }
