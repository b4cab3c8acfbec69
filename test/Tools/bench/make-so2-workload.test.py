# The closest pair of an extended XYZ file with an orthorhombic Lattice,
# over periodic images (minimum image: the box is wider than 2 A).
import math
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
count = int(lines[0])
box = [float(v) for v in re.search(r'Lattice="([^"]*)"', lines[1]).group(1).split()]
size = (box[0], box[4], box[8])
atoms = [[float(v) for v in line.split()[1:4]] for line in lines[2:2 + count]]
closest = math.inf
for i in range(count):
    for j in range(i):
        d = [atoms[i][k] - atoms[j][k] for k in range(3)]
        d = [x - size[k] * round(x / size[k]) for k, x in enumerate(d)]
        closest = min(closest, math.sqrt(sum(x * x for x in d)))
print(f"{count} atoms, closest pair {closest:.3f} A")
