# accounting_lib.sh: Slurm accounting for a private Slurm of the tests, so that sacct shows
# its jobs (AdminComment included, which jobcomp/filetxt does not record): a MariaDB server
# of its own (data folder, Unix socket, no TCP) and slurmdbd on a loopback port writing to
# it, the cluster registered with sacctmgr. Everything lives in one folder; the PIDs are in
# DB_PID and DBD_PID, for the caller's clean-up to end (slurmdbd first). Sourced by
# slurm_lib.sh; does nothing when sourced. TAG, await and fail come from the sourcing
# script, as for slurm_lib.sh.

ACCT_DIR= ACCT_PORT= DB_PID= DBD_PID=

# Skips unless MariaDB's server and Slurm's slurmdbd, sacct and sacctmgr are installed.
accounting_require() {
    local b
    for b in mariadbd mariadb-install-db mariadb-admin slurmdbd sacct sacctmgr timeout; do
        command -v "$b" >/dev/null ||
            skip "$b is missing (make deps installs Debian's mariadb-server and slurmdbd)"
    done
}

# accounting_enable DIR MUNGE_SOCKET SLURM_CONF...: accounting in folder DIR; slurmdbd's
# port is chosen (not the first slurm.conf's SlurmctldPort or SlurmdPort) and each
# slurm.conf's accounting_storage/none line becomes slurmdbd's lines. Clients reach slurmdbd
# through munged's MUNGE_SOCKET (AccountingStoragePass is that for accounting_storage/slurmdbd).
accounting_enable() {
    local dir=$1 munge=$2 ctld f
    shift 2
    accounting_require
    ctld=$(sed -n 's/^SlurmctldPort=//p' "$1")
    ACCT_PORT=$(free_port)
    while [ "$ACCT_PORT" -ge $((ctld - 1)) ] && [ "$ACCT_PORT" -le $((ctld + 1)) ]; do
        ACCT_PORT=$(free_port)
    done
    ACCT_DIR=$dir
    for f in "$@"; do
        grep -qx 'AccountingStorageType=accounting_storage/none' "$f" ||
            fail "$f has no AccountingStorageType=accounting_storage/none line to replace"
        awk -v port="$ACCT_PORT" -v munge="$munge" '
            $0 != "AccountingStorageType=accounting_storage/none" { print; next }
            { print "AccountingStorageType=accounting_storage/slurmdbd"
              print "AccountingStorageHost=127.0.0.1"
              print "AccountingStoragePort=" port
              print "AccountingStoragePass=" munge }' "$f" > "$f.new" && mv "$f.new" "$f"
    done
}

# timeout: a client that cannot authenticate retries for long.
acct_sacctmgr() { timeout 30 sacctmgr "$@"; }

# start_accounting SLURM_CONF: mariadbd, then slurmdbd, then the cluster of SLURM_CONF
# registered (its root account and user come with it); before slurmctld starts, so that
# it registers at once. Small InnoDB files, no fsync: a database of one test's jobs.
# mariadb-install-db without --user: with it, it chowns the system's PAM plugin folder.
start_accounting() {
    local conf=$1 d=$ACCT_DIR munge cluster
    munge=$(sed -n 's/^AccountingStoragePass=//p' "$conf")
    cluster=$(sed -n 's/^ClusterName=//p' "$conf")
    mkdir -p "$d"
    local db_opts=(--innodb-log-file-size=8M --innodb-buffer-pool-size=32M
        --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-flush-method=nosync
        --skip-log-bin --skip-name-resolve)
    mariadb-install-db --no-defaults "--datadir=$d/db" --auth-root-authentication-method=socket \
        --skip-test-db "${db_opts[@]}" < /dev/null > "$d/install.log" 2>&1 ||
        fail "mariadb-install-db: $(tail -n 5 "$d/install.log")"
    env "$TAG" mariadbd --no-defaults "--datadir=$d/db" --user=root --skip-networking \
        "--socket=$d/mysql.sock" "--pid-file=$d/mariadbd.pid" "--log-error=$d/mariadbd.log" \
        --innodb-lock-wait-timeout=900 "${db_opts[@]}" < /dev/null > "$d/mariadbd.out" 2>&1 &
    DB_PID=$!
    await "mariadb-admin --no-defaults '--socket=$d/mysql.sock' ping >/dev/null 2>&1 ||
           ! kill -0 $DB_PID 2>/dev/null" 60
    kill -0 "$DB_PID" 2>/dev/null || fail "mariadbd exited: $(tail -n 5 "$d/mariadbd.log")"
    # root over the Unix socket (the socket authentication mariadb-install-db sets up).
    cat > "$d/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$ACCT_PORT
SlurmUser=root
LogFile=$d/slurmdbd.log
PidFile=$d/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
    chmod 600 "$d/slurmdbd.conf"
    # slurmdbd reads the slurmdbd.conf beside $SLURM_CONF; libmariadb's socket is
    # $MYSQL_UNIX_PORT (slurmdbd.conf names no socket).
    env "$TAG" "SLURM_CONF=$d/slurm.conf" "MYSQL_UNIX_PORT=$d/mysql.sock" slurmdbd -D \
        < /dev/null > "$d/slurmdbd.out" 2>&1 &
    DBD_PID=$!
    await "SLURM_CONF='$conf' acct_sacctmgr -n list cluster >/dev/null 2>&1 ||
           ! kill -0 $DBD_PID 2>/dev/null" 60
    kill -0 "$DBD_PID" 2>/dev/null || fail "slurmdbd exited: $(tail -n 5 "$d/slurmdbd.out")"
    SLURM_CONF=$conf acct_sacctmgr -i add cluster "$cluster" > "$d/sacctmgr.out" 2>&1 ||
        fail "sacctmgr add cluster $cluster: $(cat "$d/sacctmgr.out")"
}

# "JOB ADMINCOMMENT" for every job slurmctld still holds, and for every job slurmdbd has
# recorded (one line per job, not per step), sorted; the comment is "-" when none.
scontrol_comments() {
    scontrol show job -o | awk '{ id = ""; c = "-"
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^JobId=/) id = substr($i, 7)
            if ($i ~ /^AdminComment=/ && length($i) > 13) c = substr($i, 14) }
        if (id != "") print id, c }' | sort -n
}
sacct_comments() {
    sacct -a -X -n -P -o JobID,AdminComment -S "$(date -d '-2 days' +%Y-%m-%dT%H:%M:%S)" |
        awk -F'|' '{ print $1, ($2 == "" ? "-" : $2) }' | sort -n
}
# await_sacct_comments SECONDS DIR: until sacct shows each job's AdminComment as scontrol
# does (slurmctld sends the records to slurmdbd in the background), both lists kept in
# DIR/scontrol.comments and DIR/sacct.comments; fails with the difference.
await_sacct_comments() {
    local n=$(( $1 * 2 )) d=$2
    scontrol_comments > "$d/scontrol.comments"
    for _ in $(seq "$n"); do
        sacct_comments > "$d/sacct.comments"
        cmp -s "$d/scontrol.comments" "$d/sacct.comments" && return 0
        sleep 0.5
    done
    fail "after $1 s, sacct and scontrol differ in AdminComment (< scontrol, > sacct):" \
        "$(diff "$d/scontrol.comments" "$d/sacct.comments" | head -20)"
}
