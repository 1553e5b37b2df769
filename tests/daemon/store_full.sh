#!/usr/bin/env bash
# store_full.sh: the database's disk fills while a job runs (a tmpfs of 512 KiB): the
# engine retries the job's end with backoff, writing a few log lines, not thousands, and
# using little CPU; SIGTERM still ends migschedd soon after stop-grace (exit 1, the job left
# to the next start), and once the disk has room the next start runs the job again.
# Needs root (mount). $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mount)"; exit 77; }
mkdir "$T/db"
mount -t tmpfs -o size=512k,mode=0700 tmpfs "$T/db" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
unmount() {
    [ -n "$DPID" ] && { kill -9 "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=; }
    umount "$T/db"
    cleanup
}
trap unmount EXIT

cat > "$T/d.conf" <<CONF
backend sim
gpu A30-24GB
gpus 1
listen unix:$SOCK
db $T/db/d.db
time-scale 1
stop-grace 1
allow-root-jobs true
CONF
start_daemon --config "$T/d.conf"
r=$(ucurl -X POST -d '{"name": "j", "command": ["true"], "profile": "4g.24gb", "seconds": 2}' http://d/v1/jobs)
[ "$(status_of "$r")" = 201 ] || fail "submit: $r"
await '[ "$(count_state running)" = 1 ]'

# Fill the disk, then watch for 4 s: the end fails over and over.
dd if=/dev/zero of="$T/db/fill" bs=4k 2>/dev/null
lines0=$(grep -c 'event=job.end_failed' "$T/daemon.log")
cpu() { awk '{print $14 + $15}' "/proc/$DPID/stat"; }
c0=$(cpu)
sleep 4
c1=$(cpu)
lines=$(( $(grep -c 'event=job.end_failed' "$T/daemon.log") - lines0 ))
ticks=$(getconf CLK_TCK)
echo "job.end_failed lines: $lines, cpu ticks: $(( c1 - c0 )) of $(( 4 * ticks ))"
[ "$lines" -ge 1 ] || fail "the end never failed (is the disk full?)"
[ "$lines" -le 20 ] || fail "$lines job.end_failed lines in 4 s: no backoff"
[ $(( c1 - c0 )) -lt $(( 2 * ticks )) ] || fail "$(( c1 - c0 )) CPU ticks in 4 s: a spin"

# SIGTERM ends it (a generous hang guard: stop-grace is 1 s).
kill -TERM "$DPID"
await '! kill -0 $DPID 2>/dev/null || grep -q "event=daemon.stop " "$T/daemon.log"' 20
rc=0
wait "$DPID" || rc=$?
DPID=
[ "$rc" = 1 ] || fail "migschedd exited $rc after SIGTERM with the store failing, expected 1"
grep -q 'event=engine.stop_abandoned jobs=1' "$T/daemon.log" || fail "no engine.stop_abandoned"

# Room again: the next start recovers the job and runs it.
rm -f "$T/db/fill"
start_daemon --config "$T/d.conf"
await '[ "$(count_state done)" = 1 ]'
stop_daemon TERM 0
echo "store_full: ok"
