#!/bin/bash
# femab OLD NEW REPS: fem 64^3 4 ranks 2 nodes, ufs/old/new alternating; prints medians of write/read
old=$1 new=$2 reps=$3
out=/tmp/s/femab.csv; rm -f $out
for r in $(seq $reps); do
 for v in ufs old new; do
  lib=$old; drv=edonio; [ $v = new ] && lib=$new; [ $v = ufs ] && drv=ufs
  rm -f /tmp/s/d/fem.*
  rm -f /tmp/s/fem1.csv; LD_PRELOAD=$lib MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_NOLOCAL=1 mpiexec -n 4 /tmp/s/fem -x 64 -y 64 -z 64 -d /tmp/s/d -f $drv --csv /tmp/s/fem1.csv >/dev/null 2>&1 || echo FAIL $v
  awk -F, -v v=$v 'END{printf "%s,%.6f,%.6f,%.6f\n", v, $11+$12+$13, $14+$15+$16+$17, $13}' /tmp/s/fem1.csv >> $out
 done
done
python3 - <<'PY'
import statistics as S
rows=[l.strip().split(',') for l in open('/tmp/s/femab.csv')]
d={}
for v,w,r,c in rows: d.setdefault(v,[]).append((float(w),float(r),float(c)))
u=d['ufs']
for v in ('old','new'):
  w=S.median(x[0] for x in d[v]); r=S.median(x[1] for x in d[v])
  print(v, "write %.4f read %.4f ufs/this write %.3f read %.3f close %.4f n=%d"%(w,r,S.median(x[0] for x in u)/w,S.median(x[1] for x in u)/r,S.median(x[2] for x in d[v]),len(d[v])))
PY
