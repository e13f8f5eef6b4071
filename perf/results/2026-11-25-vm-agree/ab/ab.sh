#!/bin/bash
# A/B of the agreement's collective (2e211d4): ufs, the library at 4fd3145 (old.so: one
# MPI_Allreduce per agreement) and at 2e211d4 (new.so: an allgather up to 16 processes), in turn,
# REPS times, 2 ranks bound to the 2 cores; prints medians of ufs time / edonio time. NODES=2:
# on 2 simulated nodes (MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1), raw lines in raw-nodes.txt.
#   REPS=11 OLD=/tmp/old.so NEW=/tmp/new.so IOBENCH=/tmp/iobench DIR=/tmp/d bash ab.sh [iobench args]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${REPS:=11}" "${NODES:=1}" "${OLD:=/tmp/old.so}" "${NEW:=/tmp/new.so}" "${IOBENCH:=/tmp/iobench}" "${DIR:=/tmp/d}"
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-c contig-coll -s 16m -t 4k)
mkdir -p "$DIR"
out="$here/raw.txt"
nodes=()
if [ "$NODES" -gt 1 ]; then
    out="$here/raw-nodes.txt"
    nodes=(MPIR_CVAR_NUM_CLIQUES="$NODES" MPIR_CVAR_NOLOCAL=1)
fi
: >"$out"
for r in $(seq "$REPS"); do
    for v in ufs old new; do
        lib=$NEW f=edonio
        [ "$v" = old ] && lib=$OLD
        [ "$v" = ufs ] && f=ufs
        env LD_PRELOAD="$lib" "${nodes[@]}" mpiexec -bind-to core -n 2 "$IOBENCH" -f "$f" -d "$DIR" "${args[@]}" |
            grep RESULT | sed "s/^/$v /" >>"$out"
    done
done
python3 - "$out" <<'PY'
import statistics as S, sys
d = {}
for line in open(sys.argv[1]):
    v = line.split()[0]
    kv = dict(x.split('=', 1) for x in line.split()[2:] if '=' in x)
    d.setdefault(v, []).append((float(kv['t_write']), float(kv['t_read'])))
uw = S.median(x[0] for x in d['ufs']); ur = S.median(x[1] for x in d['ufs'])
for v, xs in d.items():
    w = S.median(x[0] for x in xs); r = S.median(x[1] for x in xs)
    print('%-4s write %.4f s read %.4f s  ufs/this write %.3f read %.3f (n=%d)' % (v, w, r, uw / w, ur / r, len(xs)))
PY
