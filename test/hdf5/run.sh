#!/usr/bin/env bash
# Build and run h5_hyperslab (parallel HDF5 over MPI-IO) on 1, 2 and 4 MPI processes.
#
# With EDONIO_LIB set, the runs use LD_PRELOAD=$EDONIO_LIB ROMIO_FSTYPE_FORCE=edonio:, and
# EDONIO_STATS must show that edonio closed files. Without it, they run on stock MPICH.
#
# Prints one line per run (PASS/FAIL hdf5/h5_hyperslab np=N) and closes with
# "N passed, N failed". Exits non-zero on any failure.
#
# Environment:
#   EDONIO_LIB            path of libedonio.so (optional)
#   EDONIO_TEST_WORKDIR   scratch dir (default: a mktemp dir, removed after a fully passing run
#                         unless EDONIO_KEEP_WORKDIR=1)
#   HDF5_NPROCS           process counts to run (default: "1 2 4")
#   HDF5_RUN_TIMEOUT      seconds for one run (default 300)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NPROCS=${HDF5_NPROCS:-1 2 4}
RUN_TIMEOUT=${HDF5_RUN_TIMEOUT:-300}
# MPICH's tools by their explicit names: plain mpicc/mpiexec may be Open MPI's alternatives.
MPICC=mpicc.mpich
MPIEXEC=mpiexec.mpich
# Debian's parallel HDF5 for MPICH (libhdf5-mpich-dev).
HDF5_CFLAGS=(-I/usr/include/hdf5/mpich)
HDF5_LIBS=(-lhdf5_mpich)

PASSED=0
FAILED=0

log() { printf 'hdf5: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
# shellcheck source=../deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"

report() {
    local status=$1 name=hdf5/$2 detail=${3:-}
    if [[ $status == PASS ]]; then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
    fi
    printf '%s %s%s\n' "$status" "$name" "${detail:+ ($detail)}"
}

compile() {
    PROG=$WORK/h5_hyperslab
    if ! "$MPICC" -std=c11 -Wall -Wextra -O2 "${HDF5_CFLAGS[@]}" -o "$PROG" \
            "$HERE/h5_hyperslab.c" "${HDF5_LIBS[@]}" >"$WORK/compile.log" 2>&1; then
        cat "$WORK/compile.log" >&2
        report FAIL compile "see $WORK/compile.log"
        return 1
    fi
    # The program must stay warning-free; show any warning without failing the run.
    [[ -s $WORK/compile.log ]] && cat "$WORK/compile.log" >&2
    return 0
}

# One run passes only if it exits 0, rank 0 printed " No Errors", and (with EDONIO_LIB) edonio
# logged the closing of the files it wrote and read.
run_np() {
    local np=$1 out=$WORK/h5_hyperslab-np$1.out rc=0 before=0
    [[ -n ${EDONIO_LIB:-} ]] && before=$(stats_lines)
    env "${TEST_ENV[@]}" MPIEXEC_TIMEOUT="$RUN_TIMEOUT" timeout -k 10 $((RUN_TIMEOUT + 30)) \
        "$MPIEXEC" -n "$np" "$PROG" "$WORK/h5_hyperslab-np$np.h5" >"$out" 2>&1 || rc=$?
    if [[ -n ${EDONIO_LIB:-} && $rc -eq 0 && $(stats_lines) -eq $before ]]; then
        report FAIL "h5_hyperslab np=$np" "passed, but edonio logged no closed file"
    elif [[ $rc -eq 0 ]] && grep -qx ' No Errors' "$out"; then
        report PASS "h5_hyperslab np=$np"
    else
        sed 's/^/    /' "$out" | tail -n 20 >&2
        report FAIL "h5_hyperslab np=$np" "exit $rc: $(tail -n 1 "$out"); log: $out"
    fi
}

main() {
    local np
    ensure_packages gcc mpich libmpich-dev libhdf5-mpich-dev
    check_edonio_lib
    setup_workdir hdf5
    setup_edonio_env
    if compile; then
        for np in $NPROCS; do
            run_np "$np"
        done
        check_edonio_used
    fi
    if [[ $FAILED -eq 0 && $OWN_WORKDIR -eq 1 && ${EDONIO_KEEP_WORKDIR:-0} != 1 ]]; then
        rm -rf "$WORK"
    else
        log "work dir $WORK"
    fi
    printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
    [[ $FAILED -eq 0 ]]
}

main "$@"
