#!/usr/bin/env bash
# static.sh: tests/cluster/cluster.sh's static mode, Slurm's own MIG. A cluster of 2 nodes
# whose 2 fake A100-40GB each are partitioned 3-2-1 once by a mig-parted config: Slurm
# sees each node's typed gpu GRES (gpu:1g.5gb:2,gpu:2g.10gb:2,gpu:3g.20gb:2) and no
# migschedd runs. Five 3g.20gb jobs: four run at once, two per node, each bound by Slurm to
# an instance of its own (CUDA_VISIBLE_DEVICES differs between the two on a node), the fifth
# waits in Slurm's queue for one to end (Reason Resources or Priority); a 4g.20gb, which no instance holds, is refused at
# submission; the GPUs hold the same instances after the jobs as before. A --static config
# that does not fit the GPU fails the start and leaves nothing behind.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so (the requirements
# are those of every cluster test); FAKE_NVML_DIR set by ctest.
set -u
M=$1 S=$3 PLUGIN=${4:-}
CL=$S/tests/cluster/cluster.sh
. "$S/tests/daemon/fixtures_lib.sh"
. "$S/tests/slurm/slurm_lib.sh"
slurm_require ip nsenter unshare curl
T=$(mktemp -d)
C=$T/cluster
cleanup() {
    local rc=$?
    trap - EXIT
    bash "$CL" stop "$C"
    rm -rf "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
fail() {
    echo "FAIL: $*" >&2
    [ -f "$C/ctld/slurmctld.log" ] && tail -8 "$C/ctld/slurmctld.log" >&2
    exit 1
}
export MIGSCHED=$M FAKE_NVML_DIR

cat > "$T/layouts.yaml" << 'EOF'
version: v1
mig-configs:
  three-two-one:
    - devices: all
      mig-enabled: true
      mig-devices:
        "3g.20gb": 1
        "2g.10gb": 1
        "1g.5gb": 1
  too-big:
    - devices: all
      mig-enabled: true
      mig-devices:
        "4g.20gb": 2
EOF

# A config the GPU cannot hold: the start fails naming it, and nothing is left.
bash "$CL" start "$T/bad" --nodes 2 --static "$T/layouts.yaml:too-big" > "$T/bad.out" 2>&1 &&
    fail "a start with a config that does not fit succeeded"
grep -q "migsched apply" "$T/bad.out" || fail "the failed start does not name apply: $(cat "$T/bad.out")"
[ ! -e "$T/bad" ] || fail "the failed start left $T/bad"

bash "$CL" start "$C" --nodes 2 --static "$T/layouts.yaml:three-two-one" > "$T/start.out" 2>&1 ||
    fail "start: $(cat "$T/start.out")"
. "$C/env"
gres=$(sinfo -h -N -o '%N %G' | sort -u)
want=$'node1 gpu:1g.5gb:2,gpu:2g.10gb:2,gpu:3g.20gb:2\nnode2 gpu:1g.5gb:2,gpu:2g.10gb:2,gpu:3g.20gb:2'
[ "$gres" = "$want" ] || fail "Slurm's GRES: $gres"
ls "$C"/pids | grep -q migschedd && fail "a migschedd runs on a static node"
# Node $1's MIG layout as its fake NVML reports it.
layout() {
    LD_LIBRARY_PATH=$FAKE_NVML_DIR FAKE_NVML_STATE=$C/node$1/nvml.state FAKE_NVML_GPU=A100-40GB \
        FAKE_NVML_GPUS=2 "$M" export --backend nvml | grep -v '^#'
}
layout 1 > "$T/before1"
grep -q '"3g.20gb": 1' "$T/before1" || fail "node1's GPUs: $(cat "$T/before1")"

sbatch -Q --gres=gpu:4g.20gb:1 -o /dev/null --wrap true 2> "$T/refused" &&
    fail "a 4g.20gb job, which no instance holds, was accepted"
for k in 1 2 3 4 5; do
    sbatch -Q --gres=gpu:3g.20gb:1 -o "$T/job$k.out" -J "s$k" \
        --wrap 'echo "$(hostname) $CUDA_VISIBLE_DEVICES $(date +%s.%N)"; sleep 4; echo "end $(date +%s.%N)"' ||
        fail "sbatch $k"
done
await '[ "$(squeue -h -t R | wc -l)" = 4 ]' 60
# Pending for the instances (Resources, or Priority behind a job that waits for them).
squeue -h -t PD -o %r | grep -qxE 'Resources|Priority' || fail "the fifth job: $(squeue -h -t PD -o '%i %r')"
await '[ -z "$(squeue -h)" ]' 120
[ "$(grep -c 'JobState=COMPLETED' "$C/jobcomp.txt")" = 5 ] || fail "jobcomp: $(cat "$C/jobcomp.txt")"
# The first four ran at once: on each node, two instances of their own.
for n in node1 node2; do
    devs=$(cat "$T"/job[1-4].out | awk -v n="$n" '$1 == n { print $2 }' | sort -u | paste -sd' ')
    [[ $devs =~ ^[0-9]+\ [0-9]+$ ]] || fail "$n's jobs' CUDA_VISIBLE_DEVICES: \"$devs\""
done
layout 1 > "$T/after1"
cmp -s "$T/before1" "$T/after1" || fail "node1's instances changed: $(diff "$T/before1" "$T/after1")"
echo "cluster static: typed GRES, instance binding, queueing and refusal as Slurm's own MIG"
