#!/bin/bash
# A/B: ufs, edonio old, edonio new; prints raw lines "case np drv rep tw tr"
reps=${REPS:-7}
run() { # label so drv args...
  local label=$1 so=$2 drv=$3 n=$4; shift 4
  local out; rm -f /tmp/ab/fem.csv
  out=$(LD_PRELOAD=$so mpiexec -n $n "$@" -f $drv 2>&1)
  if [[ "$out" == *RESULT* ]]; then
    echo "$out" | grep RESULT | sed -n 's/.*t_write=\([0-9.]*\) t_read=\([0-9.]*\).*/\1 \2/p' | sed "s/^/$CASE $n $label /"
  else
    awk -F, 'NR==2{print $11+$12+$13, $14+$15+$16+$17}' /tmp/ab/fem.csv | sed "s/^/$CASE $n $label /"
  fi
}
for n in ${NPS:-2 4}; do for i in $(seq $reps); do
  for c in "records1:/tmp/pb/iobench -d /tmp/pd -c records -s 64000000 -r 3200 -k 1" \
           "records2:/tmp/pb/iobench -d /tmp/pd -c records -s 64000000 -r 3200 -k 2" \
           "contig4k:/tmp/pb/iobench -d /tmp/pd -c contig -s 16m -t 4k" \
           "ior47008:/tmp/pb/iobench -d /tmp/pd -c contig -s 16m -t 47008" \
           "fem:/tmp/pb/fem -x 64 -y 64 -z 64 -d /tmp/pd --csv /tmp/ab/fem.csv"; do
    CASE=${c%%:*}; cmd=${c#*:}
    run ufs /tmp/old.so ufs $n $cmd
    run old /tmp/old.so edonio $n $cmd
    run new /tmp/new.so edonio $n $cmd
  done
done; done
