# slurm_lib.sh: what every private Slurm of the tests shares (tests/slurm/lib.sh's single
# node, tests/cluster's nodes in network namespaces) and that does nothing when sourced:
# the checks that skip a test, ending processes by PID (those carrying $TAG too), a free
# port, munged, and the slurm.conf lines that are the same in all of them. await and fail
# come from the sourcing script (await from tests/daemon/fixtures_lib.sh).

skip() { echo "SKIP: $*"; exit 77; }
# Skips unless root with Slurm, munge, the SPANK plugin ($PLUGIN) and the fake NVML
# ($FAKE_NVML_DIR); the commands named in the arguments are needed too.
slurm_require() {
    local b
    [ "$(id -u)" = 0 ] || skip "the Slurm test runs slurmctld/slurmd as root (run as root)"
    for b in munged slurmctld slurmd sbatch srun squeue scontrol sinfo scancel "$@"; do
        command -v "$b" >/dev/null || skip "$b is missing (make deps installs Debian's Slurm and munge)"
    done
    [ -n "${PLUGIN:-}" ] && [ -f "$PLUGIN" ] ||
        skip "migsched_spank.so was not built (libslurm-dev's slurm/spank.h was not found)"
    [ -n "${FAKE_NVML_DIR:-}" ] || skip "the fake NVML was not built"
    command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 is missing (make deps)" >&2; exit 1; }
}

# end_pids SIGNAL GRACE PID...: sends SIGNAL to the processes at once, SIGKILL to those
# still there after GRACE s; returns when all are gone (ours reaped).
end_pids() {
    local sig=$1 n=$(( $2 * 10 )) p
    shift 2
    [ $# -gt 0 ] || return 0
    kill "-$sig" "$@" 2>/dev/null
    for _ in $(seq "$n"); do kill -0 "$@" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$@" 2>/dev/null
    for p in "$@"; do wait "$p" 2>/dev/null; done
    for _ in $(seq 50); do kill -0 "$@" 2>/dev/null || break; sleep 0.1; done
    return 0
}
# Ends one of our daemons: SIGTERM, then SIGKILL after $2 s (default 10).
end_pid() {
    [ -n "$1" ] || return 0
    end_pids TERM "${2:-10}" "$1"
}
# The PIDs of processes carrying $TAG in their environment (not this shell or its
# subshells): every process of a private Slurm carries it, so that what is left of it (a
# job step survives its slurmd) is found by PID.
tagged_pids() {
    local p
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
        tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" | grep -qxF "$TAG" && echo "$p"
    done
}

# A TCP port p, with p + 1, that no socket uses (listening, connected or in TIME_WAIT, as
# /proc/net/tcp lists them: a listener's bind fails on each), from a random start below the
# ephemeral ports, so that no outgoing connection takes it meanwhile.
free_port() {
    local lo used p _ a
    read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range
    used=" $(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _ a _; do
        printf '%d ' "0x${a##*:}" 2>/dev/null; done) "
    p=$(( 10000 + (RANDOM * 7 + $$) % (lo - 10100) ))
    while [[ $used == *" $p "* || $used == *" $((p + 1)) "* ]]; do p=$(( p + 2 )); done
    echo "$p"
}

# start_munged DIR LOG: munged with a fresh key, its socket DIR/munge.socket (DIR made mode
# 755: munged wants it readable by all, as slurmstepd runs the plugin and the jobs as root
# anyway); its PID in MUNGE_PID.
start_munged() {
    local dir=$1 log=$2
    mkdir -p "$dir"
    chmod 755 "$dir"
    dd if=/dev/urandom of="$dir/key" bs=1024 count=1 2>/dev/null
    chmod 400 "$dir/key"
    env "$TAG" munged -F -f "--socket=$dir/munge.socket" "--key-file=$dir/key" \
        "--log-file=$dir/log" "--pid-file=$dir/pid" "--seed-file=$dir/seed" \
        < /dev/null > "$log" 2>&1 &
    MUNGE_PID=$!
    await "[ -S '$dir/munge.socket' ] || ! kill -0 $MUNGE_PID 2>/dev/null" 60
    kill -0 "$MUNGE_PID" 2>/dev/null || fail "munged did not start: $(cat "$log")"
}

# The slurm.conf lines every private Slurm has (no paths, hosts or ports): root runs the
# daemons, no cgroups or MPI, no accounting unless accounting_enable replaces its line
# (accounting_lib.sh), slices as the count-only GRES migslice, and slurm.conf's CPUs, not
# the machine's, so that slices alone limit the jobs.
slurm_conf_common() {
    cat <<'EOF_CONF'
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MailProg=/bin/true
ReturnToService=2
MinJobAge=600
GresTypes=migslice
SlurmdParameters=config_overrides
EOF_CONF
}

. "$(dirname "${BASH_SOURCE[0]}")/accounting_lib.sh"
