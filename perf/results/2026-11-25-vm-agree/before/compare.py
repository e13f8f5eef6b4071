"""Medians of ufs time / edonio time per row of two perf/run results.csv files, side by side:
    python3 compare.py before/results.csv results.csv
(the first is the run at 4fd3145, stopped during its 4-rank ior rows; the second the run at
08e650c)."""
import csv,statistics as S,sys
def load(p):
    d={}
    for r in csv.DictReader(open(p)):
        d.setdefault((r['case'],r['fs'],r['nprocs']),{}).setdefault(r['driver'],[]).append(r)
    out={}
    for k,v in d.items():
        if 'ufs' in v and 'edonio' in v:
            m=lambda xs,f: S.median([float(x[f]) for x in xs if x[f]])
            w=m(v['ufs'],'t_write')/m(v['edonio'],'t_write')
            try: rd=m(v['ufs'],'t_read')/m(v['edonio'],'t_read')
            except Exception: rd=float('nan')
            out[k]=(w,rd,len(v['edonio']))
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
for k in b:
    x=a.get(k)
    print('%-16s %-8s np=%s  before %s  after w %.2f r %.2f (n=%d)'%(k[0],k[1],k[2], 'w %.2f r %.2f'%x[:2] if x else '   -      ', *b[k]))
