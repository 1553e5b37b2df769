# fixtures_lib.sh: what the daemon tests and the private Slurm clusters (tests/slurm,
# tests/cluster) share and that does nothing when sourced: waiting for a condition and the
# fake NVIDIA device tree. fail is the sourcing script's.
# Waits (up to $2 s, default 30) until a shell condition holds.
await() {
    local n=$(( ${2:-30} * 10 ))
    for _ in $(seq "$n"); do eval "$1" && return 0; sleep 0.1; done
    fail "timed out: $1"
}
# fake_device_tree DIR MINORS GPU_MINOR...: a device folder of harmless character devices
# (the numbers of /dev/null and /dev/zero) named as the NVIDIA driver names its nodes:
# nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia<m> per GPU minor, nvidia-modeset, and
# nvidia-caps/nvidia-cap<k> for every line of a mig-minors file written to MINORS that
# lists each GPU's GPU instances 1..16 with compute instances 0..7 (every id the fake NVML
# gives); beside them an unrelated node, a folder with a file and a symlink, which a
# confined job must still see. Needs root (mknod).
fake_device_tree() {
    local dir=$1 minors=$2 m gi ci k=3 null zero
    shift 2
    null=$(stat -c '0x%t 0x%T' /dev/null)
    zero=$(stat -c '0x%t 0x%T' /dev/zero)
    mkdir -p "$dir/nvidia-caps" "$dir/sub"
    chmod 755 "$dir" "$dir/nvidia-caps"
    for n in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset unrelated; do
        mknod -m 666 "$dir/$n" c $null
    done
    echo kept > "$dir/sub/inside"
    ln -s /proc/self/fd "$dir/fd"
    printf 'config 1\nmonitor 2\n' > "$minors"
    mknod -m 400 "$dir/nvidia-caps/nvidia-cap1" c $zero
    mknod -m 444 "$dir/nvidia-caps/nvidia-cap2" c $zero
    for m in "$@"; do
        mknod -m 666 "$dir/nvidia$m" c $zero
        for gi in $(seq 1 16); do
            printf 'gpu%s/gi%s/access %s\n' "$m" "$gi" "$k" >> "$minors"
            mknod -m 444 "$dir/nvidia-caps/nvidia-cap$k" c $zero
            k=$((k + 1))
            for ci in $(seq 0 7); do
                printf 'gpu%s/gi%s/ci%s/access %s\n' "$m" "$gi" "$ci" "$k" >> "$minors"
                mknod -m 444 "$dir/nvidia-caps/nvidia-cap$k" c $zero
                k=$((k + 1))
            done
        done
    done
}
# The capability minor of NAME (gpu0/gi1/access) in a mig-minors file.
cap_minor() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
