#!/usr/bin/env bash
# version.sh: one version, CMakeLists.txt's project VERSION: debian/changelog's top entry
# (the .deb's version), the manual pages' footers and both programs' --version say it.
# $1 = source dir, $2 = migsched, $3 = migschedd.
set -u
S=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
want=$(sed -n 's/^project(migsched VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
[ -n "$want" ] || fail "no project VERSION in CMakeLists.txt"
top=$(sed -n '1s/^migsched (\([^)]*\)).*/\1/p' "$S/debian/changelog")
[ "$top" = "$want" ] || fail "debian/changelog's version is '$top', the project's $want"
for p in "$S"/man/*.[158]; do
    grep -q "^\.TH .* \"migsched $want\"" "$p" || fail "$p: its .TH line does not say migsched $want"
done
[ "$("$2" --version)" = "migsched $want" ] || fail "migsched --version: $("$2" --version)"
[ "$("$3" --version)" = "migschedd $want" ] || fail "migschedd --version: $("$3" --version)"
echo "version $want everywhere"
