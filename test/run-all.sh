#!/usr/bin/env bash
# The whole edonio test suite, as `make check` runs it:
#   unit     parts of the driver tested on their own
#   edonio   edonio's own tests of the drop-in library
#   cache    the block cache seen from MPI programs, on one node and on simulated nodes
#   romio    ROMIO's own test programs, under ufs and under edonio
#   pnetcdf  PnetCDF's own test suite (make check, and its 4-process tests) under edonio
#   longpath PnetCDF's Fortran tests and long file names (C and Fortran) from a 600-character path
#   hdf5     parallel HDF5 programs under edonio, on one node and on simulated nodes
#   coll     collective I/O through the block owners and MPI atomic mode (every method)
#   irregular libedonio_irregular: irregular I/O through indirection arrays, software caching
#            between loops, compressed chunked arrays, bad input (edonio and ufs)
#   legacy   the legacy APIs (EDONIO do_*, PFS-style, PIOFS-style) on ufs and on edonio
#   pfsemu   the emulated parallel file system of perf/ passes data through unchanged and counts
#   fem      EDONIO's finite-element program (perf/fem), edonio against ufs, checked byte for byte
#   perf     the benchmark suite in its tiny --quick sizes: every case runs, no timing judged
#   asan     edonio's own, cache, collective, irregular and legacy tests and ROMIO's under edonio
#            built with AddressSanitizer and UBSan
#            (when EDONIO_ASAN_BUILDDIR names that build; scripts/test-all.sh makes it)
#   openmpi  edonio's own, cache, collective, irregular and legacy tests and ROMIO's again, over
#            Open MPI:
#            the library built for it, programs built with mpicc.openmpi, run by mpirun.openmpi
#            (test/mpiexec-openmpi); and Debian's PnetCDF (a program, and PnetCDF's own test
#            suite linked to it) and HDF5 for Open MPI under edonio; and edonio's own tests on
#            its sanitizer build (EDONIO_OPENMPI_ASAN_BUILDDIR)
#            (when EDONIO_OPENMPI_BUILDDIR names that build; scripts/test-all.sh makes both)
# Each group prints one line per test; this script adds them up and ends with the one line CI
# reads: "N passed, N failed[, N skipped]". EDONIO_TEST_GROUPS chooses groups (default: all).
#
#   test/run-all.sh --builddir DIR --romio-builddir DIR --cache DIR
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
builddir=""
romio_builddir=""
romio_srcdir=""
cache=""
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --romio-builddir) romio_builddir=$2; shift 2 ;;
        --romio-srcdir) romio_srcdir=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        *) echo "usage: $0 --builddir DIR --romio-builddir DIR --cache DIR" >&2; exit 2 ;;
    esac
done
default_groups="unit edonio cache coll irregular legacy pfsemu fem perf romio pnetcdf longpath hdf5"
[ -n "${EDONIO_ASAN_BUILDDIR:-}" ] && default_groups="$default_groups asan"
[ -n "${EDONIO_OPENMPI_BUILDDIR:-}" ] && default_groups="$default_groups openmpi"
groups=${EDONIO_TEST_GROUPS:-$default_groups}
work=${EDONIO_TEST_WORKDIR:-$builddir/test-work}
rm -rf "$work"
mkdir -p "$work"
export EDONIO_LIB="$builddir/.libs/libedonio.so"
export EDONIO_CACHE="$cache"
export ROMIO_BUILDDIR="$romio_builddir"
export ROMIO_SRCDIR="$romio_srcdir"

run_group() {
    local group=$1
    shift
    echo "=== $group ($(date +%H:%M:%S))"
    mkdir -p "$work/$group"
    # A group's own closing line is shown in brackets, so that only the final line is a count line.
    EDONIO_TEST_WORKDIR="$work/$group" "$@" 2>&1 |
        sed -u -E "s/^([0-9]+ passed, [0-9]+ failed.*)$/[$group: \1]/" | tee "$work/$group.out"
    local status=${PIPESTATUS[0]}
    # A group that failed without saying which test failed still counts as a failure.
    if [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$work/$group.out"; then
        echo "FAIL $group (the group's script exited with $status)" | tee -a "$work/$group.out"
    fi
}

# The sanitizer runtime must come first in the preload list, before the instrumented library.
run_sanitized() {
    local asan_lib="$EDONIO_ASAN_BUILDDIR/.libs/libedonio.so"
    [ -f "$asan_lib" ] || { echo "FAIL asan (no $asan_lib)"; return 1; }
    (
        export EDONIO_LIB="$asan_lib" ASAN_OPTIONS=detect_leaks=0
        export EDONIO_SANITIZER_RUNTIME="$(gcc -print-file-name=libasan.so)"
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        status=0
        "$here/edonio/run.sh" --builddir "$EDONIO_ASAN_BUILDDIR" --workdir "$work/asan/edonio" ||
            status=1
        "$here/cache/run.sh" --builddir "$EDONIO_ASAN_BUILDDIR" --workdir "$work/asan/cache" ||
            status=1
        "$here/coll/run.sh" --builddir "$EDONIO_ASAN_BUILDDIR" --workdir "$work/asan/coll" ||
            status=1
        "$here/irregular/run.sh" --builddir "$EDONIO_ASAN_BUILDDIR" \
            --workdir "$work/asan/irregular" || status=1
        "$here/legacy/run.sh" --builddir "$EDONIO_ASAN_BUILDDIR" --workdir "$work/asan/legacy" ||
            status=1
        EDONIO_TEST_WORKDIR="$work/asan/romio" "$here/romio/run.sh" || status=1
        exit $status
    )
}

# The same programs over Open MPI; each line's name says so ("PASS openmpi:edonio/...").
run_openmpi() {
    local ompi=${EDONIO_OPENMPI_BUILDDIR:-}
    if [ -z "$ompi" ] || [ ! -f "$ompi/.libs/libedonio.so" ]; then
        echo "SKIP openmpi (no Open MPI build: EDONIO_OPENMPI_BUILDDIR=${ompi:-unset})"
        return 0
    fi
    (
        export EDONIO_MPI=openmpi EDONIO_LIB="$ompi/.libs/libedonio.so"
        export MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi
        export MPIEXEC="$here/mpiexec-openmpi" OPENMPI_MPIRUN=mpirun.openmpi
        status=0
        for g in edonio cache coll irregular legacy; do
            "$here/$g/run.sh" --builddir "$ompi" --workdir "$work/openmpi/$g" || status=1
        done
        ROMIO_BUILDDIR=$(sed -n 's/^ROMIO_BUILDDIR = //p' "$ompi/Makefile") \
            EDONIO_TEST_WORKDIR="$work/openmpi/romio" "$here/romio/run.sh" || status=1
        # Debian's own PnetCDF and HDF5 for Open MPI, unmodified, under edonio.
        "$here/pnetcdf/debian.sh" --builddir "$ompi" --workdir "$work/openmpi/pnetcdf-debian" ||
            status=1
        # PnetCDF's own test suite, its programs linked to Debian's libpnetcdf (build.sh), its
        # 4-process tests on 2 simulated nodes (the MPICH group runs them on one node too).
        PNETCDF_HOST=openmpi PNETCDF_PTEST_NODES=2 EDONIO_TEST_WORKDIR="$work/openmpi" \
            "$here/pnetcdf/run.sh" || status=1
        EDONIO_TEST_WORKDIR="$work/openmpi/hdf5" "$here/hdf5/run.sh" || status=1
        # The benchmarks over Open MPI, tiny sizes: each case ran through OMPIO, ufs and edonio.
        local perf="$work/openmpi/perf" rows
        if "$here/../perf/run" --mpi openmpi --builddir "$ompi" --quick --out "$perf" \
            >"$perf.log" 2>&1; then
            rows=$(awk -F, '$4 == "ompio" && $19 == "0"' "$perf/results.csv" | wc -l)
            if [ "$rows" -gt 0 ] && grep -q "^Over Open MPI: OMPIO" "$perf/table.txt"; then
                echo "PASS perf/run --mpi openmpi --quick ($rows OMPIO rows)"
            else
                echo "FAIL perf/run --mpi openmpi --quick (no OMPIO rows or table; log $perf.log)"
                status=1
            fi
        else
            echo "FAIL perf/run --mpi openmpi --quick (log $perf.log)"
            status=1
        fi
        # The sanitizer build over Open MPI: edonio's own tests ("PASS openmpi:asan:edonio/...").
        local asan=${EDONIO_OPENMPI_ASAN_BUILDDIR:-}
        if [ -n "$asan" ] && [ -f "$asan/.libs/libedonio.so" ]; then
            (
                export EDONIO_LIB="$asan/.libs/libedonio.so" ASAN_OPTIONS=detect_leaks=0
                export EDONIO_SANITIZER_RUNTIME="$(gcc -print-file-name=libasan.so)"
                export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
                "$here/edonio/run.sh" --builddir "$asan" --workdir "$work/openmpi/asan-edonio"
            ) | sed -u -E 's/^(PASS|FAIL|SKIP|XFAIL) /\1 asan:/'
            [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        else
            echo "SKIP asan:edonio (no Open MPI sanitizer build: EDONIO_OPENMPI_ASAN_BUILDDIR=${asan:-unset})"
        fi
        exit $status
    ) | sed -u -E 's/^(PASS|FAIL|SKIP|XFAIL) /\1 openmpi:/'
    return "${PIPESTATUS[0]}"
}

for group in $groups; do
    case $group in
        unit) run_group unit "$here/unit/run.sh" ;;
        edonio) run_group edonio "$here/edonio/run.sh" --builddir "$builddir" \
                    --workdir "$work/edonio" ;;
        romio) run_group romio "$here/romio/run.sh" ;;
        pnetcdf) run_group pnetcdf "$here/pnetcdf/run.sh" ;;
        longpath) run_group longpath "$here/longpath/run.sh" --builddir "$builddir" \
                      --workdir "$work/longpath" ;;
        hdf5) run_group hdf5 "$here/hdf5/run.sh" ;;
        cache) run_group cache "$here/cache/run.sh" --builddir "$builddir" \
                   --workdir "$work/cache" ;;
        coll) run_group coll "$here/coll/run.sh" --builddir "$builddir" \
                  --workdir "$work/coll" ;;
        irregular) run_group irregular "$here/irregular/run.sh" --builddir "$builddir" \
                       --workdir "$work/irregular" ;;
        legacy) run_group legacy "$here/legacy/run.sh" --builddir "$builddir" \
                    --workdir "$work/legacy" ;;
        pfsemu) run_group pfsemu "$here/../perf/pfsemu/run-test.sh" --builddir "$builddir" \
                    --workdir "$work/pfsemu" ;;
        fem) run_group fem "$here/../perf/fem/run-test.sh" ;;
        perf) run_group perf "$here/../perf/run-test.sh" --builddir "$builddir" \
                  --workdir "$work/perf" ;;
        asan) run_group asan run_sanitized ;;
        openmpi) run_group openmpi run_openmpi ;;
        *) echo "unknown test group $group" >&2; exit 2 ;;
    esac
done

passed=$(cat "$work"/*.out | grep -c '^PASS ')
failed=$(cat "$work"/*.out | grep -c '^FAIL ')
skipped=$(cat "$work"/*.out | grep -c -E '^(SKIP|XFAIL) ')
echo "=== all groups ($(date +%H:%M:%S))"
grep -h '^FAIL ' "$work"/*.out || true
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
