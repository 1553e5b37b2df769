# users_lib.sh: throwaway local users for the authorization tests (sourced after lib.sh):
# unique names, removed with their homes when the test exits; curl on the Unix socket as
# one of them. Needs root (the tests skip otherwise).
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create throwaway users"; exit 77; }
command -v setpriv >/dev/null && command -v useradd >/dev/null ||
    { echo "SKIP: setpriv or useradd missing"; exit 77; }
SUFFIX=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
USERS_MADE=() GROUPS_MADE=()
drop_users() {
    for u in "${USERS_MADE[@]}"; do userdel -r "$u" 2>/dev/null; done
    for g in "${GROUPS_MADE[@]}"; do groupdel "$g" 2>/dev/null; done
    cleanup
}
trap drop_users EXIT
# new_group NAME, new_user NAME [useradd options]: made now, gone at exit.
new_group() { groupadd "$1" || fail "groupadd $1"; GROUPS_MADE+=("$1"); }
new_user() { local u=$1; shift; useradd -m "$@" "$u" || fail "useradd $u"; USERS_MADE+=("$u"); }
# ucurl_as USER curl-args...: ucurl as USER (their uid, gid and groups).
ucurl_as() {
    local u=$1; shift
    setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
        curl -s --unix-socket "$SOCK" -w '\n%{http_code}' "$@"
}
# The test folder and the socket open to the users (the socket's own mode is the
# listener's business: here everyone may connect, and the daemon decides per caller).
open_socket() { chmod 755 "$T"; chmod 666 "$SOCK"; }
