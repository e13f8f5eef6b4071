#!/usr/bin/env bash
# From nothing to edonio at work: install what is missing, build, and run an unmodified MPI-IO
# program (examples/mpiio_demo.c, compiled with the stock mpicc) on 4 ranks, through ROMIO's ufs
# driver and through edonio, in the same library.
#
#   scripts/quickstart.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${EDONIO_BUILDDIR:-$top/_build}
# shellcheck source=SCRIPTDIR/mpi-names.sh disable=SC1091
. "$top/scripts/mpi-names.sh"

"$top/scripts/setup-deps.sh"
"$top/scripts/build.sh"

demo="$build/examples/mpiio_demo"
mkdir -p "$build/examples" "$build/demo-files"
"$MPICC" -O2 -o "$demo" "$top/examples/mpiio_demo.c"
export EDONIO_LIB="$build/.libs/libedonio.so"
rm -f "$build"/demo-files/*

echo
echo "== The same unmodified program, 4 ranks, through ROMIO's ufs driver:"
"$build/scripts/edonio-run" --fs=ufs "$MPIEXEC" -n 4 "$demo" "$build/demo-files/ufs.dat"
echo
echo "== ... and through edonio (EDONIO_STATS shows what edonio did with the file):"
EDONIO_STATS="$build/demo-files/stats.log" "$build/scripts/edonio-run" "$MPIEXEC" -n 4 "$demo" \
    "$build/demo-files/edonio.dat"
cat "$build/demo-files/stats.log"
echo
if cmp -s "$build/demo-files/ufs.dat" "$build/demo-files/edonio.dat"; then
    echo "The two files are identical ($(stat -c %s "$build/demo-files/edonio.dat") bytes)."
else
    echo "The two files differ!"
    exit 1
fi
