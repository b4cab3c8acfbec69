#!/usr/bin/env python3
"""Writes a LAMMPS data file (atom_style atomic) from an extended XYZ file.

    xyz2data.py water.xyz O H > water.data

The element names, in order, become LAMMPS atom types 1, 2, ...; give the
same names to `pair_coeff * * O H`. A periodic cell must be in LAMMPS's
form (a along x, b in the xy plane: rows a, b, c lower-triangular), as
LAMMPS stores it; the script refuses another orientation rather than
rotate the structure. A structure without a Lattice gets a box 10 A larger
than its atoms in each direction, for `boundary f f f` or `s s s`. Plain
Python: no ASE needed.
"""
import re
import sys


def read_xyz(path):
    with open(path) as f:
        lines = f.read().splitlines()
    try:
        count = int(lines[0].split()[0])
    except (IndexError, ValueError):
        sys.exit(f"{path}:1: the first line must be the atom count")
    if len(lines) < count + 2:
        sys.exit(f"{path}: {count} atoms announced, {len(lines) - 2} lines follow")
    lattice = None
    found = re.search(r'Lattice="([^"]*)"', lines[1])
    if found:
        values = [float(v) for v in found.group(1).split()]
        if len(values) != 9:
            sys.exit(f"{path}:2: Lattice needs 9 numbers")
        lattice = [values[0:3], values[3:6], values[6:9]]
    atoms = []
    for n, line in enumerate(lines[2:count + 2], start=3):
        fields = line.split()
        if len(fields) < 4:
            sys.exit(f"{path}:{n}: expected a species and three coordinates")
        try:
            atoms.append((fields[0], [float(v) for v in fields[1:4]]))
        except ValueError:
            sys.exit(f"{path}:{n}: a coordinate is not a number")
    return lattice, atoms


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    path, elements = sys.argv[1], sys.argv[2:]
    lattice, atoms = read_xyz(path)
    out = [f"LAMMPS data file from {path} (types: {' '.join(elements)})", "",
           f"{len(atoms)} atoms", f"{len(elements)} atom types"]
    if lattice:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = lattice
        if abs(ay) > 1e-12 or abs(az) > 1e-12 or abs(bz) > 1e-12:
            sys.exit(f"{path}: the cell is not in LAMMPS's orientation "
                     "(a along x, b in the xy plane)")
        if ax <= 0 or by <= 0 or cz <= 0:
            sys.exit(f"{path}: the cell is not right-handed with positive "
                     "diagonal")
        out += [f"0 {ax!r} xlo xhi", f"0 {by!r} ylo yhi", f"0 {cz!r} zlo zhi"]
        if bx or cx or cy:
            out.append(f"{bx!r} {cx!r} {cy!r} xy xz yz")
    else:
        for k, axis in enumerate("xyz"):
            lo = min(p[k] for _, p in atoms) - 10.0
            hi = max(p[k] for _, p in atoms) + 10.0
            out.append(f"{lo!r} {hi!r} {axis}lo {axis}hi")
    out += ["", "Atoms # atomic", ""]
    for i, (species, p) in enumerate(atoms, start=1):
        if species not in elements:
            sys.exit(f"{path}: atom {i} is {species}, which is not among "
                     f"the types given ({' '.join(elements)})")
        out.append(f"{i} {elements.index(species) + 1} {p[0]!r} {p[1]!r} {p[2]!r}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
