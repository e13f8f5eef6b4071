#!/usr/bin/env bash
# The ADIO paper's Programs I and II (perf/legacy/progs.c) in three forms -- direct POSIX, the
# PFS-style API through ADIO, MPI-IO through ADIO -- with ADIO on ufs and on edonio; prints the
# table (median of REPS runs, seconds of the slowest process) with each ADIO form's overhead
# against the direct calls, and writes it as CSV.
#
#   perf/legacy/run.sh --builddir DIR [--workdir DIR] [--np N] [--reps R] [--csv FILE]
#
# Environment: MPICC, MPIEXEC (default mpicc.mpich, mpiexec.mpich: scripts/mpi-names.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/mpi-names.sh disable=SC1091
. "$here/../../scripts/mpi-names.sh"
builddir="" work="" np=4 reps=3 csv=""
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --workdir) work=$2; shift 2 ;;
        --np) np=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --csv) csv=$2; shift 2 ;;
        *) echo "usage: $0 --builddir DIR [--workdir DIR] [--np N] [--reps R] [--csv FILE]" >&2
           exit 2 ;;
    esac
done
libdir=$(realpath "$builddir/.libs")
work=${work:-$(mktemp -d)}
mkdir -p "$work/data"
csv=${csv:-$work/legacy-perf.csv}
"$MPICC" -std=c11 -O2 -Wall -Wextra -Werror -I"$here/../../include" -o "$work/progs" \
    "$here/progs.c" -L"$libdir" -ledonio -Wl,-rpath,"$libdir"

# median PROG FORM FS: the median of reps runs' seconds.
median() {
    local prog=$1 form=$2 fs=$3 r
    for r in $(seq "$reps"); do
        rm -f "$work/data/"prog*
        ROMIO_FSTYPE_FORCE=$fs: "$MPIEXEC" -n "$np" "$work/progs" "$prog" "$form" "$work/data" |
            awk '/^seconds/{print $2}'
    done | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'
}

echo "program,fs,posix_s,pfs_adio_s,pfs_ovhd_pct,mpiio_adio_s,mpiio_ovhd_pct" >"$csv"
printf '%-10s %-7s %10s %12s %8s %12s %8s\n' program fs direct "PFS->ADIO" ovhd "MPI-IO->ADIO" ovhd
for prog in 1 2; do
    direct=$(median "$prog" posix ufs)
    for fs in ufs edonio; do
        pfs=$(median "$prog" pfs "$fs")
        mpiio=$(median "$prog" mpiio "$fs")
        po=$(awk -v a="$pfs" -v d="$direct" 'BEGIN{printf "%.1f", (a-d)/d*100}')
        mo=$(awk -v a="$mpiio" -v d="$direct" 'BEGIN{printf "%.1f", (a-d)/d*100}')
        name=$([ "$prog" = 1 ] && echo "I" || echo "II")
        printf '%-10s %-7s %10.4f %12.4f %7s%% %12.4f %7s%%\n' "Program $name" "$fs" "$direct" \
            "$pfs" "$po" "$mpiio" "$mo"
        echo "$name,$fs,$direct,$pfs,$po,$mpiio,$mo" >>"$csv"
    done
done
echo "np=$np, 1 MB per process, 10 write+read rounds, median of $reps; CSV: $csv"
