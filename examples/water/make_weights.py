#!/usr/bin/env python3
"""Writes the weights of model.mlir as .npy files, reproducibly from a seed:
embedding (2, 8) for H and O, radial_to_kernel (8, 25), channel_basis (1, 8).

  make_weights.py OUT_DIR [SEED]
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "utils"))
import npytool  # noqa: E402

SHAPES = {"embedding": (2, 8), "radial_to_kernel": (8, 25),
          "channel_basis": (1, 8)}
SCALES = {"embedding": 1.0, "radial_to_kernel": 0.5, "channel_basis": 1.0}


def main(argv):
    out = argv[1]
    rng = random.Random(int(argv[2]) if len(argv) > 2 else 7)
    os.makedirs(out, exist_ok=True)
    for name, shape in SHAPES.items():
        count = shape[0] * shape[1]
        values = [rng.gauss(0, SCALES[name]) for _ in range(count)]
        npytool.write(os.path.join(out, name + ".npy"), "f32", shape, values)


if __name__ == "__main__":
    main(sys.argv)
