#!/usr/bin/env bash
# build-deb.sh OUTDIR: builds the Debian packages (debian/) from a copy of the source tree
# in OUTDIR, leaving migsched_VERSION_ARCH.deb, libmigsched0_VERSION_ARCH.deb,
# libmigsched-dev_VERSION_ARCH.deb and python3-migsched_VERSION_all.deb there, and checks
# them with lintian (any error or warning fails). The version is CMake's project
# VERSION; debian/changelog must say the same. DEB_JOBS: parallel jobs (default 2).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build-deb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n 's/^project(migsched VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
changelog=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ "$version" != "$changelog" ]; then
    echo "build-deb.sh: debian/changelog says $changelog, CMakeLists.txt's project VERSION $version" >&2
    exit 1
fi

# The tracked and not-ignored files (the build folders stay out), or all but build*/ and the
# library `make python` puts beside the Python package.
tree=$out/migsched-$version
rm -rf "$tree" && mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
    (cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 tar -cf - --) | tar -C "$tree" -xf -
else
    tar -C "$src" --exclude='./build*' --exclude=./python/migsched/libmigsched.so.0 -cf - . |
        tar -C "$tree" -xf -
fi

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
rm -f "$out"/migsched_"$version"_"$arch".* "$out"/*_"$version"_"$arch".*deb "$out"/*_"$version"_all.deb
# With the system's tools only, as a Debian build machine has them: pybuild runs python3,
# which must be Debian's /usr/bin/python3, not one earlier on PATH.
(cd "$tree" && env -u PYTHONPATH -u PYTHONHOME PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    DEB_BUILD_OPTIONS="nocheck parallel=${DEB_JOBS:-2}" \
    dpkg-buildpackage -b -us -uc --no-sign > "$out/build.log" 2>&1) || {
    tail -40 "$out/build.log" >&2
    echo "build-deb.sh: dpkg-buildpackage failed (all of it in $out/build.log)" >&2
    exit 1
}
rm -rf "$tree"
lintian --fail-on error,warning --no-tag-display-limit "$out/migsched_${version}_$arch.changes"
ls "$out"/*_"$version"_"$arch".deb "$out"/*_"$version"_all.deb
