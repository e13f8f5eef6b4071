import sys, statistics as S, collections as C
d=C.defaultdict(list)
for l in open(sys.argv[1]):
    p=l.split()
    if len(p)==5: d[(p[0],p[1],p[2])].append((float(p[3]),float(p[4])))
keys=sorted({(k[0],k[1]) for k in d})
print("case np  | ufs w/r | old w/r | new w/r | ufs/old w r | ufs/new w r")
for c,n in keys:
    m={x:(S.median(v[0] for v in d[(c,n,x)]),S.median(v[1] for v in d[(c,n,x)])) for x in ("ufs","old","new") if (c,n,x) in d}
    if len(m)<3: continue
    u,o,w=m["ufs"],m["old"],m["new"]
    print(f"{c:9} {n} | {u[0]:.4f}/{u[1]:.4f} | {o[0]:.4f}/{o[1]:.4f} | {w[0]:.4f}/{w[1]:.4f} | {u[0]/o[0]:.2f} {u[1]/o[1]:.2f} | {u[0]/w[0]:.2f} {u[1]/w[1]:.2f}  (n={len(d[(c,n,'new')])})")
