# ase-calculator.test's driver: SeZMCalculator against sezm-run's outputs.
import os
import sys

import numpy as np
from ase.io import read

from sezm.calculator import SeZMCalculator

model, fixtures, out = sys.argv[1:4]
calc = SeZMCalculator(model, device="cpu")


def relerr(a, ref):
    return np.abs(np.asarray(a) - ref).max() / np.abs(ref).max()


for name in ("cubic", "cluster"):
    atoms = read(os.path.join(fixtures, f"water-{name}.xyz"))
    atoms.calc = calc
    ref = {q: np.load(os.path.join(out, name, q + ".npy"))
           for q in ("energy", "forces", "virial", "atom_energy")}
    print(f"{name}: {len(atoms)} atoms on the {calc.model.device}, type_map "
          f"{' '.join(calc.type_map)}, rcut {calc.model.rcut:g}")
    errors = [relerr(atoms.get_potential_energy(), ref["energy"]),
              relerr(atoms.get_forces(), ref["forces"]),
              relerr(atoms.get_potential_energies(), ref["atom_energy"])]
    what = "energy, forces and per-atom energies"
    if atoms.cell.rank == 3:
        stress = -ref["virial"] / atoms.get_volume()
        errors.append(relerr(atoms.get_stress(voigt=False), stress))
        what = "energy, forces, stress and per-atom energies"
    worst = max(errors)
    assert worst <= 1e-6, f"{name}: relative errors {errors}"
    print(f"{name}: largest relative error {worst:.2g}", file=sys.stderr)
    print(f"{name}: {what} within 1e-06 of sezm-run")

carbon = read(os.path.join(fixtures, "water-cluster.xyz"))
carbon[0].symbol = "C"
carbon.calc = calc
try:
    carbon.get_potential_energy()
    print("a species the model lacks: accepted")
except ValueError as error:
    print(f"a species the model lacks: {error}")
