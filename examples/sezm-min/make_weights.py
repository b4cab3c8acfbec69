#!/usr/bin/env python3
"""Writes the weights of SeZM-min (model.mlir) as one safetensors file,
reproducibly from a seed: every tensor drawn from N(0, scale^2) in the
order below with Python's Mersenne Twister, scale 1/sqrt(fan-in) (the
complex |m| = 1 blocks with the 1/sqrt(2) of sezm-ops.md 3.5).

  make_weights.py OUT.safetensors [SEED]
"""
import json
import math
import random
import struct
import sys

BLOCKS, LAYERS = 2, 3


def shapes():
    """(name, shape, scale) of every weight, in file order."""
    found = [("type_embedding", (2, 32), 1.0),
             ("radial.w1", (16, 32), 1 / math.sqrt(16)),
             ("radial.w2", (32, 128), 1 / math.sqrt(32))]
    for b in range(BLOCKS):
        p = f"block{b}."
        found += [(p + "pre_mix", (4, 32, 64), 1 / math.sqrt(32)),
                  (p + "radial_to_hidden", (32, 64), 1 / math.sqrt(32)),
                  (p + "radial_to_kernel", (256, 25), 1 / math.sqrt(256)),
                  (p + "channel_basis", (1, 64), 1.0),
                  (p + "focus_compete", (32, 2), 1 / math.sqrt(32))]
        for k in range(LAYERS):
            q = p + f"layer{k}."
            found += [(q + "w0", (2, 128, 128), 1 / math.sqrt(128)),
                      (q + "wu", (2, 96, 96), 1 / math.sqrt(2 * 96)),
                      (q + "wv", (2, 96, 96), 1 / math.sqrt(2 * 96))]
            if k < LAYERS - 1:
                found.append((q + "gate", (2, 32, 96), 1 / math.sqrt(32)))
        # Nonzero (upstream starts it at zero), so that every block counts.
        found.append((p + "post_mix", (4, 64, 32), 0.5 / math.sqrt(64)))
    found += [("readout.w1", (32, 64), 1 / math.sqrt(32)),
              ("readout.w2", (64, 1), 1 / math.sqrt(64)),
              ("readout.type_bias", (2,), 1.0)]
    return found


def main(argv):
    out = argv[1]
    rng = random.Random(int(argv[2]) if len(argv) > 2 else 2026)
    header, blobs, offset = {}, [], 0
    for name, shape, scale in shapes():
        count = math.prod(shape)
        blob = struct.pack(f"<{count}f",
                           *(rng.gauss(0, scale) for _ in range(count)))
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = {"model": "SeZM-min",
                              "seed": str(argv[2] if len(argv) > 2 else 2026)}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # data starts 8-byte aligned
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


if __name__ == "__main__":
    main(sys.argv)
