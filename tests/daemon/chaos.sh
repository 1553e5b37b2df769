#!/usr/bin/env bash
# chaos.sh: migschedd (nvml backend, fake NVML, real processes) SIGKILLed 30 times at a
# random moment while two clients submit and cancel jobs, then restarted each time. After
# each restart and at the end: the daemon starts, no accepted job is lost, no job has two
# runs at once (each run holds a per-job flock for its whole life, its children too), no
# process of a finished or cancelled job is left, the fake NVML's instances are the ones
# the API reports, and the journal stays under a bound that does not grow with the number
# of restarts. The kill schedule is seeded: CHAOS_SEED=S replays it (timing still varies).
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
use_fake_nvml
CYCLES=30 GRACE=1
# Seconds after a job's end by which its leftovers must be gone: stop-grace, then a margin.
SETTLE=$((GRACE + 3))
SEED=${CHAOS_SEED:-$(( $(date +%s%N) % 1000000 ))}
echo "chaos: seed=$SEED (CHAOS_SEED=$SEED replays this kill schedule)"
RANDOM=$SEED
# Every process a job makes carries its token, unique to this run of the test.
TOKPFX=cx$$r$RANDOM
J=$T/rt/run-dev0.journal
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --stop-grace $GRACE --isolation none
       --max-attempts 100)
mkdir -p "$T/logs" "$T/locks"
CPIDS=()
# Kills what the test made: the clients, the daemon (so that it starts nothing more), then
# every process carrying one of its tokens, by pid; lib.sh's cleanup removes the folder.
chaos_cleanup() {
    touch "$T/stop"
    for p in "${CPIDS[@]}"; do kill "$p" 2>/dev/null; done
    [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
    DPID=
    for f in /proc/[0-9]*/cmdline; do
        { tr '\0' ' ' < "$f"; } 2>/dev/null | grep -q "$TOKPFX" || continue
        p=${f#/proc/}; kill -9 "${p%/cmdline}" 2>/dev/null
    done
    cleanup
}
trap chaos_cleanup EXIT

# A run: records "WHAT TOKEN PID JOB ATTEMPT TIME" lines (start, end, stopped on SIGTERM,
# OVERLAP when another run of its job still holds the lock), each one O_APPEND write with
# no child process. Its job id and attempt come from its stdout, log-dir/USER/job-ID.A.out.
cat > "$T/job.sh" <<'SH'
LC_ALL=C  # EPOCHREALTIME's decimal point is the locale's
TOKEN=$1 SECS=$2 KIND=$3 RUNS=$4
out=$(readlink /proc/$$/fd/1)
out=${out##*/job-}; out=${out%.out}
rec() {
    printf '%s %s %s %s %s %s\n' "$1" "$TOKEN" $$ "${out%.*}" "${out#*.}" "$EPOCHREALTIME" \
        >> "$RUNS"
}
trap 'rec stopped; exit 143' TERM
exec 9>> "$5/$TOKEN.lock"
flock -n 9 || rec OVERLAP
rec start
# Children that outlive the run unless the daemon ends them; they hold the lock (fd 9).
case $KIND in
bg) (exec -a "chaos-bg-child-$TOKEN" sleep 30) & ;;
setsid) setsid bash -c 'exec -a "$0" sleep 30' "chaos-setsid-child-$TOKEN" & ;;
esac
sleep "$SECS"
rec end
SH

# The checks, on the API (over the socket), the fake NVML's state, the journal, the runs
# file and /proc. "check LABEL DAEMON_START" after each start; "final" at the end.
cat > "$T/check.py" <<'PY'
import collections, glob, http.client, json, os, re, socket, sys, time
T, SOCK, TOKPFX = os.environ["T"], os.environ["SOCK"], os.environ["TOKPFX"]
SETTLE = float(os.environ["SETTLE"])
STATS = T + "/stats.json"
TOKEN = re.compile(r"\b(" + re.escape(TOKPFX) + r"_[ab]_\d+)\b")
problems = []

class Conn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(SOCK)

def api(path):
    c = Conn("d", timeout=10)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    assert r.status == 200, "GET %s: %d %s" % (path, r.status, body[:200])
    return json.loads(body)

def store_jobs():
    jobs, path = {}, "/v1/jobs?limit=1000"
    while path:
        page = api(path)
        jobs.update((j["id"], j) for j in page["jobs"])
        path = page["next"]
    return jobs

def accepted():
    acc = {}
    for f in glob.glob(T + "/accepted.*"):
        for line in open(f):
            tok, jid = line.split()
            acc[tok] = int(jid)
    return acc

def runs():
    """{token: {(pid, attempt): {what: time}}} and the OVERLAP records."""
    by_tok, overlaps = collections.defaultdict(lambda: collections.defaultdict(dict)), []
    if os.path.exists(T + "/runs.txt"):
        for n, line in enumerate(open(T + "/runs.txt"), 1):
            f = line.split()
            if len(f) != 6 or not line.endswith("\n"):
                problems.append("runs.txt:%d: %r" % (n, line))
                continue
            what, tok, pid, jid, att, t = f
            if what == "OVERLAP":
                overlaps.append(line.strip())
            by_tok[tok][(pid, att)][what] = float(t)
    return by_tok, overlaps

def token_processes():
    procs = collections.defaultdict(list)
    for f in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            args = open(f, "rb").read().decode(errors="replace").split("\0")
        except OSError:
            continue
        for a in args:
            for tok in TOKEN.findall(a):
                procs[tok].append("%s (%s)" % (f.split("/")[2], " ".join(args).strip()))
    return procs

def gi_of_state():
    path = os.environ["FAKE_NVML_STATE"]
    if not os.path.exists(path):
        return set()
    return {tuple(map(int, l.split()[1:3])) for l in open(path) if l.startswith("gi ")}

def gi_of_api():
    return {(g["gpu"], i["gi_id"]): i["state"]
            for g in api("/v1/gpus")["gpus"] for i in g["instances"]}

def in_flight():
    # The creations each journal a kill left was making: "begin" places (gpu, start, size)
    # and "gi" instances (gpu, gi, start, size) that no later record settled.
    begins, gis = set(), set()
    for f in glob.glob(T + "/at-kill.*"):
        ob, og = {}, {}
        for l in open(f):
            w = l.split()
            if w and w[0] == "begin":
                ob[(w[1], w[2])] = w[3]
            elif w and w[0] == "settled":
                ob.pop((w[1], w[2]), None)
            elif w and w[0] in ("gi", "created"):
                ob.pop((w[1], w[3]), None)
                og.pop((w[1], w[2]), None)
                if w[0] == "gi":
                    og[(w[1], w[2])] = (w[3], w[4])
            elif w and w[0] == "destroyed":
                og.pop((w[1], w[2]), None)
        begins |= {(int(d), int(st), int(z)) for (d, st), z in ob.items()}
        gis |= {(int(d), int(x), int(st), int(z)) for (d, x), (st, z) in og.items()}
    return begins, gis

def unprovable(leaked):
    # The one leak the daemon may leave: an instance it was making when killed, in the
    # window no record covers (docs/daemon.md, Crash recovery), which it then reported and
    # left alone. Such an instance is the operator's to remove (check.py operator).
    begins, gis = in_flight()
    said = {}
    for l in open(T + "/daemon.log"):
        m = re.search(r"event=recover\.(?:foreign|not_ours) gpu=(\d+) gi=(\d+) start=(\d+) "
                      r"size=(\d+)", l)
        if m:
            g, x, st, z = map(int, m.groups())
            said[(g, x)] = (st, z)
    ok = set()
    for g, x in leaked:
        if (g, x) in said:
            st, z = said[(g, x)]
            if (g, st, z) in begins or (g, x, st, z) in gis:
                ok.add((g, x))
    return ok

def check_instances(label, st):
    # A snapshot of the file between two of the API: an instance on the device that the
    # daemon knows in neither is leaked; one it lists settled (idle, busy) in both must be on
    # the device. Jobs start and end meanwhile: retried until a snapshot agrees.
    known = {tuple(k) for k in st["unprovable"]}
    for _ in range(25):
        a1 = gi_of_api(); f = gi_of_state(); a2 = gi_of_api()
        leaked = f - set(a1) - set(a2) - known
        settled = {k for k in set(a1) & set(a2)
                   if a1[k] in ("idle", "busy") and a2[k] in ("idle", "busy")}
        phantom = settled - f
        if not phantom and not leaked - unprovable(leaked):
            st["unprovable"] = sorted(known | unprovable(leaked))
            return
        time.sleep(0.2)
    # The daemon's own instance taken for someone else's is one it never uses nor destroys.
    foreign = [l.strip() for l in open(T + "/daemon.log")
               if re.search(r"event=(recover|instance)\.(foreign|not_ours)", l)]
    problems.append("%s: instances on the fake NVML %s, the API's %s (leaked %s, missing %s); "
                    "logged foreign: %s" % (label, sorted(f), a2, sorted(leaked), sorted(phantom),
                                            " | ".join(foreign[-3:]) or "none"))

def operator():
    # With the daemon down, the operator removes what it reported as unprovable (as
    # `nvidia-smi mig -dci -dgi` would): the fake NVML's lines of those instances.
    st = stats()
    gone = {tuple(k) for k in st["unprovable"]} - {tuple(k) for k in st["removed"]}
    if not gone:
        return
    path = os.environ["FAKE_NVML_STATE"]
    keep = [l for l in open(path)
            if not (l.split()[:1] in (["gi"], ["ci"]) and tuple(map(int, l.split()[1:3])) in gone)]
    open(path, "w").writelines(keep)
    st["removed"] = sorted({tuple(k) for k in st["removed"]} | gone)
    json.dump(st, open(STATS, "w"))

def pending():
    # Whether something reported unprovable is still on the device.
    st = stats()
    sys.exit(0 if {tuple(k) for k in st["unprovable"]} - {tuple(k) for k in st["removed"]}
             else 1)

def no_instances():
    # After the clean stop: nothing of the daemon's is left (what it reported unprovable and
    # the operator has not removed yet aside).
    st = stats()
    left = gi_of_state() - ({tuple(k) for k in st["unprovable"]} - {tuple(k) for k in st["removed"]})
    if left:
        problems.append("instances left after a clean stop: %s" % sorted(left))

def check_common(label, acc, jobs, by_tok, overlaps, final):
    # acc is read before jobs: a job accepted between the two reads is not yet in jobs.
    for tok, jid in sorted(acc.items(), key=lambda x: x[1]):
        if jid not in jobs or jobs[jid]["name"] != tok:
            problems.append("%s: job %d (%s) was accepted but is not in the store"
                            % (label, jid, tok))
    if overlaps:
        problems.append("%s: runs overlap: %s" % (label, "; ".join(overlaps[:5])))
    for tok, by_run in by_tok.items():
        # each run's last sign of life comes before the next run's first
        spans = sorted((min(r.values()), max(r.values())) for r in by_run.values())
        for (s0, e0), (s1, _) in zip(spans, spans[1:]):
            if e0 >= s1:
                problems.append("%s: %s: runs overlap in time %s" % (label, tok, spans))
    # No process of a job that ended SETTLE seconds ago (all of them at the end).
    now, left = time.time(), []
    ended = {j["name"]: j for j in jobs.values()
             if j["state"] in ("done", "failed", "cancelled")
             and (final or now - (j["ended"] or 0) > SETTLE)}
    for tok, procs in token_processes().items():
        if tok in ended:
            j = ended[tok]
            left.append((tok, "job %d %s %.1f s ago: %s" % (
                j["id"], j["state"], now - (j["ended"] or 0), "; ".join(procs))))
    if left:
        problems.append("%s: processes of %d ended jobs left: %s"
                        % (label, len(left), " | ".join(l for _, l in left[:4])))
    return {tok for tok, _ in left}

def journal_lines():
    path = T + "/rt/run-dev0.journal"
    return sum(1 for _ in open(path)) if os.path.exists(path) else 0

def stats():
    if os.path.exists(STATS):
        return json.load(open(STATS))
    return {"journal_max_lines": 0, "leftovers": [], "unprovable": [], "removed": []}

def check_journal(st, label, since, n, by_tok):
    # The start compacted the journal to what is live; since then each run started adds a
    # few records (begin, created, task, ended, destroying, destroyed, and a destroy of an
    # instance in its way): a bound set by this daemon's work, not by the restarts before.
    # n is read before the runs file, so that no record counts without its run.
    started = sum(1 for r in by_tok.values() for w in r.values() if w.get("start", 0) >= since)
    if n > 24 + 8 * started:
        problems.append("%s: the journal has %d lines after %d runs started since the daemon did"
                        % (label, n, started))
    st["journal_max_lines"] = max(st["journal_max_lines"], n)

def check(label, since):
    st = stats()
    n = journal_lines()
    acc = accepted()
    jobs = store_jobs()
    by_tok, overlaps = runs()
    check_journal(st, label, since, n, by_tok)
    left = check_common(label, acc, jobs, by_tok, overlaps, False)
    check_instances(label, st)
    st["leftovers"] = sorted(set(st["leftovers"]) | left)
    json.dump(st, open(STATS, "w"))

def journal(label, since):
    st = stats()
    n = journal_lines()
    check_journal(st, label, since, n, runs()[0])
    json.dump(st, open(STATS, "w"))

def final():
    st = stats()
    acc = accepted()
    jobs = store_jobs()
    by_tok, overlaps = runs()
    left = check_common("end", acc, jobs, by_tok, overlaps, True)
    cancels = {int(l.split()[0]) for f in glob.glob(T + "/cancels.*") for l in open(f)}
    count = collections.Counter()
    for tok, jid in acc.items():
        j = jobs.get(jid)
        if not j:
            continue
        count[j["state"]] += 1
        if j["state"] == "done":
            last = max(by_tok[tok].values(), key=lambda r: min(r.values()), default={})
            if "end" not in last:
                problems.append("job %d (%s) is done but its last run did not end: %s"
                                % (jid, tok, dict(by_tok[tok])))
        elif j["state"] == "cancelled":
            if jid not in cancels:
                problems.append("job %d (%s) was cancelled by nobody" % (jid, tok))
        elif j["state"] == "failed":
            # max-attempts failures are the only failures these jobs may have
            if not re.fullmatch(r"interrupted \d+ times", j["reason"] or ""):
                problems.append("job %d (%s) failed: %s" % (jid, tok, j["reason"]))
        else:
            problems.append("job %d (%s) is %s after the queue drained" % (jid, tok, j["state"]))
    for f in glob.glob(T + "/unexpected.*"):
        for l in open(f):
            problems.append("client: " + l.strip())
    reran = sum(1 for tok in acc if len(by_tok[tok]) > 1)
    # at least once: a run that ended and yet was followed by another (its end not committed)
    in_order = lambda tok: sorted(by_tok[tok].values(), key=lambda r: min(r.values()))
    again = sum(1 for tok in acc if any("end" in r for r in in_order(tok)[:-1]))
    print("chaos: seed=%s cycles=%s accepted=%d done=%d cancelled=%d failed=%d reran=%d "
          "overlapping=%d leftovers=%d journal_max_lines=%d reran_after_end=%d unprovable=%d "
          "children=%s"
          % (os.environ["SEED"], os.environ["CYCLES"], len(acc), count["done"], count["cancelled"],
             count["failed"], reran, len(overlaps), len(set(st["leftovers"]) | left),
             st["journal_max_lines"], again, len(st["unprovable"]), os.environ["CHILDREN"]))

def history():
    # Every job's transitions chain from submit to its state, with a start per attempt.
    import sqlite3
    db = sqlite3.connect("file:%s/d.db?mode=ro" % T, uri=True)
    chains = collections.defaultdict(list)
    for job, event, frm, to in db.execute(
            "SELECT job, event, from_state, to_state FROM transitions ORDER BY job, seq"):
        chains[job].append((event, frm, to))
    for jid, state, attempts in db.execute("SELECT id, state, attempts FROM jobs"):
        ts, prev = chains[jid], "new"
        for event, frm, to in ts:
            if frm != prev:
                problems.append("job %d: %s from %s after %s: %s" % (jid, event, frm, prev, ts))
            prev = to
        starts = sum(e == "start" for e, _, _ in ts)
        if not ts or ts[0][0] != "submit" or prev != state or starts != attempts:
            problems.append("job %d (%s, %d attempts): history %s" % (jid, state, attempts, ts))

def drained():
    sys.exit(1 if any(api("/v1/jobs?limit=1&state=" + s)["jobs"] for s in ("queued", "running"))
             else 0)

{"check": lambda: check(sys.argv[2], float(sys.argv[3])),
 "journal": lambda: journal(sys.argv[2], float(sys.argv[3])),
 "final": final, "drained": drained, "history": history, "operator": operator,
 "pending": pending, "no_instances": no_instances}[sys.argv[1]]()
if problems:
    print("\n".join(problems[:20]), file=sys.stderr)
    sys.exit(1)
PY
export T SOCK TOKPFX SETTLE SEED CYCLES
check() { python3 "$T/check.py" "$@" || fail "${2:-$1}"; }

# A client: submits short jobs (0.1-1.5 s, mixed profiles; with CHILDREN some leave a
# background or setsid child) while fewer than 6 wait, cancels some, and records every
# job accepted (201) as "TOKEN ID", every cancel asked as "ID", and any answer a restart
# cannot explain (connection lost: 000; stopping: 503).
PROFILES=(1g.6gb 2g.12gb 4g.24gb 1g.6gb)
KINDS=(plain plain bg setsid)
client() {
    local name=$1 n=0 r code id secs prof kind d tok
    RANDOM=$2
    while [ ! -e "$T/stop" ]; do
        r=$(curl -s --max-time 10 --unix-socket "$SOCK" 'http://d/v1/jobs?state=queued&limit=6')
        if [ "$(grep -o '"id":' <<<"$r" | wc -l)" -ge 6 ] || ! grep -q '"jobs"' <<<"$r"; then
            sleep 0.2; continue
        fi
        n=$((n + 1)) d=$((RANDOM % 141 + 10))
        printf -v secs '%d.%02d' $((d / 100)) $((d % 100))
        prof=${PROFILES[RANDOM % 4]}
        kind=plain
        [ "$CHILDREN" = yes ] && kind=${KINDS[RANDOM % 4]}
        tok=${TOKPFX}_${name}_$n
        r=$(printf '{"name": "%s", "profile": "%s", "seconds": %s, "command": ["/bin/bash",
                     "%s/job.sh", "%s", "%s", "%s", "%s/runs.txt", "%s/locks"]}' \
                "$tok" "$prof" "$secs" "$T" "$tok" "$secs" "$kind" "$T" "$T" |
            curl -s --max-time 10 --unix-socket "$SOCK" -X POST --data-binary @- \
                -H 'Content-Type: application/json' -w '\n%{http_code}' http://d/v1/jobs)
        code=$(tail -n1 <<<"$r")
        case $code in
        201) id=$(grep -o '"id": *[0-9]*' <<<"$r" | head -1 | grep -o '[0-9]*$')
             echo "$tok $id" >> "$T/accepted.$name"
             if [ $((RANDOM % 7)) = 0 ]; then
                 sleep "0.$((RANDOM % 9))"
                 echo "$id" >> "$T/cancels.$name"
                 code=$(curl -s -o /dev/null --max-time 10 --unix-socket "$SOCK" -X DELETE \
                            -w '%{http_code}' "http://d/v1/jobs/$id")
                 case $code in
                 200|409|000|503) ;;
                 *) echo "DELETE job $id: $code" >> "$T/unexpected.$name" ;;
                 esac
             fi ;;
        000|503) ;;
        *) echo "POST: $r" | tr '\n' ' ' >> "$T/unexpected.$name"; echo >> "$T/unexpected.$name" ;;
        esac
        sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
    done
}

# After a kill: the journal as the killed daemon left it (what it was creating), and the
# operator's removal of what an earlier start reported as unprovable.
KILLS=0
killed() {
    KILLS=$((KILLS + 1))
    cp "$J" "$T/at-kill.$KILLS" 2>/dev/null
    check operator
}
since=$EPOCHREALTIME
start_daemon "${DARGS[@]}"
# Leftover children are the daemon's to end only where jobs get cgroups.
if grep -q 'event=cgroup.unavailable' "$T/daemon.log"; then
    CHILDREN=no
    echo "chaos: no usable cgroup v2 (cgroup.unavailable): no job leaves a child behind"
else
    CHILDREN=yes
    echo "chaos: jobs leave background and setsid children, which must not outlive them"
fi
export CHILDREN
client a $((SEED + 1)) & CPIDS+=($!)
client b $((SEED + 2)) & CPIDS+=($!)
for cycle in $(seq 1 $CYCLES); do
    [ $SECONDS -lt 300 ] || fail "hang guard: $SECONDS s at cycle $cycle"
    check check "cycle $cycle" "$since"
    d=$((RANDOM % 3)).$((RANDOM % 10))$((RANDOM % 10))
    echo "cycle $cycle: SIGKILL after $d s"
    sleep "$d"
    check journal "cycle $cycle, at the kill" "$since"
    stop_daemon KILL 137
    killed
    since=$EPOCHREALTIME
    # One start in five is killed too, within its first 0.3 s (recovery, compaction).
    if [ $((RANDOM % 5)) = 0 ]; then
        "$DD" "${DARGS[@]}" >>"$T/daemon.log" 2>&1 &
        DPID=$!
        sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
        stop_daemon KILL 137
        killed
    fi
    start_daemon "${DARGS[@]}"
done
check check "after the last restart" "$since"
if python3 "$T/check.py" pending; then  # its slots are lost until the operator steps in
    stop_daemon KILL 137
    killed
    start_daemon "${DARGS[@]}"
fi
touch "$T/stop"
for p in "${CPIDS[@]}"; do wait "$p"; done
CPIDS=()
await 'python3 "$T/check.py" drained' 120
sleep $SETTLE
python3 "$T/check.py" final > "$T/summary" || { cat "$T/summary"; fail "the final check"; }
# A clean stop: no instance of the daemon's left on the device, the journal compacted.
stop_daemon TERM 0
check no_instances
[ "$(wc -l < "$J")" -le 3 ] || fail "the journal after a clean stop: $(cat "$J")"
check history "the store's transitions"
cat "$T/summary"
