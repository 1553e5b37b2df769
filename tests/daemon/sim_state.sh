#!/usr/bin/env bash
# sim_state.sh: migschedd on sim GPUs kept in a state file (`sim-state FILE`): it runs on a
# file prepared by hand (a foreign 3g.20gb at slot 4 of GPU 0), records that instance
# foreign and never uses or destroys its slots, keeps `migsched apply` off its GPUs while
# it runs (the device lock), writes its own instances to the file while jobs hold them,
# leaves the foreign one as it was through a stop and a restart, makes a missing file from
# gpu and gpus, and refuses to start on a file that does not match them, has a GPU with MIG
# mode off, or is corrupt. $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
export MIGSCHED_RUNTIME_DIR=$T/rt
S=$T/gpus.json
cat > "$S" << 'EOF'
{"format": "migsched-sim-state/1", "serial": 1, "gpus": [
 {"model": "A100-40GB", "uuid": "GPU-51300000-5151-4000-8000-000000000000", "mig": true, "instances": [
  {"gi": 1, "profile": "3g.20gb", "start": 4, "uuid": "MIG-51300000-5151-4000-8000-foreign00001"}]},
 {"model": "A100-40GB", "uuid": "GPU-51300000-5151-4001-8000-000000000000", "mig": true}]}
EOF
write_conf() {  # $1: gpus, $2: the state file
    cat > "$T/d.conf" << CONF
backend sim
gpu A100-40GB
gpus $1
sim-state $2
listen unix:$SOCK
db $T/d.db
init-store true
time-scale 400
allow-root-jobs true
CONF
}
write_conf 2 "$S"
start_daemon --config "$T/d.conf"
grep -q 'event=instance.foreign gpu=0 gi=1 start=4 size=4' "$T/daemon.log" || fail "foreign instance not recorded"

# 1. While migschedd runs, apply keeps off its GPUs (the device lock), changing nothing.
cat > "$T/c.yaml" << 'EOF'
version: v1
mig-configs:
  clear:
    - devices: all
      mig-enabled: true
      mig-devices: {}
EOF
cp "$S" "$T/before"
"$M" apply -f "$T/c.yaml" -c clear --state "$S" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q "is in use by migsched process $DPID" "$T/err" || fail "apply beside the daemon: $(cat "$T/err")"
cmp -s "$S" "$T/before" || fail "a refused apply changed the state"

# 2. A long job's instance is in the file while it runs; 7g jobs never go to GPU 0 and no
# job on GPU 0 takes the foreign instance's slots.
"$M" submit --connect "unix:$SOCK" --profile 2g.10gb --seconds 4000 --name long -- true > "$T/long" \
    || fail "submit long"
await 'grep -q "\"profile\": \"2g.10gb\"" "$S"' 30
{
    printf '['
    for i in $(seq 0 23); do
        [ "$i" = 0 ] || printf ','
        p=(1g.5gb 3g.20gb 4g.20gb 7g.40gb 2g.10gb 1g.10gb)
        printf '{"name":"j%d","command":["true"],"profile":"%s","seconds":%d}' "$i" "${p[$((i % 6))]}" $((2 + i % 5))
    done
    printf ']\n'
} > "$T/jobs.json"
"$M" submit --connect "unix:$SOCK" --file "$T/jobs.json" > /dev/null || fail "submit jobs"
await '[ "$(count_state done)" = 25 ]' 120
ucurl http://d/v1/jobs | sed '$d' > "$T/done.json"
python3 - "$T/done.json" << 'EOF' || fail "placements beside the foreign instance"
import json, sys
size = {"1g.5gb": 1, "1g.10gb": 2, "2g.10gb": 2, "3g.20gb": 4, "4g.20gb": 4, "7g.40gb": 8}
jobs = json.load(open(sys.argv[1]))["jobs"]
assert len(jobs) == 25 and all(j["state"] == "done" for j in jobs), jobs
for j in jobs:
    if j["gpu"] == 0:
        start = j["placement"]["start"]
        assert start + size[j["profile"]] <= 4, j
EOF
python3 - "$S" << 'EOF' || fail "the foreign instance changed: $(cat "$S")"
import json, sys
g0 = json.load(open(sys.argv[1]))["gpus"][0]["instances"]
assert any(i["gi"] == 1 and i["start"] == 4 and i["uuid"].endswith("foreign00001") for i in g0), g0
EOF

# 3. A stop and a restart leave the foreign instance as it was; the daemon's are gone.
stop_daemon TERM 0
python3 - "$S" << 'EOF' || fail "after the stop: $(cat "$S")"
import json, sys
s = json.load(open(sys.argv[1]))
assert [(i["profile"], i["start"]) for i in s["gpus"][0]["instances"]] == [("3g.20gb", 4)], s
assert s["gpus"][1]["instances"] == [], s
EOF
start_daemon --config "$T/d.conf"
[ "$(grep -c 'event=instance.foreign gpu=0 gi=1 start=4' "$T/daemon.log")" = 2 ] || fail "restart: foreign not recorded again"
stop_daemon TERM 0
"$M" apply -f "$T/c.yaml" -c clear --state "$S" > "$T/out" 2> "$T/err" || fail "apply once the daemon stopped ($(cat "$T/err"))"

# 4. A missing file is made from gpu and gpus; a file that does not match, one with MIG off
# and a corrupt one stop the start with the reason.
write_conf 3 "$T/new.json"
start_daemon --config "$T/d.conf"
[ "$(grep -c '"model": "A100-40GB"' "$T/new.json")" = 3 ] || fail "new state: $(cat "$T/new.json")"
stop_daemon TERM 0
write_conf 2 "$T/new.json"
timeout 20 "$DD" --config "$T/d.conf" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q 'sim-state: .*new.json holds 3 GPUs (A100-40GB,A100-40GB,A100-40GB), not the 2' "$T/err" \
    || fail "mismatching gpus: $(cat "$T/err")"
python3 - "$S" "$T/off.json" << 'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["gpus"][1]["mig"] = False
json.dump(s, open(sys.argv[2], "w"))
EOF
write_conf 2 "$T/off.json"
timeout 20 "$DD" --config "$T/d.conf" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q 'off.json: GPU 1: MIG mode is off' "$T/err" || fail "MIG off: $(cat "$T/err")"
head -c 100 "$S" > "$T/bad.json"
write_conf 2 "$T/bad.json"
timeout 20 "$DD" --config "$T/d.conf" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q 'bad.json:[0-9]*:[0-9]*: not JSON' "$T/err" || fail "corrupt state: $(cat "$T/err")"
"$DD" --backend nvml --devices 0 --sim-state "$S" --listen "unix:$SOCK" --db "$T/x.db" > "$T/out" 2> "$T/err"
[ $? != 0 ] && grep -q -- '--sim-state: sim-state is for backend sim' "$T/err" || fail "sim-state with nvml: $(cat "$T/err")"
exit 0
