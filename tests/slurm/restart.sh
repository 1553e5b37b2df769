#!/usr/bin/env bash
# restart.sh: the real single-node Slurm of lib.sh; a batch job with --mig runs two srun
# steps with a pause between them, and migschedd is restarted in that pause, once with
# SIGTERM and, in a second job, with SIGKILL. The second step starts while migschedd is
# down and comes up a few seconds later: the plugin waits it out (its retries are logged)
# and the step gets the allocation that survived the restart, the first step's MIG
# instance. Both jobs complete (COMPLETED, exit 0:0), nothing is logged as an error, and
# every allocation is released at the end.
# $1 = migsched, $2 = migschedd, $3 = source dir, $4 = migsched_spank.so; FAKE_NVML_DIR set by ctest.
M=$1 DD=$2 PLUGIN=${4:-}
. "$3/tests/slurm/lib.sh"
write_slurm_conf 14 60
# The plugin's retries are logged at verbose level, in slurmd's log.
echo "SlurmdDebug=verbose" >> "$T/slurm.conf"
start_slurm
start_migschedd --slurm-reconcile 5

# restart_case SIGNAL: one batch job; migschedd is ended with SIGNAL between its steps,
# the second step is started while it is down, and migschedd is started again 3 s later.
restart_case() {
    local sig=$1 job st
    rm -f "$T/paused" "$T/go"
    # Each step prints "step N CUDA_VISIBLE_DEVICES"; between them the job waits for $T/go.
    job=$(env "$TAG" sbatch --parsable --mig=2 --gres=migslice:2 -J "restart-$sig" \
        -o "$T/out/$sig.out" --wrap "
            srun -n1 sh -c 'echo step 1 \$CUDA_VISIBLE_DEVICES'
            touch '$T/paused'
            while [ ! -e '$T/go' ]; do sleep 0.1; done
            srun -n1 sh -c 'echo step 2 \$CUDA_VISIBLE_DEVICES'") || fail "sbatch ($sig)"
    await "[ -e '$T/paused' ]" 120
    kill "-$sig" "$DPID"
    wait "$DPID" 2>/dev/null
    DPID=
    touch "$T/go"
    # The second step is asking now, with nothing listening (or has failed already).
    await "grep -q 'migsched: job $job: .*retrying' '$T/log/slurmd.log' ||
           [ -z \"\$(squeue -h -j $job -o %i 2>/dev/null)\" ]" 60
    sleep 3
    start_migschedd --slurm-reconcile 5
    await "[ -z \"\$(squeue -h -j $job -o %i 2>/dev/null)\" ]" 120
    st=$(scontrol show job -o "$job")
    case $st in *JobState=COMPLETED*ExitCode=0:0*) ;;
        *) fail "job $job (SIG$sig) did not complete: $(echo "$st" | cut -c1-300); output: $(cat "$T/out/$sig.out")" ;;
    esac
    local one two
    one=$(awk '$1 == "step" && $2 == 1 { print $3 }' "$T/out/$sig.out")
    two=$(awk '$1 == "step" && $2 == 2 { print $3 }' "$T/out/$sig.out")
    case $one in MIG-*) ;; *) fail "job $job: the first step saw CUDA_VISIBLE_DEVICES=$one" ;; esac
    [ "$one" = "$two" ] || fail "job $job (SIG$sig): the steps saw $one and $two"
    echo "SIG$sig between the steps of job $job: both ran on $one;" \
        "$(grep -c "migsched: job $job: .*retrying" "$T/log/slurmd.log") retries logged:" \
        "$(grep -m1 "migsched: job $job: .*retrying" "$T/log/slurmd.log" | sed 's/.*migsched: //')"
}
restart_case TERM
restart_case KILL

grep -qE 'error: (migsched|spank)' "$T/log/slurmd.log" &&
    fail "the plugin logged errors: $(grep -E 'error: (migsched|spank)' "$T/log/slurmd.log" | head -5)"
await '[ "$(api "/v1/jobs?state=running" | jq ".jobs | length")" = 0 ]' 60
echo "slurm_restart: ok"
