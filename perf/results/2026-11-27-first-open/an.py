import sys,re,statistics as s
from collections import defaultdict
d=defaultdict(lambda: defaultdict(list))  # variant -> round -> values(open1 over ranks)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) round=(\d+) OC rank=(\d+) open1=(\d+) close1=(\d+) open2=(\d+)',l)
    if m: d[m[1]][int(m[2])].append((int(m[4]),int(m[6])))
def slow(v,i): return {r:max(x[i] for x in vals) for r,vals in d[v].items()}
for i,name in ((0,'first open'),(1,'second open')):
    print(name)
    for v in ['ufs-old','old','ufs-new','new']:
        print("  %-8s median %5.0f us"%(v,s.median(slow(v,i).values())))
    o,n=slow('old',i),slow('new',i); uo,un=slow('ufs-old',i),slow('ufs-new',i)
    print("  old-new round by round %.0f us; ufs-old - ufs-new %.0f us"%(s.median([o[r]-n[r] for r in o if r in n]),s.median([uo[r]-un[r] for r in uo if r in un])))
