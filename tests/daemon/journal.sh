#!/usr/bin/env bash
# journal.sh: migschedd's run journal as an operator meets it (nvml backend, fake NVML): a
# record torn by a crash mid-write is dropped and logged (journal.torn_record naming the
# file and line) and the start recovers; a clean stop leaves a compacted journal (mode
# 0600); a NUL byte stops the start with the reader's error naming the file and line, and
# `migsched run --cleanup` by a user who may not read the journal is refused (EACCES); an
# instance half made at a crash (no compute instance yet) is destroyed by `--cleanup` and
# by the next start.
# $1 = migsched, $2 = migschedd, $3 = source dir; FAKE_NVML_DIR is set by ctest.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
use_fake_nvml
J=$T/rt/run-dev0.journal
DARGS=(--backend nvml --devices 0 --gpu A30-24GB --listen "unix:$SOCK" --db "$T/d.db"
       --allow-root-jobs true --log-dir "$T/logs" --stop-grace 2 --isolation none)
mkdir -p "$T/logs"
start_daemon "${DARGS[@]}"
for i in 1 2; do
    "$M" submit --connect "unix:$SOCK" --profile 2g.12gb --seconds 2 --name "n$i" -- sleep 2 \
        > /dev/null || fail "submit n$i"
done
await '[ "$(count_state running)" = 2 ]' 60
stop_daemon KILL 137

# 1. A torn last record: dropped, logged, recovered from.
printf 'ended 1' >> "$J"
line=$(( $(wc -l < "$J") + 1 ))
start_daemon "${DARGS[@]}"
grep -q "event=journal.torn_record journal=$J line=$line " "$T/daemon.log" \
    || fail "no journal.torn_record for line $line"
await '[ "$(count_state done)" = 2 ]' 60

# 2. A clean stop leaves the journal compacted: its header only, mode 0600.
stop_daemon TERM 0
[ "$(wc -l < "$J")" -le 3 ] || fail "journal not compacted: $(cat "$J")"
[ "$(stat -c %a "$J")" = 600 ] || fail "journal mode $(stat -c %a "$J")"
[ "$(ls "$T/rt" | grep -c journal)" = 1 ] || fail "a temporary journal left: $(ls "$T/rt")"

# 3. A NUL byte: the start stops, naming the file and line.
line=$(( $(wc -l < "$J") + 1 ))
printf 'ta\0sk 0 12 3 4\n' >> "$J"
rc=0
timeout 30 "$DD" "${DARGS[@]}" > "$T/nul.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "migschedd started or hung ($rc) despite the NUL"
grep -q "$J:$line: NUL byte" "$T/nul.out" || fail "NUL: $(cat "$T/nul.out")"
check_log "$T/nul.out"

# 4. A reader that may not read the journal: refused, never taken for no journal.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups "$M" --help > /dev/null 2>&1; then
    chmod 755 "$T" "$T/rt"
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups "$M" run --cleanup --journal "$J" \
        > "$T/c.out" 2> "$T/c.err" || rc=$?
    [ "$rc" = 1 ] && grep -q "$J: cannot open the journal: .*Permission denied" "$T/c.err" \
        || fail "cleanup as nobody exited $rc: $(cat "$T/c.err")"
else
    echo "note: not root or nobody cannot run $M: the EACCES case is test_exec_journal's"
fi

# 5. Killed between making a GPU instance and its compute instance (the fake NVML's
#    SIGKILL at the compute instance's creation): the instance is the journal's ("gi"
#    record). The next start destroys it (recover.destroy, never recover.foreign) and a
#    clean stop leaves neither the instance nor an open record; `migsched run --cleanup`
#    on the crashed daemon's journal destroys it too.
rm -f "$J"  # the NUL record of 3 (nothing else was open after the clean stop of 2)
crash_in_create() {
    export FAKE_NVML_FAIL=nvmlGpuInstanceCreateComputeInstance:1:kill
    start_daemon "${DARGS[@]}"
    unset FAKE_NVML_FAIL
    "$M" submit --connect "unix:$SOCK" --profile 2g.12gb --seconds 1 --name "h$1" -- true \
        > /dev/null || fail "submit h$1"
    await '! kill -0 "$DPID" 2>/dev/null || ps -o stat= -p "$DPID" | grep -q Z' 60
    local rc=0
    wait "$DPID" || rc=$?
    DPID=
    [ "$rc" = 137 ] || fail "migschedd exited $rc, not killed inside the creation"
    [ "$(grep -c '^gi ' "$T/nvml.state")" = 1 ] && ! grep -q '^ci ' "$T/nvml.state" \
        || fail "not a GPU instance without its compute instance: $(cat "$T/nvml.state")"
}
crash_in_create 1
from=$(( $(wc -l < "$T/daemon.log") + 1 ))
start_daemon "${DARGS[@]}"
tail -n "+$from" "$T/daemon.log" > "$T/restart.log"
grep -q 'event=recover.destroy gpu=0 .*start=0 interrupted=create mig_device=no' "$T/restart.log" \
    || fail "the half-made instance was not destroyed"
! grep -q 'event=recover.foreign' "$T/restart.log" || fail "the half-made instance called foreign"
await '[ "$(count_state done)" = 3 ]' 60
stop_daemon TERM 0
! grep -q '^gi ' "$T/nvml.state" || fail "a clean stop left $(cat "$T/nvml.state")"
[ "$(wc -l < "$J")" -le 3 ] || fail "journal not compacted: $(cat "$J")"
crash_in_create 2
"$M" run --cleanup --journal "$J" > "$T/half.out" 2>&1 || fail "cleanup: $(cat "$T/half.out")"
grep -q 'destroyed leftover GPU instance' "$T/half.out" || fail "cleanup: $(cat "$T/half.out")"
! grep -q '^gi ' "$T/nvml.state" || fail "cleanup left $(cat "$T/nvml.state")"
echo "journal: ok"
