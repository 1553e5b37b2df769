#!/usr/bin/env bash
# file_safety.sh: what root writes cannot be redirected by a user (as root, with a
# throwaway user; skipped otherwise). migschedd refuses to start when log-dir, the
# runtime folder, the database's folder or hpc-job-mapping-dir is writable by others,
# naming the path and its mode; a link or a FIFO planted at a job's output names or at the
# mapping files (and their temporary names) neither redirects a write nor hangs the
# engine, and a job's owner folder that is a link is refused; the database and its WAL are
# 0600; `migsched run --cleanup` with a shared runtime folder where the user planted a
# journal, or with another user's journal or a symlinked lock, touches nothing.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = spank_driver; FAKE_NVML_DIR from ctest.
M=$1 DD=$2 DRV=$4
. "$3/tests/daemon/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a throwaway user)"; exit 77; }
use_fake_nvml
U=msfs$$$RANDOM
useradd -M -U -s /bin/sh "$U" || fail "useradd $U"
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; userdel "$U" 2>/dev/null; cleanup' EXIT
umask 022
chmod 755 "$T"
echo precious > "$T/victim"
victim_intact() {
    [ "$(cat "$T/victim")" = precious ] ||
        fail "$1: root wrote through a link: victim is now '$(cat "$T/victim")'"
}
NV=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --allow-root-jobs true
    --stop-grace 2 --isolation none)
mkdir -p "$T/logs" "$T/db" "$T/rt"

# 1. A folder root writes in that others can write: the daemon refuses to start, naming
# it and its mode. Should it start, a job shows what the user's link does.
refused() {
    local want=$1 rc=0; shift
    "$DD" "$@" > "$T/refused.log" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        "$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 -- echo overwritten > /dev/null
        sleep 3
        kill -9 "$pid"
        fail "migschedd started with $want (victim: $(cat "$T/victim"))"
    fi
    wait "$pid" || rc=$?
    [ "$rc" = 1 ] || fail "migschedd exited $rc with $want, expected 1: $(tail -3 "$T/refused.log")"
    grep -qF -- "$want" "$T/refused.log" || fail "no '$want' in: $(tail -3 "$T/refused.log")"
    check_log "$T/refused.log"
}
mkdir -m 1777 "$T/open"
chmod 1777 "$T/open"
runuser -u "$U" -- ln -s "$T/victim" "$T/open/job-1.1.out"
refused "log-dir $T/open: owned by uid 0 with mode 1777" "${NV[@]}" --db "$T/db/d.db" \
    --log-dir "$T/open"
victim_intact "log-dir"
mkdir "$T/ulogs" && chown "$U" "$T/ulogs"
refused "log-dir $T/ulogs: owned by uid $(id -u "$U") with mode 0755" "${NV[@]}" \
    --db "$T/db/d.db" --log-dir "$T/ulogs"
mkdir -m 0770 "$T/gdb"
refused "the db's folder $T/gdb: owned by uid 0 with mode 0770" "${NV[@]}" --db "$T/gdb/d.db" \
    --log-dir "$T/logs"
MIGSCHED_RUNTIME_DIR=$T/open refused "the runtime folder $T/open: owned by uid 0 with mode 1777" \
    "${NV[@]}" --db "$T/db/d.db" --log-dir "$T/logs"
refused "hpc-job-mapping-dir $T/open: owned by uid 0 with mode 1777" --backend sim --gpu A30-24GB --gpus 1 \
    --listen "unix:$SOCK" --db "$T/db/d.db" --hpc-job-mapping-dir "$T/open"
[ ! -e "$T/db/d.db" ] || fail "a refused start created the database"

# 2. Links and FIFOs at a job's output names (where today's and the per-owner layouts put
# them): the jobs run, write their own files, the engine never blocks, the victim stays.
for d in "$T/logs" "$T/logs/0" "$T/logs/root"; do
    mkdir -p "$d" && chmod 700 "$d"
    mkfifo "$d/job-1.1.out"
    ln -s "$T/victim" "$d/job-2.1.out"
    ln -s "$T/victim" "$d/job-2.1.err"
done
chmod 750 "$T/logs"
start_daemon "${NV[@]}" --db "$T/db/d.db" --log-dir "$T/logs"
for i in 1 2; do
    timeout 20 "$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name "j$i" \
        -- echo "mine $i" > /dev/null || fail "submit j$i (the engine hung?)"
done
await '[ "$(count_state done)" = 2 ]' 30
victim_intact "job outputs"
for i in 1 2; do  # in the owner's folder, new regular files of mode 0600
    f=$(find "$T/logs" -name "job-$i.1.out" -type f)
    [ -n "$f" ] && [ "$(cat "$f")" = "mine $i" ] && [ "$(stat -c %a "$f")" = 600 ] ||
        fail "job $i's output: $(ls -lR "$T/logs")"
done
# The owner's folder is a link: the job does not run (log-dir is the node's fault: it is
# requeued, tried again later), nothing is written where it points.
mkdir "$T/elsewhere"
for d in "$T/logs/0" "$T/logs/root"; do rm -rf "$d"; ln -s "$T/elsewhere" "$d"; done
"$M" submit --connect "unix:$SOCK" --profile 1g.6gb --seconds 1 --name j3 -- echo linked > /dev/null
await 'ucurl http://d/v1/jobs/3 | grep -q "\"reason\": *\"start failed on this node: .*not a folder"' 30
[ "$(count_state failed)" = 0 ] || fail "job 3 failed"
[ -z "$(ls "$T/elsewhere")" ] || fail "written through the owner folder's link: $(ls "$T/elsewhere")"
grep -q 'event=job.start_failed error=.*not a folder' "$T/daemon.log" || fail "job 3's reason"

# 3. The database and its WAL are 0600 (umask 022); an existing 0644 one is made 0600.
[ "$(stat -c %a "$T/db/d.db")" = 600 ] && [ "$(stat -c %a "$T/db/d.db-wal")" = 600 ] ||
    fail "database modes: $(ls -l "$T/db")"
stop_daemon TERM 0
chmod 644 "$T/db/d.db"
start_daemon "${NV[@]}" --db "$T/db/d.db" --log-dir "$T/logs"
[ "$(stat -c %a "$T/db/d.db")" = 600 ] || fail "an existing 0644 database stays $(stat -c %a "$T/db/d.db")"
stop_daemon TERM 0

# 4. The mapping folder: links at the mapping files' names and at their temporary names
# (today's were <file>.tmp<pid>), FIFOs on the other GPU's names.
mkdir "$T/map"
for gi in $(seq 0 15); do
    ln -s "$T/victim" "$T/map/0.$gi"
    mkfifo "$T/map/1.$gi"
done
start_daemon --backend sim --gpu A30-24GB --gpus 2 --listen "unix:$SOCK" --db "$T/db/s.db" \
    --hpc-job-mapping-dir "$T/map" --slurm-gres none --slurm-reconcile 0
for gi in $(seq 0 15); do ln -s "$T/victim" "$T/map/0.$gi.tmp$DPID"; done
for job in 501 502; do
    timeout 20 "$DRV" "socket=$SOCK timeout=10" acquire $job 0 4g.24gb > "$T/acq" || fail "acquire $job (hung on a FIFO?): $(cat "$T/acq")"
done
victim_intact "mapping files"
for job in 501 502; do
    a=$(ucurl "http://d/v1/allocations/$job" | sed '$d')
    f="$T/map/$(jq -r .gpu <<<"$a").$(jq -r .gi_id <<<"$a")"
    [ -f "$f" ] && [ ! -L "$f" ] && [ "$(cat "$f")" = $job ] || fail "mapping file $f: $(ls -l "$f")"
done
stop_daemon TERM 0

# 5. `migsched run --cleanup` in a shared runtime folder: the user planted a journal that
# names an unrelated process group and another's instance, and a lock that links to a
# root file. Nothing is killed, destroyed or truncated; the refusal names the folder.
printf 'serial 777\ngpu 0 mig 1\ngi 0 1 4g.24gb 0 777\nci 0 1 0 3\n' > "$FAKE_NVML_STATE"
setsid sleep 300 &
SPID=$!
sleep 0.2
SSTART=$(awk '{print $22}' "/proc/$SPID/stat")
GPU=GPU-fa4e0000-0000-4000-8000-000000000000
journal() {
    printf 'run nvml A30-24GB 999999 1\ndevice 0 %s\ncreated 0 1 0 4 MIG-fa4e0000-0001-4000-8000-000000000777\ntask 0 %s %s 0\n' \
        "$GPU" "$SPID" "$SSTART"
}
echo precious > "$T/victim"
untouched() {
    kill -0 "$SPID" 2>/dev/null || fail "$1: an unrelated process group was killed"
    grep -q '^gi 0 1 4g.24gb 0 777$' "$FAKE_NVML_STATE" || fail "$1: another's instance was destroyed"
    victim_intact "$1"
}
mkdir -m 1777 "$T/shared"
chmod 1777 "$T/shared"
journal > "$T/planted"
runuser -u "$U" -- cp "$T/planted" "$T/shared/run-dev0.journal"
runuser -u "$U" -- ln -s "$T/victim" "$T/shared/$GPU.lock"
MIGSCHED_RUNTIME_DIR=$T/shared "$M" run --cleanup --journal "$T/shared/run-dev0.journal" > "$T/out" 2> "$T/err"
[ $? = 1 ] || fail "cleanup of a planted journal did not fail: $(cat "$T/out" "$T/err")"
grep -qF "the journal's folder $T/shared: owned by uid 0 with mode 1777" "$T/err" || fail "refusal: $(cat "$T/err")"
untouched "shared runtime folder"
# Another user's journal in a folder of ours.
mkdir "$T/priv"
journal > "$T/priv/j" && chown "$U" "$T/priv/j"
"$M" run --cleanup --journal "$T/priv/j" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -qF "$T/priv/j: owned by uid $(id -u "$U")" "$T/err" || fail "another's journal: $(cat "$T/err")"
untouched "another user's journal"
# Our journal, with a lock that is a link (or another user's).
chown root "$T/priv/j"
mkdir "$T/privrt"
ln -s "$T/victim" "$T/privrt/$GPU.lock"
MIGSCHED_RUNTIME_DIR=$T/privrt "$M" run --cleanup --journal "$T/priv/j" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -qF "$T/privrt/$GPU.lock: cannot open: it is a symbolic link" "$T/err" || fail "linked lock: $(cat "$T/err")"
untouched "a linked lock"
rm "$T/privrt/$GPU.lock"
echo 1 > "$T/privrt/$GPU.lock" && chown "$U" "$T/privrt/$GPU.lock"
MIGSCHED_RUNTIME_DIR=$T/privrt "$M" run --cleanup --journal "$T/priv/j" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -qF "$T/privrt/$GPU.lock: owned by uid $(id -u "$U")" "$T/err" || fail "another's lock: $(cat "$T/err")"
untouched "another user's lock"
echo "file_safety: ok"
