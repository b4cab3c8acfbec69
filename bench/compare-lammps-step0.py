#!/usr/bin/env python3
"""Compares two step-0 runs of bench/water-model/in.step0 or
test/LAMMPS/Inputs/step0.in (LAMMPS log and dump each, atoms sorted by ID):
relative errors max|a - ref| / max|ref| of the energy, the pressure tensor,
the forces (the dump's first three columns after the ID) and each further
per-atom column (energies and virials). Exits 1 when one exceeds --tol.
  compare-lammps-step0.py REF.log REF.dump OTHER.log OTHER.dump [--tol T]"""
import argparse
import sys


def thermo(path):
    lines = open(path).read().splitlines()
    for k, line in enumerate(lines):
        if line.split()[:2] == ["Step", "PotEng"]:
            return [float(v) for v in lines[k + 1].split()[1:]]
    sys.exit(f"{path}: no thermo line")


def columns(path):
    """The dump's columns after the ID, each a list over atoms."""
    lines = open(path).read().splitlines()
    start = next(k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    rows = [[float(v) for v in l.split()[1:]] for l in lines[start + 1:]]
    return [list(c) for c in zip(*rows)]


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
ref_c, other_c = columns(args.ref_dump), columns(args.dump)
if [len(c) for c in ref_c] != [len(c) for c in other_c]:
    sys.exit("the dumps hold different atom counts or columns")
errors = {"energy": rel(other[:1], ref[:1]),
          "pressure": rel(other[1:], ref[1:]),
          "forces": rel(sum(other_c[:3], []), sum(ref_c[:3], []))}
# Per-atom terms column by column: each virial component has its own scale.
if len(ref_c) > 3:
    errors["per-atom"] = max(rel(o, r) for o, r in zip(other_c[3:], ref_c[3:])
                             if max(map(abs, r)) > 0)
print(" ".join(f"{k} {v:.2e}" for k, v in errors.items()),
      f"(energy {ref[0]:.10g} against {other[0]:.10g} eV)")
sys.exit(1 if max(errors.values()) > args.tol else 0)
