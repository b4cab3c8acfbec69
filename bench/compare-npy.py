#!/usr/bin/env python3
"""Compares every .npy of a reference folder with the file of the same name
in another folder: prints the largest absolute difference and the relative
error max|b - a| / max|a|, and exits 1 when any exceeds --rtol.

  compare-npy.py REFERENCE_DIR OTHER_DIR [--rtol 1e-5]
"""
import argparse
import os
import sys

import numpy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--rtol", type=float, default=1e-5)
    args = parser.parse_args()
    names = sorted(n for n in os.listdir(args.reference) if n.endswith(".npy"))
    if not names:
        sys.exit(f"compare-npy: no .npy files in {args.reference}")
    failed = False
    for name in names:
        a = numpy.load(os.path.join(args.reference, name)).astype(numpy.float64)
        path = os.path.join(args.other, name)
        if not os.path.exists(path):
            print(f"{name}: missing from {args.other}")
            failed = True
            continue
        b = numpy.load(path).astype(numpy.float64)
        if a.shape != b.shape:
            print(f"{name}: shape {b.shape}, expected {a.shape}")
            failed = True
            continue
        diff = float(numpy.max(numpy.abs(b - a))) if a.size else 0.0
        scale = float(numpy.max(numpy.abs(a))) if a.size else 0.0
        rel = diff / scale if scale > 0 else diff
        ok = rel <= args.rtol
        failed |= not ok
        print(f"{name[:-4]}: max abs diff {diff:.3g}, rel {rel:.3g} "
              f"({'ok' if ok else 'FAIL'}, rtol {args.rtol:g})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
