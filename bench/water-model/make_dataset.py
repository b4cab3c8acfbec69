#!/usr/bin/env python3
"""A water dataset in DeePMD-kit's format, labelled by a classical model.

    make_dataset.py OUT_DIR [--lmp build/python-venv/bin/lmp]

Runs flexible SPC/Fw water (Wu, Tepper and Voth, J. Chem. Phys. 124,
024503 (2006): harmonic O-H bonds and H-O-H angles, LJ between oxygens,
charges -0.82/+0.41) with the charges' interaction damped and shifted to
zero at 6 A (pair lj/cut/coul/dsf), so that a 6 A message-passing model
can learn all of it, on the 96-atom box of examples/water, in LAMMPS (NVT
at 300 K and at 450 K). Frames every 10 fs after 5 ps of equilibration
each become OUT_DIR/set.000: coord, box, energy, force in A and eV. The
trained model is for benchmarks of MD (energy drift, time per step), not
for science: the reference is a classical force field.
"""
import os
import subprocess
import sys

import numpy as np

KCAL = 0.0433641  # eV per kcal/mol
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_box(path):
    lines = open(path).read().splitlines()
    lattice = [float(v) for v in lines[1].split('"')[1].split()]
    atoms = [(l.split()[0], [float(v) for v in l.split()[1:4]])
             for l in lines[2:2 + int(lines[0])]]
    return lattice, atoms


def write_full_data(path, lattice, atoms):
    """atom_style full: molecule per O H H triple, two bonds, one angle."""
    n = len(atoms)
    assert n % 3 == 0 and all(atoms[i][0] == "O" for i in range(0, n, 3))
    lines = ["SPC/Fw water from examples/water/water-box.xyz", "",
             f"{n} atoms", f"{2 * n // 3} bonds", f"{n // 3} angles",
             "2 atom types", "1 bond types", "1 angle types",
             f"0 {lattice[0]} xlo xhi", f"0 {lattice[4]} ylo yhi",
             f"0 {lattice[8]} zlo zhi", "", "Masses", "", "1 15.9994",
             "2 1.008", "", "Atoms # full", ""]
    for i, (species, p) in enumerate(atoms):
        kind, charge = (1, -0.82) if species == "O" else (2, 0.41)
        lines.append(f"{i + 1} {i // 3 + 1} {kind} {charge} {p[0]} {p[1]} {p[2]}")
    lines += ["", "Bonds", ""]
    for m in range(n // 3):
        o = 3 * m + 1
        lines += [f"{2 * m + 1} 1 {o} {o + 1}", f"{2 * m + 2} 1 {o} {o + 2}"]
    lines += ["", "Angles", ""]
    lines += [f"{m + 1} 1 {3 * m + 2} {3 * m + 1} {3 * m + 3}" for m in range(n // 3)]
    open(path, "w").write("\n".join(lines) + "\n")


INPUT = """
units metal
atom_style full
boundary p p p
read_data {data}
pair_style lj/cut/coul/dsf 0.2 6.0 6.0
pair_coeff 1 1 {eps} 3.165492
pair_coeff * 2 0.0 1.0
bond_style harmonic
bond_coeff 1 {kb} 1.012
angle_style harmonic
angle_coeff 1 {ka} 113.24
special_bonds lj/coul 0.0 0.0 0.0
neighbor 2.0 bin
timestep 0.0005
velocity all create {temp} {seed} mom yes rot yes dist gaussian
fix nvt all nvt temp {temp} {temp} 0.05
thermo 1000
run 10000
reset_timestep 0
dump frames all custom 20 {out} id type x y z fx fy fz
dump_modify frames sort id format float %.12g
thermo_style custom step pe
thermo_modify format float %.12g
thermo 20
run {steps}
"""


def main():
    out = sys.argv[1]
    lmp = sys.argv[sys.argv.index("--lmp") + 1] if "--lmp" in sys.argv else \
        os.path.join(ROOT, "build", "python-venv", "bin", "lmp")
    os.makedirs(os.path.join(out, "set.000"), exist_ok=True)
    work = os.path.join(out, "lammps")
    os.makedirs(work, exist_ok=True)
    lattice, atoms = read_box(os.path.join(ROOT, "examples", "water", "water-box.xyz"))
    write_full_data(os.path.join(work, "water.data"), lattice, atoms)
    coords, forces, energies = [], [], []
    for temp, seed in ((300, 11), (450, 12)):
        dump = os.path.join(work, f"frames-{temp}.dump")
        script = INPUT.format(data="water.data", eps=0.1554 * KCAL,
                              kb=1059.162 / 2 * KCAL, ka=75.90 / 2 * KCAL,
                              temp=temp, seed=seed, out=dump, steps=4000)
        log = os.path.join(work, f"log-{temp}.lammps")
        subprocess.run([lmp, "-log", log], input=script, text=True, cwd=work,
                       check=True, capture_output=True)
        lines = open(log).read().splitlines()
        start = max(i for i, l in enumerate(lines) if l.split() == ["Step", "PotEng"])
        pe = [float(l.split()[1]) for l in lines[start + 1:]
              if l.split() and l.split()[0].isdigit()]
        text = open(dump).read().split("ITEM: TIMESTEP\n")[1:]
        for frame, e in zip(text, pe):
            rows = frame.splitlines()
            body = rows[rows.index(next(r for r in rows if r.startswith("ITEM: ATOMS"))) + 1:]
            data = np.array([[float(v) for v in r.split()] for r in body])
            coords.append(data[:, 2:5].ravel())
            forces.append(data[:, 5:8].ravel())
            energies.append(e)
    types = [0 if s == "O" else 1 for s, _ in atoms]
    open(os.path.join(out, "type.raw"), "w").write("\n".join(map(str, types)) + "\n")
    open(os.path.join(out, "type_map.raw"), "w").write("O\nH\n")
    frames = len(coords)
    np.save(os.path.join(out, "set.000", "coord.npy"), np.array(coords))
    np.save(os.path.join(out, "set.000", "force.npy"), np.array(forces))
    np.save(os.path.join(out, "set.000", "energy.npy"), np.array(energies))
    np.save(os.path.join(out, "set.000", "box.npy"),
            np.tile(np.array(lattice), (frames, 1)))
    print(f"{frames} frames of {len(atoms)} atoms in {out}; energy "
          f"{min(energies):.3f} .. {max(energies):.3f} eV, max |force| "
          f"{np.abs(np.array(forces)).max():.2f} eV/A")


if __name__ == "__main__":
    main()
