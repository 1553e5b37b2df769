#!/usr/bin/env bash
# e2e.sh: tests/cluster/cluster.sh's cluster of 4 nodes (each in its own network and UTS
# namespace, slurmd, migschedd on 2 fake-NVML A100-40GB with UUIDs of its own, the SPANK
# plugin) under a stream of 200 jobs of mixed --mig sizes (1..7 slices, numbers and profile
# names), sbatch and srun, some batch jobs running a nested srun step, overlapping on every
# node. Mid-stream one node's migschedd is killed (SIGKILL) and started again, and another
# node's slurmd is restarted. Each job's steps append a record (host, CUDA_VISIBLE_DEVICES,
# start, end) to a file of the job's. Checks: every job ran exactly once (one record per
# step, one Slurm completion record, COMPLETED, on one node) and holds exactly one
# allocation in that node's migschedd (GET /v1/jobs: slurm_job_id, its instance, done; its
# log: allocation.end state=done), which Slurm's jobcomp/filetxt record agrees with; its
# instance was one that node's migschedd made, of at least the job's slices, alive while
# the job ran; no two jobs running at once on a node shared an instance; slices in use on a
# node (the jobs' stamps and a poll of squeue) never above its 14; instance UUIDs differ
# between nodes; each job's AdminComment names its instance (profile, GPU index and UUID,
# MIG UUID; set before its task starts, and by the restarted migschedd for the jobs it
# placed before the SIGKILL) and sacct (the cluster runs slurmdbd) shows it as scontrol
# show job does; the plugin logged no error; at the end no allocation is held and, after each
# migschedd stops, no instance is left on any node's fake GPUs. Before, a start whose
# migschedd fails leaves nothing; after, the stop ends a job step whose slurmd was killed,
# and leaves no process, namespace, link or file.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
set -u
DD=$2 S=$3 PLUGIN=${4:-}
CL=$S/tests/cluster/cluster.sh
. "$S/tests/daemon/fixtures_lib.sh"
. "$S/tests/slurm/slurm_lib.sh"
slurm_require ip nsenter unshare curl jq python3
T=$(mktemp -d)
C=$T/cluster
JOBS=200 MIDKILL=50 MIDSLURMD=110
cleanup() {
    local rc=$?
    trap - EXIT
    trap '' PIPE INT TERM
    mkdir -p "$T/logs"
    MIGSCHED_CLUSTER_LOGS=$T/logs bash "$CL" stop "$C"
    # Every line each node's migschedd wrote is logfmt (as in the daemon tests).
    local logs=("$T"/logs/*.migschedd.log)
    if [ -e "${logs[0]}" ] && ! python3 "$S/tests/daemon/logfmt_check.py" "${logs[@]}" >&2; then
        echo "FAIL: a migschedd log is not logfmt" >&2
        rc=1
    fi
    rm -rf "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
trap 'exit 141' PIPE
fail() {
    echo "FAIL: $*" >&2
    local f
    if [ -n "${SLURM_CONF:-}" ]; then
        echo "--- squeue" >&2
        squeue -o '%i %j %T %r %N %b' 2>&1 | head -20 >&2
    fi
    for f in "$C/ctld/slurmctld.log" "$C/acct/slurmdbd.log" "$C"/node*/slurmd.log \
        "$C"/node*/migschedd.log; do
        [ -s "$f" ] && { echo "--- $f (tail)" >&2; tail -8 "$f" >&2; }
    done
    exit 1
}
T0=$(date +%s.%N)
since() { python3 -c "import time; print(round(time.time() - $T0, 1))"; }

# A start that fails (migschedd exits at once) undoes what it made.
ours() { ip netns list | grep '^msc'; ip -o link show | grep -o ' msc[^:@]*'; }
ours > "$T/ours.before"
rc=0
MIGSCHEDD=/bin/false PLUGIN=$PLUGIN FAKE_NVML_DIR=$FAKE_NVML_DIR \
    bash "$CL" start "$T/failed" --nodes 2 > "$T/failed.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'migschedd of node1 exited' "$T/failed.out" ||
    fail "a start with a failing migschedd: exit $rc: $(cat "$T/failed.out")"
ours > "$T/ours.after"
cmp -s "$T/ours.before" "$T/ours.after" && [ ! -e "$T/failed" ] ||
    fail "the failed start left $(diff "$T/ours.before" "$T/ours.after"; ls "$T/failed" 2>&1)"

rc=0
MIGSCHEDD=$DD PLUGIN=$PLUGIN FAKE_NVML_DIR=$FAKE_NVML_DIR \
    bash "$CL" start "$C" --nodes 4 --gpus 2 --gpu A100-40GB --timeout 300 --accounting || rc=$?
[ "$rc" = 0 ] || { [ "$rc" = 77 ] && exit 77; fail "the cluster did not start (exit $rc)"; }
. "$C/cluster.env"
. "$C/env"
T_UP=$(since)
echo "cluster up after $T_UP s"
node_api() { curl -s --unix-socket "$C/node$1/d.sock" "http://d$2"; }

# Polled: the slices of the running jobs per node, as Slurm counts them ("NODE SLICES").
poll_slurm() {
    while [ -d "$C" ]; do  # ends with the clean-up, on every exit path
        squeue -h -t R -o '%N %b' 2>/dev/null |
            awk '{ n = $2; sub(/.*:/, "", n); sum[$1] += n } END { for (h in sum) print h, sum[h] }' >> "$T/poll.txt"
        sleep 0.5
    done
}
poll_slurm &
POLL_PID=$!

# The stream: kind:--mig value:slices:seconds; b = sbatch, s = srun, n = sbatch whose
# script also runs one nested srun step. Drawn from a fixed seed: the same list every run.
mkdir "$T/rec" "$T/out"
RANDOM=7
MIGS=(1:1 1:1 1g.5gb:1 2:2 2:2 2g.10gb:2 3:3 3g.20gb:3 4:4 4g.20gb:4 7:7 7g.40gb:7 1g.10gb:1)
for k in $(seq "$JOBS"); do
    r=$((RANDOM % 20))
    if [ "$r" -lt 4 ]; then kind=s; elif [ "$r" -lt 6 ]; then kind=n; else kind=b; fi
    echo "$k $kind ${MIGS[RANDOM % ${#MIGS[@]}]} $((1 + RANDOM % 3))"
done | tr : ' ' > "$T/stream.txt"  # "K KIND MIG SLICES SECONDS"
# Each step appends "run JOB STEP HOSTNAME SLURMD_NODENAME SLICES CUDA_VISIBLE_DEVICES START END"
# to the job's file.
export REC=$T/rec
run_line='s=$(date +%s.%N); sleep $SECS; echo "run $SLURM_JOB_ID $STEP $(hostname) $SLURMD_NODENAME $SIZE ${CUDA_VISIBLE_DEVICES:-none} $s $(date +%s.%N)" >> "$REC/$SLURM_JOB_ID"'
SRUN_PIDS=()
while read -r k kind mig size secs; do
    opts=(-Q --mig="$mig" --gres=migslice:"$size" -J "j$k")
    case $kind in
    b) env "$TAG" SIZE="$size" SECS="$secs" STEP=batch sbatch "${opts[@]}" -o "$T/out/%j.out" \
           --wrap "$run_line" > /dev/null || fail "sbatch j$k" ;;
    n) env "$TAG" SIZE="$size" SECS="$secs" STEP=batch sbatch "${opts[@]}" -o "$T/out/%j.out" --wrap "
           $run_line
           STEP=step0 srun -n1 sh -c '$run_line'" > /dev/null || fail "sbatch j$k" ;;
    s) env "$TAG" SIZE="$size" SECS="$secs" STEP=srun srun "${opts[@]}" sh -c "$run_line" \
           < /dev/null > "$T/out/srun$k.out" 2> "$T/out/srun$k.err" &
       SRUN_PIDS+=($!) ;;
    esac
done < "$T/stream.txt"
echo "$JOBS jobs submitted after $(since) s"

# Mid-stream, while jobs run there: node 2's migschedd killed and started again, then node
# 3's slurmd restarted. The moments go to the checks ("KILL_AT RESTART_AT").
done_jobs() { ls "$T/rec" | wc -l; }
# The Slurm jobs whose tasks node N's migschedd has let start: running, comment set.
started_on() {
    node_api "$1" '/v1/jobs?state=running' | jq -r '.jobs[].slurm_job_id // empty' |
        while read -r j; do
            node_api "$1" "/v1/allocations/$j" | jq -e '.comment_pending == false' >/dev/null &&
                echo "$j"
        done
}
now() { date +%s.%N; }
await "[ \$(done_jobs) -ge $MIDKILL ]" 300
await '[ -n "$(started_on 2)" ]' 120
echo "$(done_jobs) jobs done at $(since) s: SIGKILL to node2's migschedd, started again"
KILL_AT=$(now)
bash "$CL" restart "$C" 2 migschedd KILL || fail "restarting node2's migschedd"
await "[ \$(done_jobs) -ge $MIDSLURMD ]" 300
await '[ -n "$(squeue -h -t R -w node3 -o %i)" ]' 120
echo "$(done_jobs) jobs done at $(since) s: node3's slurmd restarted"
RESTART_AT=$(now)
bash "$CL" restart "$C" 3 slurmd TERM || fail "restarting node3's slurmd"

# Generous: the machine may be loaded; the test's ctest timeout bounds it too.
await '[ -z "$(squeue -h -o %i)" ]' 600
for p in "${SRUN_PIDS[@]}"; do wait "$p" || fail "an srun job exited $?: $(cat "$T"/out/srun*.err)"; done
T_END=$(since)
kill "$POLL_PID"; wait "$POLL_PID" 2>/dev/null
echo "stream done at $T_END s"

await '[ "$(sinfo -h -o %T | sort -u)" = idle ]' 120
# What an operator reads in sacct: each job's AdminComment, as scontrol shows it.
T_ACCT=$(since)
await_sacct_comments 60 "$T"
echo "sacct showed every job's AdminComment $(python3 -c "print(round($(since) - $T_ACCT, 1))") s after the nodes were idle"
for n in $(seq "$K"); do
    grep -E 'error: (migsched|spank)' "$C/node$n/slurmd.log" > "$T/plugin_errors" &&
        fail "node$n: the plugin logged errors: $(head -5 "$T/plugin_errors")"
    # Releases reach migschedd at each step's end (or by the epilog): wait for the last.
    await "[ \"\$(node_api $n '/v1/jobs?state=running' | jq '.jobs | length')\" = 0 ] &&
           [ \"\$(node_api $n '/v1/jobs?state=queued' | jq '.jobs | length')\" = 0 ]" 120
    node_api "$n" /v1/jobs > "$T/node$n.jobs.json"
    node_api "$n" /v1/gpus > "$T/node$n.gpus.json"
    [ "$(jq -r .next "$T/node$n.jobs.json")" = null ] || fail "node$n: more than one page of jobs"
    sqlite3 -separator ' ' "$C/node$n/d.db" \
        "SELECT uuid, gpu, profile, start_slot, created, coalesce(destroyed, 'alive') FROM instances" > "$T/node$n.instances"
    cp "$C/node$n/migschedd.log" "$T/node$n.log"
done
cp "$C/jobcomp.txt" "$T/jobcomp.txt"
cat "$T"/rec/* > "$T/runs.txt"

python3 - "$T" "$K" "$SLICES" "$JOBS" "$KILL_AT" "$RESTART_AT" <<'PY' || fail "checks"
import collections, json, re, sys
T, K, slices, njobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kill_at, restart_at = float(sys.argv[5]), float(sys.argv[6])
nodes = ["node%d" % n for n in range(1, K + 1)]
# A100-40GB: profile -> (compute slices, placement size in slots)
geo = {"1g.5gb": (1, 1), "1g.10gb": (1, 2), "2g.10gb": (2, 2), "3g.20gb": (3, 4),
       "4g.20gb": (4, 4), "7g.40gb": (7, 8)}
stream = {}
for line in open(T + "/stream.txt"):
    k, kind, mig, size, secs = line.split()
    stream["j" + k] = dict(kind=kind, mig=mig, size=int(size))
# Slurm's completion records: one per job, COMPLETED, exit 0, on one node.
comp = collections.defaultdict(list)
for line in open(T + "/jobcomp.txt"):
    f = dict(re.findall(r"(\w+)=(\S*)", line))
    comp[int(f["JobId"])].append(f)
assert len(comp) == njobs, "%d jobs in Slurm's records, %d submitted" % (len(comp), njobs)
name_of = {}
for job, fs in comp.items():
    assert len(fs) == 1, "job %d: %d completion records: %s" % (job, len(fs), [f["JobState"] for f in fs])
    f = fs[0]
    assert f["JobState"] == "COMPLETED" and f["ExitCode"] == "0:0", "job %d: %s exit %s" % (job, f["JobState"], f["ExitCode"])
    assert f["NodeList"] in nodes, "job %d ran on %s" % (job, f["NodeList"])
    name_of[job] = f["Name"]
assert sorted(name_of.values()) == sorted(stream), "the jobs Slurm ran are not the ones submitted"
# The jobs' records: one per step (batch or srun, and the nested srun step), on Slurm's node.
runs = collections.defaultdict(list)
for line in open(T + "/runs.txt"):
    _, job, step, host, nodename, size, cvd, s, e = line.split()
    runs[int(job)].append(dict(step=step, host=host, nodename=nodename, size=int(size), cvd=cvd, s=float(s), e=float(e)))
assert set(runs) == set(comp), "jobs without a record: %s; records of unknown jobs: %s" % (
    sorted(set(comp) - set(runs)), sorted(set(runs) - set(comp)))
for job, rs in runs.items():
    want = {"b": ["batch"], "s": ["srun"], "n": ["batch", "step0"]}[stream[name_of[job]]["kind"]]
    assert sorted(r["step"] for r in rs) == want, "job %d ran steps %s, expected %s once each" % (job, [r["step"] for r in rs], want)
    node = comp[job][0]["NodeList"]
    for r in rs:
        assert r["host"] == node and r["nodename"] == node, "job %d: Slurm says %s, the task ran on %s (%s)" % (job, node, r["host"], r["nodename"])
        assert r["size"] == stream[name_of[job]]["size"], "job %d: size %d" % (job, r["size"])
    assert len({r["cvd"] for r in rs}) == 1, "job %d: its steps saw %s" % (job, {r["cvd"] for r in rs})
# Each node's migschedd: its instances, its allocations (GET /v1/jobs), its log.
inst, allocs, ends = {}, collections.defaultdict(list), collections.defaultdict(list)
for node in nodes:
    inst[node] = {}
    for line in open("%s/%s.instances" % (T, node)):
        uuid, gpu, prof, slot, created, destroyed = line.split()
        inst[node][uuid] = dict(gpu=int(gpu), prof=prof, slot=int(slot), created=float(created),
                                destroyed=float("inf") if destroyed == "alive" else float(destroyed))
    for a in json.load(open("%s/%s.jobs.json" % (T, node)))["jobs"]:
        assert a.get("slurm_job_id"), "%s: a job that is no allocation: %s" % (node, a)
        allocs[a["slurm_job_id"]].append((node, a))
    for line in open("%s/%s.log" % (T, node)):
        m = re.search(r"event=allocation\.end .*slurm_job=(\d+) state=(\w+)", line)
        if m:
            ends[int(m.group(1))].append((node, m.group(2)))
for a in nodes:
    for b in nodes:
        assert a >= b or not set(inst[a]) & set(inst[b]), "%s and %s share instance UUIDs" % (a, b)
assert set(allocs) == set(comp), "allocations for jobs %s; Slurm ran %s" % (sorted(allocs), sorted(comp))
spans = collections.defaultdict(list)
for job, rs in runs.items():
    node, size, cvd = comp[job][0]["NodeList"], rs[0]["size"], rs[0]["cvd"]
    assert len(allocs[job]) == 1, "job %d: %d allocations: %s" % (job, len(allocs[job]), allocs[job])
    anode, a = allocs[job][0]
    assert anode == node, "job %d ran on %s, its allocation is %s's" % (job, node, anode)
    assert a["state"] == "done" and a["mig_uuid"] == cvd, "job %d saw %s; allocation %s" % (job, cvd, a)
    assert ends[job] == [(node, "done")], "job %d: allocation.end in the logs: %s" % (job, ends[job])
    assert cvd in inst[node], "job %d: CUDA_VISIBLE_DEVICES=%s is no instance %s's migschedd made" % (job, cvd, node)
    i = inst[node][cvd]
    assert geo[i["prof"]][0] >= size, "job %d: %d slices on %s" % (job, size, i["prof"])
    s, e = min(r["s"] for r in rs), max(r["e"] for r in rs)
    assert i["created"] <= s and e <= i["destroyed"], \
        "job %d ran %.3f..%.3f outside its instance's life %.3f..%.3f" % (job, s, e, i["created"], i["destroyed"])
    spans[node].append((s, e, job, cvd, size))
# Slurm's AdminComment, sacct's (equal to scontrol's), names each job's instance.
comments = dict(l.split() for l in open(T + "/sacct.comments"))
assert set(map(int, comments)) == set(comp), "sacct lists jobs %s" % sorted(comments)
for job, rs in runs.items():
    node, (_, a) = comp[job][0]["NodeList"], allocs[job][0]
    gpu_uuid = {g["gpu"]: g["uuid"] for g in json.load(open("%s/%s.gpus.json" % (T, node)))["gpus"]}
    want = "migsched:profile=%s,gpu=%d,gpu_uuid=%s,mig_uuid=%s" % (
        inst[node][a["mig_uuid"]]["prof"], a["gpu"], gpu_uuid[a["gpu"]], a["mig_uuid"])
    assert comments[str(job)] == want, "job %d: AdminComment %s, expected %s" % (job, comments[str(job)], want)
# Per node: no two jobs at once on an instance, slices in use never above the node's.
together, peaks = 0, {}
for node, sp in spans.items():
    for x in sp:
        for y in sp:
            if x[2] < y[2] and x[0] < y[1] and y[0] < x[1]:
                assert x[3] != y[3], "%s: jobs %d and %d overlapped on %s" % (node, x[2], y[2], x[3])
                together += 1
    use = peak = 0
    for t, d in sorted([(s, z) for s, e, _, _, z in sp] + [(e, -z) for s, e, _, _, z in sp], key=lambda x: (x[0], x[1])):
        use += d
        peak = max(peak, use)
    assert peak <= slices, "%s: %d slices in use at once" % (node, peak)
    peaks[node] = peak
    for a in inst[node].values():
        for b in inst[node].values():
            if a is not b and a["gpu"] == b["gpu"] and a["created"] < b["destroyed"] and b["created"] < a["destroyed"]:
                sa, sb = geo[a["prof"]][1], geo[b["prof"]][1]
                assert a["slot"] + sa <= b["slot"] or b["slot"] + sb <= a["slot"], "%s: instances overlapped: %s %s" % (node, a, b)
assert set(spans) == set(nodes), "jobs ran on %s only" % sorted(spans)
polled = collections.defaultdict(int)
for line in open(T + "/poll.txt"):
    node, n = line.split()
    polled[node] = max(polled[node], int(n))
    assert int(n) <= slices, "squeue showed %s slices running on %s" % (n, node)
# The restarts happened under running jobs, which still ran once each (checked above).
across = lambda node, t: sum(1 for s, e, *_ in spans[node] if s < t < e)
assert across("node2", kill_at) and across("node3", restart_at), "no job ran across a restart"
print("%d jobs (%s); %d pairs at once on a node; peak slices by the stamps %s, by squeue %s; "
      "%d instances made; %d jobs ran across node2's migschedd SIGKILL, %d across node3's slurmd restart; "
      "%d AdminComments in sacct"
      % (len(runs), ", ".join("%s %d" % (n, len(spans[n])) for n in nodes), together,
         [peaks[n] for n in nodes], [polled[n] for n in nodes], sum(len(v) for v in inst.values()),
         across("node2", kill_at), across("node3", restart_at), len(comments)))
PY

# Each migschedd's clean stop removes every instance it made, idle ones too.
for n in $(seq "$K"); do
    bash "$CL" halt "$C" "$n" migschedd TERM
    left=$(grep -c '^gi ' "$C/node$n/nvml.state")
    [ "$left" = 0 ] || fail "node$n: $left instances left after migschedd stopped: $(cat "$C/node$n/nvml.state")"
    [ "$(sqlite3 "$C/node$n/d.db" "SELECT count(*) FROM instances WHERE destroyed IS NULL")" = 0 ] ||
        fail "node$n: the store has instances alive after the stop"
done
# A job step that outlives its slurmd (SIGKILL), its task not carrying the cluster's tag:
# the stop ends them too, and leaves nothing of the cluster: no process, namespace, link or
# file; a second stop finds nothing to do.
sbatch -Q -w node1 -o /dev/null --wrap "echo \$\$ > '$T/orphan.pid'; exec sleep 600" > /dev/null ||
    fail "sbatch of the long job"
await "[ -s '$T/orphan.pid' ]" 60
bash "$CL" halt "$C" 1 slurmd KILL
orphan=$(cat "$T/orphan.pid")
kill -0 "$orphan" 2>/dev/null || fail "the long job ended with its slurmd"
bash "$CL" stop "$C" || fail "stop"
# Ended is not a zombie: whoever adopted the orphan (PID 1 here) may reap it late or never.
running() {
    local stat
    read -r stat 2>/dev/null < "/proc/$1/stat" || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}
! running "$orphan" || fail "the long job's task $orphan outlived the stop"
[ -z "$(tagged_pids)" ] || fail "processes left after the stop: $(tagged_pids)"
[ -z "$(ip netns list | grep "^$NS")" ] || fail "namespaces left: $(ip netns list | grep "^$NS")"
[ -z "$(ip -o link show | grep -F " $BRIDGE")" ] || fail "links left: $(ip -o link show | grep -F " $BRIDGE")"
[ ! -e "$C" ] || fail "$C left after the stop"
bash "$CL" stop "$C" || fail "a second stop"
echo "cluster_e2e: ok, $JOBS jobs in $T_END s ($(python3 -c "print(round($JOBS / ($T_END - $T_UP), 2))") jobs/s from the first submission)"
