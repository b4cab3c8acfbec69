#!/usr/bin/env python3
"""Each GEMM-shaped op of the default DPA4 alone: its error against fp64 and
its time, IEEE fp32 against split precision (tf32x3) on the GPU.

  gemm_precision.py --exec sezm-exec --ieee ieee.sezm --split tf32x3.sezm \
      --reference f64.sezm [--rows E] [--runs N] [--work DIR]

The artifacts are sezm-compile builds of bench/gemm_precision.mlir: --target
gpu with --gemm-precision ieee and tf32x3, and the same module in fp64 (f32
replaced by f64) for the CPU, run on the same fp32 inputs (exact in fp64).
For each entry it prints the relative error max |out - ref| / max |ref| of
each build against the fp64 run, the ratio split / IEEE (the mode's
requirement: at most 1), and each build's median time over --runs calls
(sezm-exec --bench), with the achieved TFLOP/s of the products.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

EDGE = (10, 64)
# Inputs of each entry, by name: (shape with None for the rows, scale).
ENTRIES = {
    "so2_linear": ({"u": ((None,) + EDGE, 1.0), "w0": ((1, 256, 256), 1 / 16),
                    "wu": ((1, 192, 192), 1 / 19.6),
                    "wv": ((1, 192, 192), 1 / 19.6)},
                   # (E, 256) x (256, 256) and (E, 384) x (384, 384).
                   lambda e: 2 * e * (256 * 256 + 384 * 384)),
    "so2_linear_grad": ({"g": ((None,) + EDGE, 1.0),
                         "u": ((None,) + EDGE, 1.0),
                         "w0": ((1, 256, 256), 1 / 16),
                         "wu": ((1, 192, 192), 1 / 19.6),
                         "wv": ((1, 192, 192), 1 / 19.6)},
                        lambda e: 2 * e * (256 * 256 + 384 * 384)),
    "gate": ({"u": ((None,) + EDGE, 1.0), "gw": ((1, 64, 192), 1 / 8)},
             lambda e: 2 * e * 64 * 192),
    # The logits and the l = 0 row's product back: two of gate's GEMM.
    "gate_grad": ({"g": ((None,) + EDGE, 1.0), "u": ((None,) + EDGE, 1.0),
                   "gw": ((1, 64, 192), 1 / 8)},
                  lambda e: 4 * e * 64 * 192),
    "matmul": ({"h": ((None, 64), 1.0), "w": ((64, 256), 1 / 8)},
               lambda e: 2 * e * 64 * 256),
}


def run(args, artifact, entry, inputs, out_dir, device, bench):
    command = [args.exec, artifact, "--entry", entry, "--device", device,
               "--output-dir", out_dir]
    for name, path in inputs.items():
        command += ["--input", f"{name}={path}"]
    if bench:
        command += ["--bench", str(args.runs)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"gemm_precision.py: {' '.join(command)}:\n{result.stderr}")
    median = None
    match = re.search(r"median ([0-9.]+) ms", result.stdout + result.stderr)
    if match:
        median = float(match.group(1))
    return median


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exec", required=True)
    parser.add_argument("--ieee", required=True)
    parser.add_argument("--split", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--rows", type=int, default=131072)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--work", default="/tmp/gemm-precision")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    worst = 0.0
    print(f"{args.rows} rows; relative error against fp64, max |out - ref| / "
          f"max |ref|; median of {args.runs} calls")
    print(f"{'entry':16s} {'IEEE error':>11s} {'tf32x3 error':>13s} "
          f"{'ratio':>6s} {'IEEE ms':>8s} {'tf32x3 ms':>10s} "
          f"{'IEEE TF/s':>10s} {'tf32x3 TF/s':>12s}")
    for entry, (specs, flops) in ENTRIES.items():
        folder = os.path.join(args.work, entry)
        os.makedirs(folder, exist_ok=True)
        single, double = {}, {}
        for name, (shape, scale) in specs.items():
            shape = tuple(args.rows if s is None else s for s in shape)
            value = (rng.standard_normal(shape) * scale).astype(np.float32)
            single[name] = os.path.join(folder, f"{name}.f32.npy")
            double[name] = os.path.join(folder, f"{name}.f64.npy")
            np.save(single[name], value)
            np.save(double[name], value.astype(np.float64))
        outputs = {}
        times = {}
        for label, artifact, inputs, device in (
                ("ref", args.reference, double, "cpu"),
                ("ieee", args.ieee, single, "gpu"),
                ("split", args.split, single, "gpu")):
            out_dir = os.path.join(folder, label)
            os.makedirs(out_dir, exist_ok=True)
            times[label] = run(args, artifact, entry, inputs, out_dir, device,
                               bench=label != "ref")
            (result,) = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
            outputs[label] = np.load(os.path.join(out_dir, result)).astype(
                np.float64)
        ref = outputs["ref"]
        errors = {k: np.abs(outputs[k] - ref).max() / np.abs(ref).max()
                  for k in ("ieee", "split")}
        ratio = errors["split"] / errors["ieee"]
        worst = max(worst, ratio)
        work = flops(args.rows)
        rate = {k: work / (times[k] * 1e-3) / 1e12 if times[k] else float("nan")
                for k in ("ieee", "split")}
        print(f"{entry:16s} {errors['ieee']:11.3g} {errors['split']:13.3g} "
              f"{ratio:6.2f} {times['ieee'] or 0:8.3f} "
              f"{times['split'] or 0:10.3f} {rate['ieee']:10.1f} "
              f"{rate['split']:12.1f}")
    print(f"largest tf32x3 / IEEE error ratio: {worst:.2f} "
          f"({'within' if worst <= 1 else 'ABOVE'} the IEEE error)")


if __name__ == "__main__":
    main()
