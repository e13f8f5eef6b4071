#!/usr/bin/env bash
# Run PnetCDF's own test suite ("make check", then "make ptest" on 4 MPI processes) in the
# cached build tree made by build.sh (which this script calls, so a cold cache builds first).
#
# With EDONIO_LIB set, every test runs with LD_PRELOAD=$EDONIO_LIB ROMIO_FSTYPE_FORCE=edonio:
# so each MPI_File_* call goes through our driver, and EDONIO_STATS proves that it did.
# Without it, the tests run on stock MPICH (to develop and check the harness itself).
#
# Prints one line per test (PASS/FAIL/XFAIL/SKIP pnetcdf/<name>) and closes with
# "N passed, N failed, N skipped". Exits non-zero on any unexpected failure.
#
# The tests' output files go to a short scratch directory of their own, not to the work dir:
# PnetCDF's Fortran tests hold file names in fixed-length strings (nf_test: CHARACTER*80 for the
# -d argument and for DIR/scratch.nc, nf90_test: CHARACTER*128, test/F90: CHARACTER*256) and cut
# longer ones without a word, so that a test fails with NF_ENOENT when the work dir lies deep
# (a checkout at a 60-character path failed nf_test and nf90_test). The scratch directory is
# `mktemp -d` under ${TMPDIR:-/tmp} (under /tmp if TMPDIR's is too long), removed after a passing
# run and kept, with its path printed, after a failing one.
#
# Environment:
#   EDONIO_LIB            absolute or relative path of libedonio.so (optional)
#   EDONIO_TEST_WORKDIR   scratch dir for logs (default: a mktemp dir, removed after a fully
#                         passing run unless EDONIO_KEEP_WORKDIR=1)
#   PNETCDF_CHECK_DIRS    directories of PnetCDF's build tree whose "make check" runs (default
#                         ".": all); test/longpath/run.sh runs only the Fortran ones
#   PNETCDF_PTEST         1 (default) runs the 4-process tests; 0 runs only "make check"
#   PNETCDF_PTEST_NODES   simulated nodes the 4-process tests run on, one pass each (default
#                         "1 2": on one node, then on 2 nodes, MPIR_CVAR_NUM_CLIQUES=2
#                         MPIR_CVAR_NOLOCAL=1, no shared memory between them, so that edonio's
#                         path between nodes serves PnetCDF's collective writes and the reads
#                         that its tests make of other processes' data without a sync)
#   PNETCDF_CHECK_TIMEOUT seconds for the whole "make check" (default 1200)
#   PNETCDF_PTEST_TIMEOUT seconds for one directory's "make ptest" (default 900)
#   PNETCDF_RUN_TIMEOUT   seconds for one mpiexec run, via MPIEXEC_TIMEOUT (default 300)
#   EDONIO_CACHE, PNETCDF_HOST, PNETCDF_VERSION, PNETCDF_FORTRAN, MAKE_JOBS: see build.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KNOWN_FAILURES=$HERE/known-failures.txt
PNETCDF_PTEST=${PNETCDF_PTEST:-1}
PTEST_NODES=${PNETCDF_PTEST_NODES:-1 2}
CHECK_DIRS=${PNETCDF_CHECK_DIRS:-.}
# At most this long: nf_test's CHARACTER*80 must hold OUTDIR/scratch.nc (69 + 11 characters).
MAX_OUTDIR=60
CHECK_TIMEOUT=${PNETCDF_CHECK_TIMEOUT:-1200}
PTEST_TIMEOUT=${PNETCDF_PTEST_TIMEOUT:-900}
RUN_TIMEOUT=${PNETCDF_RUN_TIMEOUT:-300}
# PNETCDF_HOST=openmpi (build.sh): the tests linked to Debian's libpnetcdf, run by Open MPI's
# mpirun through the tests' launcher, which turns MPICH's simulated nodes into Open MPI's.
if [[ ${PNETCDF_HOST:-mpich} == openmpi ]]; then
    # shellcheck source=../../scripts/mpi-names.sh disable=SC1091
    EDONIO_MPI=openmpi . "$HERE/../../scripts/mpi-names.sh" # root and 2 cores
    MPIEXEC=$HERE/../mpiexec-openmpi
else
    MPIEXEC=mpiexec.mpich
fi

PASSED=0
FAILED=0
SKIPPED=0
declare -A KNOWN=()

log() { printf 'pnetcdf: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
# shellcheck source=../deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"

load_known_failures() {
    local name reason
    [[ -f $KNOWN_FAILURES ]] || return 0
    while read -r name reason; do
        [[ -z $name || $name == \#* ]] && continue
        KNOWN[$name]=${reason:-no reason given}
    done <"$KNOWN_FAILURES"
}

# report STATUS NAME [DETAIL]: print one result line and count it. A failure listed in
# known-failures.txt becomes XFAIL and doesn't count as a failure.
report() {
    local status=$1 name=pnetcdf/$2 detail=${3:-}
    case $status in
        PASS)
            PASSED=$((PASSED + 1))
            [[ -n ${KNOWN[$name]:-} ]] && detail="listed in known-failures.txt but passed"
            ;;
        SKIP)
            SKIPPED=$((SKIPPED + 1))
            ;;
        FAIL)
            if [[ -n ${KNOWN[$name]:-} ]]; then
                status=XFAIL
                detail=${KNOWN[$name]}
            else
                FAILED=$((FAILED + 1))
            fi
            ;;
    esac
    printf '%s %s%s\n' "$status" "$name" "${detail:+ ($detail)}"
}

# OUT: the tests' output directory, short enough for PnetCDF's Fortran tests (see the top).
make_outdir() {
    local parent=${TMPDIR:-/tmp}
    [[ $parent == /* ]] || parent=$PWD/$parent
    # OUT/check-out: the parent, "/edonio-pnetcdf.XXXXXX" (22) and "/check-out" (10).
    if [[ ${#parent} -gt $((MAX_OUTDIR - 32)) ]]; then
        log "TMPDIR=$parent is too long for PnetCDF's Fortran tests' file names; using /tmp"
        parent=/tmp
    fi
    OUT=$(mktemp -d "$parent/edonio-pnetcdf.XXXXXX")
    mkdir -p "$OUT/check-out" "$OUT/ptest-out"
}

# After the run: the output directory goes if everything passed, else it stays for a look.
remove_outdir() {
    local status=$?
    [[ -n ${OUT:-} && -d $OUT ]] || return 0
    if [[ $status -eq 0 && $FAILED -eq 0 && ${EDONIO_KEEP_WORKDIR:-0} != 1 ]]; then
        rm -rf "$OUT"
    else
        log "kept the tests' output directory $OUT"
    fi
}

setup_pnetcdf_workdir() {
    setup_workdir pnetcdf
    mkdir -p "$WORK/logs"
    make_outdir
    trap remove_outdir EXIT
    # Records every mpiexec run (exit status and command) of "make ptest", so a failing
    # directory names the program that failed; PnetCDF's scripts don't echo their commands.
    MPIRUN_WRAPPER=$WORK/mpiexec-logged
    cat >"$MPIRUN_WRAPPER" <<EOF
#!/bin/sh
rc=0
$MPIEXEC "\$@" || rc=\$?
echo "\$rc \$*" >>"\$EDONIO_MPIRUN_LOG"
exit \$rc
EOF
    chmod +x "$MPIRUN_WRAPPER"
}

# Delete results of earlier runs, so that only this run's .trs files are read.
clean_old_results() {
    local trs
    while IFS= read -r -d '' trs; do
        rm -f "$trs" "${trs%.trs}.log"
    done < <(find "$BUILD" -name '*.trs' -print0)
}

# make check runs the sequential tests through automake's harness, which leaves one .trs file
# per test with its result: we read those rather than parse make's output.
run_check() {
    local rc=0 trs name result logf tests_failed=0 dir
    log "make check in $CHECK_DIRS (output in $OUT/check-out, log $WORK/logs/check.log)"
    clean_old_results
    : >"$WORK/logs/check.log"
    for dir in $CHECK_DIRS; do
        env "${TEST_ENV[@]}" timeout -k 30 "$CHECK_TIMEOUT" \
            make -k -C "$BUILD/$dir" check TESTOUTDIR="$OUT/check-out" \
            >>"$WORK/logs/check.log" 2>&1 || rc=$?
    done
    while IFS= read -r trs; do
        name=check/${trs#"$BUILD"/}
        name=${name%.trs}
        result=$(sed -n 's/^:test-result: *//p' "$trs" | sed -n 1p)
        case $result in
            PASS) report PASS "$name" ;;
            # Automake XFAIL: PnetCDF's own XFAIL_TESTS (corrupt files the validator must
            # reject) failed as they should.
            XFAIL) report PASS "$name" "expected failure per PnetCDF" ;;
            SKIP) report SKIP "$name" "skipped by the test" ;;
            *)
                tests_failed=1
                # Keep the log: the next run overwrites the build tree's copy.
                logf=$WORK/logs/$name.log
                mkdir -p "$(dirname "$logf")"
                cp "${trs%.trs}.log" "$logf" 2>/dev/null || logf=${trs%.trs}.log
                report FAIL "$name" "${result:-no result}; log: $logf"
                ;;
        esac
    done < <(find "$BUILD" -name '*.trs' | sort)
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        report FAIL check "timed out after $CHECK_TIMEOUT s; log: $WORK/logs/check.log"
    elif [[ $rc -ne 0 && $tests_failed -eq 0 ]]; then
        # make failed although no test did: something outside the tests broke.
        report FAIL check "make check exited $rc; log: $WORK/logs/check.log"
    fi
}

# Print a make variable of a directory's generated Makefile.
make_var() {
    make -s --no-print-directory -C "$1" -f Makefile -f - edonio-print-var \
        <<<"edonio-print-var: ; @echo \$($2)"
}

# The leaf directories that "make ptest" at the top would visit, in its order.
ptest_dirs() {
    local dir=$1 sub subs
    subs=$(make_var "$BUILD/$dir" PTEST_SUBDIRS)
    if [[ -z $subs ]]; then
        printf '%s\n' "$dir"
        return 0
    fi
    for sub in $subs; do
        ptest_dirs "${dir:+$dir/}$sub"
    done
}

# One directory's "make ptest" (4 processes) on NODES simulated nodes is one test: PnetCDF's
# parallel_run.sh scripts stop at their first failure, so they can't be split into independent
# tests.
run_ptest_dir() {
    local dir=$1 nodes=$2 rc=0 logf runs failed t0=$SECONDS name=ptest4 env_nodes=()
    if [[ $nodes -gt 1 ]]; then
        name=ptest4-${nodes}nodes
        env_nodes=(MPIR_CVAR_NUM_CLIQUES="$nodes" MPIR_CVAR_NOLOCAL=1)
    fi
    logf=$WORK/logs/$name-${dir//\//_}.log
    export EDONIO_MPIRUN_LOG=$WORK/logs/$name-${dir//\//_}.runs
    : >"$EDONIO_MPIRUN_LOG"
    env "${TEST_ENV[@]}" "${env_nodes[@]}" MPIEXEC_TIMEOUT="$RUN_TIMEOUT" \
        timeout -k 30 "$PTEST_TIMEOUT" make -C "$BUILD/$dir" ptest TESTOUTDIR="$OUT/ptest-out" \
        TESTMPIRUN="$MPIRUN_WRAPPER -n NP" >"$logf" 2>&1 || rc=$?
    runs=$(wc -l <"$EDONIO_MPIRUN_LOG")
    # Directories without parallel tests (test/common, test/nc_test, ...) ran nothing.
    [[ $rc -eq 0 && $runs -eq 0 ]] && return 0
    if [[ $rc -eq 0 ]]; then
        report PASS "$name/$dir" "$runs runs, $((SECONDS - t0)) s"
        return 0
    fi
    # parallel_run.sh stops at its first failing command: if that was an mpiexec run, it is
    # the last one recorded.
    failed=$(tail -n 1 "$EDONIO_MPIRUN_LOG" | awk '$1 != 0 { $1 = ""; print substr($0, 2) }')
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        report FAIL "$name/$dir" "timed out after $PTEST_TIMEOUT s; log: $logf"
    else
        report FAIL "$name/$dir" "${failed:+failed: mpiexec $failed; }log: $logf"
    fi
}

run_ptest() {
    local dir nodes
    for nodes in $PTEST_NODES; do
        log "make ptest on 4 processes, $nodes node(s) (output in $OUT/ptest-out, logs in" \
            "$WORK/logs)"
        for dir in $(ptest_dirs ""); do
            run_ptest_dir "$dir" "$nodes"
        done
    done
}

main() {
    local t0=$SECONDS
    load_known_failures
    check_edonio_lib
    setup_pnetcdf_workdir
    setup_edonio_env
    # build.sh is quick when the cache is warm; its last line is the build tree.
    BUILD=$("$HERE/build.sh" | tail -n 1) || BUILD=
    if [[ -f $BUILD/Makefile ]]; then
        # The tests run inside the shared build tree: one run at a time.
        exec 8>"$BUILD/../.run.lock"
        flock 8
        run_check
        if [[ $PNETCDF_PTEST == 1 ]]; then
            run_ptest
        fi
        check_edonio_used
    else
        report FAIL build "build.sh failed, see its messages above"
    fi
    log "done in $((SECONDS - t0)) s; work dir $WORK"
    if [[ $FAILED -eq 0 && $OWN_WORKDIR -eq 1 && ${EDONIO_KEEP_WORKDIR:-0} != 1 ]]; then
        rm -rf "$WORK"
    fi
    printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
    [[ $FAILED -eq 0 ]]
}

main "$@"
