import sys,re,statistics as s,random
rows=[l.split(' ',2) for l in open(sys.argv[1])]
def get(b,d,k): return [float(re.search(k+r'=([\d.]+)',r[2]).group(1)) for r in rows if r[0]==b and r[1]==d]
def boot(x):
    random.seed(1); m=sorted(s.median(random.choices(x,k=len(x))) for _ in range(2000)); return m[100],m[1899]
for b in ['old','new']:
    for k in ['t_write','t_read']:
        u=get(b,'ufs',k); e=get(b,'edonio',k); pr=[a/c for a,c in zip(u,e)]
        lo,hi=boot(pr)
        print("%s iobench %-7s ufs %.4f [%.4f-%.4f] edonio %.4f [%.4f-%.4f] pair %.2f [%.2f-%.2f]"%(b,k,s.median(u),min(u),max(u),s.median(e),min(e),max(e),s.median(pr),lo,hi))
