"""Compares one LAMMPS force evaluation (Inputs/stages.in) with sezm-run's.

    compare-ranks.py NAME LOG DUMP SEZM_RUN_DIR ENERGY_LIMIT FORCE_LIMIT

The energy against ENERGY_LIMIT, the forces and the virial (from the
virial part of the pressure, W = P V / nktv2p) against FORCE_LIMIT, each as
max|diff| / max|ref|. Exit status 1 beyond a limit.
"""
import importlib.util
import os
import sys

import numpy as np

# compare-step0.py's readers of the thermo row and the dump, and its
# pressure units: the logs and dumps have the same format.
_spec = importlib.util.spec_from_file_location(
    "compare_step0", os.path.join(os.path.dirname(__file__), "compare-step0.py"))
_step0 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_step0)
thermo_row, dump_rows = _step0.thermo_row, _step0.dump_rows
NKTV2P_METAL = _step0.NKTV2P_METAL


def main():
    name, log, dump, ref_dir = sys.argv[1:5]
    energy_limit, force_limit = float(sys.argv[5]), float(sys.argv[6])
    ref = {k: np.load(f"{ref_dir}/{k}.npy") for k in ["energy", "forces", "virial"]}
    row = thermo_row(log)
    atoms = dump_rows(dump)
    v = ref["virial"]
    pairs = {
        "energy": (np.array(row[1]), ref["energy"], energy_limit),
        "forces": (atoms[:, 1:4], ref["forces"], force_limit),
        "virial": (np.array(row[2:8]) * row[8] / NKTV2P_METAL,
                   np.array([v[0, 0], v[1, 1], v[2, 2], v[0, 1], v[0, 2], v[1, 2]]),
                   force_limit),
    }
    errors = []
    for quantity, (got, want, limit) in pairs.items():
        if got.shape != want.shape:
            sys.exit(f"{name}: {quantity}: shape {got.shape}, sezm-run's {want.shape}")
        error = np.abs(got - want).max() / max(np.abs(want).max(), 1e-300)
        if not error <= limit:
            sys.exit(f"{name}: {quantity}: relative error {error:.3g} > {limit:g}")
        errors.append(f"{quantity} {error:.1e}")
    print(f"{name}: {', '.join(errors)} (limits {energy_limit:g}, {force_limit:g})")


if __name__ == "__main__":
    main()
