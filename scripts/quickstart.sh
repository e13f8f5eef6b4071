#!/usr/bin/env bash
# From nothing to edonio at work: install what is missing, build, and run an unmodified MPI-IO
# program (examples/mpiio_demo.c, compiled with the stock mpicc) on 4 ranks, through ROMIO's ufs
# driver and through edonio, in the same library.
#
#   scripts/quickstart.sh [--mpi mpich|openmpi]
#
# With --mpi openmpi it does the same over Open MPI (built in _build-openmpi), with Open MPI's
# own MPI-IO (OMPIO, the program without the preloaded library) as a third run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mpi=mpich
case "${1:-}" in
    --mpi) mpi=${2:-}; shift 2 ;;
    --mpi=*) mpi=${1#--mpi=}; shift ;;
    "") ;;
    *) echo "usage: $0 [--mpi mpich|openmpi]" >&2; exit 2 ;;
esac
case $mpi in
    mpich) build=${EDONIO_BUILDDIR:-$top/_build} ;;
    openmpi) build=${EDONIO_BUILDDIR:-$top/_build-openmpi} ;;
    *) echo "$0: --mpi $mpi: say mpich or openmpi" >&2; exit 2 ;;
esac
export EDONIO_MPI=$mpi
# shellcheck source=SCRIPTDIR/mpi-names.sh disable=SC1091
. "$top/scripts/mpi-names.sh"

if [ "$mpi" = openmpi ]; then
    "$top/scripts/setup-deps.sh" --openmpi
else
    "$top/scripts/setup-deps.sh"
fi
EDONIO_BUILDDIR=$build EDONIO_CONFIGURE_FLAGS="--with-mpi=$mpi ${EDONIO_CONFIGURE_FLAGS:-}" \
    "$top/scripts/build.sh"

demo="$build/examples/mpiio_demo"
files="$build/demo-files"
mkdir -p "$build/examples" "$files"
"$MPICC" -O2 -o "$demo" "$top/examples/mpiio_demo.c"
export EDONIO_LIB="$build/.libs/libedonio.so"
rm -f "$files"/*

if [ "$mpi" = openmpi ]; then
    echo
    echo "== The unmodified program, 4 ranks, through Open MPI's own MPI-IO (OMPIO):"
    "$MPIEXEC" -n 4 "$demo" "$files/ompio.dat"
fi
echo
echo "== The same program, 4 ranks, through ROMIO's ufs driver:"
"$build/scripts/edonio-run" --fs=ufs "$MPIEXEC" -n 4 "$demo" "$files/ufs.dat"
echo
echo "== ... and through edonio (EDONIO_STATS shows what edonio did with the file):"
EDONIO_STATS="$files/stats.log" "$build/scripts/edonio-run" "$MPIEXEC" -n 4 "$demo" \
    "$files/edonio.dat"
cat "$files/stats.log"
echo
status=0
for other in "$files"/ufs.dat "$files"/ompio.dat; do
    [ -f "$other" ] || continue
    if cmp -s "$other" "$files/edonio.dat"; then
        echo "edonio.dat and $(basename "$other") are identical ($(stat -c %s "$other") bytes)."
    else
        echo "edonio.dat and $(basename "$other") differ!"
        status=1
    fi
done
exit $status
