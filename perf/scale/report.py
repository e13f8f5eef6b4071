#!/usr/bin/env python3
"""The scale case's table, targets (issue 14) and plot, from scale.csv and scale_detail.csv.

    perf/scale/report.py DIR      reads DIR/scale.csv, DIR/scale_detail.csv; writes DIR/scale.png;
                                  prints the table and the targets (exit 1 if one is not met)
"""
import csv
import math
import os
import sys


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rows = load(os.path.join(out, "scale.csv"))
    detail = {(r["method"], r["pattern"], int(r["P"])): r
              for r in load(os.path.join(out, "scale_detail.csv"))}
    for r in rows:
        for k in ("P", "bytes_total", "bytes_max_rank", "messages_max_rank", "steps"):
            r[k] = int(r[k])
    methods = list(dict.fromkeys(r["method"] for r in rows))
    patterns = list(dict.fromkeys(r["pattern"] for r in rows))
    get = {(r["method"], r["pattern"], r["P"]): r for r in rows}

    print("%-16s %-9s %6s %16s %14s %9s %5s %7s %6s" % (
        "method", "pattern", "P", "bytes_total", "bytes_max_rank", "msgs_max", "steps",
        "colours", "depth"))
    for r in rows:
        d = detail.get((r["method"], r["pattern"], r["P"]), {})
        print("%-16s %-9s %6d %16d %14d %9d %5d %7s %6s" % (
            r["method"], r["pattern"], r["P"], r["bytes_total"], r["bytes_max_rank"],
            r["messages_max_rank"], r["steps"], d.get("colours", "-"),
            d.get("colouring_depth", "-")))

    # Targets: column pattern, 4,096 -> 65,536 processes.
    failed = 0
    lo, hi = 4096, 65536
    plogp = (hi * math.log2(hi)) / (lo * math.log2(lo))
    print("\ntargets (issue 14; column pattern, P = %d -> %d):" % (lo, hi))
    for m in ("rank_order", "graph_coloring"):
        a, b = get.get((m, "column", lo)), get.get((m, "column", hi))
        if a is None or b is None:
            print("  %s: P = %d not run" % (m, hi))
            failed += 1
            continue
        g = b["bytes_total"] / a["bytes_total"]
        ok = g <= plogp
        failed += not ok
        print("  %-15s bytes_total grows %.2fx (P log P: %.2fx): %s" % (
            m, g, plogp, "MET" if ok else "NOT MET"))
        g = b["bytes_max_rank"] / a["bytes_max_rank"]
        ok = g <= 1.5
        failed += not ok
        print("  %-15s bytes_max_rank grows %.2fx (O(pieces + degree): at most 1.5x): %s" % (
            m, g, "MET" if ok else "NOT MET"))
    colours = max(int(d["colours"]) for (m, p, n), d in detail.items()
                  if m == "graph_coloring" and p == "column")
    steps = max(r["steps"] for r in rows if r["method"] == "graph_coloring"
                and r["pattern"] == "column")
    ok = steps <= colours <= 3
    failed += not ok
    print("  graph_coloring  steps at most %d, colours at most %d (target: steps <= colours = 3): %s"
          % (steps, colours, "MET" if ok else "NOT MET"))
    r1, r2 = get.get(("romio_two_phase", "column", hi)), get.get(("rank_order", "column", hi))
    if r1 and r2:
        print("  at P = %d ROMIO two-phase's all-to-all (model) moves %.0fx the bytes in all, "
              "%.0fx at the busiest process" % (hi, r1["bytes_total"] / r2["bytes_total"],
                                                 r1["bytes_max_rank"] / r2["bytes_max_rank"]))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no scale.png")
        return 1 if failed else 0
    metrics = [("bytes_total", "bytes, all messages"), ("bytes_max_rank", "bytes, busiest process"),
               ("steps", "data rounds (steps)")]
    style = {"rank_order": "o-", "graph_coloring": "s-", "romio_two_phase": "x--"}
    fig, axes = plt.subplots(len(metrics), len(patterns), figsize=(4 * len(patterns), 9),
                             squeeze=False)
    for j, pat in enumerate(patterns):
        for i, (key, label) in enumerate(metrics):
            ax = axes[i][j]
            for m in methods:
                pts = sorted((r["P"], r[key]) for r in rows if r["method"] == m and r["pattern"] == pat)
                if pts:
                    name = m + (" (model)" if m == "romio_two_phase" else "")
                    ax.plot([p for p, _ in pts], [v for _, v in pts], style.get(m, "-"), label=name)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            if i == 0:
                ax.set_title(pat)
            if j == 0:
                ax.set_ylabel(label)
            if i == len(metrics) - 1:
                ax.set_xlabel("processes P")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("edonio collective passes and atomic handshakes as P grows (perf/scale, simulated)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale.png"), dpi=100)
    print("plot: %s" % os.path.join(out, "scale.png"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
