#!/usr/bin/env bash
# The whole test suite, from nothing: install what is missing, build edonio with warnings as
# errors (and a second time with AddressSanitizer and UBSan, in _build-asan), and run every test
# (make check: unit tests, edonio's own tests, ROMIO's test programs under ufs and edonio,
# PnetCDF's suite and an HDF5 program under edonio, and edonio's and ROMIO's tests again on the
# sanitizer build, and edonio's own, cache, collective and legacy tests and ROMIO's over Open MPI,
# built in _build-openmpi, with edonio's own again on its sanitizer build, _build-asan-openmpi).
# Ends with "N passed, N failed".
#
#   scripts/test-all.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${EDONIO_BUILDDIR:-$top/_build}

"$top/scripts/setup-deps.sh" --openmpi
EDONIO_CONFIGURE_FLAGS="--enable-werror ${EDONIO_CONFIGURE_FLAGS:-}" "$top/scripts/build.sh"
EDONIO_BUILDDIR="$top/_build-asan" EDONIO_CONFIGURE_FLAGS="--enable-werror --enable-sanitizers" \
    "$top/scripts/build.sh"
EDONIO_BUILDDIR="$top/_build-openmpi" EDONIO_CONFIGURE_FLAGS="--enable-werror --with-mpi=openmpi" \
    "$top/scripts/build.sh"
EDONIO_BUILDDIR="$top/_build-asan-openmpi" \
    EDONIO_CONFIGURE_FLAGS="--enable-werror --enable-sanitizers --with-mpi=openmpi" \
    "$top/scripts/build.sh"
EDONIO_ASAN_BUILDDIR="$top/_build-asan" EDONIO_OPENMPI_BUILDDIR="$top/_build-openmpi" \
    EDONIO_OPENMPI_ASAN_BUILDDIR="$top/_build-asan-openmpi" \
    make -s --no-print-directory -C "$build" check
