#!/usr/bin/env bash
# What makes perf/run's short IOR-like rows noisy on this VM (perf/README.md, "Noise"). From the
# repository's top directory after a build: bash perf/results/2026-11-26-vm-noise/run.sh
#  spells.txt   one driver (ufs) only, the 64 KiB ior job (16 MiB per rank) 30 times in a row at 1
#               and at 2 ranks: write times in ms
#  percall.txt  the steady cost of one call, ufs and edonio, the file open and its pages cached
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$PWD/_build/.libs/libedonio.so
d=$(mktemp -d /tmp/edonio-noise.XXXXXX)
mpicc -std=c11 -O2 -o "$d/iobench" perf/cases/iobench.c
mpicc -std=c11 -O2 -Wall -Wextra -o "$d/percall" "$here/percall.c"
: >"$here/spells.txt"
for np in 1 2; do
    printf 'np %d:' "$np" >>"$here/spells.txt"
    for _ in $(seq 30); do
        t=$(mpiexec -n "$np" "$d/iobench" -f ufs -d "$d" -c contig -s 16m -t 64k |
            sed -n 's/.*t_write=\([^ ]*\) .*/\1/p')
        printf ' %.1f' "$(echo "$t * 1000" | bc -l)" >>"$here/spells.txt"
    done
    echo >>"$here/spells.txt"
done
: >"$here/percall.txt"
for x in 65536 47008 4096; do
    for f in ufs edonio ufs edonio; do
        rm -f "$d"/pc.*
        LD_PRELOAD=$lib mpiexec -n 2 "$d/percall" "$f" "$x" "$d" >>"$here/percall.txt"
    done
done
rm -rf "$d"
cat "$here/spells.txt" "$here/percall.txt"
