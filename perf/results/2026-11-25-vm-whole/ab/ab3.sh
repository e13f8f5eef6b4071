#!/bin/bash
for i in $(seq ${REPS:-9}); do for n in 2 4; do
  for lab in ufs old new; do
    so=/tmp/new.so; drv=edonio; [ $lab = old ] && so=/tmp/old.so; [ $lab = ufs ] && drv=ufs
    LD_PRELOAD=$so mpiexec -n $n /tmp/pb/iobench -d /tmp/pd -c strided -s 1m -r 1k -f $drv 2>&1 | grep RESULT | sed -n 's/.*t_write=\([0-9.]*\) t_read=\([0-9.]*\).*t_wopen=\([0-9.]*\) t_wclose=\([0-9.]*\) t_ropen=\([0-9.]*\) t_rclose=\([0-9.]*\).*/\1 \2 \3 \4 \5 \6/p' | sed "s/^/strided $n $lab /"
  done
done; done
