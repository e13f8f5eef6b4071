#!/bin/bash
# The cost per call of requests that pass the cache, ufs against two edonio libraries (before and
# after the change under test), alternating, on a file in the page cache:
#   run.sh OLD.so NEW.so DIR [REPS]
# Prints CSV: lib,driver,np,xfer,op,best_ns,mean_ns (best: the best round of 300).
set -euo pipefail
old=$1 new=$2 dir=$3 reps=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
mpicc -O2 -o "$dir/depth" "$here/depth.c"
echo "lib,driver,np,xfer,op,best_ns,mean_ns"
for np in 1 2; do
    for xfer in 2048 65536; do
        rm -f "$dir/depth.dat"
        head -c $((4096 * xfer)) /dev/urandom >"$dir/depth.dat"
        for op in r w; do
            for rep in $(seq "$reps"); do
                for lib in old new ufs; do
                    so=$old drv=edonio
                    [ $lib = new ] && so=$new
                    [ $lib = ufs ] && drv=ufs
                    echo -n "$lib,"
                    LD_PRELOAD=$so mpiexec -n "$np" "$dir/depth" $drv "$dir/depth.dat" "$xfer" $op 300
                done
            done
        done
    done
done
rm -f "$dir/depth.dat" "$dir/depth"
