#!/usr/bin/env python3
"""Writes the inputs of so2_block.mlir into a folder, the same on every run.

A cluster of 24 atoms at seeded random positions in a 7 A box, every ordered
pair closer than the 6 A cutoff as an edge (src sends, dst receives), the
destination CSR, random node features and weights.

  make_inputs.py OUT_DIR
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "utils"))
import npytool  # noqa: E402

ATOMS, BOX, RCUT, LMAX, CHANNELS, RADIAL = 24, 7.0, 6.0, 3, 64, 16


def main(out):
    rng = random.Random(2026)
    os.makedirs(out, exist_ok=True)
    positions = [[rng.uniform(0, BOX) for _ in range(3)] for _ in range(ATOMS)]
    src, dst = [], []
    for d in range(ATOMS):
        for s in range(ATOMS):
            if s != d and math.dist(positions[s], positions[d]) < RCUT:
                src.append(s)
                dst.append(d)
    edges = len(src)
    # Destination CSR: edges grouped by receiver, ascending edge id inside.
    order = sorted(range(edges), key=lambda e: (dst[e], e))
    rowptr = [0] * (ATOMS + 1)
    for e in range(edges):
        rowptr[dst[e] + 1] += 1
    for n in range(ATOMS):
        rowptr[n + 1] += rowptr[n]
    rows = (LMAX + 1) ** 2
    kernel = (LMAX + 1) ** 2 + LMAX ** 2

    def write(name, dtype, shape, values):
        npytool.write(os.path.join(out, name + ".npy"), dtype, shape, values)

    write("positions", "f32", [ATOMS, 3], [c for p in positions for c in p])
    write("src", "i64", [edges], src)
    write("dst", "i64", [edges], dst)
    write("dst_order", "i64", [edges], order)
    write("dst_rowptr", "i64", [ATOMS + 1], rowptr)
    write("features", "f32", [ATOMS, rows, CHANNELS],
          [rng.gauss(0, 1) for _ in range(ATOMS * rows * CHANNELS)])
    write("radial_to_kernel", "f32", [RADIAL, kernel],
          [rng.gauss(0, 0.3) for _ in range(RADIAL * kernel)])
    write("channel_basis", "f32", [1, CHANNELS],
          [rng.uniform(0.5, 1.5) for _ in range(CHANNELS)])
    print("%d atoms, %d edges -> %s" % (ATOMS, edges, out))


if __name__ == "__main__":
    main(sys.argv[1])
