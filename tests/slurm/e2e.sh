#!/usr/bin/env bash
# e2e.sh: a real single-node Slurm (munged, slurmctld, slurmd as root, private config) whose
# node advertises 14 count-only `migslice` slices, migschedd on 2 fake-NVML A100-40GB, and
# the SPANK plugin between them. 24 jobs of mixed sizes (--mig=1,2,3,4,7 and profile names,
# sbatch and srun, one batch job with two concurrent nested srun steps) each print their
# CUDA_VISIBLE_DEVICES, start/end stamps while sleeping so that they overlap, and what they
# see of the fake device tree. Checks: every job ran in a MIG instance of at least its size
# that existed meanwhile (migschedd's store), no two overlapping jobs shared an instance,
# each step saw and could open only its instance's two capability nodes, its GPU's node and
# the control nodes (the unrelated entries still there), jobs running at once on one GPU saw
# disjoint nodes, the host's device tree was left as it was, Slurm never ran more slices than the
# node has (the jobs' stamps and a poll of squeue), every allocation was released, and after
# migschedd stops no instance is left (the online idle policy keeps released instances idle
# for reuse until then). With Slurm's accounting on (slurmdbd, MariaDB): each job's
# AdminComment names the instance it ran in (profile, GPU index and UUID, MIG UUID; set
# before its task starts), and sacct shows every job's AdminComment as scontrol show job does.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
M=$1 DD=$2 PLUGIN=${4:-}
T0=$(date +%s.%N)
SLURM_ACCOUNTING=1
. "$3/tests/slurm/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing"
SLICES=14
write_slurm_conf $SLICES 120
start_slurm
mkdir "$T/hpc"
start_migschedd --slurm-reconcile 5 --hpc-job-mapping-dir "$T/hpc"
echo "cluster and migschedd up after $(python3 -c "import time; print(round(time.time() - $T0, 1))") s"

# Polled: Slurm's view (the slices of the running jobs, squeue's TRES per node: one sum per
# line) and DCGM exporter's job-mapping files migschedd keeps ("FILE JOB" lines).
poll_slurm() {
    while [ -d "$T" ]; do  # ends with the clean-up, on every exit path
        squeue -h -t R -o '%b' 2>/dev/null |
            awk -F: '/migslice/ { n += $NF } END { print n + 0 }' >> "$T/poll.txt"
        grep -H . "$T"/hpc/* 2>/dev/null | sed 's|^.*/||; s|:| |' >> "$T/hpc_poll.txt"
        sleep 0.3
    done
}
poll_slurm &
POLL_PID=$!

# What a step sees of the device tree: "sees JOB STEP NVIDIA_ENTRIES CAPS OPENED UNRELATED"
# (comma lists; OPENED: which of the host's NVIDIA nodes it could open).
(cd "$DEVDIR" && ls -A | grep '^nvidia' | grep -v '^nvidia-caps$'; ls -A nvidia-caps | sed 's|^|nvidia-caps/|') > "$T/nodes"
cat > "$T/see.sh" <<'SH'
D=$DEVDIR
top=$(LC_ALL=C ls -A "$D" | grep '^nvidia' | tr '\n' ,)
caps=$(LC_ALL=C ls -A "$D/nvidia-caps" | tr '\n' ,)
opened=$(while read -r f; do true 2>/dev/null < "$D/$f" && printf '%s,' "$f"; done < "$NODES")
[ "$(cat "$D/sub/inside")" = kept ] && [ -c "$D/unrelated" ] && [ -L "$D/fd" ] && u=yes || u=no
echo "sees $SLURM_JOB_ID $STEP ${top:--} ${caps:--} ${opened:--} $u"
SH
export DEVDIR NODES=$T/nodes SEE=$T/see.sh  # the jobs' environment
host_view() { LC_ALL=C ls -lnAR "$DEVDIR"; grep -F " $DEVDIR" /proc/self/mountinfo; }
host_view > "$T/host.before"
# Each run appends "run JOB STEP SIZE CUDA_VISIBLE_DEVICES START END" to its output.
run_line='s=$(date +%s.%N); sleep $SECS; echo "run $SLURM_JOB_ID $STEP $SIZE ${CUDA_VISIBLE_DEVICES:-none} $s $(date +%s.%N)"; sh "$SEE"'
# kind:--mig value:slices:seconds. b = sbatch, s = srun, n = sbatch with two nested srun steps.
JOBS=(b:7:7:4 b:1:1:3 b:2:2:4 b:3:3:5 b:4:4:3 s:1:1:4 b:3g.20gb:3:4 n:3:3:4 b:2:2:3 b:1:1:5
      b:4:4:4 s:7:7:3 b:2:2:5 b:1g.5gb:1:3 b:3:3:4 b:1:1:4 s:2:2:3 b:4:4:5 b:7:7:3 b:2:2:4
      b:3:3:3 b:1:1:4 s:4g.20gb:4:4 b:2:2:3)
[ ${#JOBS[@]} = 24 ] || fail "the job list has ${#JOBS[@]} jobs"
SRUN_PIDS=()
k=0
for j in "${JOBS[@]}"; do
    IFS=: read -r kind mig size secs <<<"$j"
    k=$((k + 1))
    opts=(--mig="$mig" --gres=migslice:"$size" -J "j$k")
    case $kind in
    b) env "$TAG" SIZE="$size" SECS="$secs" STEP=batch sbatch -Q "${opts[@]}" -o "$T/out/%j.out" \
           --wrap "$run_line" || fail "sbatch j$k" ;;
    n) # The nested steps run concurrently (--overlap: they share the job's one CPU) and
       # must reuse the batch job's instance.
       env "$TAG" SIZE="$size" SECS="$secs" STEP=batch sbatch -Q "${opts[@]}" -o "$T/out/%j.out" --wrap "
           $run_line
           for st in 0 1; do STEP=step\$st srun --overlap -n1 sh -c '$run_line' & done
           wait" || fail "sbatch j$k" ;;
    s) env "$TAG" SIZE="$size" SECS="$secs" STEP=srun srun -Q "${opts[@]}" sh -c "$run_line" \
           > "$T/out/srun$k.out" 2> "$T/out/srun$k.err" &
       SRUN_PIDS+=($!) ;;
    esac
done
# Generous: the machine may be loaded; the test's own ctest timeout bounds it too.
await '[ -z "$(squeue -h -o %i)" ]' 240
for p in "${SRUN_PIDS[@]}"; do wait "$p" || fail "an srun job exited $?: $(cat "$T"/out/srun*.err)"; done
kill "$POLL_PID"; wait "$POLL_PID" 2>/dev/null

# Slurm's record: 24 jobs, each completed with exit 0.
scontrol show job -o > "$T/slurm_jobs.txt"
[ "$(grep -c 'JobState=COMPLETED.*ExitCode=0:0' "$T/slurm_jobs.txt")" = 24 ] ||
    fail "not every job completed: $(grep -v 'JobState=COMPLETED' "$T/slurm_jobs.txt" | cut -c1-300)"
await '[ "$(sinfo -h -n "$NODE" -o %T)" = idle ]' 60
# What an operator reads in sacct: each job's AdminComment, as scontrol shows it.
await_sacct_comments 60 "$T"
# The plugin's step-end and epilog releases reached migschedd (errors are logged by slurmd).
grep -qE 'error: (migsched|spank)' "$T/log/slurmd.log" &&
    fail "the plugin logged errors: $(grep -E 'error: (migsched|spank)' "$T/log/slurmd.log" | head -5)"
# Allocations are released at step end: wait for the last release to be recorded.
await '[ "$(api "/v1/jobs?state=running" | jq ".jobs | length")" = 0 ]' 60
api /v1/jobs > "$T/alloc.json"
api /v1/gpus > "$T/gpus.json"
sqlite3 -separator ' ' "$T/d.db" \
    "SELECT uuid, gpu, profile, start_slot, gi_id, created, coalesce(destroyed, 'alive') FROM instances" > "$T/instances.txt"
cat "$T"/out/*.out > "$T/runs.txt"
ls "$T/hpc" > "$T/hpc_left.txt" 2>/dev/null
host_view > "$T/host.after"
cmp -s "$T/host.before" "$T/host.after" || fail "the host's device tree changed: $(diff "$T/host.before" "$T/host.after")"

python3 - "$T" $SLICES "$MINORS" "$FAKE_NVML_MINOR_BASE" <<'PY' || fail "checks"
import json, sys, collections
T, slices, minors_path, minor_base = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
minors = dict(l.split() for l in open(minors_path))
# A100-40GB: profile -> (compute slices, placement size in slots)
geo = {"1g.5gb": (1, 1), "1g.10gb": (1, 2), "2g.10gb": (2, 2), "3g.20gb": (3, 4),
       "4g.20gb": (4, 4), "7g.40gb": (7, 8)}
inst = {}
for line in open(T + "/instances.txt"):
    uuid, gpu, prof, slot, gi, created, destroyed = line.split()
    inst[uuid] = dict(gpu=int(gpu), prof=prof, slot=int(slot), gi=int(gi), created=float(created),
                      destroyed=float("inf") if destroyed == "alive" else float(destroyed))
runs = collections.defaultdict(list)
sees = collections.defaultdict(list)
for line in open(T + "/runs.txt"):
    if line.startswith("run "):
        _, job, step, size, cvd, s, e = line.split()
        runs[int(job)].append(dict(step=step, size=int(size), cvd=cvd, s=float(s), e=float(e)))
    if line.startswith("sees "):
        assert len(line.split()) == 7, "a step saw: " + line
        _, job, step, top, caps, opened, unrelated = line.split()
        sees[int(job)].append(dict(step=step, top=set(top.strip(",").split(",")),
                                   caps=set(caps.strip(",").split(",")),
                                   opened=set(opened.strip(",").split(",")), unrelated=unrelated))
assert len(runs) == 24, "%d jobs printed a run" % len(runs)
spans = []
for job, rs in sorted(runs.items()):
    cvds = {r["cvd"] for r in rs}
    assert len(cvds) == 1, "job %d: its steps saw different devices %s" % (job, cvds)
    cvd = cvds.pop()
    assert cvd.startswith("MIG-") and cvd in inst, "job %d: CUDA_VISIBLE_DEVICES=%s is no instance migschedd made" % (job, cvd)
    i, size = inst[cvd], rs[0]["size"]
    assert geo[i["prof"]][0] >= size, "job %d: %d slices on %s" % (job, size, i["prof"])
    s, e = min(r["s"] for r in rs), max(r["e"] for r in rs)
    assert i["created"] <= s and e <= i["destroyed"], \
        "job %d ran %.3f..%.3f outside its instance's life %.3f..%.3f" % (job, s, e, i["created"], i["destroyed"])
    spans.append((s, e, job, cvd, size))
# Each step saw only its instance's nodes (the fake's compute instance id is 0).
control = {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"}
caps_of = {}
for job, rs in runs.items():
    i = inst[rs[0]["cvd"]]
    g = "gpu%d/gi%d/" % (i["gpu"] + minor_base, i["gi"])
    caps = {"nvidia-cap" + minors[g + "access"], "nvidia-cap" + minors[g + "ci0/access"]}
    gpu_node = "nvidia%d" % (i["gpu"] + minor_base)
    caps_of[job] = caps
    assert len(sees[job]) == len(rs), "job %d: %d steps, %d saw the devices" % (job, len(rs), len(sees[job]))
    for v in sees[job]:
        want_top = control | {gpu_node, "nvidia-caps"}
        assert v["top"] == want_top, "job %d %s sees %s, expected %s" % (job, v["step"], sorted(v["top"]), sorted(want_top))
        assert v["caps"] == caps, "job %d %s sees caps %s, expected %s" % (job, v["step"], sorted(v["caps"]), sorted(caps))
        want_open = control | {gpu_node} | {"nvidia-caps/" + c for c in caps}
        assert v["opened"] == want_open, "job %d %s opened %s, expected %s" % (job, v["step"], sorted(v["opened"]), sorted(want_open))
        assert v["unrelated"] == "yes", "job %d %s lost the unrelated entries" % (job, v["step"])
nested = [rs for rs in runs.values() if len(rs) > 1]
assert len(nested) == 1 and sorted(r["step"] for r in nested[0]) == ["batch", "step0", "step1"], \
    "the nested job's runs: %s" % nested
# No two jobs that overlapped in time shared an instance, nor a capability node.
together = 0
for a in spans:
    for b in spans:
        if a[2] < b[2] and a[0] < b[1] and b[0] < a[1]:
            if a[3] == b[3]:
                raise AssertionError("jobs %d and %d overlapped on %s" % (a[2], b[2], a[3]))
            assert not caps_of[a[2]] & caps_of[b[2]], "jobs %d and %d saw %s at once" % (a[2], b[2], caps_of[a[2]] & caps_of[b[2]])
            together += inst[a[3]]["gpu"] == inst[b[3]]["gpu"]
assert together, "no two jobs ran at once on one GPU"
# Slices in use never above the node's: a sweep over the jobs' runs, and Slurm's own view.
use, peak = 0, 0
for t, d in sorted([(s, size) for s, e, _, _, size in spans] + [(e, -size) for s, e, _, _, size in spans],
                   key=lambda x: (x[0], x[1])):
    use += d
    peak = max(peak, use)
assert peak <= slices, "%d slices in use at once" % peak
polled = [int(x) for x in open(T + "/poll.txt")]
assert polled and max(polled) <= slices, "squeue showed %s slices running" % max(polled)
# migschedd's instances never overlapped on a GPU while alive (the MIG rules held).
for a in inst.values():
    for b in inst.values():
        if a is not b and a["gpu"] == b["gpu"] and a["created"] < b["destroyed"] and b["created"] < a["destroyed"]:
            sa, sb = geo[a["prof"]][1], geo[b["prof"]][1]
            assert a["slot"] + sa <= b["slot"] or b["slot"] + sb <= a["slot"], "instances overlapped: %s %s" % (a, b)
# Every job's allocation: recorded with its Slurm job id, the device the job saw, released.
allocs = {a["slurm_job_id"]: a for a in json.load(open(T + "/alloc.json"))["jobs"] if a.get("slurm_job_id")}
for job, rs in runs.items():
    a = allocs.get(job)
    assert a, "job %d has no allocation in GET /v1/jobs" % job
    assert a["mig_uuid"] == rs[0]["cvd"] and a["state"] == "done", "job %d: allocation %s" % (job, a)
assert len(allocs) == 24, "%d allocations" % len(allocs)
# Slurm's AdminComment (sacct's, equal to scontrol's) names each job's instance.
gpu_uuid = {g["gpu"]: g["uuid"] for g in json.load(open(T + "/gpus.json"))["gpus"]}
comments = dict(l.split() for l in open(T + "/sacct.comments"))
assert len(comments) == 24, "sacct lists %d jobs" % len(comments)
for job, rs in runs.items():
    i = inst[rs[0]["cvd"]]
    want = "migsched:profile=%s,gpu=%d,gpu_uuid=%s,mig_uuid=%s" % (i["prof"], i["gpu"], gpu_uuid[i["gpu"]], rs[0]["cvd"])
    assert comments.get(str(job)) == want, "job %d: AdminComment %s, expected %s" % (job, comments.get(str(job)), want)
assert open(T + "/hpc_left.txt").read() == "", "job-mapping files left: " + open(T + "/hpc_left.txt").read()
# DCGM's job mapping: each job was seen listed in its instance's <gpu>.<GPU_I_ID> file.
mapped = {tuple(l.split()) for l in open(T + "/hpc_poll.txt") if len(l.split()) == 2}
for job, rs in runs.items():
    i = inst[rs[0]["cvd"]]
    assert ("%d.%d" % (i["gpu"], i["gi"]), str(job)) in mapped, \
        "job %d never listed in %d.%d: %s" % (job, i["gpu"], i["gi"], sorted(mapped))
print("24 jobs on %d instances; peak %d of %d slices by the stamps, %d by squeue (%d polls); "
      "%d pairs of jobs at once on one GPU, on disjoint capability nodes"
      % (len({s[3] for s in spans}), peak, slices, max(polled), len(polled), together))
PY
# The idle policy keeps released instances for reuse; a clean stop removes every one.
live=$(sqlite3 "$T/d.db" "SELECT count(*) FROM instances WHERE destroyed IS NULL")
end_pid "$DPID" 30
DPID=
[ "$(instances_left)" = 0 ] || fail "instances left after migschedd stopped: $(cat "$FAKE_NVML_STATE")"
[ "$(sqlite3 "$T/d.db" "SELECT count(*) FROM instances WHERE destroyed IS NULL")" = 0 ] ||
    fail "the store has instances alive after the stop"
echo "idle instances kept after the last job: $live, left after migschedd stopped: 0"
echo "slurm_e2e: ok in $(python3 -c "import time; print(round(time.time() - $T0, 1))") s"
