#!/usr/bin/env bash
# The A/B of dropping a block made whole once it is written at once (read_fill=none, auto on this
# local disk) against keeping it cached, clean: perf/ab, ufs and the library at OLD (d0f1b4c) and
# NEW (12768c0) in turn, results here.
#   OLD=/tmp/exact.so NEW=/tmp/drop.so bash perf/results/2026-11-25-vm-drop/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ab=("$here/../../ab" --old "$OLD" --new "$NEW" --out "$here")
rm -f "$here/raw.txt" "$here/medians.txt" "$here/ab.csv"
for t in 4k 47008 64k; do
    "${ab[@]}" --reps 21 -- -c contig -s 16m -t "$t"
done
"${ab[@]}" --reps 21 -- -c contig-coll -s 16m -t 4k
"${ab[@]}" --reps 21 -- -c strided -s 1m -r 1k
"${ab[@]}" --reps 11 -- -c reread -s 32m -k 5
"${ab[@]}" --reps 21 -- -c records -s 64000000 -r 3200 -k 1
"${ab[@]}" --reps 11 -- -c records -s 64000000 -r 3200 -k 2
"${ab[@]}" --reps 11 --np 4 -- -c records -s 64000000 -r 3200 -k 1
"${ab[@]}" --reps 11 --np 4 -- -c contig -s 16m -t 4k
"${ab[@]}" --reps 11 --np 4 --demo
