#!/usr/bin/env bash
# perf/run's 64 KiB independent ior row by hand: REPS pairs (ufs, then edonio), unbound, each file
# removed after its run; appends the RESULT lines, prefixed with LABEL, to OUT. From the
# repository's top directory: REPS=61 bash perf/results/2026-11-26-vm-noise/by-hand.sh rm61 OUT
set -euo pipefail
label=$1 out=$2
d=$(mktemp -d /tmp/edonio-byhand.XXXXXX)
mpicc -std=c11 -O2 -o "$d/iobench" perf/cases/iobench.c
lib=$PWD/_build/.libs/libedonio.so
for _ in $(seq "${REPS:-11}"); do
    for drv in ufs edonio; do
        env LD_PRELOAD="$lib" timeout 900 mpiexec -n 2 "$d/iobench" -f "$drv" -d "$d" -c contig \
            -s 16m -t 64k >"$d/rlog" 2>&1
        grep -m1 RESULT "$d/rlog" | sed "s/^/$label /" >>"$out"
        rm -f "$d"/iobench.*
    done
done
rm -rf "$d"
