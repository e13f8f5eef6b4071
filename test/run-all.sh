#!/usr/bin/env bash
# The whole edonio test suite, as `make check` runs it:
#   unit     parts of the driver tested on their own
#   edonio   edonio's own tests of the drop-in library
#   romio    ROMIO's own test programs, under ufs and under edonio
#   pnetcdf  PnetCDF's own test suite (make check, and its 4-process tests) under edonio
#   hdf5     a parallel HDF5 program under edonio
# Each group prints one line per test; this script adds them up and ends with the one line CI
# reads: "N passed, N failed[, N skipped]". EDONIO_TEST_GROUPS chooses groups (default: all).
#
#   test/run-all.sh --builddir DIR --romio-builddir DIR --cache DIR
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
builddir=""
romio_builddir=""
cache=""
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --romio-builddir) romio_builddir=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        *) echo "usage: $0 --builddir DIR --romio-builddir DIR --cache DIR" >&2; exit 2 ;;
    esac
done
groups=${EDONIO_TEST_GROUPS:-unit edonio romio pnetcdf hdf5}
work=${EDONIO_TEST_WORKDIR:-$builddir/test-work}
rm -rf "$work"
mkdir -p "$work"
export EDONIO_LIB="$builddir/.libs/libedonio.so"
export EDONIO_CACHE="$cache"
export ROMIO_BUILDDIR="$romio_builddir"

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

for group in $groups; do
    case $group in
        unit) run_group unit "$here/unit/run.sh" ;;
        edonio) run_group edonio "$here/edonio/run.sh" --builddir "$builddir" \
                    --workdir "$work/edonio" ;;
        romio) run_group romio "$here/romio/run.sh" ;;
        pnetcdf) run_group pnetcdf bash -c "'$here/pnetcdf/build.sh' && '$here/pnetcdf/run.sh'" ;;
        hdf5) run_group hdf5 "$here/hdf5/run.sh" ;;
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
