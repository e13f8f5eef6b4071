#!/usr/bin/env bash
# perf/run's ior sequence by hand (the same iobench, library and order: for each repetition, each
# transfer size, independent then collective, ufs then edonio, unbound, each file deleted after its
# run), to tell edonio's path from the harness: perf/run gave the 64 KiB independent row 0.74-0.82
# (write) in two runs, this sequence 0.99 (medians.txt). Run from the repository's top directory
# after a build: bash perf/results/2026-11-25-vm-drop11/by-hand/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
d=$(mktemp -d /tmp/edonio-seq.XXXXXX)
mpicc -std=c11 -O2 -o "$d/iobench" perf/cases/iobench.c
: >"$here/raw.txt"
for _ in $(seq 11); do
    for t in 4k 47008 64k 1m 4m; do
        for c in contig contig-coll; do
            for f in ufs edonio; do
                LD_PRELOAD=$PWD/_build/.libs/libedonio.so timeout 900 mpiexec -n 2 "$d/iobench" \
                    -f "$f" -d "$d" -c "$c" -s 16m -t "$t" | grep RESULT | sed "s/^/$c-$t /" \
                    >>"$here/raw.txt"
                rm -f "$d"/iobench.*
            done
        done
    done
done
rm -rf "$d"
python3 - "$here/raw.txt" <<'PY' | tee "$here/medians.txt"
import statistics as S, sys
d = {}
for line in open(sys.argv[1]):
    p = line.split()
    kv = dict(x.split('=', 1) for x in p[2:] if '=' in x)
    d.setdefault((p[0], kv['driver']), []).append((float(kv['t_write']), float(kv['t_read'])))
for k in sorted({k[0] for k in d}):
    u, e = d[(k, 'ufs')], d[(k, 'edonio')]
    print('%-18s ufs/edonio write %.2f read %.2f (n=%d)' % (k, S.median(x[0] for x in u) /
          S.median(x[0] for x in e), S.median(x[1] for x in u) / S.median(x[1] for x in e), len(e)))
PY
