#!/bin/bash
# cmp.sh ROUNDS T: 2 ranks, contig -s 16m -t T; per round: old iobench (ufs, edonio), new iobench (ufs, edonio); order flipped each round
# iobench-old: perf/cases/iobench.c at 4004a60 (fill and verify per transfer, subtracted); iobench-new: at bf87281
#   LIB=.../libedonio.so BIN=... DIR=... bash cmp.sh 15 1m > cmp-1m.txt; python3 cmp.py cmp-1m.txt
lib=${LIB:?path of libedonio.so}
for i in $(seq $1); do
  for b in old new; do
    order="ufs edonio"; [ $((i % 2)) = 0 ] && order="edonio ufs"
    for d in $order; do
      echo "$b $d $(LD_PRELOAD=$lib mpiexec -n 2 ${BIN:?directory of iobench-old and iobench-new}/iobench-$b -c contig -f $d -d "${DIR:?scratch directory}" -s 16m -t $2 | grep RESULT)"
    done
  done
done
