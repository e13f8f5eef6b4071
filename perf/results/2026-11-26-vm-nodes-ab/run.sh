#!/usr/bin/env bash
# A/B on 2 simulated nodes, 4 ranks (MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1, no async
# progress): the library of b218300 (old) against 09075a1 (new: the cgroup-aware memory bound, the
# only library change of the stop), 11 rounds each, strided and the quickstart demo. From the
# repository's top directory, with the two libraries copied to /tmp/base.so and /tmp/final.so:
set -euo pipefail
out=perf/results/2026-11-26-vm-nodes-ab
perf/ab --old /tmp/base.so --new /tmp/final.so --out "$out" --np 4 --nodes 2 --reps 11 -- \
    -c strided -s 1m -r 1k
perf/ab --old /tmp/base.so --new /tmp/final.so --out "$out" --np 4 --nodes 2 --reps 11 --demo
