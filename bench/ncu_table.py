#!/usr/bin/env python3
"""Each kernel's share of a step and its % of its own roofline, from
Nsight Compute's raw CSV of one step (bench/h200-run.sh ncu-model:N).

A kernel's roofline is the FP32 peak or DRAM's bandwidth, whichever binds
its measured arithmetic intensity (FLOP = 2 FFMA + FADD + FMUL, thread
instructions; DRAM bytes read and written). Launches of one kernel name are
summed. Also printed: Nsight's speed of light (the larger of its SM and
memory throughputs, %), duration-weighted, and the registers per thread.
"""
import argparse
import collections
import csv
import sys

# NVIDIA H200 SXM (H100 SXM's SMs at H200's memory): FP32 non-tensor peak
# at the boost clock, and HBM3e bandwidth. An H100 SXM has 3.35e12 B/s.
H200_FP32_FLOPS = 66.9e12
H200_DRAM_BYTES = 4.8e12


def number(text):
    text = text.replace(",", "")
    return float(text) if text not in ("", "n/a") else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--fp32-peak", type=float, default=H200_FP32_FLOPS,
                        help="FP32 FLOP/s of the GPU (default: H200's)")
    parser.add_argument("--dram-peak", type=float, default=H200_DRAM_BYTES,
                        help="DRAM bytes/s of the GPU (default: H200's)")
    args = parser.parse_args()
    with open(args.csv) as f:
        lines = [line for line in f if line.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        sys.exit(f"{args.csv}: no kernels profiled")
    header, units = rows[0], rows[1]
    column = {name: i for i, name in enumerate(header)}

    def scale(name):
        # Durations in ns, us or ms; bytes in byte, Kbyte, Mbyte, Gbyte.
        unit = units[column[name]]
        return {"ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "msecond": 1e-3,
                "nsecond": 1e-9, "ms": 1e-3, "second": 1.0, "byte": 1.0,
                "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1.0)

    kernels = collections.OrderedDict()
    for row in rows[2:]:
        name = row[column["Kernel Name"]]
        k = kernels.setdefault(name, collections.Counter())
        seconds = number(row[column["gpu__time_duration.sum"]]) * scale(
            "gpu__time_duration.sum")
        k["launches"] += 1
        k["seconds"] += seconds
        k["bytes"] += number(row[column["dram__bytes.sum"]]) * scale(
            "dram__bytes.sum")
        k["flop"] += 2 * number(
            row[column["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"]])
        for op in ("fadd", "fmul"):
            k["flop"] += number(
                row[column[f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum"]])
        sol = max(
            number(row[column["sm__throughput.avg.pct_of_peak_sustained_elapsed"]]),
            number(row[column[
                "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"]]))
        k["sol_seconds"] += sol * seconds
        k["registers"] = max(k["registers"],
                             number(row[column["launch__registers_per_thread"]]))
    total = sum(k["seconds"] for k in kernels.values())
    print(f"{len(rows) - 2} launches of {len(kernels)} kernels, "
          f"{total * 1e3:.2f} ms serialized\n")
    print("| kernel | launches | ms | share | GFLOP | GB | FLOP/byte | bound |"
          " % of roofline | speed of light % | registers |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ordered = sorted(kernels.items(), key=lambda item: -item[1]["seconds"])
    for name, k in ordered[:args.top]:
        s = k["seconds"]
        intensity = k["flop"] / k["bytes"] if k["bytes"] else float("inf")
        ridge = args.fp32_peak / args.dram_peak
        if intensity >= ridge:
            bound, roof = "FP32", k["flop"] / s / args.fp32_peak
        else:
            bound, roof = "DRAM", k["bytes"] / s / args.dram_peak
        print(f"| {name} | {k['launches']} | {s * 1e3:.3f} | "
              f"{100 * s / total:.1f} % | {k['flop'] / 1e9:.2f} | "
              f"{k['bytes'] / 1e9:.3f} | {intensity:.1f} | {bound} | "
              f"{100 * roof:.1f} % | {k['sol_seconds'] / s:.1f} | "
              f"{k['registers']:.0f} |")
    rest = ordered[args.top:]
    if rest:
        s = sum(k["seconds"] for _, k in rest)
        print(f"| {len(rest)} others | {sum(k['launches'] for _, k in rest)} |"
              f" {s * 1e3:.3f} | {100 * s / total:.1f} % | | | | | | | |")


if __name__ == "__main__":
    main()
