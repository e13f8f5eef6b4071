#!/usr/bin/env bash
# The A/B of romio_edonio_write_back=auto (exact on this local disk: no span write-backs, no
# byte-range lock on any write) against the library before it (spans and a lock on every write of
# the cache), with ufs beside both: perf/ab, library at OLD and at NEW, results here.
#   OLD=/tmp/head.so NEW=/tmp/exact.so bash perf/results/2026-11-25-vm-exact/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ab=("$here/../../ab" --old "$OLD" --new "$NEW" --out "$here")
rm -f "$here/raw.txt" "$here/medians.txt"
# the IOR-like independent rows (perf/run --cases ior): the writes of 16 KiB and more pass
for t in 4k 47008 64k 1m 4m; do
    "${ab[@]}" --reps 31 -- -c contig -s 16m -t "$t"
done
"${ab[@]}" --reps 31 -- -c contig -s 16m -t 32k
"${ab[@]}" --reps 21 -- -c contig-coll -s 16m -t 64k
# small interleaved records: the write-backs that spans served
"${ab[@]}" --reps 21 -- -c strided -s 1m -r 1k
"${ab[@]}" --reps 11 --np 4 -- -c strided -s 1m -r 1k
"${ab[@]}" --reps 11 --np 4 --demo
"${ab[@]}" --reps 11 -- -c records -s 64000000 -r 3200 -k 1
"${ab[@]}" --reps 11 --np 4 -- -c records -s 64000000 -r 3200 -k 1
# across 2 simulated nodes
"${ab[@]}" --reps 11 --nodes 2 -- -c contig -s 16m -t 64k
"${ab[@]}" --reps 11 --nodes 2 -- -c strided -s 1m -r 1k
