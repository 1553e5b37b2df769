#!/usr/bin/env bash
# layering.sh: the files of each module call each other in layers, and modules only call
# the ones before them (DESIGN.md, Layout). Read from the built objects: a file that uses a
# symbol another file defines depends on it. Fails on a loop of files inside a module (a
# strongly connected set of two or more) that the allowlist below does not hold, and on a
# call from a module to one after it. $1 = build dir, $2 = the library's modules in order
# (CMakeLists.txt's MIGSCHED_MODULES); migschedd's client, then daemon and cli come above them.
set -u
B=$1
ORDER="$2 client daemon cli"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nm > /dev/null || fail "nm not found (binutils)"

# Loops not yet split: "module: file file ..." (sorted), then "| why". A loop found passes
# when its files all lie in one allowed loop of its module (a loop split in part passes).
ALLOWED='
'

# Each module's objects lie in its library's target folder (ms_<module>, CMakeLists.txt).
objs=
for t in $(printf 'ms_%s ' $2) migsched_client migsched_daemon migsched; do
    found=$(find "$B/CMakeFiles/$t.dir/src" -name '*.c.o' 2> /dev/null | sort)
    [ -n "$found" ] || fail "no object files under $B/CMakeFiles/$t.dir/src (build first)"
    objs="$objs $found"
done

# One line per object and symbol: "D module file symbol" (defined) or "U module file symbol".
syms() {
    local o rel
    for o in $objs; do
        rel=${o#*.dir/src/}
        rel=${rel%.c.o}
        nm "$o" | awk -v m="${rel%%/*}" -v f="${rel#*/}" '
            $1 == "U" { print "U", m, f, $2 }
            NF == 3 && $2 ~ /^[TDBRCGSVW]$/ { print "D", m, f, $3 }'
    done
}

syms | awk -v order="$ORDER" -v allowed="$ALLOWED" '
function reach(s, v,   k) {   # marks every file reachable from v as reachable from s
    for (k = 1; k <= deg[v]; k++)
        if (!((s, adj[v, k]) in r)) {
            r[s, adj[v, k]] = 1
            reach(s, adj[v, k])
        }
}
function sorted(list,   a, n, i, j, t, out) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    out = a[1]
    for (i = 2; i <= n; i++)
        out = out " " a[i]
    return out
}
function inside(loop, set,   a, n, i) {  # every file of loop is in the list set
    n = split(loop, a, " ")
    for (i = 1; i <= n; i++)
        if (index(" " set " ", " " a[i] " ") == 0)
            return 0
    return 1
}
BEGIN {
    n = split(order, mods, " ")
    for (i = 1; i <= n; i++)
        rank[mods[i]] = mods[i] == "cli" ? rank["daemon"] : i
    na = split(allowed, lines, "\n")
    for (i = 1; i <= na; i++) {
        if (lines[i] !~ /:/)
            continue
        split(lines[i], p, "|")
        sub(/ +$/, "", p[1])
        am[++nallow] = substr(p[1], 1, index(p[1], ":") - 1)
        af[nallow] = substr(p[1], index(p[1], ":") + 2)
    }
}
$1 == "D" { def[$4] = $2 "/" $3; next }
{ use[++nuse] = $2 "/" $3 " " $4 }
END {
    for (i = 1; i <= nuse; i++) {
        split(use[i], u, " ")
        if (!(u[2] in def) || def[u[2]] == u[1])
            continue
        from = u[1]; to = def[u[2]]
        fm = substr(from, 1, index(from, "/") - 1)
        tm = substr(to, 1, index(to, "/") - 1)
        if (fm != tm) {
            if (!(fm in rank) || !(tm in rank))
                continue
            if (rank[tm] >= rank[fm] && !((fm, tm) in told)) {
                told[fm, tm] = 1
                print "FAIL: " from " calls " tm "/ (" u[2] " in " to \
                      "): a module calls only the ones before it"
                bad = 1
            }
            continue
        }
        if ((from, to) in edge)
            continue
        edge[from, to] = 1
        adj[from, ++deg[from]] = to
        files[from] = files[to] = 1
    }
    for (v in files)
        reach(v, v)
    for (v in files) {
        if (v in done)
            continue
        list = ""
        for (w in files)
            if (((v, w) in r) && ((w, v) in r)) {
                done[w] = 1
                list = list " " substr(w, index(w, "/") + 1)
            }
        if (split(list, t, " ") < 2)
            continue
        m = substr(v, 1, index(v, "/") - 1)
        loop = sorted(list)
        print "loop " m ": " loop
        ok = 0
        for (k = 1; k <= nallow; k++)
            if (am[k] == m && inside(loop, af[k])) {
                ok = 1
                used[k] = 1
            }
        if (!ok) {
            print "FAIL: files of " m " call each other in a loop: " loop \
                  " (layer them: no two files call each other)"
            bad = 1
        }
    }
    for (k = 1; k <= nallow; k++)
        if (!(k in used)) {
            print "FAIL: the allowed loop " am[k] ": " af[k] " is gone: drop it from the list"
            bad = 1
        }
    exit bad
}' || exit 1
echo "layering: ok"
