#!/usr/bin/env python3
"""Writes the import fixtures: DPA4 checkpoints made by DeePMD-kit itself.

Runs on the development machine only, in a venv with
`pip install "deepmd-kit[torch]==3.2.0"` (CI never runs it; it reads the
committed files). For each model it trains one step with `dp --pt train` on
a two-frame water dataset (any numbers do: the file format is what is
tested), keeps the training checkpoint (with optimizer state), writes a
model-only copy of it, and lists what a reader must find in them:

  tensor <state-dict key> <dtype> <shape> <sum of elements in float64>
  param <model_params path> <value>   (every scalar of model_params)

  test/Import/make_fixtures.py [OUT_DIR]   (default: test/Import/fixtures)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# A tiny DPA4 (channels 8, lmax 1, one block of one mixing layer): the
# reader's fixture, a few hundred kilobytes with its optimizer state.
MODELS = {
    "dpa4-tiny": {
        "type": "dpa4",
        "type_map": ["O", "H"],
        "descriptor": {"type": "dpa4", "rcut": 6.0, "channels": 8, "lmax": 1,
                       "n_blocks": 1, "mixing_layers": 1, "n_atten_head": 0,
                       "use_env_seed": False},
        "fitting_net": {},
    },
}


def water_dataset(path):
    """Two frames of the water box, jiggled, with made-up labels."""
    lines = open(os.path.join(ROOT, "examples/water/water-box.xyz")).read().split("\n")
    count = int(lines[0])
    lattice = [float(v) for v in
               re.search(r'Lattice="([^"]*)"', lines[1]).group(1).split()]
    species, positions = [], []
    for line in lines[2:2 + count]:
        fields = line.split()
        species.append(fields[0])
        positions.append([float(v) for v in fields[1:4]])
    type_map = ["O", "H"]
    os.makedirs(os.path.join(path, "set.000"))
    with open(os.path.join(path, "type.raw"), "w") as f:
        f.write("\n".join(str(type_map.index(s)) for s in species) + "\n")
    with open(os.path.join(path, "type_map.raw"), "w") as f:
        f.write("\n".join(type_map) + "\n")
    rng = np.random.default_rng(0)
    coord = np.repeat(np.array(positions).reshape(1, -1), 2, 0)
    coord += rng.normal(0, 0.01, coord.shape)
    np.save(os.path.join(path, "set.000/coord.npy"), coord)
    np.save(os.path.join(path, "set.000/box.npy"),
            np.repeat(np.array(lattice).reshape(1, 9), 2, 0))
    np.save(os.path.join(path, "set.000/energy.npy"), rng.normal(0, 1, (2,)))
    np.save(os.path.join(path, "set.000/force.npy"),
            rng.normal(0, 0.1, coord.shape))


def scalars(prefix, value, out):
    if isinstance(value, dict):
        for key, item in value.items():
            scalars(f"{prefix}.{key}" if prefix else key, item, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            scalars(f"{prefix}.{index}", item, out)
    elif isinstance(value, bool):
        out.append(f"param {prefix} {'true' if value else 'false'}")
    elif isinstance(value, (int, float)):
        out.append(f"param {prefix} {value!r}")
    elif isinstance(value, str) and value and " " not in value:
        out.append(f"param {prefix} {value}")


def radial_fixture(out):
    """DeePMD-kit's C^3 envelope (exponent 5) and its Bessel radial basis
    (16 functions, exponent 7, the initial frequencies n pi / rcut) in
    float64 at edge lengths across the cutoff, for sezm's envelope and
    radial_basis ops."""
    from deepmd.pt.model.descriptor.sezm_nn.radial import (C3CutoffEnvelope,
                                                            RadialBasis)
    lengths = np.linspace(0.4, 6.3, 60)
    directions = np.random.default_rng(1).normal(size=(60, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    vectors = directions * lengths[:, None]
    r = torch.tensor(lengths, dtype=torch.float64)[:, None]
    envelope = C3CutoffEnvelope(6.0, 5, dtype=torch.float64).to("cpu")
    basis = RadialBasis(6.0, "bessel", 16, torch.float64, 7).to("cpu")
    with torch.no_grad():
        env = envelope(r.to(envelope.rcut_tensor.device))[:, 0].cpu().numpy()
        rbf = basis(r.to(basis.adam_freqs.device)).cpu().numpy()
    np.save(os.path.join(out, "radial-v.npy"), vectors)
    np.save(os.path.join(out, "radial-env.npy"), env)
    np.save(os.path.join(out, "radial-rbf.npy"), rbf)


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                          else os.path.join(HERE, "fixtures"))
    os.makedirs(out, exist_ok=True)
    radial_fixture(out)
    for name, model in MODELS.items():
        work = tempfile.mkdtemp()
        water_dataset(os.path.join(work, "data"))
        config = {
            "model": model,
            "learning_rate": {"type": "exp", "start_lr": 1e-3,
                              "stop_lr": 1e-4, "decay_steps": 10},
            "loss": {"type": "ener", "start_pref_e": 1, "limit_pref_e": 1,
                     "start_pref_f": 1, "limit_pref_f": 1},
            "training": {"training_data": {"systems": ["data"],
                                           "batch_size": 1},
                         "numb_steps": 1, "save_freq": 1, "disp_freq": 1,
                         "seed": 1},
        }
        with open(os.path.join(work, "input.json"), "w") as f:
            json.dump(config, f)
        subprocess.run(["dp", "--pt", "train", "input.json"], cwd=work,
                       check=True, capture_output=True)
        trained = os.path.join(out, f"{name}.train.ckpt.pt")
        shutil.copy(os.path.join(work, "model.ckpt-1.pt"), trained)
        checkpoint = torch.load(trained, weights_only=True)
        torch.save({"model": checkpoint["model"]},
                   os.path.join(out, f"{name}.model.ckpt.pt"))
        lines = []
        for key, tensor in checkpoint["model"].items():
            if not isinstance(tensor, torch.Tensor):
                continue
            shape = ",".join(str(d) for d in tensor.shape) or "-"
            dtype = str(tensor.dtype).replace("torch.", "")
            total = tensor.double().sum().item()
            lines.append(f"tensor {key} {dtype} {shape} {total!r}")
        scalars("", checkpoint["model"]["_extra_state"]["model_params"], lines)
        with open(os.path.join(out, f"{name}.expected.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        shutil.rmtree(work)
        print(f"{name}: {len(lines)} expectations in {out}")


if __name__ == "__main__":
    main()
