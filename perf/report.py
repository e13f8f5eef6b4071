#!/usr/bin/python3
"""Summarises a perf/run results directory: prints the ufs-vs-edonio table and the targets, and
draws the PNG plots (when matplotlib is there); keeps the long-form history of runs.

    /usr/bin/python3 perf/report.py RESULTS_DIR
    /usr/bin/python3 perf/report.py --history HISTORY.csv RESULTS_DIR...
        appends each RESULTS_DIR's rows to HISTORY.csv (one per case, file system, simulated
        nodes, ranks and phase: date, commit, machine, medians of ufs and edonio, their ratio)
        and redraws HISTORY.png beside it (perf/run does this at the end of every run)
    /usr/bin/python3 perf/report.py --history-plot HISTORY.csv
        only redraws HISTORY.png: the headline ratios over the runs, labelled by commit
"""
import csv
import os
import random
import sys
from collections import OrderedDict, defaultdict


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def median(vals):
    """The median: on this oversubscribed machine a run in five can take twice the others'."""
    vals = sorted(v for v in vals if v is not None)
    n = len(vals)
    if n == 0:
        return None
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def base_case(case):
    """The ufs case an edonio case is compared with."""
    for suffix in ("-preload", "-locking", "-graph_coloring", "-rank_order"):
        if case.endswith(suffix):
            return case[: -len(suffix)]
    return case


def size_key(params):
    return params.split(" ")[0]


def aggregate(rows):
    """Median over repetitions per (case, fs, nprocs, driver, params)."""
    groups = OrderedDict()
    for r in rows:
        k = (r["case"], r["fs"], r["nprocs"], r["driver"], r["params"])
        groups.setdefault(k, []).append(r)
    out = []
    for (case, fs, n, drv, params), rs in groups.items():
        a = {"case": case, "fs": fs, "nprocs": int(n), "driver": drv, "params": params,
             "reps": len(rs), "errors": ";".join(sorted({r["errors"] for r in rs}))}
        for k in ("t_write", "t_read", "bytes_written", "bytes_read", "pfs_writes", "pfs_reads",
                  "pfs_meta", "pfs_write_bytes", "pfs_read_bytes", "edonio_fs_writes",
                  "edonio_fs_reads", "t_wopen", "t_wclose", "t_ropen", "t_rclose"):
            a[k] = median(num(r.get(k)) for r in rs)
        out.append(a)
    return out


def pairs(agg):
    ufs = {}
    for a in agg:
        if a["driver"] == "ufs":
            ufs[(a["case"], a["fs"], a["nprocs"], size_key(a["params"]))] = a
    for a in agg:
        if a["driver"] in ("ufs", "ompio"):  # OMPIO has a table of its own
            continue
        u = ufs.get((base_case(a["case"]), a["fs"], a["nprocs"], size_key(a["params"])))
        if u is None and a["case"].startswith("t5.1"):  # table 5.1: one ufs baseline
            u = ufs.get((a["case"], a["fs"], a["nprocs"], size_key(a["params"])))
        yield u, a


def ratio(u, e):
    return u / e if u and e else None


def fmt_t(v):
    return "-" if v is None else ("%.3f" % v if v < 100 else "%.0f" % v)


def fmt_r(v):
    return "-" if v is None else "%.2f" % v


def ops(a):
    """File-system operations of a run: the emulator's counts, else edonio's own."""
    if a is None:
        return "-"
    if a["pfs_writes"] is not None:
        return "%d/%d" % (a["pfs_writes"], a["pfs_reads"])
    if a["edonio_fs_writes"] is not None:
        return "%d/%d*" % (a["edonio_fs_writes"], a["edonio_fs_reads"])
    return "n/a"


def limits_of(d):
    lim = {}
    p = os.path.join(d, "limits.csv")
    if os.path.exists(p):
        for r in load(p):
            lim[r["what"]] = num(r["value_MBps"])
    return lim


def print_columns(hdr, rows):
    """A header, a rule and the rows: the first four columns left-aligned, the others right."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(hdr)]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, hdr))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(("%-*s" if i < 4 else "%*s") % (w, c)
                        for i, (w, c) in enumerate(zip(widths, r))))


def print_table(agg):
    hdr = ("case", "fs", "np", "params", "ufs wr s", "edo wr s", "ufs/edo", "ufs rd s",
           "edo rd s", "ufs/edo", "ufs ops w/r", "edo ops w/r")
    rows = []
    for u, e in pairs(agg):
        rows.append((e["case"], e["fs"], str(e["nprocs"]), e["params"][:34],
                     fmt_t(u and u["t_write"]), fmt_t(e["t_write"]),
                     fmt_r(ratio(u and u["t_write"], e["t_write"])),
                     fmt_t(u and u["t_read"]), fmt_t(e["t_read"]),
                     fmt_r(ratio(u and u["t_read"], e["t_read"])), ops(u), ops(e)))
    print_columns(hdr, rows)
    print("times: seconds, max over ranks, median over repetitions; wr = open+write+close "
          "(reread: the writes; atomic: the atomic write_all), rd = open+read+close (reread: the "
          "re-reads of the open file); ufs/edo above 1: edonio faster.")
    print("ops: write/read operations that reached the emulated PFS (pfs rows, both drivers) or, "
          "marked *, that edonio issued (local rows; ufs counts nothing there).")


def print_ompio(agg, rows):
    """perf/run --mpi openmpi: OMPIO, Open MPI's own MPI-IO, against edonio, and issue 42's
    targets (OMPIO time / edonio time: fem write+close on pfsemu at least 5 on one node and on 2
    simulated nodes, strided at least 2.5, the demo and the IOR rows on the local disk at least
    0.9)."""
    om = {(a["case"], a["fs"], a["nprocs"], a["params"]): a for a in agg if a["driver"] == "ompio"}
    if not om:
        return
    hdr = ("case", "fs", "np", "params", "ompio wr s", "edo wr s", "ompio/edo", "ompio rd s",
           "edo rd s", "ompio/edo")
    table = []
    for e in agg:
        o = om.get((e["case"], e["fs"], e["nprocs"], e["params"]))
        if e["driver"] != "edonio" or o is None:
            continue
        table.append((e["case"], e["fs"], str(e["nprocs"]), e["params"][:34],
                      fmt_t(o["t_write"]), fmt_t(e["t_write"]),
                      fmt_r(ratio(o["t_write"], e["t_write"])), fmt_t(o["t_read"]),
                      fmt_t(e["t_read"]), fmt_r(ratio(o["t_read"], e["t_read"]))))
    print()
    print("Over Open MPI: OMPIO (Open MPI's own MPI-IO) against edonio; ompio/edo above 1: "
          "edonio faster.")
    print_columns(hdr, table)
    print("Issue 42's targets against OMPIO:")
    for fs in ("pfs", "pfs+2n"):
        o, e = find(agg, "fem", fs, "ompio"), find(agg, "fem", fs, "edonio")
        if o and e:
            r = ratio(write_close(o), write_close(e))
            print("  fem write+close on %s: ompio/edonio %s (target >= 5: %s)"
                  % (fs, fmt_r(r), met(r is not None and r >= 5)))
        o, e = find(agg, "strided", fs, "ompio"), find(agg, "strided", fs, "edonio")
        if o and e:
            r = ratio(o["t_write"], e["t_write"])
            print("  strided write on %s: ompio/edonio %s (target >= 2.5: %s)"
                  % (fs, fmt_r(r), met(r is not None and r >= 2.5)))
    for e in agg:
        if e["driver"] != "edonio" or e["fs"] != "local" or \
                not (e["case"] == "demo" or e["case"].startswith("ior-")):
            continue
        o = om.get((e["case"], e["fs"], e["nprocs"], e["params"]))
        r = ratio(o and o["t_write"], e["t_write"])
        if r is not None:
            print("  %s np=%d %s: ompio/edonio write %s (target >= 0.9: %s)"
                  % (e["case"], e["nprocs"], e["params"][:24], fmt_r(r), met(r >= 0.9)))


def paired(rows, case, fs, nprocs, phase):
    """ufs time / edonio time of one phase, pair by pair: the two runs of one repetition ran one
    after the other (io_pair, fem_turns, the cold case), under the same state of the machine, which
    on this VM can double a run's time for seconds at a time, for both drivers (perf/README.md,
    "Noise"). Returns (median, low, high): the median of the pairs' ratios and its 90% bootstrap
    interval (2000 resamples, a fixed seed), or None with fewer than 5 pairs."""
    runs = defaultdict(dict)
    for r in rows:
        if r["case"] == case and r["fs"] == fs and int(r["nprocs"]) == nprocs:
            runs[(r["params"], r["rep"])][r["driver"]] = num(r.get(phase))
    rs = sorted(u / e for u, e in ((d.get("ufs"), d.get("edonio")) for d in runs.values())
                if u and e)
    if len(rs) < 5:
        return None
    rng = random.Random(13)
    meds = sorted(median(rng.choice(rs) for _ in rs) for _ in range(2000))
    return median(rs), meds[len(meds) // 20], meds[len(meds) - 1 - len(meds) // 20]


def fmt_p(p):
    return "-" if p is None else "%.2f [%.2f-%.2f]" % p


def find(agg, case, fs, driver, nprocs=None):
    for a in agg:
        if a["case"] == case and a["fs"] == fs and a["driver"] == driver and \
                (nprocs is None or a["nprocs"] == nprocs):
            return a
    return None


def met(ok):
    return "MET" if ok else "MISSED"


def write_close(a):
    """fem's write phase without its open: write + close."""
    return a["t_write"] - (a["t_wopen"] or 0) if a and a["t_write"] is not None else None


def both_phases(rows, u, e, case, fs, n):
    """ufs/edonio of the write and the read phase: the ratios of the medians, pair by pair
    (paired), and the one that decides (pair by pair where there are 5 pairs or more)."""
    rs = [ratio(u[ph], e[ph]) for ph in ("t_write", "t_read")]
    ps = [paired(rows, case, fs, n, ph) for ph in ("t_write", "t_read")]
    return rs, ps, [(p[0] if p else r) for p, r in zip(ps, rs)]


def print_node_targets(agg, rows):
    """Issue 11: the emulated PFS on 2 simulated nodes against ufs and against one node; issue
    13's records case: the cold first pass and 4 nodes against one."""
    u2, e2 = find(agg, "fem", "pfs+2n", "ufs"), find(agg, "fem", "pfs+2n", "edonio")
    e1 = find(agg, "fem", "pfs", "edonio")
    if u2 and e2:
        r = ratio(write_close(u2), write_close(e2))
        print("  fem write+close on emulated PFS, 2 simulated nodes: ufs %.3f s, edonio %.3f s, "
              "ufs/edonio %s (target >= 5: %s)" % (write_close(u2), write_close(e2), fmt_r(r),
                                                   met(r and r >= 5)))
        if e1:
            r1 = ratio(write_close(e2), write_close(e1))
            print("  fem write+close, edonio 2 nodes / 1 node: %s (target <= 1.5: %s)" % (
                fmt_r(r1), met(r1 and r1 <= 1.5)))
        rr = ratio(u2["t_read"], e2["t_read"])
        print("  fem read on emulated PFS, 2 simulated nodes: ufs/edonio %s (target >= 1.5: %s)"
              % (fmt_r(rr), met(rr and rr >= 1.5)))
        print("  fem write operations, 2 simulated nodes: edonio %d, one node %s (target: as on "
              "one node, 128 for 64^3)" % (e2["pfs_writes"] or 0,
                                          "%d" % e1["pfs_writes"] if e1 else "-"))
    u2, e2 = find(agg, "strided", "pfs+2n", "ufs"), find(agg, "strided", "pfs+2n", "edonio")
    if u2 and e2:
        r = ratio(u2["t_write"], e2["t_write"])
        print("  strided on emulated PFS, 2 simulated nodes: ufs/edonio %s (target >= 2.5: %s)"
              % (fmt_r(r), met(r and r >= 2.5)))
    for a in agg:  # IOR on simulated nodes, local disk: the one-node rows' target, >= 0.9
        if a["case"].startswith("ior-") and a["driver"] == "ufs" and "+" in a["fs"]:
            e = find(agg, a["case"], a["fs"], "edonio", a["nprocs"])
            if e:
                rs, ps, ok = both_phases(rows, a, e, a["case"], a["fs"], a["nprocs"])
                print("  %s on %s, %d ranks: ufs/edonio write %s, read %s; pair by pair write %s, "
                      "read %s (as on one node, >= 0.9: %s)" % (
                          a["case"], a["fs"], a["nprocs"], fmt_r(rs[0]), fmt_r(rs[1]),
                          fmt_p(ps[0]), fmt_p(ps[1]), met(all(r and r >= 0.9 for r in ok))))
    e1, e4 = find(agg, "records", "local", "edonio"), find(agg, "records", "local+4n", "edonio")
    u1 = find(agg, "records", "local", "ufs")
    if e1 and e4:
        for ph, what in (("t_write", "cold first pass"), ("t_read", "warm pass")):
            r = ratio(e4[ph], e1[ph])
            print("  records %s, edonio 4 nodes / 1 node: %s (target <= 1.5: %s)" % (
                what, fmt_r(r), met(r and r <= 1.5)))
    if e1 and u1:
        r = ratio(u1["t_write"], e1["t_write"])
        print("  records cold first pass on local disk: ufs/edonio %s (target >= 1.0: %s)" % (
            fmt_r(r), met(r and r >= 1.0)))


def print_local_targets(agg, rows):
    """Issue 13: one node, local disk, the first pass as cheap as ufs: ufs/edonio as the ratio of
    the medians, and pair by pair (paired: the median of the pairs and its 90% interval), which
    decides where there are 5 pairs or more."""
    wanted = [("fem", 1.0), ("contig", 0.9), ("contig-coll", 0.9), ("strided", 1.0)]
    wanted += list(dict.fromkeys((a["case"], 0.9) for a in agg if a["case"].startswith("ior-")
                                 and a["driver"] == "ufs" and a["fs"] == "local"))
    for case, target in wanted:
        for n in (4, 2):
            u, e = find(agg, case, "local", "ufs", n), find(agg, case, "local", "edonio", n)
            if u and e:
                rs, ps, ok = both_phases(rows, u, e, case, "local", n)
                spans = [p for p in ps if p and p[1] < target <= p[2]]
                print("  %s on local disk, %d ranks: ufs/edonio write %s, read %s; pair by pair "
                      "write %s, read %s (target >= %.1f: %s%s)" % (
                          case, n, fmt_r(rs[0]), fmt_r(rs[1]), fmt_p(ps[0]), fmt_p(ps[1]), target,
                          met(all(r and r >= target for r in ok)),
                          ", the interval spans the target" if spans else ""))
    for n in (2, 4):
        u, e = find(agg, "cold", "local", "ufs", n), find(agg, "cold", "local", "edonio", n)
        if u and e:
            r = ratio(u["t_write"], e["t_write"])
            print("  cold first pass (records, fresh job), %d ranks: ufs %.3f s, edonio %.3f s, "
                  "ufs/edonio %s (target >= 1.0: %s), of %d runs each" % (
                      n, u["t_write"], e["t_write"], fmt_r(r), met(r and r >= 1.0), e["reps"]))
            o = ratio(e["t_wopen"], u["t_wopen"])
            print("    its open: ufs %.4f s, edonio %.4f s, edonio/ufs %s%s" % (
                u["t_wopen"], e["t_wopen"], fmt_r(o),
                " (target <= 2: %s)" % met(o and o <= 2) if n == 4 else ""))
        u, e = find(agg, "warm", "local", "ufs", n), find(agg, "warm", "local", "edonio", n)
        if u and e:
            r = ratio(u["t_read"], e["t_read"])
            print("  warm pass (records, the file opened again), %d ranks: ufs %.3f s, edonio %.3f "
                  "s, ufs/edonio %s (the warm advantage, > 1: %s)" % (
                      n, u["t_read"], e["t_read"], fmt_r(r), met(r and r > 1.0)))
    u, e = find(agg, "demo", "local", "ufs"), find(agg, "demo", "local", "edonio")
    if u and e:
        r = ratio(u["t_write"], e["t_write"])
        print("  quickstart demo, 4 ranks: ufs %.3f s, edonio %.3f s, ufs/edonio %s (target >= "
              "1.0: %s), median of %d alternating runs" % (u["t_write"], e["t_write"], fmt_r(r),
                                                           met(r and r >= 1.0), e["reps"]))


def print_limits_and_targets(agg, lim, rows):
    print()
    print("physical limits (MB/s = 1e6 B/s): " + ", ".join(
        "%s %.0f" % (k, v) for k, v in lim.items() if v is not None))
    for a in agg:
        if a["case"] in ("contig", "contig-coll", "reread", "subarray") and a["t_read"]:
            mc = lim.get("memcpy_%dranks" % a["nprocs"])
            bwr = a["bytes_read"] / a["t_read"] / 1e6
            bww = a["bytes_written"] / a["t_write"] / 1e6 if a["t_write"] else 0
            print("  %-12s %-5s %-6s write %8.0f MB/s  read %8.0f MB/s%s" % (
                a["case"], a["fs"], a["driver"], bww, bwr,
                "  (read = %.2f x memcpy)" % (bwr / mc) if mc and a["case"] == "reread" else ""))
    print()
    print("targets:")
    u, e = find(agg, "fem", "pfs", "ufs"), find(agg, "fem", "pfs", "edonio")
    if u and e:
        # The target is write + close: the open (window creation) is reported on its own.
        wc = [a["t_write"] - (a["t_wopen"] or 0) for a in (u, e)]
        tr = ratio(wc[0], wc[1])
        orat = ratio(u["pfs_writes"], e["pfs_writes"])
        print("  fem write+close on emulated PFS, %d ranks: ufs %.3f s, edonio %.3f s, ufs/edonio "
              "%s (target >= 5: %s); with open: %s; "
              "write ops %d vs %d = %sx fewer (target >= 20: %s)" % (
                  e["nprocs"], wc[0], wc[1], fmt_r(tr), "MET" if tr and tr >= 5 else "MISSED",
                  fmt_r(ratio(u["t_write"], e["t_write"])),
                  u["pfs_writes"] or 0, e["pfs_writes"] or 0, fmt_r(orat),
                  "MET" if orat and orat >= 20 else "MISSED"))
    else:
        print("  fem on emulated PFS: not measured")
    print_node_targets(agg, rows)
    print_local_targets(agg, rows)
    e = find(agg, "reread", "local", "edonio")
    if e and e["t_read"]:
        mc = lim.get("memcpy_%dranks" % e["nprocs"])
        bw = e["bytes_read"] / e["t_read"] / 1e6
        if mc:
            print("  re-read from the aggregate cache (local, %d ranks): %.0f MB/s = %.2f x memcpy "
                  "%.0f MB/s (target >= 0.5: %s)" % (e["nprocs"], bw, bw / mc, mc,
                                                     "MET" if bw >= 0.5 * mc else "MISSED"))
    print()
    print("where the time goes (seconds: open + transfers + close):")
    for a in agg:
        if a["case"] in ("fem", "contig", "contig-coll") and a["t_wopen"] is not None:
            ww = a["t_write"] - a["t_wopen"] - a["t_wclose"]
            rr = a["t_read"] - a["t_ropen"] - a["t_rclose"]
            print("  %-12s %-5s %-6s write %.3f = %.3f + %.3f + %.3f   read %.3f = %.3f + %.3f + %.3f"
                  % (a["case"], a["fs"], a["driver"], a["t_write"], a["t_wopen"], ww,
                     a["t_wclose"], a["t_read"], a["t_ropen"], rr, a["t_rclose"]))
    bad = [a for a in agg if a["errors"] not in ("0", "")]
    if bad:
        print("  ERRORS in: " + ", ".join("%s/%s/%s" % (a["case"], a["fs"], a["driver"])
                                          for a in bad))


def load_irregular(d):
    """irregular.txt's IRREGULAR lines (cases/irbench.c, one per run) as dicts of key=value."""
    p = os.path.join(d, "irregular.txt")
    out = []
    if os.path.exists(p):
        for line in open(p):
            if line.startswith("IRREGULAR "):
                out.append(dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv))
    return out


def print_irregular(d):
    """Issue 43 B's targets, within each driver (cases/irbench.c): seed 002's figure 4, loop 2's
    I/O by software caching (edonio_ir_switch) at most 1/4 of a full re-write and re-read; the
    compressed array's write bandwidth (edonio_ir_zwrite) at least 1.5x the plain write's on
    pfsemu. The ratios are the medians of each run's own (both paths in one run, as pair by
    pair); the times the medians of the runs' medians."""
    lines = load_irregular(d)
    if not lines:
        return
    groups = OrderedDict()
    for r in lines:
        k = (r.get("case"), r.get("fs"), int(r.get("np", 0)), r.get("driver"),
             r.get("mode") or ("zstd " + r.get("level", "?") if r.get("case") == "zarray" else "-"))
        groups.setdefault(k, []).append(r)

    def med(rs, key, old=None):  # old: the key's name in 933aa5e's irbench.c (older results)
        return median(num(r.get(key, r.get(old))) for r in rs)

    def mb(v):
        return "-" if v is None else "%.2f" % (v / 1e6)

    def ms(v):
        return "-" if v is None else "%.1f" % (v * 1e3) if v >= 0.1 else "%.2f" % (v * 1e3)

    print()
    print("Issue 43 B, libedonio_irregular (cases/irbench.c, irregular.txt): within each driver, "
          "medians over the runs")
    print("seed 002's figure 4, loop 2's I/O: a full re-write and re-read against "
          "edonio_ir_switch (target: switch/full <= 0.25); MB per call, all ranks:")
    table = []
    for (case, fs, n, drv, mode), rs in groups.items():
        if case != "cache":
            continue
        r = med(rs, "switch/full")
        table.append((fs, str(n), mode, drv, ms(med(rs, "full")), ms(med(rs, "switch")),
                      fmt_r(r), met(r is not None and r <= 0.25), ms(med(rs, "update")),
                      ms(med(rs, "create")),
                      "%s/%s" % (mb(med(rs, "full_written")), mb(med(rs, "full_read"))),
                      "%s/%s" % (mb(med(rs, "switch_written")), mb(med(rs, "switch_read"))),
                      fmt_t(med(rs, "kept"))))
    print_columns(("fs", "np", "handover", "driver", "full ms", "switch ms", "switch/full",
                   "<= 0.25", "update ms", "create ms", "full MB w/r", "switch MB w/r", "kept"),
                  table)
    print("compressed chunked arrays: edonio_ir_zwrite and zread against edonio_ir_write and read "
          "of the same array (target on pfsemu: zwrite bandwidth >= 1.5 x write's); MB/s of the "
          "array's bytes:")
    table = []
    for (case, fs, n, drv, level), rs in groups.items():
        if case != "zarray":
            continue
        raw = 8 * (med(rs, "elements") or 0)
        bw = [raw / t / 1e6 if t else None for t in (med(rs, k) for k in
                                                     ("write", "zwrite", "read", "zread"))]
        r = med(rs, "zw/w_bw", "write/zwrite")
        table.append((fs, str(n), level, drv, fmt_r(med(rs, "ratio")),
                      *("-" if b is None else "%.0f" % b for b in bw[:2]), fmt_r(r),
                      met(r is not None and r >= 1.5) if fs.startswith("pfs") else "-",
                      *("-" if b is None else "%.0f" % b for b in bw[2:]),
                      fmt_r(med(rs, "zr/r_bw", "read/zread"))))
    print_columns(("fs", "np", "level", "driver", "ratio", "write MB/s", "zwrite MB/s", "zw/w",
                   ">= 1.5", "read MB/s", "zread MB/s", "zr/r"), table)


# ---- plots ----

def plots(d, agg, lim):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plots)")
        return []
    made = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(d, name), dpi=80)
        plt.close(fig)
        made.append(name)

    # 1. ratios (against ufs; and, over Open MPI, against OMPIO)
    om = {(a["case"], a["fs"], a["nprocs"], a["params"]): a for a in agg if a["driver"] == "ompio"}
    for base, png in (("ufs", "ratios.png"), ("OMPIO", "ratios_ompio.png")):
        if base == "ufs":
            prs = [(u, e) for u, e in pairs(agg) if u]
        else:
            prs = [(om[k], e) for e in agg if e["driver"] == "edonio"
                   for k in [(e["case"], e["fs"], e["nprocs"], e["params"])] if k in om]
        if not prs:
            continue
        fig, ax = plt.subplots(figsize=(9, 0.28 * len(prs) + 1.5))
        labels = ["%s %s np%d %s" % (e["case"], e["fs"], e["nprocs"], e["params"][:22])
                  for u, e in prs]
        y = range(len(prs))
        rw = [ratio(u["t_write"], e["t_write"]) or 0 for u, e in prs]
        rr = [ratio(u["t_read"], e["t_read"]) or 0 for u, e in prs]
        ax.barh([i - 0.2 for i in y], rw, 0.4, label="write")
        ax.barh([i + 0.2 for i in y], rr, 0.4, label="read")
        ax.axvline(1, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("%s time / edonio time (above 1: edonio faster)" % base)
        ax.legend(fontsize=8)
        save(fig, png)

    fem_path = os.path.join(d, "fem-raw.csv")
    fem = load(fem_path) if os.path.exists(fem_path) else []
    phases = ["wopen", "write", "wclose", "ropen", "preload", "read", "rclose"]

    def fem_median(rows):
        return [median(num(r[p]) or 0.0 for r in rows) or 0.0 for p in phases]

    # 2. fem phases
    sel = OrderedDict()
    for r in fem:
        if r["case"] in ("fem", "fem-preload"):
            sel.setdefault("%s\n%s %s" % (r["fs"], r["driver"],
                                         "preload" if r["case"] == "fem-preload" else ""),
                           []).append(r)
    if sel:
        fig, ax = plt.subplots(figsize=(8, 4))
        bottoms = [0.0] * len(sel)
        vals = [fem_median(rs) for rs in sel.values()]
        for i, p in enumerate(phases):
            h = [v[i] for v in vals]
            ax.bar(range(len(sel)), h, bottom=bottoms, label=p)
            bottoms = [b + x for b, x in zip(bottoms, h)]
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels(list(sel), fontsize=8)
        ax.set_ylabel("seconds (max over ranks)")
        ax.set_title("fem phases, %s ranks, grid %s" % (
            next(iter(sel.values()))[0]["nprocs"], next(iter(sel.values()))[0]["params"].split()[0]))
        ax.legend(fontsize=7)
        save(fig, "fem_phases.png")

    # 3. table 5.1
    t51 = [r for r in fem if r["case"] == "t5.1-cache"]
    ed = sorted([r for r in t51 if r["driver"] == "edonio"], key=lambda r: int(r["cache_size"]))
    if ed:
        fig, ax = plt.subplots(figsize=(7, 4))
        xs = sorted({int(r["cache_size"]) for r in ed})
        for p in ("write", "wclose", "preload", "read"):
            ax.plot([x / 1024 for x in xs],
                    [median(num(r[p]) for r in ed if int(r["cache_size"]) == x) for x in xs],
                    marker="o", label="edonio " + p)
        for p in ("write", "read"):
            v = median(num(r[p]) for r in t51 if r["driver"] == "ufs")
            if v is not None:
                ax.axhline(v, ls="--", lw=1, label="ufs " + p, color="C0" if p == "write" else "C3")
        ax.set_xlabel("edonio cache per rank (KiB)")
        ax.set_ylabel("seconds")
        ax.set_yscale("log")
        ax.set_title("table 5.1: cache size (fem %s, %s ranks, %s)" % (
            ed[0]["params"].split()[0], ed[0]["nprocs"], ed[0]["fs"]))
        ax.legend(fontsize=7)
        save(fig, "table5.1_cache.png")

    # 4. tables 5.3-5.5
    t53 = [r for r in fem if r["case"] == "t5.3-procs"]
    if t53:
        grids = sorted({r["params"].split()[0] for r in t53}, key=lambda g: len(g) * 1000 + len(g))
        grids = list(OrderedDict.fromkeys(r["params"].split()[0] for r in t53))
        fig, axs = plt.subplots(1, len(grids), figsize=(4 * len(grids), 3.5), squeeze=False)
        for ax, g in zip(axs[0], grids):
            for drv, st in (("ufs", "--"), ("edonio", "-")):
                rs = [r for r in t53 if r["driver"] == drv and r["params"].split()[0] == g]
                ns = sorted({int(r["nprocs"]) for r in rs})
                for p, c in (("write", "C0"), ("read", "C3")):
                    ax.plot(ns, [median(num(r[p]) for r in rs if int(r["nprocs"]) == n) for n in ns],
                            st, color=c, marker="o", label="%s %s" % (drv, p))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("ranks")
            ax.set_title(g, fontsize=9)
        axs[0][0].set_ylabel("seconds")
        axs[0][0].legend(fontsize=7)
        fig.suptitle("tables 5.3-5.5: process counts (write = write phase, read = read phase)",
                     fontsize=9)
        save(fig, "table5.3-5.5_procs.png")

    # 5. atomicity
    at = [a for a in agg if a["case"].startswith("atomic")]
    if at:
        cfgs = list(OrderedDict.fromkeys((a["params"], a["nprocs"]) for a in at))
        methods = ["atomic", "atomic-locking", "atomic-graph_coloring", "atomic-rank_order"]
        names = ["ufs (fcntl locks)", "edonio locking", "edonio graph_coloring",
                 "edonio rank_order"]
        fig, ax = plt.subplots(figsize=(8, 4))
        w = 0.2
        for i, (m, nm) in enumerate(zip(methods, names)):
            vals = []
            for p, n in cfgs:
                a = next((a for a in at if a["case"] == m and a["params"] == p and
                          a["nprocs"] == n), None)
                vals.append(a["t_write"] if a else 0)
            ax.bar([j + (i - 1.5) * w for j in range(len(cfgs))], vals, w, label=nm)
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels(["%s\n%d ranks" % c for c in cfgs], fontsize=8)
        ax.set_ylabel("atomic write_all, seconds")
        ax.set_title("column-wise overlapping atomic writes (%s)" % at[0]["fs"])
        ax.legend(fontsize=7)
        save(fig, "atomic.png")

    # 6. bandwidth against the limits
    bw = [a for a in agg if a["case"] in ("contig", "contig-coll", "reread", "subarray")]
    if bw:
        fig, ax = plt.subplots(figsize=(9, 4))
        labels, vals = [], []
        for a in bw:
            if a["t_write"]:
                labels.append("%s %s\n%s wr" % (a["case"], a["fs"], a["driver"]))
                vals.append(a["bytes_written"] / a["t_write"] / 1e6)
            if a["t_read"]:
                labels.append("%s %s\n%s rd" % (a["case"], a["fs"], a["driver"]))
                vals.append(a["bytes_read"] / a["t_read"] / 1e6)
        ax.bar(range(len(vals)), vals, color=["C1" if "edonio" in l else "C0" for l in labels])
        ax.set_xticks(range(len(vals)))
        ax.set_xticklabels(labels, fontsize=5, rotation=90)
        ax.set_yscale("log")
        ax.set_ylabel("MB/s (aggregate)")
        for k, c in (("memcpy_4ranks", "k"), ("storage_write_direct", "g"),
                     ("storage_read_direct", "m"), ("pfsemu_bandwidth", "r")):
            if lim.get(k):
                ax.axhline(lim[k], color=c, ls=":", lw=1, label="%s %.0f" % (k, lim[k]))
        ax.legend(fontsize=6)
        ax.set_title("bandwidth (blue ufs, orange edonio) against the physical limits")
        save(fig, "bandwidth.png")
    return made


# ---- history ----

HISTORY_FIELDS = ("date", "commit", "machine", "case", "fs", "nodes", "ranks", "ufs_s",
                  "edonio_s", "ratio")
# Cases run with several parameter sets at one size: their parameters are part of the case.
WITH_PARAMS = ("t5.", "atomic")


def run_identity(d):
    """(date, commit, machine, sizes) of a results directory, from its env.txt."""
    env = {}
    p = os.path.join(d, "env.txt")
    if os.path.exists(p):
        for line in open(p):
            k, _, v = line.partition(":")
            env.setdefault(k.strip(), v.strip())
    date = env.get("date", "")[:10] or os.path.basename(os.path.normpath(d))[:10]
    commit = ""
    e = env.get("edonio", "")
    if "(" in e:
        inner = e[e.rindex("(") + 1:].rstrip(")")
        commit = inner.split(",")[0].strip() + ("+changes" if "modified" in inner else "")
    h = [x.strip() for x in env.get("host", "").split(",")]
    machine = " ".join(h[:2])
    if len(h) > 2 and h[2].endswith("GiB"):
        machine += " %.0f GiB" % float(h[2].split()[0])
    return date, commit, machine, env.get("sizes", "").split(",")[0]


def history_rows(d):
    """The rows of one results directory for history.csv: ufs and edonio medians, each phase."""
    date, commit, machine, _ = run_identity(d)
    out = []
    for u, e in pairs(aggregate(load(os.path.join(d, "results.csv")))):
        if u is None:
            continue
        fs, _, n = e["fs"].partition("+")
        case = e["case"]
        if case.startswith(WITH_PARAMS):
            case += " " + e["params"]
        for phase, k in (("write", "t_write"), ("read", "t_read")):
            if u[k] and e[k]:
                out.append({"date": date, "commit": commit, "machine": machine,
                            "case": case + " " + phase, "fs": fs,
                            "nodes": n.rstrip("n") or "1", "ranks": e["nprocs"],
                            "ufs_s": "%.6f" % u[k], "edonio_s": "%.6f" % e[k],
                            "ratio": "%.3f" % ratio(u[k], e[k])})
    return out


def append_history(path, dirs):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, HISTORY_FIELDS)
        if new:
            w.writeheader()
        for d in dirs:
            w.writerows(history_rows(d))


# The headline rows of README.md, drawn over the runs: (case, fs, nodes, ranks).
HEADLINES = (("demo", "local", "1", "4"), ("fem", "pfs", "1", "4"), ("fem", "pfs", "2", "4"),
             ("fem", "local", "1", "4"), ("fem", "local", "2", "4"), ("strided", "pfs", "1", "4"),
             ("strided", "local", "2", "4"), ("cold", "local", "1", "2"),
             ("ior-indep-64k", "local", "1", "2"), ("ior-coll-1m", "local", "1", "2"),
             ("ior-indep-1m", "local", "2", "2"), ("ior-coll-1m", "local", "2", "4"))


def plot_history(path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("(no matplotlib: no history plot)")
        return
    rows = load(path)
    runs = []  # (date, commit) in the order of the file: one x position per run
    for r in rows:
        if (r["date"], r["commit"]) not in runs:
            runs.append((r["date"], r["commit"]))
    x_of = {k: i for i, k in enumerate(runs)}
    fig, axes = plt.subplots(len(HEADLINES) // 2, 2, figsize=(12, 2.0 * len(HEADLINES) // 2),
                             sharex=True)
    for ax, (case, fs, nodes, ranks) in zip(axes.flat, HEADLINES):
        for phase in ("write", "read"):
            pts = [(x_of[(r["date"], r["commit"])], float(r["ratio"])) for r in rows
                   if r["case"] == case + " " + phase and r["fs"] == fs and r["nodes"] == nodes
                   and r["ranks"] == ranks]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=phase)
        ax.axhline(1, color="k", lw=0.6)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.1f"))
        lo, hi = ax.get_ylim()
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%.1f") if hi < 4 * lo
                                     else matplotlib.ticker.NullFormatter())
        ax.set_title("%s, %s, %s node%s, %s ranks" % (case, fs, nodes, "s" * (nodes != "1"),
                                                     ranks), fontsize=8)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6)
    for ax in axes[-1]:
        ax.set_xticks(range(len(runs)))
        ax.set_xticklabels(["%s %s" % (d[5:], c) for d, c in runs], rotation=90, fontsize=5)
    fig.suptitle("ufs time / edonio time over the runs of history.csv (above 1: edonio faster)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.splitext(path)[0] + ".png", dpi=80)
    plt.close(fig)


def main():
    if sys.argv[1] == "--history":
        append_history(sys.argv[2], sys.argv[3:])
        plot_history(sys.argv[2])
        return
    if sys.argv[1] == "--history-plot":
        plot_history(sys.argv[2])
        return
    d = sys.argv[1]
    rows = load(os.path.join(d, "results.csv"))
    agg = aggregate(rows)
    lim = limits_of(d)
    env = os.path.join(d, "env.txt")
    if os.path.exists(env):
        print(open(env).read().rstrip())
        print()
    print_table(agg)
    print_ompio(agg, rows)
    print_limits_and_targets(agg, lim, rows)
    print_irregular(d)
    made = plots(d, agg, lim)
    if made:
        print("\nplots: " + ", ".join(made))


if __name__ == "__main__":
    main()
