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
# Both deployments run one job epilog (tests/cluster/cluster.sh: Epilog=/bin/true under
# static, the plugin's under dynamic), so that slurmctld schedules at each job's end.
# From slurmctld.log (each job's submission, start and end, in milliseconds; jobcomp's
# whole seconds where the log lacks one), jobcomp/filetxt's states and nodes and, under
# dynamic, each allocation's wait in the plugin (migschedd's /v1/jobs wait_seconds, added
# to Slurm's start): waits and turnarounds, makespan and slice utilisation, all multiplied
# by F back into the trace's seconds, as the simulator's. plugin_waits counts allocations
# whose plugin wait was over 0.5 s. Per load and policy:
#   cluster_compare load=L policy=P mean_wait=... util=... plugin_waits=N source=sim
#   cluster_compare load=L policy=P mean_wait=... util=... plugin_waits=N source=cluster
#   cluster_delays ... launch_overhead=S handover=S hold_overhead=S   (real s, from the log)
#   cluster_reach ... admitted=N plugin_over_creation=K fraction=K/N   (plugin waits over
#       the node daemon's mean instance creation time, from its /metrics)
#   uptime at the first submission and the last end (the machine is shared)
#   cluster_compare ... source=sim-timed   (the simulator with Slurm's delays: the hold
#       overhead just measured x F, --slurm-tick F, --backfill-interval 2F,
#       --time-limit-unit 60F, and --slurm-node under dynamic)
#   cluster_compare_check load=L policy=P cluster_mean_wait=... sim_mean_wait=...
#       ratio=cluster/sim within_15pct=yes|no sim_untimed_mean_wait=... untimed_ratio=...
# (the static layout's policy named static-best, as the simulator names its choice), with
# the per-profile waits of both.
#
# usage (as root): bench/cluster_compare.sh [--jobs N] [--minutes M] [--cap S] [--loads "L..."]
#                                           [--policies "static-best dynamic"] [--out DIR]
#                                           [--records DIR]
# Defaults: 250 jobs, 4 minutes, cap 3600 s, loads 0.6 0.8 1.0, both policies. The trace is
# $MIGSCHED_ALIBABA or shared/data next to (or above) the source tree; --out keeps every
# run's records (jobcomp, slurmctld.log, each node's slurmd and migschedd log, migschedd's
# jobs, the stream) in DIR; --records DIR
# takes the cluster's records from such a DIR (made with the same --jobs, --minutes, --cap
# and loads) instead of running the cluster, and analyses them again. Skips (exit 0, saying
# why) when not root or without Slurm or the trace.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$S/build}
M=${MIGSCHED:-$BUILD/migsched}
CLUSTER=$S/tests/cluster/cluster.sh
JOBS=250 MINUTES=4 CAP=3600 LOADS="0.6 0.8 1.0" POLICIES="static-best dynamic" OUTDIR= RECORDS=
NODES=4 GPUS=2 GPU=A100-40GB
while [ $# -gt 0 ]; do
    case $1 in
    --jobs) JOBS=$2 ;;
    --minutes) MINUTES=$2 ;;
    --cap) CAP=$2 ;;
    --loads) LOADS=$2 ;;
    --policies) POLICIES=$2 ;;
    --out) OUTDIR=$2 ;;
    --records) RECORDS=$2 ;;
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
    echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load average/load average/')" > "$out/uptime.txt"
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
    cp "$C/ctld/slurmctld.log" "$out/ctld.log"
    # Each node's slurmd log (slurmstepd's and the plugin's lines, the epilogs) and under
    # dynamic its migschedd log: where a job's hold goes between Slurm's stamps.
    for n in $(seq "$NODES"); do
        cp "$C/node$n/slurmd.log" "$out/node$n.slurmd.log"
        [ "$policy" != dynamic ] || cp "$C/node$n/migschedd.log" "$out/node$n.migschedd.log"
    done
    : > "$out/plugin.txt"
    : > "$out/creation.txt"
    if [ "$policy" = dynamic ]; then
        for n in $(seq "$NODES"); do
            curl -s --unix-socket "$C/node$n/d.sock" "http://d/v1/jobs?state=done&limit=1000" |
                jq -r '.jobs[] | select(.slurm_job_id != null) | "\(.slurm_job_id) \(.wait_seconds)"' >> "$out/plugin.txt"
            curl -s --unix-socket "$C/node$n/d.sock" http://d/metrics |
                awk -v n="node$n" '/^migsched_instance_creation_seconds_sum / { s = $2 }
                    /^migsched_instance_creation_seconds_count / { c = $2 } END { print n, s + 0, c + 0 }' >> "$out/creation.txt"
        done
    fi
    echo "$(date -u +%H:%M:%S) $(uptime | sed 's/.*load average/load average/')" >> "$out/uptime.txt"
    bash "$CLUSTER" stop "$C"
    unset SLURM_CONF
}

# cluster_line LOAD POLICY F OUT: the cluster_compare line, Slurm's measured delays, the
# plugin waits against one instance creation, and the per-profile lines of a run. Times
# are slurmctld.log's (milliseconds: submission, start, end of each job), jobcomp's whole
# seconds where the log lacks one.
cluster_line() {
    awk -v ld="$1" -v policy="$2" -v f="$3" -v slices=$((NODES * GPUS * 7)) -v pf="$4/plugin.txt" \
        -v jt="$4/jobs.tsv" -v lg="$4/ctld.log" -v cr="$4/creation.txt" '
        function t(s, d) { gsub(/[-T:]/, " ", s); return mktime(s) }
        function lt(s,   ms) { s = substr(s, 2, 23); ms = substr(s, 20, 4); return t(substr(s, 1, 19)) + ms }
        function jid(   k) { match($0, /JobId=[0-9]+/); return substr($0, RSTART + 6, RLENGTH - 6) }
        function q(a, n, p,   h, lo) { h = (n - 1) * p; lo = int(h); return lo >= n - 1 ? a[n] : a[lo + 1] + (h - lo) * (a[lo + 2] - a[lo + 1]) }
        function sort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
        BEGIN { while ((getline l < pf) > 0) { split(l, x, " "); pw[x[1]] = x[2] }
                while ((getline l < jt) > 0) { split(l, x, " "); prof[x[1]] = x[5]; sl[x[1]] = x[3]; held[x[1]] = x[8] ? x[8] : x[6] }
                while ((getline l < cr) > 0) { split(l, x, " "); if (x[3] > 0) thr[x[1]] = x[2] / x[3] }
                while ((getline l < lg) > 0) { $0 = l
                    if (/_slurm_rpc_submit_batch_job: JobId=/) lsub[jid()] = lt($1)
                    else if (/sched: Allocate JobId=|_start_job: Started JobId=/) lbeg[jid()] = lt($1)
                    else if (/_job_complete: JobId=[0-9]+ done/) lfin[jid()] = lt($1) } }
        { delete v; for (i = 1; i <= NF; i++) { k = index($i, "="); if (k) v[substr($i, 1, k - 1)] = substr($i, k + 1) }
          if (!(v["Name"] in prof)) next
          J = v["Name"]; i = v["JobId"]; id[J] = i; st[J] = v["JobState"]; nd[J] = v["NodeList"]
          sub_[J] = i in lsub ? lsub[i] : t(v["SubmitTime"]); beg[J] = i in lbeg ? lbeg[i] : t(v["StartTime"])
          fin[J] = i in lfin ? lfin[i] : t(v["EndTime"]) }
        END {
            first = -1; last = 0
            for (j in prof) {
                if (!(j in st) || st[j] != "COMPLETED") { bad++; continue }
                w = pw[id[j]] + 0; if (w > 0.5) waits++
                if (nd[j] in thr) { admitted++; PWs[admitted] = w; if (w > thr[nd[j]]) over++ }
                wait = (beg[j] - sub_[j] + w) * f; turn = (fin[j] - sub_[j]) * f
                n++; W[n] = wait; T[n] = turn; sw += wait; stt += turn
                launch += fin[j] - beg[j] - w - sl[j]
                p = prof[j]; pn[p]++; PW[p, pn[p]] = wait; PT[p, pn[p]] = turn; psw[p] += wait; pst[p] += turn
                busy += held[j] * (fin[j] - beg[j] - w) * f
                if (first < 0 || sub_[j] < first) first = sub_[j]; if (fin[j] > last) last = fin[j] }
            # The hand-over: a job that waited in Slurm, from the last end on its node before
            # its start to its start.
            for (j in prof) {
                if (st[j] != "COMPLETED" || beg[j] - sub_[j] < 1) continue
                e = -1; for (k in prof) if (nd[k] == nd[j] && fin[k] <= beg[j] && fin[k] > e) e = fin[k]
                if (e >= sub_[j]) { hn++; HO[hn] = beg[j] - e } }
            sort(HO, hn)
            span = (last - first) * f
            sort(W, n); sort(T, n)
            printf "cluster_compare load=%.2f policy=%s mean_wait=%.3f p50_wait=%.3f p99_wait=%.3f mean_turnaround=%.3f util=%.4f plugin_waits=%d source=cluster\n",
                ld, policy, sw / n, q(W, n, 0.5), q(W, n, 0.99), stt / n, busy / (slices * span), waits
            printf "  cluster %s: %d jobs, %d not COMPLETED, makespan %.0f s (F %.1f: Slurm times from slurmctld.log in milliseconds)\n", policy, n, bad, span, f
            printf "  cluster_delays load=%.2f policy=%s launch_overhead=%.3f handover=%.3f handover_jobs=%d hold_overhead=%.3f (real s: end - start - plugin wait - sleep, mean; the last end on the node to the start of a job waiting there, median; their sum)\n",
                ld, policy, launch / n, hn ? q(HO, hn, 0.5) : 0, hn, launch / n + (hn ? q(HO, hn, 0.5) : 0)
            if (admitted) {
                sort(PWs, admitted)
                printf "  cluster_reach load=%.2f policy=%s admitted=%d plugin_over_creation=%d fraction=%.4f plugin_wait_p50=%.3f p99=%.3f max=%.3f (real s; over the node daemon'"'"'s mean instance creation: %s)\n",
                    ld, policy, admitted, over, over / admitted, q(PWs, admitted, 0.5), q(PWs, admitted, 0.99), PWs[admitted], thr_text() }
            else
                printf "  cluster_reach load=%.2f policy=%s admitted=%d plugin_over_creation=0 fraction=0.0000 (no plugin)\n", ld, policy, n
            for (p in pn) {
                delete a; delete b
                for (i = 1; i <= pn[p]; i++) { a[i] = PW[p, i]; b[i] = PT[p, i] }
                sort(a, pn[p]); sort(b, pn[p])
                printf "    cluster %-8s %4d jobs  wait mean %.1f p50 %.1f p99 %.1f s  turnaround mean %.1f p50 %.1f p99 %.1f s\n",
                    p, pn[p], psw[p] / pn[p], q(a, pn[p], 0.5), q(a, pn[p], 0.99), pst[p] / pn[p], q(b, pn[p], 0.5), q(b, pn[p], 0.99) } }
        function thr_text(   k, s) { for (k in thr) s = s (s ? " " : "") sprintf("%s %.3f s", k, thr[k]); return s }
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
        if [ -n "$RECORDS" ]; then
            cp -r "$RECORDS/load$L/$P" "$d/$P" || exit 1
            cmp -s "$RECORDS/load$L/stream.csv" "$d/stream.csv" ||
                { echo "cluster_compare: $RECORDS/load$L holds another stream" >&2; exit 1; }
        fi
        if [ -n "$RECORDS" ] || run_cluster "$P" "$d/stream.csv" "$f" "$layout" "$d/$P"; then
            cluster_line "$L" "$P" "$f" "$d/$P" | tee "$d/$P/line"
            sed 's/^/  uptime (UTC, at the first submission and the last end) /' "$d/$P/uptime.txt"
        else
            echo "cluster_compare: the $P run at load $L failed" >&2
        fi
        label=$([ "$P" = dynamic ] && echo dynamic || echo static-[^ ]*)
        sed -n "/^$label\$/,/^  makespan/p" "$d/sim.txt" | sed -n 's/^  \([0-9]g\.[^ ]*\) *\(.*\)/    sim     \1 \2/p'
        ov=$(sed -n 's/.* cluster_delays .* hold_overhead=\([^ ]*\).*/\1/p' "$d/$P/line" 2> /dev/null)
        [ -n "$ov" ] || continue
        # The simulator with Slurm's delays as the cluster had them, in the trace's seconds:
        # the hold overhead measured above (a job's launch and end, and the hand-over of its
        # resources to the next job), slurmctld's once-a-second pass for submissions,
        # bf_interval=2, the jobs' time limits in whole minutes plus one, and under dynamic
        # slurm-node's count.
        timing=(--launch-overhead "$(awk -v o="$ov" -v f="$f" 'BEGIN { print (o > 0 ? o : 0) * f }')"
            --slurm-tick "$f" --backfill-interval "$(awk -v f="$f" 'BEGIN { print 2 * f }')")
        timing+=(--time-limit-unit "$(awk -v f="$f" 'BEGIN { print 60 * f }')")
        [ "$P" != dynamic ] || timing+=(--slurm-node)
        sim --trace "$d/window.csv" --load "$L" --static-layout "$layout" --summary-line "${timing[@]}" \
            --cluster-policy "$([ "$P" = dynamic ] && echo dynamic || echo static)" |
            sed "s/policy=static-[^ ]*/policy=static-best/; s/\$/ source=sim-timed/" | tee "$d/$P/timed"
        awk -v ld="$L" -v policy="$P" -v timing="${timing[*]}" \
            -v a="$(sed -n 's/.* mean_wait=\([^ ]*\).*/\1/p' "$d/sim.lines" | sed -n "$([ "$P" = dynamic ] && echo 1 || echo 2)p")" \
            -v b="$(sed -n 's/.* mean_wait=\([^ ]*\).*source=cluster/\1/p' "$d/$P/line")" \
            -v c="$(sed -n 's/.* mean_wait=\([^ ]*\).*/\1/p' "$d/$P/timed")" \
            'BEGIN { r = b / c; gsub(/ /, "=", timing); gsub(/=--/, ",", timing); sub(/^--/, "", timing)
                     printf "cluster_compare_check load=%.2f policy=%s cluster_mean_wait=%.1f sim_mean_wait=%.1f ratio=%.3f within_15pct=%s sim_untimed_mean_wait=%.1f untimed_ratio=%.3f timing=%s\n",
                         ld, policy, b, c, r, (r >= 0.85 && r <= 1.15) ? "yes" : "no", a, b / a, timing }'
    done
done
[ -z "$OUTDIR" ] || { mkdir -p "$OUTDIR" && cp -r "$TMP"/load* "$OUTDIR"/; }
