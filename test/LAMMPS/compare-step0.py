"""Compares one LAMMPS force evaluation (Inputs/step0.in) with sezm-run's.

    compare-step0.py NAME LOG DUMP SEZM_RUN_DIR [--rtol 1e-5]

LAMMPS orders atoms its own way: the dump is sorted by atom ID, which is
the structure's order. Its virial comes from the virial part of the
pressure (W = P V / nktv2p) and per atom from stress/atom (-nktv2p w, six
components) and centroid/stress/atom (nine): sezm's per-atom 3x3 w[b][a]
is LAMMPS's ab, as in DeePMD-kit's pair style. Relative error: max|diff| /
max|ref| per quantity. Exit status 1 beyond the tolerance.
"""
import sys

import numpy as np

NKTV2P_METAL = 1.6021765e6  # LAMMPS's pressure units per eV/A^3 (bar)


def thermo_row(log):
    lines = open(log).read().splitlines()
    for n, line in enumerate(lines):
        if line.split()[:2] == ["Step", "PotEng"]:
            return [float(v) for v in lines[n + 1].split()]
    sys.exit(f"{log}: no thermo output")


def dump_rows(dump):
    lines = open(dump).read().splitlines()
    start = next(n for n, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    return np.array([[float(v) for v in l.split()] for l in lines[start + 1:]])


def main():
    name, log, dump, ref_dir = sys.argv[1:5]
    rtol = float(sys.argv[sys.argv.index("--rtol") + 1]) if "--rtol" in sys.argv else 1e-5
    ref = {k: np.load(f"{ref_dir}/{k}.npy")
           for k in ["energy", "forces", "virial", "atom_energy", "atom_virial"]}
    row = thermo_row(log)
    atoms = dump_rows(dump)
    w = ref["atom_virial"]
    lammps_order = [(0, 0), (1, 1), (2, 2), (1, 0), (2, 0), (2, 1),
                    (0, 1), (0, 2), (1, 2)]
    ref_atom_virial = np.stack([w[:, a, b] for a, b in lammps_order], axis=1)
    v = ref["virial"]
    pairs = {
        "energy": (np.array(row[1]), ref["energy"]),
        "forces": (atoms[:, 1:4], ref["forces"]),
        "virial": (np.array(row[2:8]) * row[8] / NKTV2P_METAL,
                   np.array([v[0, 0], v[1, 1], v[2, 2], v[0, 1], v[0, 2], v[1, 2]])),
        "per-atom energy": (atoms[:, 4], ref["atom_energy"]),
        "per-atom virial": (atoms[:, 5:11] / -NKTV2P_METAL, ref_atom_virial[:, :6]),
        "centroid per-atom virial": (atoms[:, 11:20] / -NKTV2P_METAL, ref_atom_virial),
    }
    worst = 0.0
    for quantity, (got, want) in pairs.items():
        if got.shape != want.shape:
            sys.exit(f"{name}: {quantity}: shape {got.shape}, sezm-run's {want.shape}")
        error = np.abs(got - want).max() / max(np.abs(want).max(), 1e-300)
        if not error <= rtol:
            sys.exit(f"{name}: {quantity}: relative error {error:.3g} > {rtol:g}")
        worst = max(worst, error)
    print(f"{name}: energy, forces, virial, per-atom energies and virials "
          f"within {rtol:g} of sezm-run")
    print(f"{name}: largest relative error {worst:.2g}", file=sys.stderr)


if __name__ == "__main__":
    main()
