# A job that dies keeps what ufs keeps (t_killed.c; doc/design.md, "What survives a process"):
# sourced by test/edonio/run.sh, whose variables and helpers it uses.
#
# Each run writes records through edonio's cache (nothing synced), then dies one of five ways:
# SIGKILL to every rank at once (kill), SIGTERM to the launcher as a batch system sends at the time
# limit (term), one rank raising SIGSEGV (segv), MPI_Abort from rank 0 outside I/O (abort) or while
# the others are in a collective write (abort-coll). After the launcher returns, the test waits
# (15 s at most) for every record to be in the file, read with POSIX, then for the run's keepers
# to be gone. On one node, 2 simulated nodes and 2 nodes of 2 processes. Also: the age bound
# (romio_edonio_dirty_expire=1, records in the file while every rank sleeps outside MPI), 100
# open/close cycles and a clean end leaving no process or file behind, and a write-back after
# death into a full file system (a message naming the file, no hang).
# Run with EDONIO_KEEPER=none to see it fail: no record survives.

killed_tag="killed-$$"

# The pids of this run's keepers still alive (tagged through the environment they inherit; a
# zombie left to a PID 1 that does not reap is dead).
tagged_keepers() {
    local p env
    for p in $(pgrep -x edonio-keeper 2>/dev/null || true); do
        [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
        # read whole before grep: under the caller's pipefail, grep -q's early exit would leave
        # tr a broken pipe and the pipeline failed, the keeper uncounted
        env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) || continue
        grep -qx "EDONIO_TEST_TAG=$killed_tag" <<<"$env" && echo "$p"
    done
}

live_keepers() { tagged_keepers | wc -l; }

# After a failure: this run's keepers still alive go, so that the next case starts clean (they
# ignore SIGTERM).
end_keepers() { kill -KILL $(tagged_keepers) 2>/dev/null || true; }

# wait_for SECONDS COMMAND...: until the command succeeds, SECONDS at most (tenths).
wait_for() {
    local tenths=$(($1 * 10))
    shift
    while [ "$tenths" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
        tenths=$((tenths - 1))
    done
    "$@" >/dev/null 2>&1
}

no_keepers() { [ "$(live_keepers)" -eq 0 ]; }

# killed_job TOPOLOGY FILE LOG ARGS...: starts the job in the background ($killed_pid), each
# rank's standard error in LOG.rankN (the keeper writes there too).
killed_job() {
    local topo=$1 file=$2 log=$3
    shift 3
    local envs=("${force_edonio[@]}" EDONIO_TEST_TAG="$killed_tag") prog=(sh -c
        'exec "$0" "$@" 2>"'"$log"'.rank${PMI_RANK:-$OMPI_COMM_WORLD_RANK}"' "$bin/t_killed" "$file" "$@")
    rm -f "$file" "$file".* "$log".rank*
    case $topo in
        one) env "${envs[@]}" timeout 120 "$MPIEXEC" -n 4 "${prog[@]}" >"$log" 2>&1 & ;;
        nodes) env "${envs[@]}" MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1 timeout 120 \
            "$MPIEXEC" -n 4 "${prog[@]}" >"$log" 2>&1 & ;;
        2x2) env "${envs[@]}" MPIR_CVAR_NUM_CLIQUES=2 timeout 120 "$MPIEXEC" \
            -n 2 -env EDONIO_TEST_NODE a "${prog[@]}" : \
            -n 2 -env EDONIO_TEST_NODE b "${prog[@]}" >"$log" 2>&1 & ;;
    esac
    killed_pid=$!
}

# run_killed TOPOLOGY PATTERN DEATH [KEY=VALUE ...]
run_killed() {
    local topo=$1 pattern=$2 death=$3
    shift 3
    local name="edonio/killed $pattern $death $topo" file="$data/killed-$topo-$pattern-$death"
    local log="$work/killed-$topo-$pattern-$death.log" job_death=$death
    case $death in kill | term) job_death=wait ;; esac
    killed_job "$topo" "$file" "$log" "$pattern" "$job_death" "$@"
    if ! wait_for 60 test -f "$file.ready.0"; then
        kill -KILL "$killed_pid" 2>/dev/null || true
        wait "$killed_pid" 2>/dev/null || true
        fail "$name" "the job did not get to its death: $(failure_lines "$log"); log $log"
        return
    fi
    case $death in
        kill) kill -KILL $(cat "$file".pid.*) 2>/dev/null || true ;;
        term) kill -TERM "$killed_pid" ;; # timeout passes it on to mpiexec
    esac
    wait "$killed_pid" 2>/dev/null || true
    cat "$log".rank* >>"$log" 2>/dev/null || true
    wait_for 15 "$bin/t_killed" "$file" "$pattern" check 4 || true
    "$bin/t_killed" "$file" "$pattern" check 4 >>"$log" 2>&1 || true
    if ! grep -q "No Errors" "$log"; then
        fail "$name" "$(grep -m1 'records intact' "$log"); log $log"
    elif ! wait_for 10 no_keepers; then
        fail "$name" "$(live_keepers) keepers still alive 10 s after the records; log $log"
        end_keepers
    else
        pass "$name"
    fi
}

# Records in the file while every rank computes outside MPI (romio_edonio_dirty_expire=1): the
# ranks sleep 3 s after their writes; the test reads them within 2.5 s.
run_expire() {
    local topo=$1 name="edonio/killed expire=1 $1" file="$data/expire-$1"
    local log="$work/expire-$1.log"
    killed_job "$topo" "$file" "$log" sparse sleep romio_edonio_dirty_expire=1
    if ! wait_for 60 test -f "$file.ready.0"; then
        fail "$name" "the job did not write: log $log"
    elif ! wait_for 2 "$bin/t_killed" "$file" sparse check 4; then
        fail "$name" "$("$bin/t_killed" "$file" sparse check 4 | head -1) 2 s into the 3 s sleep"
    else
        pass "$name"
    fi
    wait "$killed_pid" 2>/dev/null || true
}

# A clean run of 100 opens and closes: nothing left behind, no keeper, no file in /dev/shm or /tmp.
run_cycles() {
    local topo=$1 name="edonio/killed cycles $1" file="$data/cycles-$1" log="$work/cycles-$1.log"
    local before after
    before=$(ls /dev/shm /tmp 2>/dev/null | sort)
    killed_job "$topo" "$file" "$log" sparse cycles
    wait "$killed_pid" 2>/dev/null || true
    after=$(ls /dev/shm /tmp 2>/dev/null | sort)
    local left
    left=$(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')
    if ! grep -q "No Errors" "$log"; then
        fail "$name" "$(failure_lines "$log"); log $log"
    elif ! wait_for 5 no_keepers; then
        fail "$name" "$(live_keepers) keepers alive after a clean end"
        end_keepers
    elif [ -n "$left" ]; then
        fail "$name" "left in /dev/shm or /tmp: $left"
    else
        pass "$name"
    fi
}

# The write-back after death into a full file system: the keeper says which file and how many
# bytes, and the launcher returns.
run_full() {
    local name="edonio/killed full file system" dir="$work/full" log="$work/killed-full.log"
    mkdir -p "$dir"
    if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=1m tmpfs "$dir" 2>/dev/null; then
        skip "$name" "mounting a small tmpfs needs root"
        return
    fi
    killed_job one "$dir/f" "$log" sparse wait
    if wait_for 60 test -f "$dir/f.ready.0"; then
        kill -KILL $(cat "$dir"/f.pid.*) 2>/dev/null || true
    fi
    local rc=0
    wait "$killed_pid" 2>/dev/null || rc=$?
    wait_for 15 no_keepers || true
    cat "$log".rank* >>"$log" 2>/dev/null || true
    if [ "$rc" -eq 124 ]; then
        fail "$name" "the launcher hung; log $log"
    elif ! grep -q "edonio-keeper: $dir/f: [0-9]* bytes of cached data not written after process [0-9]* died: No space left on device" "$log"; then
        fail "$name" "no message naming the file and the bytes lost; log $log"
    else
        pass "$name"
    fi
    umount "$dir" 2>/dev/null || umount -l "$dir"
}

# A keeper started without its process's socket (by hand, or a launch gone wrong) ends at once,
# rather than spin.
run_alone() {
    local name="edonio/killed keeper without a socket" keeper="$builddir/edonio-keeper"
    if [ ! -x "$keeper" ]; then
        skip "$name" "no $keeper"
        return
    fi
    EDONIO_TEST_TAG="$killed_tag" "$keeper" 1 3<&- </dev/null >/dev/null 2>&1
    if wait_for 5 no_keepers; then
        pass "$name"
    else
        fail "$name" "$(live_keepers) keeper(s) still running 5 s later"
        end_keepers
    fi
}

test_killed() {
    local topo death pattern
    run_alone
    for topo in one nodes 2x2; do
        for death in kill term segv abort abort-coll; do
            run_killed "$topo" sparse "$death"
        done
        for pattern in dense small remote twice; do
            run_killed "$topo" "$pattern" kill
        done
        run_expire "$topo"
        run_cycles "$topo"
    done
    run_full
}
