#!/usr/bin/env bash
# deb.sh: the Debian packages end to end, as root: builds them (dist/build-deb.sh: debhelper,
# lintian clean), installs migsched, libmigsched0, libmigsched-dev and python3-migsched with
# apt-get, checks where each file went (the daemon in /usr/sbin, the plugin in Debian's
# Slurm plugin folder, the conffile, the unit enabled, the migsched group, the manual
# pages, the programs on libmigsched.so.0), starts migschedd from the installed conffile on
# the sim backend, submits a job as a member of the group and waits for it to complete,
# imports migsched in Debian's python3 with nothing set (the system's library), builds a
# small program against libmigsched-dev shared (pkg-config --libs) and static (the archive
# with pkg-config --static), then purges the packages and checks that nothing of them is
# left. The migsched group stays after a purge
# (debian/migsched.postrm says why): the test removes it when it made it.
# $1 = source dir, $2 = the folder the packages are built in.
set -u
S=$1
OUT=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (apt-get install, a system group)"
for c in dpkg-buildpackage dh dh_python3 pybuild lintian apt-get useradd runuser pkg-config cc; do
    command -v "$c" > /dev/null || skip "$c missing (make deb installs the build tools)"
done
PKGS="migsched libmigsched0 libmigsched-dev python3-migsched"
for p in $PKGS; do
    if dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "installed\|config-files"; then
        skip "$p is already on this machine: the test would remove it"
    fi
done
[ ! -e /etc/migschedd ] || skip "/etc/migschedd exists (a migschedd installed by hand?)"

T=$(mktemp -d)
PID="" USER_MADE="" INSTALLED=""
GROUP_BEFORE=0
getent group migsched > /dev/null && GROUP_BEFORE=1
cleanup() {
    [ -z "$PID" ] || { kill "$PID" 2> /dev/null; wait "$PID" 2> /dev/null; }
    # shellcheck disable=SC2086
    [ -z "$INSTALLED" ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $PKGS \
        > /dev/null 2>&1
    [ -z "$USER_MADE" ] || userdel "$USER_MADE" 2> /dev/null
    [ "$GROUP_BEFORE" = 1 ] || groupdel migsched 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT

version=$(sed -n 's/^project(migsched VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
command -v ccache > /dev/null && export MIGSCHED_CCACHE=1
bash "$S/dist/build-deb.sh" "$OUT" || fail "dist/build-deb.sh (the build or lintian)"
DEBS=""
for p in $PKGS; do
    f=$OUT/${p}_${version}_$arch.deb
    [ "$p" != python3-migsched ] || f=$OUT/${p}_${version}_all.deb
    [ -f "$f" ] || fail "no $f"
    DEBS="$DEBS $f"
done

INSTALLED=1
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $DEBS > "$T/apt.log" 2>&1 ||
    fail "apt-get install: $(tail -5 "$T/apt.log")"
# shellcheck disable=SC2086
dpkg -L $PKGS > "$T/files" || fail "dpkg -L"

# Where things went.
[ "$(migsched --version)" = "migsched $(dpkg-query -W -f='${Version}' migsched)" ] ||
    fail "migsched --version ($(migsched --version)) is not the package's version"
[ "$(command -v migsched)" = /usr/bin/migsched ] || fail "migsched is $(command -v migsched)"
[ -x /usr/sbin/migschedd ] || fail "no /usr/sbin/migschedd"
[ "$(/usr/sbin/migschedd --version)" = "migschedd $version" ] || fail "migschedd --version"
# The shared library as Debian has one: the soname's link, the ldconfig cache, the link for
# the linker in -dev, and the programs (and so the package) on it. Paths are compared
# resolved: with /usr merged, ldconfig and ldd may name /lib/<multiarch>.
LIBDIR=/usr/lib/$multiarch
SHARED=$LIBDIR/libmigsched.so.$version
# The file a program's libmigsched.so.0 is, resolved, as ldd finds it.
lib_of() { ldd "$1" | sed -n 's/^\s*libmigsched\.so\.0 => \(\S*\) .*/\1/p' | xargs -r readlink -f; }
[ "$(readlink "$LIBDIR/libmigsched.so.0")" = "libmigsched.so.$version" ] ||
    fail "$LIBDIR/libmigsched.so.0 is not a link to libmigsched.so.$version"
[ "$(readlink "$LIBDIR/libmigsched.so")" = libmigsched.so.0 ] ||
    fail "$LIBDIR/libmigsched.so is not a link to libmigsched.so.0"
cached=$(ldconfig -p | sed -n 's/^\s*libmigsched\.so\.0 (.*) => //p')
[ -n "$cached" ] && [ "$(readlink -f "$cached")" = "$SHARED" ] ||
    fail "ldconfig's libmigsched.so.0 is '$cached', not $SHARED"
for b in /usr/bin/migsched /usr/sbin/migschedd; do
    [ "$(lib_of "$b")" = "$SHARED" ] || fail "$b is not linked to $SHARED: $(ldd "$b")"
done
dpkg-query -W -f='${Depends}' migsched | grep -q "libmigsched0 (= $version)" ||
    fail "migsched does not depend on libmigsched0 (= $version)"
PLUGIN_DIR=/usr/lib/$multiarch/slurm-wlm
[ -f "$PLUGIN_DIR/migsched_spank.so" ] || fail "no $PLUGIN_DIR/migsched_spank.so"
# Slurm's own plugins are there (Debian's slurm-wlm-basic-plugins), when Slurm is installed.
if command -v slurmd > /dev/null; then
    ls "$PLUGIN_DIR"/select_cons_tres.so > /dev/null 2>&1 ||
        fail "$PLUGIN_DIR holds no select_cons_tres.so: not Slurm's plugin folder"
fi
grep -qx /etc/migschedd/migschedd.conf /var/lib/dpkg/info/migsched.conffiles ||
    fail "/etc/migschedd/migschedd.conf is not a conffile"
getent group migsched > /dev/null || fail "postinst made no migsched group"
[ -L /etc/systemd/system/multi-user.target.wants/migschedd.service ] ||
    fail "migschedd.service is not enabled"
grep -qx 'ExecStart=/usr/sbin/migschedd --config /etc/migschedd/migschedd.conf' \
    /lib/systemd/system/migschedd.service || fail "the unit does not start /usr/sbin/migschedd"
for p in man1/migsched.1 man5/migschedd.conf.5 man8/migschedd.8 man8/migsched_spank.8; do
    [ -f "/usr/share/man/$p.gz" ] || fail "no /usr/share/man/$p.gz"
done
migsched completion bash | cmp -s - /usr/share/bash-completion/completions/migsched ||
    fail "/usr/share/bash-completion/completions/migsched is not what migsched completion bash prints"

# migschedd from the installed conffile, made a sim node as an operator would edit it; the
# socket's folder as the unit makes it (root:migsched 0750).
CONF=/etc/migschedd/migschedd.conf
sed -i 's/^backend nvml$/backend sim/; s/^devices 0$/gpus 1/; s/^# gpu A100-40GB$/gpu A100-40GB/' "$CONF"
grep -qx "backend sim" "$CONF" && grep -qx "gpus 1" "$CONF" && grep -qx "gpu A100-40GB" "$CONF" ||
    fail "the conffile lacks the lines a sim node edits: $(cat "$CONF")"
install -d -m 0750 -g migsched /run/migschedd
/usr/sbin/migschedd --config "$CONF" 2> "$T/daemon.log" &
PID=$!
SOCK=/run/migschedd/migschedd.sock
for _ in $(seq 100); do [ -S "$SOCK" ] && break; kill -0 "$PID" 2> /dev/null || break; sleep 0.1; done
[ -S "$SOCK" ] || fail "migschedd made no socket: $(cat "$T/daemon.log")"

USER_MADE=mspkg$$
useradd --no-create-home --groups migsched "$USER_MADE" || fail "useradd"
cd /
runuser -u "$USER_MADE" -- migsched submit --profile 1g.5gb --seconds 1 --name pkg-check \
    -- /bin/true > "$T/submit" || fail "submit as a member of migsched: $(cat "$T/daemon.log")"
grep -q "^submitted job 1 pkg-check" "$T/submit" || fail "submit said: $(cat "$T/submit")"
# Outside the group the socket's folder is closed.
if runuser -u nobody -- migsched jobs > /dev/null 2> "$T/nobody"; then
    fail "nobody reached migschedd outside the migsched group"
fi
state=""
for _ in $(seq 100); do
    state=$(migsched jobs --json | jq -r '.jobs[0].state')
    [ "$state" = done ] && break
    sleep 0.2
done
[ "$state" = done ] || fail "job 1 is $state, not done: $(migsched jobs)"
kill -TERM "$PID"
wait "$PID" || fail "migschedd exited $? after SIGTERM: $(cat "$T/daemon.log")"
PID=""

# python3-migsched in Debian's python3 with nothing set, outside any source tree: the
# package in dist-packages, on the system's libmigsched.so.0 (the soname, as mapped).
cat > "$T/import.py" << 'PY'
import migsched

mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libmigsched" in line})
print(migsched.__file__, migsched.library_path, ",".join(mapped), migsched.version())
gpu = migsched.GPU("A100-40GB")
print(gpu.name, len(gpu.profiles))
PY
(cd / && env -i PATH=/usr/bin:/bin /usr/bin/python3 "$T/import.py") > "$T/import" 2>&1 ||
    fail "import migsched in /usr/bin/python3: $(cat "$T/import")"
want="/usr/lib/python3/dist-packages/migsched/__init__.py libmigsched.so.0"
want="$want $SHARED $(dpkg-query -W -f='${Version}' python3-migsched)"
[ "$(head -1 "$T/import")" = "$want" ] || fail "import migsched said: $(cat "$T/import"), not $want"

# libmigsched-dev: a program linked with pkg-config alone runs on the shared library; with
# pkg-config --static and the archive by name (migsched.pc) it holds the library itself.
cat > "$T/gpu.c" << 'C'
#include <migsched/error.h>
#include <migsched/gpu.h>
#include <stdio.h>

int main(void)
{
    ms_gpu_model m;
    ms_error err;
    if (ms_gpu_lookup("A100-40GB", &m, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("%s %d\n", m.name, m.nprofiles);
    return 0;
}
C
# shellcheck disable=SC2046
cc -o "$T/gpu" "$T/gpu.c" $(pkg-config --cflags --libs migsched) 2> "$T/cc.log" ||
    fail "compiling against libmigsched-dev: $(cat "$T/cc.log")"
"$T/gpu" | grep -q "^A100-40GB [0-9]" || fail "the program said: $("$T/gpu" 2>&1)"
# The Python package saw the same model through the library.
[ "$("$T/gpu")" = "$(sed -n 2p "$T/import")" ] ||
    fail "the program said $("$T/gpu"), python3-migsched $(sed -n 2p "$T/import")"
[ "$(lib_of "$T/gpu")" = "$SHARED" ] || fail "the program is not on $SHARED: $(ldd "$T/gpu")"
static=$(pkg-config --static --libs migsched | sed 's/-lmigsched\b/-l:libmigsched.a/')
# shellcheck disable=SC2046,SC2086
cc -o "$T/gpu_static" "$T/gpu.c" $(pkg-config --cflags migsched) $static 2> "$T/cc.log" ||
    fail "compiling against libmigsched.a: $(cat "$T/cc.log")"
"$T/gpu_static" | grep -q "^A100-40GB [0-9]" || fail "the static program said: $("$T/gpu_static" 2>&1)"
! ldd "$T/gpu_static" | grep -q libmigsched || fail "the static program loads libmigsched: $(ldd "$T/gpu_static")"
# Every object of the archive linked: migsched.pc names all that the library calls.
libs=${static/-l:libmigsched.a/-Wl,--whole-archive -l:libmigsched.a -Wl,--no-whole-archive}
# shellcheck disable=SC2046,SC2086
cc -o "$T/gpu_all" "$T/gpu.c" $(pkg-config --cflags migsched) $libs 2> "$T/cc.log" ||
    fail "libmigsched.a whole with migsched.pc's libraries: $(cat "$T/cc.log")"

# Purge: nothing of the packages is left (the byte code python3 compiled at installation
# neither, nor the library in ldconfig's cache).
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $PKGS > "$T/apt.log" 2>&1 ||
    fail "apt-get purge: $(tail -5 "$T/apt.log")"
INSTALLED=""
# shellcheck disable=SC2086
if dpkg-query -W -f='${Status}' $PKGS 2> /dev/null | grep -q "installed\|config-files"; then
    fail "dpkg still knows the packages after the purge"
fi
while read -r f; do
    [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"
done < "$T/files" > "$T/left"
for f in /etc/migschedd /var/lib/migschedd /var/log/migschedd /run/migschedd /run/migsched \
    /etc/systemd/system/multi-user.target.wants/migschedd.service \
    /var/lib/systemd/deb-systemd-helper-enabled/migschedd.service \
    /usr/share/doc/migsched /usr/include/migsched /usr/lib/python3/dist-packages/migsched \
    /usr/share/doc/libmigsched0 /usr/share/doc/python3-migsched; do
    [ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"
done >> "$T/left"
[ ! -s "$T/left" ] || fail "left after the purge: $(cat "$T/left")"
! ldconfig -p | grep -q libmigsched || fail "ldconfig still knows libmigsched after the purge"
getent group migsched > /dev/null || fail "the purge removed the migsched group (it stays)"
echo "packages built, installed, used and purged: $(for f in $DEBS; do basename "$f"; done | paste -sd ' ')"
