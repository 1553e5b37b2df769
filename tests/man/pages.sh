#!/usr/bin/env bash
# pages.sh: the manual pages (man/) say what the code does, so they cannot drift from it:
# every command of the CLI's table and every option its --help names (and its
# subcommands') is in migsched(1); every key of config_keys.c in migschedd.conf(5) and in
# migschedd(8)'s flags; every plugstack.conf argument of spank_args.c in
# migsched_spank(8); each page renders without a warning from man. $1 = migsched, $2 =
# source dir.
set -u
M=$1
S=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# In roff a hyphen is written \-: the pages' text as words with plain hyphens.
plain() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\&//g' "$S/man/$1"; }
plain migsched.1 > "$T/migsched.1"
plain migschedd.conf.5 > "$T/conf.5"
plain migschedd.8 > "$T/migschedd.8"
plain migsched_spank.8 > "$T/spank.8"

# The CLI's command table (src/cli/main.c): each command has its subsection.
sed -n 's/^ *{"\([a-z-]*\)", cmd_.*/\1/p' "$S/src/cli/main.c" > "$T/commands"
[ "$(wc -l < "$T/commands")" -ge 20 ] || fail "read only $(wc -l < "$T/commands") commands from main.c"
while read -r c; do
    grep -qx ".SS \"$c\"" "$T/migsched.1" || echo "migsched(1): no section for the command $c"
done < "$T/commands" > "$T/missing"
[ ! -s "$T/missing" ] || fail "$(cat "$T/missing")"

# Every option each command's --help names, its subcommands' too.
helps() {
    while read -r c; do
        echo "$c"
    done < "$T/commands"
    printf '%s\n' "online simulate" "online ablation" "online sweep" "hier train" \
        "hier experiment" "hier setups" "cosched generate" "cosched experiment"
}
helps | while read -r c; do
    # shellcheck disable=SC2086
    "$M" $c --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u | while read -r o; do
        grep -q -- "$o\\b" "$T/migsched.1" || echo "migsched(1): $c's option $o is missing"
    done
done > "$T/missing"
[ ! -s "$T/missing" ] || fail "$(cat "$T/missing")"

# Every configuration key (the md_keys rows of config_keys.c) has its entry in
# migschedd.conf(5), a ".B key" line after .TP, and migschedd(8) sends the reader there.
sed -n 's/^ *\[MD_KEY_[A-Z_]*\] = {"\([a-z-]*\)".*/\1/p' "$S/src/daemon/config_keys.c" > "$T/keys"
[ "$(wc -l < "$T/keys")" -ge 30 ] || fail "read only $(wc -l < "$T/keys") keys from config_keys.c"
while read -r k; do
    grep -qx ".B $k" "$T/conf.5" || echo "migschedd.conf(5): no entry for the key $k"
done < "$T/keys" > "$T/missing"
[ ! -s "$T/missing" ] || fail "$(cat "$T/missing")"
grep -q 'migschedd.conf (5)' "$T/migschedd.8" || fail "migschedd(8) does not point to migschedd.conf(5)"

# plugstack.conf's arguments (spank_args.c) in migsched_spank(8).
grep -o '!strncmp(a, "[a-z_]*=' "$S/src/slurm/spank_args.c" | sed 's/.*"//' > "$T/args"
[ "$(wc -l < "$T/args")" -ge 5 ] || fail "read only $(wc -l < "$T/args") plugin arguments"
while read -r a; do
    grep -q -- "$a" "$T/spank.8" || echo "migsched_spank(8): no entry for the argument $a"
done < "$T/args" > "$T/missing"
[ ! -s "$T/missing" ] || fail "$(cat "$T/missing")"

# Each page renders without a warning, as lintian checks them.
if command -v man > /dev/null; then
    for p in migsched.1 migschedd.conf.5 migschedd.8 migsched_spank.8; do
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$S/man/$p" \
            > /dev/null 2> "$T/warnings"
        [ ! -s "$T/warnings" ] || fail "$p: $(cat "$T/warnings")"
    done
fi
echo "manual pages: $(wc -l < "$T/commands") commands, $(wc -l < "$T/keys") keys, $(wc -l < "$T/args") plugin arguments"
