#!/usr/bin/env bash
# Build and run the parallel HDF5 programs (HDF5 over MPI-IO):
#   h5_hyperslab  strided collective writes, read back collectively after reopen; on 1, 2 and 4
#                 MPI processes
#   h5_rows       each rank's rows written with independent H5Dwrite, MPI_Barrier, read whole by
#                 every rank (issue 39)
#   h5_metadata   metadata that HDF5's cache writes from one or a few ranks and the others read
#                 after its MPI_Barrier (a small cache: written and evicted while open); one rank's
#                 dataset and strided independent hyperslabs read by all after MPI_Barrier; reopened
#                 on another communicator (issue 39)
#   h5_chunked    a chunked, deflate-compressed dataset written collectively, read by all after
#                 MPI_Barrier, overwritten, read back after reopen (SKIP without deflate)
# The last three run at 4 processes on one node, on 2 simulated nodes (MPICH's cliques,
# MPIR_CVAR_NOLOCAL: every process a node of its own for edonio) and on 2 simulated nodes of 2
# processes each (EDONIO_TEST_NODE, a test-only variable of edonio's, splits the machine into the
# pairs 0-1 and 2-3). Across nodes, edonio kept a write to a block of another node on the writer's
# node until the next collective file call, so h5_rows and h5_metadata failed there before issue
# 39's change ("values wrong after the barrier"; "bad symbol table node signature").
#
# With EDONIO_LIB set, the runs use LD_PRELOAD=$EDONIO_LIB ROMIO_FSTYPE_FORCE=edonio:, and
# EDONIO_STATS must show that edonio closed files. Without it, they run on stock MPICH (where all
# of them must pass, across simulated nodes too). EDONIO_MPI=openmpi runs them over Open MPI
# (its HDF5, and the library built for it).
#
# Prints one line per run (PASS/FAIL/SKIP hdf5/PROGRAM FORM np=N) and closes with
# "N passed, N failed[, N skipped]". Exits non-zero on any failure.
#
# Environment:
#   EDONIO_LIB            path of libedonio.so (optional)
#   EDONIO_TEST_WORKDIR   scratch dir (default: a mktemp dir, removed after a fully passing run
#                         unless EDONIO_KEEP_WORKDIR=1)
#   HDF5_NPROCS           process counts to run h5_hyperslab at (default: "1 2 4")
#   HDF5_PROGRAMS         programs to run (default: all four)
#   HDF5_RUN_TIMEOUT      seconds for one run (default 300)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NPROCS=${HDF5_NPROCS:-1 2 4}
RUN_TIMEOUT=${HDF5_RUN_TIMEOUT:-300}
PROGRAMS=${HDF5_PROGRAMS:-h5_hyperslab h5_rows h5_metadata h5_chunked}
# Each MPI's tools by their explicit names (plain mpicc/mpiexec are alternatives), and Debian's
# parallel HDF5 built for it: libhdf5-mpich-dev, or with EDONIO_MPI=openmpi libhdf5-openmpi-dev,
# whose runs go through the tests' Open MPI launcher (test/mpiexec-openmpi).
if [[ ${EDONIO_MPI:-mpich} == openmpi ]]; then
    # shellcheck source=../../scripts/mpi-names.sh disable=SC1091
    . "$HERE/../../scripts/mpi-names.sh" # Open MPI's environment for root and 2 cores
    MPI_FLAVOUR=openmpi
    MPICC=mpicc.openmpi
    MPIEXEC=$HERE/../mpiexec-openmpi
    export OPENMPI_MPIRUN=${OPENMPI_MPIRUN:-mpirun.openmpi}
    HDF5_PACKAGES=(openmpi-bin libopenmpi-dev libhdf5-openmpi-dev)
else
    MPI_FLAVOUR=mpich
    MPICC=mpicc.mpich
    MPIEXEC=mpiexec.mpich
    HDF5_PACKAGES=(mpich libmpich-dev libhdf5-mpich-dev)
fi
HDF5_CFLAGS=(-I/usr/include/hdf5/$MPI_FLAVOUR)
HDF5_LIBS=(-lhdf5_$MPI_FLAVOUR)

PASSED=0
FAILED=0
SKIPPED=0

log() { printf 'hdf5: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
# shellcheck source=../deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"

report() {
    local status=$1 name=hdf5/$2 detail=${3:-}
    if [[ $status == PASS ]]; then
        PASSED=$((PASSED + 1))
    elif [[ $status == SKIP ]]; then
        SKIPPED=$((SKIPPED + 1))
    else
        FAILED=$((FAILED + 1))
    fi
    printf '%s %s%s\n' "$status" "$name" "${detail:+ ($detail)}"
}

# compile PROGRAM: $WORK/PROGRAM from $HERE/PROGRAM.c.
compile() {
    local prog=$1 clog=$WORK/compile-$1.log
    if ! "$MPICC" -std=c11 -Wall -Wextra -O2 "${HDF5_CFLAGS[@]}" -o "$WORK/$prog" \
            "$HERE/$prog.c" "${HDF5_LIBS[@]}" >"$clog" 2>&1; then
        cat "$clog" >&2
        report FAIL "compile $prog" "see $clog"
        return 1
    fi
    # The programs must stay warning-free; show any warning without failing the run.
    [[ -s $clog ]] && cat "$clog" >&2
    return 0
}

# run PROGRAM FORM NP [ENV=VALUE ...] -- [MPIEXEC ARGS ...]: one run of PROGRAM at NP processes
# in all, named by FORM ("" on one node). The arguments after -- go to mpiexec (default: -n NP
# FILE); FILE stands for the program and its file's name. The run passes only if it exits 0, rank 0
# printed " No Errors", and (with EDONIO_LIB) edonio logged the closing of the files it wrote and
# read; a run whose rank 0 printed " SKIP reason" is skipped.
run() {
    local prog=$1 form=$2 np=$3 envs=() args=() a rc=0 before=0
    shift 3
    while [[ $1 != -- ]]; do
        envs+=("$1")
        shift
    done
    shift
    local name="$prog ${form:+$form }np=$np" base=$WORK/$prog${form:+-$form}-np$np
    [[ $# -gt 0 ]] || set -- -n "$np" FILE
    for a in "$@"; do
        if [[ $a == FILE ]]; then
            args+=("$WORK/$prog" "$base.h5")
        else
            args+=("$a")
        fi
    done
    [[ -n ${EDONIO_LIB:-} ]] && before=$(stats_lines)
    env "${TEST_ENV[@]}" ${envs[@]+"${envs[@]}"} MPIEXEC_TIMEOUT="$RUN_TIMEOUT" \
        timeout -k 10 $((RUN_TIMEOUT + 30)) "$MPIEXEC" "${args[@]}" >"$base.out" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]] && grep -q '^ SKIP ' "$base.out"; then
        report SKIP "$name" "$(grep -m 1 '^ SKIP ' "$base.out" | sed 's/^ SKIP //')"
    elif [[ -n ${EDONIO_LIB:-} && $rc -eq 0 && $(stats_lines) -eq $before ]]; then
        report FAIL "$name" "passed, but edonio logged no closed file"
    elif [[ $rc -eq 0 ]] && grep -qx ' No Errors' "$base.out"; then
        report PASS "$name"
    else
        sed 's/^/    /' "$base.out" | tail -n 20 >&2
        report FAIL "$name" "exit $rc: $(grep -m 2 -E 'rank [0-9]+:|Found| bad ' "$base.out" |
            tr '\n' ' ' | cut -c1-240); log: $base.out"
    fi
}

# run_forms PROGRAM: 4 processes on one node, on 2 simulated nodes, and on 2 nodes of 2 (2x2).
run_forms() {
    local prog=$1
    run "$prog" "" 4 --
    run "$prog" 2-nodes 4 MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1 --
    run "$prog" 2x2-nodes 4 MPIR_CVAR_NUM_CLIQUES=2 -- -n 2 -env EDONIO_TEST_NODE a FILE : \
        -n 2 -env EDONIO_TEST_NODE b FILE
}

main() {
    local np prog
    ensure_packages gcc "${HDF5_PACKAGES[@]}"
    check_edonio_lib
    setup_workdir hdf5
    setup_edonio_env
    for prog in $PROGRAMS; do
        compile "$prog" || continue
        if [[ $prog == h5_hyperslab ]]; then
            for np in $NPROCS; do
                run "$prog" "" "$np" --
            done
        else
            run_forms "$prog"
        fi
    done
    check_edonio_used
    if [[ $FAILED -eq 0 && $OWN_WORKDIR -eq 1 && ${EDONIO_KEEP_WORKDIR:-0} != 1 ]]; then
        rm -rf "$WORK"
    else
        log "work dir $WORK"
    fi
    if [[ $SKIPPED -gt 0 ]]; then
        printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
    else
        printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
    fi
    [[ $FAILED -eq 0 ]]
}

main "$@"
