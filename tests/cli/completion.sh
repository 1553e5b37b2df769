#!/usr/bin/env bash
# completion.sh: `migsched completion bash` sourced in bash: COMPREPLY for a few prefixes
# (commands, subcommands, each command's options from its getopt table, profiles after
# --profile and --mig, GPU models after --gpu, job states, file names for a file option
# and for arguments); every --option each client command's --help names is completed;
# bad usage exits 2.
# $1 = migsched, $2 = source dir.
set -u
M=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$M" completion bash > "$T/migsched.bash" || fail "completion bash"
bash -n "$T/migsched.bash" || fail "the script is not valid bash"
mkdir "$T/files" && touch "$T/files/jobs.json" "$T/files/jobs.csv" "$T/files/other.txt"
# comp WORD...: the completions of the last word, sorted, on one line.
comp() {
    (cd "$T/files" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _migsched
        printf "%s\n" "${COMPREPLY[@]}"' _ "$T/migsched.bash" "$@" | LC_ALL=C sort | paste -sd' ')
}
is() {
    local want=$1
    shift
    local got
    got=$(comp "$@")
    [ "$got" = "$want" ] || fail "[$*]: got \"$got\", expected \"$want\""
}
is "schedule status submit" migsched s
is "schedule" migsched sc
is "completion" migsched compl
is "--profile" migsched submit --pr
is "--on-interrupt" migsched submit --on
is "3g.20gb 3g.40gb 3g.71gb 3g.90gb" migsched submit --profile 3g.
is "7g.141gb 7g.180gb" migsched submit --mig 7g.1
is "A100-40GB A100-80GB" migsched schedule --gpu A100
is "running" migsched jobs --state r
is "retry" migsched submit --on-interrupt r
is "--watch" migsched jobs --wa
is "" migsched status --wa   # jobs' own options are not status's
is "--connect --help --json --timeout --token-file" migsched cancel --
is "jobs.csv jobs.json" migsched submit --file jobs
is "jobs.csv jobs.json" migsched validate jobs
is "simulate sweep" migsched online s
is "--policy" migsched online simulate --po
is "--out" migsched hier train --o
is "bash" migsched completion b
# Every option a client command's help shows is completed for it.
for c in submit jobs cancel status; do
    opts=$(comp migsched "$c" --)
    for o in $("$M" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        [[ " $opts " == *" $o "* ]] || fail "$c: $o of its --help is not completed ($opts)"
    done
done
"$M" completion 2> /dev/null
[ $? = 2 ] || fail "completion without a shell"
"$M" completion zsh 2> "$T/err"
[ $? = 2 ] && grep -q 'only bash is supported' "$T/err" || fail "completion zsh: $(cat "$T/err")"
echo "completion: ok"
