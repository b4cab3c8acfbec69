#!/usr/bin/env python3
"""DeePMD-kit's own eval of a checkpoint on one structure, timed, and
compared with sezm's outputs (a sezm-run --output-dir) where given.

  deepmd_eval.py --model model.ckpt.pt --structure s.xyz [--sezm DIR]
      [--repeat N] [--out DIR]

Prints the median wall time of DeepPot.eval over N calls after a warm-up
(synchronised: eval returns host arrays), the peak GPU memory PyTorch
saw, and for each of energy, forces and virial the relative error
max |sezm - deepmd| / max |deepmd|. Runs where deepmd-kit 3.2.0 and
PyTorch are importable (on the GPU machine: carried wheels).
"""
import argparse
import os
import re
import statistics
import time

import numpy as np


def read_xyz(path):
    lines = open(path).read().split("\n")
    count = int(lines[0])
    lattice = re.search(r'Lattice="([^"]*)"', lines[1])
    cell = (np.array([float(v) for v in lattice.group(1).split()]).reshape(1, 9)
            if lattice else None)
    species, positions = [], []
    for line in lines[2:2 + count]:
        fields = line.split()
        species.append(fields[0])
        positions.append([float(v) for v in fields[1:4]])
    return species, np.array(positions), cell


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--structure", required=True)
    parser.add_argument("--sezm")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--out")
    args = parser.parse_args()
    import torch
    from deepmd.infer import DeepPot
    species, positions, cell = read_xyz(args.structure)
    dp = DeepPot(args.model)
    types = [dp.get_type_map().index(s) for s in species]
    coords = positions.reshape(1, -1)
    result = dp.eval(coords, cell, types)
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = dp.eval(coords, cell, types)
        times.append(time.perf_counter() - start)
    peak = (torch.cuda.max_memory_allocated() / 2**30
            if torch.cuda.is_available() else 0.0)
    energy, forces, virial = (np.asarray(r, np.float64) for r in result[:3])
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"
    print(f"deepmd-kit eval on {device}: {len(species)} atoms, median "
          f"{statistics.median(times) * 1e3:.2f} ms of {args.repeat}, peak "
          f"{peak:.2f} GiB, energy {energy.ravel()[0]:.10g}")
    refs = {"energy": energy.reshape(()), "forces": forces.reshape(-1, 3),
            "virial": virial.reshape(3, 3)}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for name, value in refs.items():
            np.save(os.path.join(args.out, name + ".npy"), value)
    if args.sezm:
        for name, ref in refs.items():
            mine = np.load(os.path.join(args.sezm, name + ".npy")).astype(np.float64)
            error = np.abs(mine.reshape(ref.shape) - ref).max() / np.abs(ref).max()
            print(f"  sezm vs deepmd-kit {name}: relative error {error:.3g}")


if __name__ == "__main__":
    main()
