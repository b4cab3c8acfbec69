#!/usr/bin/env python3
"""A short NVE run and a geometry optimisation with a sezm-compiled model
through ASE:

  python examples/ase/md.py MODEL.sezm STRUCTURE.xyz [--steps 20]

MODEL.sezm comes from `sezm-compile model.ckpt.pt --per-atom -o MODEL.sezm`
(--per-atom for the per-atom energies; the CPU code runs where there is no
GPU). Prints the total energy along the run (it should stay put: NVE), then
relaxes a copy of the structure with BFGS and prints the largest force.
"""
import argparse

import numpy as np
from ase import units
from ase.io import read
try:  # ASE >= 3.29
    from ase.md.velocitydistribution import thermalize_momenta
except ImportError:
    from ase.md.velocitydistribution import (
        MaxwellBoltzmannDistribution as thermalize_momenta)
from ase.md.verlet import VelocityVerlet
from ase.optimize import BFGS

from sezm.calculator import SeZMCalculator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("structure")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()

    calc = SeZMCalculator(args.model, device=args.device)
    atoms = read(args.structure)
    atoms.calc = calc
    print(f"{len(atoms)} atoms on the {calc.model.device}; "
          f"energy {atoms.get_potential_energy():.6f} eV")
    thermalize_momenta(atoms, temperature_K=300, rng=np.random.default_rng(0))
    dyn = VelocityVerlet(atoms, 0.5 * units.fs)
    totals = []
    for step in range(args.steps):
        dyn.run(1)
        totals.append(atoms.get_potential_energy() + atoms.get_kinetic_energy())
    print(f"NVE, {args.steps} steps of 0.5 fs: total energy {totals[0]:.6f} "
          f"-> {totals[-1]:.6f} eV (drift {totals[-1] - totals[0]:+.2e} eV)")

    relaxed = read(args.structure)
    relaxed.calc = calc
    BFGS(relaxed, logfile=None).run(fmax=0.05, steps=args.steps)
    print(f"BFGS, at most {args.steps} steps: energy "
          f"{relaxed.get_potential_energy():.6f} eV, largest force "
          f"{np.abs(relaxed.get_forces()).max():.4f} eV/A")


if __name__ == "__main__":
    main()
