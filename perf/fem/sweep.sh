#!/usr/bin/env bash
# The sweeps of the EDONIO report's tables 5.1-5.5 with the fem benchmark, one CSV file per sweep.
#
#   EDONIO_LIB=/path/to/libedonio.so perf/fem/sweep.sh [options] [cache] [preload] [procs]
#
#   cache     table 5.1: edonio cache size (5 sizes), preload on, one ufs baseline; 200x200x200
#   preload   table 5.2: edonio with preload (as a phase, and at open), without, and ufs; 121x121x91
#   procs     tables 5.3-5.5: 1, 2, 4, 8 ranks, 4096 KiB cache per rank, preload on, both drivers;
#             100x100x100, 200x200x200 and 300x300x300
#   (no sweep named: all three)
#
# Options:
#   --out DIR     results: DIR/{cache,preload,procs}.csv and DIR/sweep.log (default ./fem-sweep)
#   --dir DIR     where the data files go (default: data/ under --out); emptied after each run
#   --np N        ranks for the cache and preload sweeps (default 4)
#   --nps LIST    rank counts for the procs sweep (default "1 2 4 8")
#   --grids LIST  grids for the procs sweep, e.g. "100x100x100 200x200x200"
#   --reps N      repetitions per run, averaged in the tables, one CSV row each (default 3)
#   --quick       small grids and "1 2 4" ranks: checks the sweep itself in about 20 seconds
#   --fem BIN     use this fem binary instead of building perf/fem/fem.c with $MPICC
#
# Environment: MPICC, MPIEXEC (default mpicc.mpich, mpiexec.mpich: scripts/mpi-names.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${EDONIO_LIB:?set EDONIO_LIB to the libedonio.so to measure}"
# shellcheck source=SCRIPTDIR/../../scripts/mpi-names.sh disable=SC1091
. "$here/../../scripts/mpi-names.sh"

out=./fem-sweep
data=""
np=4
nps="1 2 4 8"
grids=""
reps=3
quick=0
fem=""
sweeps=()

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
        --out) out=$2; shift 2 ;;
        --dir) data=$2; shift 2 ;;
        --np) np=$2; shift 2 ;;
        --nps) nps=$2; shift 2 ;;
        --grids) grids=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --fem) fem=$2; shift 2 ;;
        cache | preload | procs) sweeps+=("$1"); shift ;;
        *) usage ;;
    esac
done
[ ${#sweeps[@]} -gt 0 ] || sweeps=(cache preload procs)
data=${data:-$out/data}
mkdir -p "$out" "$data"
out=$(cd "$out" && pwd)
data=$(cd "$data" && pwd)
log="$out/sweep.log"

# The report's grids, or small ones that keep their shapes for --quick.
if [ "$quick" -eq 1 ]; then
    cache_grid=40x40x40 preload_grid=30x30x23
    grids=${grids:-"24x24x24 40x40x40"} nps="1 2 4"
else
    cache_grid=200x200x200 preload_grid=121x121x91
    grids=${grids:-"100x100x100 200x200x200 300x300x300"}
fi

if [ -z "$fem" ]; then
    fem="$out/fem"
    "$MPICC" -std=c11 -O2 -Wall -Wextra -o "$fem" "$here/fem.c"
fi

grid_opts() { # 200x100x50 -> -x 200 -y 100 -z 50
    local IFS=x
    read -r gx gy gz <<<"$1"
    echo "-x $gx -y $gy -z $gz"
}

grid_bytes() {
    local IFS=x
    read -r gx gy gz <<<"$1"
    echo $((gx * gy * gz * 32))
}

# run_fem NP CSV GRID FEM-OPTIONS...: one run, its table to the log and the terminal.
run_fem() {
    local n=$1 csv=$2 grid=$3
    shift 3
    echo "== mpiexec -n $n fem $(grid_opts "$grid") $*" | tee -a "$log"
    # shellcheck disable=SC2046 # grid_opts is meant to split
    env LD_PRELOAD="$EDONIO_LIB" "$MPIEXEC" -n "$n" "$fem" $(grid_opts "$grid") -d "$data" \
        -r "$reps" --csv "$csv" "$@" 2>&1 | tee -a "$log"
    rm -f "$data"/fem.*.dat
}

# Per-rank cache size that gives NP ranks the same aggregate cache, relative to the file, as
# NODES Paragon nodes with KB KiB each had for the report's FILE-byte file.
scaled_cache() {
    local kb=$1 nodes=$2 report_file=$3 grid=$4 n=$5
    echo $((kb * 1024 * nodes * $(grid_bytes "$grid") / report_file / n))
}

# Table 5.1: 22 nodes, 1024-12288 KiB of disk cache each, 200x200x200 (256e6 bytes), preload on.
sweep_cache() {
    local csv="$out/cache.csv" kb
    for kb in 1024 2048 4096 8192 12288; do
        run_fem "$np" "$csv" "$cache_grid" -f edonio -P \
            -c "$(scaled_cache "$kb" 22 256000000 "$cache_grid" "$np")"
    done
    run_fem "$np" "$csv" "$cache_grid" -f ufs
}

# Table 5.2: 16 nodes, default 4096 KiB cache each, 121x121x91 (42,634,592 bytes); with and
# without preload, and the native file system.
sweep_preload() {
    local csv="$out/preload.csv" c
    c=$(scaled_cache 4096 16 42634592 "$preload_grid" "$np")
    run_fem "$np" "$csv" "$preload_grid" -f edonio -P -c "$c"
    run_fem "$np" "$csv" "$preload_grid" -f edonio -p -c "$c"
    run_fem "$np" "$csv" "$preload_grid" -f edonio,ufs -c "$c"
}

# Tables 5.3-5.5: 4096 KiB of cache per rank and preload on, so that the aggregate cache grows
# with the rank count as on the Paragon.
sweep_procs() {
    local csv="$out/procs.csv" grid n
    for grid in $grids; do
        for n in $nps; do
            run_fem "$n" "$csv" "$grid" -f edonio,ufs -P -c 4096k
        done
    done
}

for s in "${sweeps[@]}"; do
    "sweep_$s"
done
echo "results: ${sweeps[*]/%/.csv} in $out (log $log)"
