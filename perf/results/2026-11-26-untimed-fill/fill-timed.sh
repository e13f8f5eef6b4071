#!/usr/bin/env bash
# The warm case (iobench records, 2 passes in one job) with the library under test, through the
# iobench that times making and checking the data (before 434ab4c) and the one that does not, ufs
# and edonio alternating: REPS rounds. Prints one line per run; fill-timed.txt is its output.
#   bash fill-timed.sh LIB REPS NP
set -eu
lib=$1 reps=${2:-11} np=${3:-2}
top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
git -C "$top" show 434ab4c^:perf/cases/iobench.c >"$tmp/timed.c"
cp "$top/perf/cases/iobench.c" "$tmp/untimed.c"
for v in timed untimed; do mpicc -std=c11 -O2 -o "$tmp/$v" "$tmp/$v.c"; done
mkdir -p "$tmp/d"
for rep in $(seq "$reps"); do
    for v in timed untimed; do
        drvs="ufs edonio"; [ $((rep % 2)) = 0 ] && drvs="edonio ufs"
        for drv in $drvs; do
            out=$(LD_PRELOAD=$lib mpiexec -n "$np" "$tmp/$v" -f "$drv" -d "$tmp/d" -c records \
                  -s 64000000 -r 3200 -k 2 | grep '^RESULT')
            echo "rep=$rep iobench=$v $out"
        done
    done
done
rm -rf "$tmp"
