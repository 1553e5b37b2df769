# lib.sh: a private single-node Slurm for the tests in tests/slurm: munged, slurmctld and
# slurmd as root in a temporary folder (own key, socket, ports and spool; no systemd), and
# migschedd on the fake NVML (2 A100-40GB) whose Unix socket the SPANK plugin talks to; the
# plugin confines each task to a fake device tree ($DEVDIR, minors in $MINORS; the GPUs'
# minor numbers are 2 and 3).
# With SLURM_ACCOUNTING=1, slurmdbd and a MariaDB server of the test's own record the jobs
# for sacct (accounting_lib.sh; a few seconds more at the start).
# Sourced with $M (migsched), $DD (migschedd), $PLUGIN (migsched_spank.so) set; every
# process it starts is ended, and the folder removed, on every exit path. Builds on the
# daemon tests' lib.sh (the folder $T, await, start_daemon, ucurl).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"
slurm_require
[ "${SLURM_ACCOUNTING:-0}" = 0 ] || accounting_require
. "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"
# The folder readable by all, as munged wants its socket's (start_munged).
chmod 755 "$T"
mkdir -p "$T/state" "$T/spool" "$T/log" "$T/out" "$T/rt" "$T/logs"
# Every process of this cluster (daemons, slurmstepd, job tasks) carries it (tagged_pids).
TAG="MIGSCHED_SLURM_TEST=$T"
MUNGE_PID= CTLD_PID= SLURMD_PID=
export SLURM_CONF=$T/slurm.conf
# migschedd and the fake NVML: 2 A100-40GB, state in a file, fast creations.
export LD_LIBRARY_PATH=$FAKE_NVML_DIR FAKE_NVML_STATE=$T/nvml.state FAKE_NVML_GPU=A100-40GB \
    FAKE_NVML_GPUS=2 FAKE_NVML_DELAY_SCALE=0.05 MIGSCHED_RUNTIME_DIR=$T/rt FAKE_NVML_MINOR_BASE=2
unset FAKE_NVML_FAIL FAKE_NVML_MIG MIGSCHED_NVML_LIBRARY
DEVDIR=$T/dev MINORS=$T/mig-minors
fake_device_tree "$DEVDIR" "$MINORS" 2 3

# Replaces the daemon tests' cleanup (the EXIT trap calls it by name). SIGPIPE ignored from
# here: a write to a pipe nobody reads must not end the clean-up half-way.
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    trap '' PIPE
    if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
        scancel --full "--user=$(id -un)" 2>/dev/null
        for _ in $(seq 100); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    end_pid "$SLURMD_PID"
    end_pid "$CTLD_PID"
    end_pid "$DBD_PID"
    end_pid "$DB_PID" 30
    end_pid "$DPID"
    end_pid "$MUNGE_PID"
    # What outlived its daemon: job steps of a killed slurmd, their tasks.
    local left
    left=$(tagged_pids)
    [ -n "$left" ] && { echo "clean-up: ending left-over processes $left" >&2; kill -9 $left 2>/dev/null; }
    log_ok || rc=1
    rm -rf "$T"
    exit "$rc"
}
# Signals end the test through the clean-up too; SIGPIPE included (ctest gone, a write to
# its pipe would otherwise end the shell with the cluster still up).
trap 'exit 143' INT TERM
trap 'exit 141' PIPE
fail() {
    echo "FAIL: $*" >&2
    local f
    for f in "$T/daemon.log" "$T/log/slurmctld.log" "$T/log/slurmd.log" "$T/acct/slurmdbd.log"; do
        [ -s "$f" ] && { echo "--- $f (tail)" >&2; tail -15 "$f" >&2; }
    done
    exit 1
}
# A JSON answer of migschedd (ucurl's body, without the status line).
api() { body_of "$(ucurl "http://d$1")"; }
# The allocations migschedd holds (queued or running).
live_allocs() {
    local st n=0
    for st in queued running; do
        n=$(( n + $(api "/v1/jobs?state=$st" | jq '[.jobs[] | select(.slurm_job_id != null)] | length') ))
    done
    echo "$n"
}

# Writes slurm.conf, gres.conf and plugstack.conf for a node of $1 slices whose plugin
# waits $2 s for a placement. The node is this host (slurmd finds its NodeName by it).
write_slurm_conf() {
    local slices=$1 timeout=$2 host port
    host=$(hostname -s)
    port=$(free_port)
    NODE=$host
    cat > "$T/slurm.conf" <<EOF
ClusterName=migschedtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/plugstack.conf
$(slurm_conf_common)
NodeName=$host NodeAddr=127.0.0.1 CPUs=64 Gres=migslice:$slices State=UNKNOWN
PartitionName=mig Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    echo "NodeName=$host Name=migslice Count=$slices Flags=CountOnly" > "$T/gres.conf"
    [ "${SLURM_ACCOUNTING:-0}" = 0 ] || accounting_enable "$T/acct" "$T/munge/munge.socket" "$T/slurm.conf"
    echo "required $PLUGIN socket=$SOCK timeout=$timeout dev_dir=$DEVDIR mig_minors=$MINORS" \
        > "$T/plugstack.conf"
}

# Starts munged, slurmdbd's accounting when enabled, slurmctld and slurmd and waits for the
# node to be idle.
start_slurm() {
    start_munged "$T/munge" "$T/log/munged.out"
    [ -z "$ACCT_PORT" ] || start_accounting "$T/slurm.conf"
    env "$TAG" slurmctld -D > "$T/log/slurmctld.out" 2>&1 &
    CTLD_PID=$!
    await "scontrol ping 2>/dev/null | grep -q UP || ! kill -0 $CTLD_PID 2>/dev/null" 60
    kill -0 "$CTLD_PID" 2>/dev/null || fail "slurmctld exited: $(tail -5 "$T/log/slurmctld.out")"
    env "$TAG" slurmd -D > "$T/log/slurmd.out" 2>&1 &
    SLURMD_PID=$!
    await "[ \"\$(sinfo -h -n '$NODE' -o %T 2>/dev/null)\" = idle ] || ! kill -0 $SLURMD_PID 2>/dev/null" 60
    kill -0 "$SLURMD_PID" 2>/dev/null || fail "slurmd exited: $(tail -5 "$T/log/slurmd.out")"
}

# Starts migschedd (online mode, nvml backend on the fake GPUs) with extra arguments and
# waits until it answers on its socket.
start_migschedd() {
    start_daemon --backend nvml --devices 0,1 --gpu A100-40GB --listen "unix:$SOCK" \
        --db "$T/d.db" --log-dir "$T/logs" --stop-grace 2 "$@"
}

# The number of MIG instances on the fake GPUs.
instances_left() { if [ -e "$FAKE_NVML_STATE" ]; then grep -c '^gi ' "$FAKE_NVML_STATE"; else echo 0; fi; }
