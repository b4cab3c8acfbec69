#!/usr/bin/env python3
"""Replicates a periodic extended-XYZ structure na x nb x nc times.

  replicate_xyz.py IN.xyz OUT.xyz NA NB NC
"""
import re
import sys


def main(argv):
    source, target = argv[1], argv[2]
    counts = [int(v) for v in argv[3:6]]
    lines = open(source).read().split("\n")
    atoms = int(lines[0])
    lattice = re.search(r'Lattice="([^"]*)"', lines[1])
    if not lattice:
        sys.exit(f"{source}: no Lattice to replicate")
    cell = [float(v) for v in lattice.group(1).split()]
    vectors = [cell[0:3], cell[3:6], cell[6:9]]
    out = []
    for i in range(counts[0]):
        for j in range(counts[1]):
            for k in range(counts[2]):
                shift = [i * vectors[0][d] + j * vectors[1][d] + k * vectors[2][d]
                         for d in range(3)]
                for line in lines[2:2 + atoms]:
                    fields = line.split()
                    position = [float(fields[1 + d]) + shift[d] for d in range(3)]
                    out.append(f"{fields[0]} " + " ".join(f"{v:.10f}" for v in position))
    big = [v * counts[n // 3] for n, v in enumerate(cell)]
    header = lines[1].replace(lattice.group(1), " ".join(f"{v:g}" for v in big))
    with open(target, "w") as f:
        f.write(f"{len(out)}\n{header}\n" + "\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv)
