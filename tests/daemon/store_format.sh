#!/usr/bin/env bash
# store_format.sh: a store is recognised by its format marker. A missing db is created; an
# empty file is refused unless init-store is true; a foreign SQLite database or random
# bytes are refused even then, and left unchanged; random bytes in a store's last page
# are found at start (quick_check), naming the file, exit 1.
# $1 = migsched, $2 = migschedd, $3 = source dir.
M=$1 DD=$2
. "$3/tests/daemon/lib.sh"
SIM=(--backend sim --gpu A30-24GB --gpus 1 --listen "unix:$SOCK")
refused() {  # $1 db, $2 text on stderr, then more flags
    local db=$1 text=$2
    shift 2
    timeout 20 "$DD" "${SIM[@]}" --db "$db" "$@" > /dev/null 2> "$T/err"
    local rc=$?
    [ "$rc" = 1 ] || fail "db $db: exited $rc, expected 1: $(cat "$T/err")"
    grep -qF -- "$text" "$T/err" || fail "db $db: stderr lacks '$text': $(cat "$T/err")"
    grep -qF -- "$db" "$T/err" || fail "db $db: the message does not name it: $(cat "$T/err")"
    check_log "$T/err"
}
: > "$T/empty.db"
refused "$T/empty.db" "is empty"
[ ! -s "$T/empty.db" ] || fail "a refused empty db was written"
sqlite3 "$T/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES(42);"
sum=$(md5sum < "$T/foreign.db")
refused "$T/foreign.db" "not a migschedd store"
refused "$T/foreign.db" "not a migschedd store" --init-store true
[ "$(md5sum < "$T/foreign.db")" = "$sum" ] || fail "a foreign database was changed"
head -c 8192 /dev/urandom > "$T/random.db"
refused "$T/random.db" "not a migschedd store" --init-store true
# init-store makes a new store of the empty file; it then works and restarts as a store.
start_daemon "${SIM[@]}" --db "$T/empty.db" --init-store true --allow-root-jobs true
for i in $(seq 40); do
    ucurl -X POST -d "{\"name\": \"job$i\", \"command\": [\"true\", \"$(printf 'x%.0s' $(seq 300))\"], \"slices\": 1, \"seconds\": 1}" http://d/v1/jobs > /dev/null
done
stop_daemon TERM 0
start_daemon "${SIM[@]}" --db "$T/empty.db"
[ "$(ucurl http://d/v1/jobs?limit=100 | grep -o '"id":' | wc -l)" = 40 ] || fail "the store lost jobs"
stop_daemon TERM 0
[ ! -e "$T/empty.db-wal" ] || fail "no checkpoint at the clean stop"
# Random bytes over the last page: reported at start, not at stop.
size=$(stat -c %s "$T/empty.db")
head -c 4096 /dev/urandom | dd of="$T/empty.db" bs=4096 seek=$(( size / 4096 - 1 )) conv=notrunc status=none
refused "$T/empty.db" "quick_check"
echo "store_format: ok"
