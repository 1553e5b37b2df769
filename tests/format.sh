#!/usr/bin/env bash
# format.sh: every C file of the project is as clang-format writes it with the project's
# .clang-format. $1 = the source dir. Exit 77 (skipped) without clang-format
# (Debian's clang-format, which `make test` installs).
set -u
S=$1
command -v clang-format > /dev/null || { echo "clang-format not found: skipped"; exit 77; }
cd "$S" || exit 1
files=$(find src include tests bench cmake -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "FAIL: no C files under $S"; exit 1; }
# --dry-run -Werror names each place that differs and fails.
echo "$files" | xargs clang-format --dry-run -Werror --style=file
