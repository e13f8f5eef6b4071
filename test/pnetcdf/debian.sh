#!/usr/bin/env bash
# Debian's own PnetCDF (libpnetcdf-dev, which Debian builds for Open MPI only), unmodified, under
# the Open MPI build of edonio: pnc_files.c (a *-cyclic variable through nonblocking puts and one
# wait_all, a block-block one through a collective put, records appended independently, all read
# back and checked) linked with -lpnetcdf, run at 4 processes through Open MPI's own MPI-IO
# (OMPIO), our ROMIO's ufs, and edonio on one node, on 2 simulated nodes and on 2 nodes of 2. Every
# run must pass its own checks and leave a file byte for byte the same as OMPIO's.
#
#   test/pnetcdf/debian.sh --builddir DIR [--workdir DIR]     (with EDONIO_MPI=openmpi)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"
mpi_test_setup "$@"

log() { printf 'pnetcdf-debian: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 2
}
# shellcheck source=../deps.sh
. "$here/../deps.sh"

if [ "$EDONIO_MPI" != openmpi ]; then
    skip "pnetcdf/debian" "Debian builds its PnetCDF for Open MPI only (EDONIO_MPI=openmpi)"
    summary
    exit
fi
ensure_packages libpnetcdf-dev

prog="$bin/pnc_files"
if ! "$MPICC" -O2 -Wall -o "$prog" "$here/pnc_files.c" -lpnetcdf >"$work/build.log" 2>&1; then
    fail "pnetcdf/debian build" "$(failure_lines "$work/build.log"); log $work/build.log"
    summary
    exit
fi

# run_form FORM NP ENV... -- [ARGS]: one run whose file is $data/FORM.nc, of NP processes, or of
# NP in the first part of an MPMD run (ARGS: the rest of mpiexec's arguments, FILE standing for the
# program and its file).
files=()
run_form() {
    local form=$1 np=$2 envs=() args=()
    shift 2
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    rm -f "$data/$form.nc"
    if [ $# -eq 0 ]; then
        args=("$prog" "$data/$form.nc")
    else
        for a in "$@"; do
            [ "$a" = FILE ] && args+=("$prog" "$data/$form.nc") || args+=("$a")
        done
    fi
    rm -f "$work/$form.stats"
    run_mpi "pnetcdf/debian $form np=4" "$work/$form.log" "$np" "${envs[@]}" \
        EDONIO_STATS="$work/$form.stats" -- "${args[@]}"
    [ -f "$data/$form.nc" ] && files+=("$form")
    # Served by the driver it names: edonio's runs report the files edonio closed, the others none.
    local closed
    closed=$(grep -c '^edonio:' "$work/$form.stats" 2>/dev/null)
    case $form in
        edonio*) [ "${closed:-0}" -gt 0 ] || fail "pnetcdf/debian $form served" "edonio closed no file" ;;
        *) [ "${closed:-0}" -eq 0 ] || fail "pnetcdf/debian $form served" "edonio served it" ;;
    esac
}

preload=LD_PRELOAD="$(edonio_preload "$lib")"
run_form ompio 4 X=1 --
run_form ufs 4 "$preload" ROMIO_FSTYPE_FORCE=ufs: --
run_form edonio 4 "$preload" ROMIO_FSTYPE_FORCE=edonio: --
run_form edonio-2-nodes 4 "$preload" ROMIO_FSTYPE_FORCE=edonio: MPIR_CVAR_NUM_CLIQUES=2 \
    MPIR_CVAR_NOLOCAL=1 --
run_form edonio-2x2-nodes 2 "$preload" ROMIO_FSTYPE_FORCE=edonio: MPIR_CVAR_NUM_CLIQUES=2 -- \
    -env EDONIO_TEST_NODE a FILE : -n 2 -env EDONIO_TEST_NODE b FILE

if [ ! -f "$data/ompio.nc" ]; then
    fail "pnetcdf/debian same-bytes" "OMPIO wrote no file to compare with"
else
    for form in "${files[@]}"; do
        [ "$form" = ompio ] && continue
        if cmp -s "$data/ompio.nc" "$data/$form.nc"; then
            pass "pnetcdf/debian same-bytes $form"
        else
            fail "pnetcdf/debian same-bytes $form" "$(cmp "$data/ompio.nc" "$data/$form.nc" |
                head -n 1)"
        fi
    done
fi
summary
