#!/usr/bin/env bash
# The first MPI_File_open of a process (../2026-11-27-affinity/first-open.c: open, close, open
# again; microseconds on each rank), NP ranks (default 2), the library before and after a change
# alternating, REPS rounds.
#   bash run.sh OLD.so NEW.so REPS [NP] > first-open.txt; python3 an.py first-open.txt
set -eu
old=$1 new=$2 reps=${3:-21} np=${4:-2}
tmp=$(mktemp -d)
mpicc -O2 -o "$tmp/first-open" "$(dirname "$0")/../2026-11-27-affinity/first-open.c"
for i in $(seq "$reps"); do
    for v in old new; do
        lib=$old; [ "$v" = new ] && lib=$new
        LD_PRELOAD=$lib mpiexec -n "$np" "$tmp/first-open" "edonio:$tmp/f.$v" | sed "s/^/$v round=$i /"
        LD_PRELOAD=$lib mpiexec -n "$np" "$tmp/first-open" "ufs:$tmp/f.u" | sed "s/^/ufs-$v round=$i /"
    done
done
rm -rf "$tmp"
