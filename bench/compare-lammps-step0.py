#!/usr/bin/env python3
"""Compares two step-0 runs of bench/water-model/in.step0 (LAMMPS log and
force dump each): relative errors max|a - ref| / max|ref| of the energy, the
pressure tensor and the forces. Exits 1 when one exceeds --tol.
  compare-lammps-step0.py REF.log REF.dump OTHER.log OTHER.dump [--tol T]"""
import argparse
import sys


def thermo(path):
    lines = open(path).read().splitlines()
    for k, line in enumerate(lines):
        if line.split()[:2] == ["Step", "PotEng"]:
            return [float(v) for v in lines[k + 1].split()[1:]]
    sys.exit(f"{path}: no thermo line")


def forces(path):
    lines = open(path).read().splitlines()
    start = next(k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    return [[float(v) for v in l.split()[1:4]] for l in lines[start + 1:]]


def rel(a, b):
    scale = max(abs(v) for v in b)
    return max(abs(x - y) for x, y in zip(a, b)) / scale


parser = argparse.ArgumentParser()
parser.add_argument("ref_log")
parser.add_argument("ref_dump")
parser.add_argument("log")
parser.add_argument("dump")
parser.add_argument("--tol", type=float, default=1e-5)
args = parser.parse_args()
ref, other = thermo(args.ref_log), thermo(args.log)
ref_f = sum(forces(args.ref_dump), [])
other_f = sum(forces(args.dump), [])
if len(ref_f) != len(other_f):
    sys.exit("the dumps hold different atom counts")
errors = {"energy": rel(other[:1], ref[:1]),
          "pressure": rel(other[1:], ref[1:]),
          "forces": rel(other_f, ref_f)}
print(" ".join(f"{k} {v:.2e}" for k, v in errors.items()),
      f"(energy {ref[0]:.10g} against {other[0]:.10g} eV)")
sys.exit(1 if max(errors.values()) > args.tol else 0)
