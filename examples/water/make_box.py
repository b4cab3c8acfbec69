#!/usr/bin/env python3
"""Writes water-box.xyz: 32 water molecules at 1 g/cm^3 in a periodic cube
(9.86 A), at seeded random positions and orientations, no two oxygens
closer than 2.6 A. Deterministic: the same file from the same seed.

  make_box.py OUT.xyz [SEED]
"""
import math
import random
import sys

MOLECULES = 32
BOX = 9.86
OH = 0.9572
ANGLE = math.radians(104.52)


def rotation(rng):
    # A uniformly random rotation from a random unit quaternion.
    w, x, y, z = (rng.gauss(0, 1) for _ in range(4))
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def main(argv):
    out = argv[1]
    rng = random.Random(int(argv[2]) if len(argv) > 2 else 2026)
    oxygens = []
    while len(oxygens) < MOLECULES:
        p = [rng.uniform(0, BOX) for _ in range(3)]
        near = False
        for q in oxygens:
            d = [(p[k] - q[k]) - BOX * round((p[k] - q[k]) / BOX) for k in range(3)]
            near |= math.sqrt(sum(v * v for v in d)) < 2.6
        if not near:
            oxygens.append(p)
    half = ANGLE / 2
    local = [[OH * math.sin(half), OH * math.cos(half), 0.0],
             [-OH * math.sin(half), OH * math.cos(half), 0.0]]
    lines = []
    for o in oxygens:
        r = rotation(rng)
        lines.append("O %.6f %.6f %.6f" % tuple(o))
        for h in local:
            lines.append("H %.6f %.6f %.6f" % tuple(
                o[i] + sum(r[i][j] * h[j] for j in range(3)) for i in range(3)))
    with open(out, "w") as f:
        f.write("%d\n" % len(lines))
        f.write('Lattice="%g 0 0 0 %g 0 0 0 %g" Properties=species:S:1:pos:R:3 '
                'pbc="T T T"\n' % (BOX, BOX, BOX))
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
