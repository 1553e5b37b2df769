#!/usr/bin/env bash
# cluster.sh: a Slurm cluster of K GPU nodes on this one machine, for trying migsched and
# for tests/cluster/e2e.sh. One munged and slurmctld in the host's namespaces; each node
# node1..nodeK in a network namespace of its own (one end of a veth pair, an address on a
# Linux bridge this script makes; the host has the bridge's first address, so traffic stays
# on the machine) and a UTS namespace of its own (hostname nodeN), running slurmd, migschedd
# on G fake-NVML GPUs (its own state file, GPU and MIG UUIDs of its own) and the SPANK plugin
# with the node's socket and fake device tree. munged's Unix socket is reachable from every
# node: only networks and host names are separated.
#
#   cluster.sh start DIR [--nodes K] [--gpus G] [--gpu MODEL] [--timeout S]
#                  [--slurm-node] [--requeue-exit N] [--static CONFIG.yaml:NAME] [--accounting]
#       K nodes (4) of G GPUs (2) of MODEL (A100-40GB), the plugin waiting S s (300) for a
#       placement; DIR must not exist or be empty. Then `. DIR/env` and use srun, sbatch...
#       --slurm-node: each migschedd keeps its node's migslice count at what it can place
#       (slurm-node, slurm-sync 1); --requeue-exit N: the plugin's requeue_exit=N and
#       slurm.conf's RequeueExit=N. --static: Slurm's own MIG instead: every GPU of every
#       node partitioned once by `migsched apply -f CONFIG.yaml -c NAME` on the node's fake
#       NVML, no migschedd and no plugin, and the instances as typed GRES (gpu:TYPE:N, one
#       gres.conf File per instance, as AutoDetect=nvml counts them); jobs ask
#       --gres=gpu:TYPE:1 and Slurm binds each to one instance (CUDA_VISIBLE_DEVICES).
#       --accounting: Slurm's accounting, for sacct: slurmdbd and a MariaDB server of the
#       cluster's own in DIR/acct (tests/slurm/accounting_lib.sh; a few seconds more).
#   cluster.sh stop DIR
#       ends every process of the cluster by PID (job steps that outlived their slurmd
#       too), removes its namespaces, bridge and veths, and DIR. Idempotent. With
#       MIGSCHED_CLUSTER_LOGS=FOLDER, each node's migschedd log is first copied there
#       (nodeN.migschedd.log).
#   cluster.sh restart DIR NODE migschedd|slurmd [SIGNAL]
#       ends one daemon of node NODE (1..K) with SIGNAL (TERM) and starts it again.
#   cluster.sh halt DIR NODE migschedd|slurmd [SIGNAL]
#       only ends it (migschedd with SIGTERM destroys the idle instances it made).
#
# Needs root, Slurm and munge (make deps), iproute2's ip and util-linux's unshare; exits 77
# saying why when something is missing. The programs: $MIGSCHEDD, $PLUGIN
# (migsched_spank.so) and $FAKE_NVML_DIR, by default from the build folder $BUILD (the
# source tree's build/).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../daemon/fixtures_lib.sh"
. "$HERE/../slurm/slurm_lib.sh"

fail() {
    echo "cluster.sh: $*" >&2
    exit 1
}
usage() {
    sed -n '/^#   cluster.sh/,/^#$/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# --- the cluster's record: DIR/cluster.env (its settings), DIR/made (what to remove) ---

# Reads DIR's settings; false when DIR holds no cluster.
load() {
    DIR=$1
    [ -f "$DIR/cluster.env" ] || return 1
    . "$DIR/cluster.env"
}
# Appends a namespace or link to DIR/made before it is created, so that a start that
# fails half-way is undone by stop.
made() { echo "$1 $2" >> "$DIR/made"; }
pid_file() { echo "$DIR/pids/$1"; }
alive() { [ -f "$(pid_file "$1")" ] && kill -0 "$(cat "$(pid_file "$1")")" 2>/dev/null; }

# --- starting the pieces ---

# Runs "$@" in node $1's network namespace and a UTS namespace named nodeN, in the
# background, carrying $TAG; output appended to $2, PID to pids/$3. nsenter, not ip netns
# exec: that one mounts a /sys of the namespace's own, without the cgroup file system
# slurmd needs. nsenter and unshare exec what they run, so the PID is the daemon's.
in_node() {
    local n=$1 out=$2 name=$3
    shift 3
    env "$TAG" nsenter "--net=/run/netns/$NS$n" unshare --uts sh -c 'hostname "$0" && exec "$@"' \
        "node$n" "$@" < /dev/null >> "$out" 2>&1 &
    echo $! > "$(pid_file "$name")"
}

# The bridge with the host's address and, per node, a namespace joined to it by a veth.
start_network() {
    local n
    made link "$BRIDGE"
    ip link add "$BRIDGE" type bridge || fail "cannot make the bridge $BRIDGE"
    ip addr add "$NET.1/24" dev "$BRIDGE" && ip link set "$BRIDGE" up || fail "bridge $BRIDGE"
    for n in $(seq "$K"); do
        made netns "$NS$n"
        ip netns add "$NS$n" || fail "cannot make the namespace $NS$n"
        made link "$BRIDGE-$n"
        ip link add "$BRIDGE-$n" type veth peer name eth0 netns "$NS$n" &&
            ip link set "$BRIDGE-$n" master "$BRIDGE" up &&
            ip -n "$NS$n" addr add "$NET.$((10 + n))/24" dev eth0 &&
            ip -n "$NS$n" link set eth0 up && ip -n "$NS$n" link set lo up ||
            fail "cannot join $NS$n to $BRIDGE"
    done
}

# slurm.conf for slurmctld and the clients (DIR/slurm.conf) and, differing only in the
# plugstack.conf they name, for each node (DIR/nodeN/slurm.conf); gres.conf beside each.
write_configs() {
    local n nodes="node[1-$K]"
    {
        echo "ClusterName=migschedcluster"
        echo "SlurmctldHost=$(hostname -s)($NET.1)"
        echo "SlurmctldPort=$PORT"
        echo "SlurmdPort=$((PORT + 1))"
        echo "AuthInfo=socket=$DIR/munge/munge.socket"
        echo "StateSaveLocation=$DIR/ctld/state"
        echo "SlurmctldPidFile=$DIR/ctld/slurmctld.pid"
        echo "SlurmctldLogFile=$DIR/ctld/slurmctld.log"
        echo "SlurmdSpoolDir=$DIR/%n/spool"
        echo "SlurmdPidFile=$DIR/%n/slurmd.pid"
        echo "SlurmdLogFile=$DIR/%n/slurmd.log"
        echo "PlugStackConfig=$DIR/plugstack.conf"
        slurm_conf_common | grep -v '^GresTypes='
        # What the cluster's jobs were, for the test to hold against migschedd's records.
        echo "JobCompType=jobcomp/filetxt"
        echo "JobCompLoc=$DIR/jobcomp.txt"
        # The nodes' slurm.conf differ in PlugStackConfig on purpose.
        echo "DebugFlags=NO_CONF_HASH"
        # Jobs of seconds: backfill often, so that a large pending job does not hold back
        # the small ones behind it for long.
        echo "SchedulerParameters=bf_interval=2,bf_continue"
        # Both deployments run one job epilog (the plugin's under dynamic, this one under
        # --static): slurmd then reports each job's end with an epilog-complete message,
        # on which slurmctld schedules at once; without one it only queues a pass for its
        # next once-a-second tick, a hand-over delay static alone would pay. A second one
        # under dynamic would only lengthen each hand-over (by 0.014 s, one run of it).
        [ -z "$STATIC" ] || echo "Epilog=/bin/true"
        [ -z "$REQUEUE_EXIT" ] || echo "RequeueExit=$REQUEUE_EXIT"
        if [ -n "$STATIC" ]; then
            echo "GresTypes=gpu"
        else
            echo "GresTypes=migslice"
        fi
        for n in $(seq "$K"); do
            echo "NodeName=node$n NodeAddr=$NET.$((10 + n)) CPUs=64 Gres=$GRES State=UNKNOWN"
        done
        echo "PartitionName=mig Nodes=$nodes Default=YES DefaultTime=10 MaxTime=60 State=UP OverSubscribe=YES"
    } > "$DIR/slurm.conf"
    if [ -n "$STATIC" ]; then
        cat "$DIR"/node*/gres.lines > "$DIR/gres.conf"
    else
        echo "NodeName=$nodes Name=migslice Count=$SLICES Flags=CountOnly" > "$DIR/gres.conf"
    fi
    local requeue=${REQUEUE_EXIT:+ requeue_exit=$REQUEUE_EXIT}
    # srun and sbatch only read the plugin's arguments (for --mig); steps run on the nodes.
    if [ -n "$STATIC" ]; then
        : > "$DIR/plugstack.conf"
    else
        echo "required $PLUGIN socket=$DIR/node1/d.sock timeout=$TIMEOUT$requeue" > "$DIR/plugstack.conf"
    fi
    for n in $(seq "$K"); do
        local d=$DIR/node$n
        sed "s|^PlugStackConfig=.*|PlugStackConfig=$d/plugstack.conf|" "$DIR/slurm.conf" > "$d/slurm.conf"
        cp "$DIR/gres.conf" "$d/gres.conf"
        if [ -n "$STATIC" ]; then
            : > "$d/plugstack.conf"
        else
            echo "required $PLUGIN socket=$d/d.sock timeout=$TIMEOUT dev_dir=$d/dev mig_minors=$d/mig-minors$requeue" \
                > "$d/plugstack.conf"
        fi
    done
}

# slurmdbd and its MariaDB server (accounting_lib.sh), their PIDs in pids/.
start_cluster_accounting() {
    start_accounting "$DIR/slurm.conf"
    echo "$DB_PID" > "$(pid_file mariadbd)"
    echo "$DBD_PID" > "$(pid_file slurmdbd)"
}

start_ctld() {
    env "$TAG" SLURM_CONF="$DIR/slurm.conf" slurmctld -D < /dev/null > "$DIR/ctld/slurmctld.out" 2>&1 &
    echo $! > "$(pid_file ctld)"
    await "SLURM_CONF='$DIR/slurm.conf' scontrol ping 2>/dev/null | grep -q UP || ! alive ctld" 60
    alive ctld || fail "slurmctld exited: $(tail -n 5 "$DIR/ctld/slurmctld.out" "$DIR/ctld/slurmctld.log")"
}

# migschedd of node $1 on its fake GPUs: state, runtime folder, store and socket in
# DIR/nodeN, UUIDs beginning with c and N in three hex digits (c001...); await_migschedd
# waits until it answers.
# The environment of node $1's fake NVML (its GPUs' state file and UUIDs), one word each.
nvml_env() {
    echo "LD_LIBRARY_PATH=$FAKE_NVML_DIR FAKE_NVML_STATE=$DIR/node$1/nvml.state FAKE_NVML_GPU=$GPU" \
        "FAKE_NVML_GPUS=$G FAKE_NVML_DELAY_SCALE=0.05 FAKE_NVML_MINOR_BASE=2" \
        "FAKE_NVML_UUID_PREFIX=$(printf 'c%03x' "$1")"
}
launch_migschedd() {
    local n=$1 d=$DIR/node$1 devices node_args=()
    devices=$(seq -s, 0 $((G - 1)))
    [ -z "$SLURM_NODE" ] || node_args=(--slurm-node "node$n" --slurm-sync 1)
    in_node "$n" "$d/migschedd.log" "node$n.migschedd" \
        env $(nvml_env "$n") "SLURM_CONF=$d/slurm.conf" "MIGSCHED_RUNTIME_DIR=$d/rt" \
        "$MIGSCHEDD" --backend nvml --devices "$devices" --gpu "$GPU" --listen "unix:$d/d.sock" \
        --db "$d/d.db" --log-dir "$d/logs" --stop-grace 2 --slurm-reconcile 5 "${node_args[@]}"
}
# Static mode: partitions node $1's GPUs by the config and writes DIR/nodeN/gres.lines,
# one gres.conf line per GPU instance, as AutoDetect=nvml would see it: its type and its
# GPU instance's capability device (a fake one, from the node's mig-minors), so that
# Slurm binds each job to one instance (gres/gpu of 22.05.8 drops a record without File).
partition_node() {
    local n=$1 d=$DIR/node$1
    env $(nvml_env "$n") "$MIGSCHED" apply -f "$STATIC_FILE" -c "$STATIC_NAME" --backend nvml \
        > "$d/apply.out" 2>&1 || fail "node$n: migsched apply: $(tail -n 3 "$d/apply.out")"
    # "GPU g: create PROFILE at slot s: ..." then "GPU g: created GPU instance ID, MIG-...".
    awk -v node="node$n" -v dev="$d/dev" -v minors="$d/mig-minors" '
        BEGIN { while ((getline l < minors) > 0) { split(l, f, " "); cap[f[1]] = f[2] } }
        $1 == "GPU" && $3 == "create" { sub(":", "", $2); type[$2] = $4 }
        $1 == "GPU" && $3 == "created" { sub(":", "", $2); gi = $6; sub(",", "", gi)
            k = cap["gpu" ($2 + 2) "/gi" gi "/access"]
            printf "NodeName=%s Name=gpu Type=%s File=%s/nvidia-caps/nvidia-cap%s\n", node, type[$2], dev, k }
    ' "$d/apply.out" > "$d/gres.lines"
}
# The node's typed GRES from its gres.lines: gpu:TYPE:N,... (types sorted).
typed_gres() {
    sed 's/.* Type=\([^ ]*\) .*/\1/' "$DIR/node$1/gres.lines" | sort | uniq -c |
        awk '{ print "gpu:" $2 ":" $1 }' | paste -sd,
}
await_migschedd() {
    local d=$DIR/node$1
    await "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --unix-socket '$d/d.sock' http://d/healthz)\" = 200 ] ||
           ! alive node$1.migschedd" 60
    alive "node$1.migschedd" || fail "migschedd of node$1 exited: $(tail -n 5 "$d/migschedd.log")"
}
launch_slurmd() {
    local n=$1 d=$DIR/node$1
    SLURM_CONF=$d/slurm.conf in_node "$n" "$d/slurmd.out" "node$n.slurmd" slurmd -D -N "node$n"
}
# Waits until slurmctld has node $1 up again (idle, or running jobs).
await_slurmd() {
    local d=$DIR/node$1
    await "SLURM_CONF='$DIR/slurm.conf' sinfo -h -n node$1 -o %T 2>/dev/null | grep -qxE 'idle|mixed|allocated' ||
           ! alive node$1.slurmd" 120
    alive "node$1.slurmd" || fail "slurmd of node$1 exited: $(tail -n 5 "$d/slurmd.out" "$d/slurmd.log")"
}

cmd_start() {
    local dir=${1:-} n
    [ -n "$dir" ] || usage
    shift
    K=4 G=2 GPU=A100-40GB TIMEOUT=300 REQUEUE_EXIT= STATIC= SLURM_NODE= ACCOUNTING=
    while [ $# -gt 0 ]; do
        case $1 in
        --nodes) K=${2:-} ;;
        --gpus) G=${2:-} ;;
        --gpu) GPU=${2:-} ;;
        --timeout) TIMEOUT=${2:-} ;;
        --requeue-exit) REQUEUE_EXIT=${2:-} ;;
        --static) STATIC=${2:-} ;;
        --slurm-node) SLURM_NODE=1; shift; continue ;;
        --accounting) ACCOUNTING=1; shift; continue ;;
        *) usage ;;
        esac
        shift 2 || usage
    done
    [ -z "$REQUEUE_EXIT" ] || [[ $REQUEUE_EXIT =~ ^([1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])$ ]] ||
        fail "--requeue-exit: 1..255 (got \"$REQUEUE_EXIT\")"
    if [ -n "$STATIC" ]; then
        STATIC_FILE=${STATIC%:*} STATIC_NAME=${STATIC##*:}
        [[ $STATIC == *:* ]] && [ -n "$STATIC_NAME" ] && [ -f "$STATIC_FILE" ] ||
            fail "--static: CONFIG.yaml:NAME, an existing file and a config name (got \"$STATIC\")"
        STATIC_FILE=$(cd "$(dirname "$STATIC_FILE")" && pwd)/$(basename "$STATIC_FILE")
    fi
    [[ $K =~ ^[1-9][0-9]?$ ]] || fail "--nodes: 1..99 (got \"$K\")"
    [[ $G =~ ^[1-8]$ ]] || fail "--gpus: 1..8, the fake NVML's most (got \"$G\")"
    [[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || fail "--timeout: seconds (got \"$TIMEOUT\")"
    BUILD=${BUILD:-$HERE/../../build}
    MIGSCHEDD=${MIGSCHEDD:-$BUILD/migschedd}
    MIGSCHED=${MIGSCHED:-$BUILD/migsched}
    PLUGIN=${PLUGIN:-$BUILD/src/slurm/migsched_spank.so}
    FAKE_NVML_DIR=${FAKE_NVML_DIR:-$BUILD/tests/fake_nvml}
    [ -f "$FAKE_NVML_DIR/libnvidia-ml.so.1" ] || FAKE_NVML_DIR=
    slurm_require ip nsenter unshare curl
    [ -x "$MIGSCHEDD" ] || fail "no migschedd at $MIGSCHEDD (build it, or set MIGSCHEDD)"
    [ -z "$STATIC" ] || [ -x "$MIGSCHED" ] || fail "no migsched at $MIGSCHED (build it, or set MIGSCHED)"
    # Compute slices per GPU: 4 on an A30, 7 on every other model (migschedd refuses an
    # unknown one at its start).
    case $GPU in A30*) SLICES=$((4 * G)) ;; *) SLICES=$((7 * G)) ;; esac
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then fail "$dir is not empty"; fi
    mkdir -p "$dir" || fail "cannot make $dir"
    DIR=$(cd "$dir" && pwd)
    # Undone by stop unless the cluster comes up.
    trap '[ -n "${UP:-}" ] || { echo "cluster.sh: start failed; cleaning up" >&2; stop_cluster; }' EXIT
    pick_names
    PORT=$(free_port)
    TAG="MIGSCHED_CLUSTER=$DIR"
    printf '%s=%q\n' K "$K" G "$G" GPU "$GPU" SLICES "$SLICES" TIMEOUT "$TIMEOUT" NET "$NET" \
        BRIDGE "$BRIDGE" NS "$NS" PORT "$PORT" TAG "$TAG" MIGSCHEDD "$MIGSCHEDD" \
        PLUGIN "$PLUGIN" FAKE_NVML_DIR "$FAKE_NVML_DIR" STATIC "$STATIC" \
        SLURM_NODE "$SLURM_NODE" > "$DIR/cluster.env"
    : > "$DIR/made"
    mkdir -p "$DIR/pids" "$DIR/ctld/state"
    for n in $(seq "$K"); do
        mkdir -p "$DIR/node$n/logs" "$DIR/node$n/rt" "$DIR/node$n/spool"
        fake_device_tree "$DIR/node$n/dev" "$DIR/node$n/mig-minors" $(seq 2 $((G + 1)))
    done
    chmod 755 "$DIR"
    {
        echo "# . this file to use the cluster: slurmctld at $NET.1:$PORT, nodes node1..node$K"
        printf 'export SLURM_CONF=%q\n' "$DIR/slurm.conf"
    } > "$DIR/env"
    GRES=migslice:$SLICES
    if [ -n "$STATIC" ]; then
        for n in $(seq "$K"); do partition_node "$n"; done
        GRES=$(typed_gres 1)
        [ -n "$GRES" ] || fail "--static: config $STATIC_NAME makes no instance"
        for n in $(seq 2 "$K"); do
            [ "$(typed_gres "$n")" = "$GRES" ] || fail "node$n: the config made other instances than on node1"
        done
    fi
    write_configs
    [ -z "$ACCOUNTING" ] || accounting_enable "$DIR/acct" "$DIR/munge/munge.socket" \
        "$DIR/slurm.conf" "$DIR"/node*/slurm.conf
    start_network
    start_munged "$DIR/munge" "$DIR/munge/munged.out"
    echo "$MUNGE_PID" > "$(pid_file munged)"
    [ -z "$ACCOUNTING" ] || start_cluster_accounting
    start_ctld
    if [ -z "$STATIC" ]; then
        for n in $(seq "$K"); do launch_migschedd "$n"; done
        for n in $(seq "$K"); do await_migschedd "$n"; done
    fi
    for n in $(seq "$K"); do launch_slurmd "$n"; done
    for n in $(seq "$K"); do await_slurmd "$n"; done
    UP=1
    echo "cluster up in $DIR: slurmctld at $NET.1:$PORT; node1..node$K at $NET.11..$NET.$((10 + K))," \
        "$G $GPU each (Gres=$GRES); . $DIR/env to use it"
}

# Names no one uses on this machine now: a 4-hex-digit id for the bridge (msc<id>, its
# veths msc<id>-N) and namespaces (msc<id>-nodeN), a 10.X.Y.0/24 no address or route uses.
pick_names() {
    local id a b
    for _ in $(seq 50); do
        id=$(printf '%04x' $((RANDOM % 65536)))
        ip link show "msc$id" >/dev/null 2>&1 || ip netns list | grep -q "^msc$id-" || break
    done
    BRIDGE=msc$id NS=msc$id-node
    for _ in $(seq 50); do
        a=$((100 + RANDOM % 150)) b=$((RANDOM % 256))
        { ip -4 addr; ip -4 route; } | grep -q "10\.$a\." || break
    done
    NET=10.$a.$b
}

# --- stopping ---

# The parent of process $1 (read without a fork: this runs over every process).
ppid_of() {
    local line f
    read -r line 2>/dev/null < "/proc/$1/stat" || return 1
    f=(${line##*) })  # past the command name, which may hold spaces
    PPID_OF=${f[1]}
}
# Every process carrying $TAG and every descendant of one (a job's tasks carry the
# submitter's environment, not slurmd's), never this script or its callers.
cluster_pids() {
    local tagged p mine=" $$ " more=1
    p=$$
    while [ "$p" -gt 1 ] && ppid_of "$p"; do
        p=$PPID_OF
        mine="$mine$p "
    done
    tagged=" $(tagged_pids | tr '\n' ' ') "
    while [ "$more" = 1 ]; do
        more=0
        for p in /proc/[0-9]*; do
            p=${p#/proc/}
            case $tagged in *" $p "*) continue ;; esac
            ppid_of "$p" || continue
            case $tagged in *" $PPID_OF "*) tagged="$tagged$p "; more=1 ;; esac
        done
    done
    for p in $tagged; do
        case $mine in *" $p "*) ;; *) echo "$p" ;; esac
    done
}

# end_daemons SIGNAL GRACE NAME...: end_pids on the daemons of these PID files.
end_daemons() {
    local sig=$1 grace=$2 name pids=()
    shift 2
    for name in "$@"; do
        [ -f "$(pid_file "$name")" ] && pids+=("$(cat "$(pid_file "$name")")")
        rm -f "$(pid_file "$name")"
    done
    end_pids "$sig" "$grace" "${pids[@]}"
}
nodes_of() { for n in $(seq "$K"); do echo "node$n.$1"; done; }

stop_cluster() {
    local left kind name
    trap '' PIPE INT TERM
    if [ ! -f "$DIR/cluster.env" ]; then
        rmdir "$DIR" 2>/dev/null
        return 0
    fi
    if alive ctld; then
        # Cancelled jobs release their instances through the plugin before the nodes go.
        SLURM_CONF=$DIR/slurm.conf scancel --full "--user=$(id -un)" 2>/dev/null
        for _ in $(seq 100); do
            [ -z "$(SLURM_CONF=$DIR/slurm.conf squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    end_daemons TERM 10 $(nodes_of slurmd)
    # slurmdbd with slurmctld, mariadbd after them: each end_daemons waits for PID 1 to reap.
    end_daemons TERM 10 ctld slurmdbd
    end_daemons TERM 30 $(nodes_of migschedd) mariadbd
    end_daemons TERM 10 munged
    for _ in 1 2 3; do
        left=$(cluster_pids)
        [ -n "$left" ] || break
        echo "cluster.sh: ending left-over processes $(echo $left)" >&2
        kill -9 $left 2>/dev/null
        sleep 0.2
    done
    # A test that checks the daemons' logs asks for them (every daemon has stopped).
    if [ -n "${MIGSCHED_CLUSTER_LOGS:-}" ]; then
        local f
        for f in "$DIR"/node*/migschedd.log; do
            [ -e "$f" ] && cp "$f" "$MIGSCHED_CLUSTER_LOGS/$(basename "$(dirname "$f")").migschedd.log"
        done
    fi
    if [ -f "$DIR/made" ]; then
        tac "$DIR/made" | while read -r kind name; do
            case $kind in
            netns) ip netns list | grep -q "^$name\b" && ip netns delete "$name" ;;
            link) ip link show "$name" >/dev/null 2>&1 && ip link delete "$name" ;;
            esac
        done
    fi
    rm -rf "$DIR"
}

cmd_stop() {
    [ -n "${1:-}" ] || usage
    if ! load "$1"; then
        [ -e "$1" ] && [ -n "$(ls -A "$1")" ] && fail "$1 holds no cluster (no cluster.env)"
        rm -rf "$1"
        return 0
    fi
    stop_cluster
}

# halt/restart DIR NODE DAEMON [SIGNAL]
cmd_daemon() {
    local what=$1 n=${3:-} daemon=${4:-} sig=${5:-TERM}
    [ -n "${2:-}" ] || usage
    load "$2" || fail "$2 holds no cluster"
    [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le "$K" ] || fail "node: 1..$K (got \"$n\")"
    case $daemon in migschedd | slurmd) ;; *) usage ;; esac
    end_daemons "$sig" 30 "node$n.$daemon"
    [ "$what" = restart ] || return 0
    "launch_$daemon" "$n"
    "await_$daemon" "$n"
}

case ${1:-} in
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
halt | restart) cmd_daemon "$@" ;;
*) usage ;;
esac
