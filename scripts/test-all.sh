#!/usr/bin/env bash
# The whole test suite, from nothing: install what is missing, build edonio with warnings as
# errors, and run every test (make check: edonio's own tests, ROMIO's test programs under ufs and
# edonio, PnetCDF's suite and an HDF5 program under edonio). Ends with "N passed, N failed".
#
#   scripts/test-all.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${EDONIO_BUILDDIR:-$top/_build}

"$top/scripts/setup-deps.sh"
EDONIO_CONFIGURE_FLAGS="--enable-werror ${EDONIO_CONFIGURE_FLAGS:-}" "$top/scripts/build.sh"
make -s --no-print-directory -C "$build" check
