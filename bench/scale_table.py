#!/usr/bin/env python3
"""The table of bench/scale.sh's logs: per atom count, the edges, the
planned and the measured peak, the median E+F step, its time per atom, the
GPU neighbour search's share of it and whether it found the host list's
edge count; with --plot, time and memory against
N as a PNG.

  scale_table.py scale-1024.log scale-4096.log ... [--plot scale.png]
"""
import argparse
import re
import sys


def read(path):
    text = open(path).read()
    row = {"path": path}
    plan = re.search(r"N = (\d+), E = (\d+): planned peak ([\d.]+) GB \(.*?; "
                     r"(\d+) bytes per edge\)", text)
    if not plan:
        sys.exit(f"{path}: no plan line (sezm-run --plan)")
    row["atoms"], row["edges"] = int(plan.group(1)), int(plan.group(2))
    row["plan_gb"], row["per_edge"] = float(plan.group(3)), int(plan.group(4))
    fits = re.search(r"up to N = (\d+) atoms", text)
    row["fits"] = int(fits.group(1)) if fits else None
    step = re.search(r"(\d+) (GPU|CPU) runs: median ([\d.]+) ms"
                     r"(?:, peak (\d+) bytes)?", text)
    if step:
        row["device"] = step.group(2)
        row["ms"] = float(step.group(3))
        row["peak_gb"] = int(step.group(4)) / 1e9 if step.group(4) else None
    search = re.search(r"built in ([\d.]+) ms", text)
    row["search_ms"] = float(search.group(1)) if search else None
    host = re.search(r"atoms, (\d+) edges within", text)
    gpu = re.search(r"neighbour list on the GPU: (\d+) edges", text)
    row["same_edges"] = ("-" if not (host and gpu) else
                         "= host" if host.group(1) == gpu.group(1) else
                         f"host {host.group(1)}, GPU {gpu.group(1)}")
    row["note"] = ("does not fit" if "does not fit" in text else
                   "run failed" if "run failed" in text else "")
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--plot")
    args = parser.parse_args()
    rows = sorted((read(p) for p in args.logs), key=lambda r: r["atoms"])
    print("| atoms | edges | planned peak | measured peak | E+F step | "
          "per atom | GPU search (share) | GPU search edges |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "ms" not in r:
            print(f"| {r['atoms']} | {r['edges']} | {r['plan_gb']:.2f} GB "
                  f"({r['per_edge']} B/edge) | {r['note']} | | | | |")
            continue
        peak = f"{r['peak_gb']:.2f} GB" if r["peak_gb"] else "-"
        search = (f"{r['search_ms']:.2f} ms ({100 * r['search_ms'] / r['ms']:.1f} %)"
                  if r["search_ms"] is not None else "-")
        print(f"| {r['atoms']} | {r['edges']} | {r['plan_gb']:.2f} GB "
              f"({r['per_edge']} B/edge) | {peak} | {r['ms']:.2f} ms "
              f"({r['device']}) | {1e3 * r['ms'] / r['atoms']:.2f} us | "
              f"{search} | {r['same_edges']} |")
    if rows and rows[-1]["fits"]:
        print(f"the plan fits up to N = {rows[-1]['fits']} atoms")
    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib: no plot")
            return
        ran = [r for r in rows if "ms" in r]
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        left.loglog([r["atoms"] for r in ran], [r["ms"] for r in ran], "o-",
                    label="E+F step")
        if any(r["search_ms"] for r in ran):
            left.loglog([r["atoms"] for r in ran if r["search_ms"]],
                        [r["search_ms"] for r in ran if r["search_ms"]],
                        "s-", label="GPU neighbour search")
        left.set_xlabel("atoms")
        left.set_ylabel("ms")
        left.legend()
        right.loglog([r["atoms"] for r in rows], [r["plan_gb"] for r in rows],
                     "o--", label="planned peak")
        if any(r.get("peak_gb") for r in ran):
            right.loglog([r["atoms"] for r in ran if r.get("peak_gb")],
                         [r["peak_gb"] for r in ran if r.get("peak_gb")],
                         "s-", label="measured peak")
        right.set_xlabel("atoms")
        right.set_ylabel("GB")
        right.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
