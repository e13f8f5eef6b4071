#!/usr/bin/env bash
# Build edonio in _build/ (autoreconf, configure, make). Extra configure flags come from
# EDONIO_CONFIGURE_FLAGS; on the first build they are remembered by config.status.
#
#   scripts/build.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${EDONIO_BUILDDIR:-$top/_build}

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    # shellcheck disable=SC2086
    "$top/configure" ${EDONIO_CONFIGURE_FLAGS:-} >configure.out 2>&1 || {
        tail -n 20 configure.out
        exit 1
    }
    sed -n '/^configure: *$/,$p' configure.out
fi
make -j"$(nproc)" >make.out 2>&1 || {
    tail -n 40 make.out
    exit 1
}
echo "build: $build/.libs/libedonio.so"
