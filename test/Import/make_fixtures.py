#!/usr/bin/env python3
"""Writes the import fixtures: DPA4 checkpoints made by DeePMD-kit itself.

Runs on the development machine only, in a venv with
`pip install "deepmd-kit[torch]==3.2.0"` (CI never runs it; it reads the
committed files). For each model it trains one step with `dp --pt train` on
a two-frame water dataset (any numbers do: the file format is what is
tested), keeps the training checkpoint (with optimizer state), writes a
model-only copy of it, and lists what a reader must find in them. It also
writes a perturbed DPA4 of SeZM-min's shape, three water structures and
DeePMD-kit's float32 and float64 references on each (sezm_min_shape_fixture):

  tensor <state-dict key> <dtype> <shape> <sum of elements in float64>
  param <model_params path> <value>   (every scalar of model_params)

  test/Import/make_fixtures.py [OUT_DIR]   (default: test/Import/fixtures)

With --only NAME it writes one variant of SeZM-min's shape (its
checkpoint and references), leaving the other fixtures as they are:

  test/Import/make_fixtures.py --only sezm-min-s2-ffn [OUT_DIR]

With --broken it writes only the broken copies of the committed dpa4-small
training checkpoint (dpa4-small.<what>.ckpt.pt):

  test/Import/make_fixtures.py --broken [OUT_DIR]

With --atomic it writes only DeePMD-kit's per-atom energies and virials
(DeepPot.eval(..., atomic=True)) of the committed SeZM-min-shape checkpoint
on the three committed structures, float32 and float64
(water-<structure>.dp-<precision>.atom_energy.npy, (N,), and .atom_virial.npy,
(N, 3, 3)), without retraining anything:

  test/Import/make_fixtures.py --atomic [--only VARIANT] [OUT_DIR]
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


# DPA4 of SeZM-min's shape (issue 21): imported whole, checked against
# DeePMD-kit's own eval in test/Import/sezm-min-shape-parity.test.
SEZM_MIN_SHAPE = {
    "type": "dpa4",
    "type_map": ["O", "H"],
    "descriptor": {"type": "dpa4", "rcut": 6.0, "channels": 32, "lmax": 3,
                   "mmax": 1, "n_blocks": 2, "mixing_layers": 3,
                   "n_focus": 2, "focus_dim": 32,
                   "radial_so2_mode": "degree_channel", "radial_so2_rank": 1,
                   "n_atten_head": 0, "use_env_seed": False,
                   "edge_norm": False,
                   "sandwich_norm": [False, False, False, False],
                   "s2_activation": [False, False], "so3_readout": "none"},
    "fitting_net": {"type": "dpa4_ener"},
}

# SeZM-min's shape with all four sandwich norms (DeePMD-kit's default is
# [false, true, true, false]): the equivariant RMS norms, eps 1.0 after the
# SO(2) convolution (edge_norm false) and 1e-5 elsewhere.
SEZM_MIN_NORMS = json.loads(json.dumps(SEZM_MIN_SHAPE))
SEZM_MIN_NORMS["descriptor"]["sandwich_norm"] = [True, True, True, True]

# edge_norm (the radial MLP's RMSNorm, the focus competition's scalar
# RMSNorm, eps 1e-5 after the SO(2) convolution) with DeePMD-kit's default
# sandwich norms.
SEZM_MIN_EDGE_NORM = json.loads(json.dumps(SEZM_MIN_SHAPE))
SEZM_MIN_EDGE_NORM["descriptor"]["edge_norm"] = True
SEZM_MIN_EDGE_NORM["descriptor"]["sandwich_norm"] = [False, True, True, False]

# The S2-grid GLU FFN (DeePMD-kit's default s2_activation [false, true],
# on its default Lebedev grid): import issue II.
SEZM_MIN_S2_FFN = json.loads(json.dumps(SEZM_MIN_SHAPE))
SEZM_MIN_S2_FFN["descriptor"]["s2_activation"] = [False, True]

# The env-seed FiLM and the geometric initial embedding (GIE): DeePMD-kit's
# default use_env_seed, with its default edge_norm (the FiLM's scalar
# RMSNorms) and sandwich norms.
SEZM_MIN_ENV_SEED = json.loads(json.dumps(SEZM_MIN_EDGE_NORM))
SEZM_MIN_ENV_SEED["descriptor"]["use_env_seed"] = True

# Attention (two heads in each of the two focus streams) with the env seed
# and the S2 FFN: every piece of DeePMD-kit's default config on SeZM-min's
# shape.
SEZM_MIN_ATTENTION = json.loads(json.dumps(SEZM_MIN_ENV_SEED))
SEZM_MIN_ATTENTION["descriptor"]["n_atten_head"] = 2
SEZM_MIN_ATTENTION["descriptor"]["s2_activation"] = [False, True]

# DeePMD-kit's argcheck defaults (what `dp --pt train` builds from a
# descriptor that sets nothing but its type): channels 64, lmax 3, 3 blocks
# of 4 mixing layers, one attention head, env seed, edge_norm, sandwich norms
# [false, true, true, false], the S2-grid FFN.
DPA4_DEFAULT = {
    "type": "dpa4",
    "type_map": ["O", "H"],
    "descriptor": {"type": "dpa4"},
    "fitting_net": {"type": "dpa4_ener"},
}

# The default config with two attention heads in each of two focus streams
# (32 channels a stream, 16 a head).
DPA4_DEFAULT_HEADS = json.loads(json.dumps(DPA4_DEFAULT))
DPA4_DEFAULT_HEADS["descriptor"].update({"n_atten_head": 2, "n_focus": 2})

# DeePMD-kit 3.2.0's own water example (examples/water/dpa4/input.json,
# "DPA4-Mini"): channels 32, lmax 2, 2 blocks of 3 mixing layers, the SO(3)
# grid nets (kmax 1: frames 0, -1, 1 on Lebedev x 4 gamma) in the message
# (cross GLU product), in each FFN (one scalar-routed branch) and in the
# read-out (grid MLP): import issue III.
DPA4_MINI = {
    "type": "dpa4",
    "type_map": ["O", "H"],
    "descriptor": {"type": "dpa4", "rcut": 6.0, "channels": 32,
                   "n_radial": 16, "edge_norm": False, "use_env_seed": True,
                   "lmax": 2, "mmax": 1, "n_blocks": 2, "mixing_layers": 3,
                   "radial_so2_mode": "degree_channel", "radial_so2_rank": 1,
                   "n_focus": 1, "focus_dim": 0, "n_atten_head": 1,
                   "message_node_so3": True, "ffn_neurons": 0,
                   "ffn_so3_grid": True, "grid_mlp": False,
                   "grid_branch": [0, 0, 1], "ffn_blocks": 1,
                   "so3_readout": "mlp", "precision": "float32"},
    "fitting_net": {"type": "dpa4_ener", "neuron": [0],
                    "precision": "float32"},
}

# A smaller DPA4-Mini (channels 16, one block of two layers) with the other
# grid ops: one scalar-routed branch in the message node, the grid MLP in
# the FFN, the plain product in the read-out.
DPA4_MINI_VARIANTS = json.loads(json.dumps(DPA4_MINI))
DPA4_MINI_VARIANTS["descriptor"].update(
    {"channels": 16, "n_blocks": 1, "mixing_layers": 2,
     "grid_mlp": [False, False, True], "grid_branch": [0, 1, 0],
     "so3_readout": "glu"})

# The variants of SeZM-min's shape: config, seed, perturbation strength.
# The norms amplify the perturbation: a third of it keeps the forces
# below 1 eV/A (at full strength they pass 400 eV/A).
VARIANTS = {
    "sezm-min-norms": (SEZM_MIN_NORMS, 22, 0.3),
    "sezm-min-edge-norm": (SEZM_MIN_EDGE_NORM, 23, 0.3),
    "sezm-min-s2-ffn": (SEZM_MIN_S2_FFN, 24, 0.3),
    "sezm-min-env-seed": (SEZM_MIN_ENV_SEED, 25, 0.3),
    "sezm-min-attention": (SEZM_MIN_ATTENTION, 26, 0.3),
    "dpa4-default": (DPA4_DEFAULT, 27, 0.3),
    "dpa4-default-heads": (DPA4_DEFAULT_HEADS, 28, 0.3),
    "dpa4-mini": (DPA4_MINI, 29, 0.3),
    "dpa4-mini-variants": (DPA4_MINI_VARIANTS, 30, 0.3),
}

# Tensors DeePMD-kit rebuilds at model construction: not perturbed.
CONSTANTS = ("wigner_calc", "out_std", "descriptor.mean", "descriptor.stddev",
             "version_tensor", "min_nbor_dist", "dens_force_rmsd",
             "balance_weight")


def train_one_step(model, work):
    """The checkpoint `dp --pt train` writes after one step on water."""
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
    return os.path.join(work, "model.ckpt-1.pt")


def perturbed(state, seed, strength=1.0):
    """Every weight moved by seeded noise, so that every branch carries
    signal: a fresh model has zero output projections (post_focus_mix, the
    FFNs' so3_linear_2) and forces near 1e-5 eV/A."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for key, value in state.items():
        if (not isinstance(value, torch.Tensor) or not value.is_floating_point()
                or any(c in key for c in CONSTANTS)):
            out[key] = value
            continue
        noise = torch.randn(value.shape, generator=gen, dtype=torch.float64)
        if key.endswith("adam_freqs"):
            moved = value.double() * (1 + 0.05 * noise)
        elif key.endswith("out_bias") or key.endswith("bias_atom_e"):
            moved = value.double() + noise
        else:
            scale = strength * max(0.15, 0.5 * value.double().std().item()
                                   if value.numel() > 1 else 0.15)
            moved = value.double() + scale * noise
        out[key] = moved.to(value.dtype)
    return out


def water_structures():
    """Three small water structures (name, species, positions, cell or
    None): a periodic cubic box, a triclinic cell and a cluster."""
    rng = np.random.default_rng(7)

    def molecules(origins):
        species, positions = [], []
        for o in origins:
            # H-O-H at 104.5 degrees, 0.96 A bonds, in a random orientation.
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            half = np.radians(104.5) / 2
            for s, d in (("O", np.zeros(3)),
                         ("H", 0.96 * np.array([np.sin(half), np.cos(half), 0])),
                         ("H", 0.96 * np.array([-np.sin(half), np.cos(half), 0]))):
                species.append(s)
                positions.append(o + q @ d)
        return species, np.array(positions)

    grid = np.array([[i, j, k] for i in range(2) for j in range(2)
                     for k in range(2)], dtype=float)
    cubic = np.eye(3) * 6.3
    s, p = molecules(grid * 3.15 + 0.8 + rng.normal(0, 0.15, (8, 3)))
    triclinic = np.array([[6.6, 0, 0], [1.4, 6.4, 0], [0.9, 1.2, 6.5]])
    s2, p2 = molecules((grid / 2 + rng.normal(0, 0.02, (8, 3)) + 0.12) @ triclinic)
    cluster = np.array([[0, 0, 0], [2.9, 0, 0], [0, 2.9, 0], [0, 0, 2.9],
                        [2.8, 2.8, 0.3]], dtype=float)
    s3, p3 = molecules(cluster + rng.normal(0, 0.1, cluster.shape))
    return [("cubic", s, p, cubic), ("triclinic", s2, p2, triclinic),
            ("cluster", s3, p3, None)]


def write_xyz(path, species, positions, cell):
    with open(path, "w") as f:
        f.write(f"{len(species)}\n")
        if cell is None:
            f.write('Properties=species:S:1:pos:R:3 pbc="F F F"\n')
        else:
            f.write('Lattice="' + " ".join(f"{v:.17g}" for v in cell.ravel()) +
                    '" Properties=species:S:1:pos:R:3 pbc="T T T"\n')
        for s, r in zip(species, positions):
            f.write(f"{s} {r[0]:.17g} {r[1]:.17g} {r[2]:.17g}\n")


# A small importable DPA4 for the import's bad-input tests.
DPA4_SMALL = {
    "type": "dpa4",
    "type_map": ["O", "H"],
    "descriptor": {"type": "dpa4", "rcut": 6.0, "channels": 8, "lmax": 1,
                   "n_blocks": 1, "mixing_layers": 2, "n_focus": 1,
                   "n_atten_head": 0, "use_env_seed": False,
                   "edge_norm": False,
                   "sandwich_norm": [False, False, False, False],
                   "s2_activation": [False, False], "so3_readout": "none"},
    "fitting_net": {"type": "dpa4_ener"},
}


def small_fixtures(out):
    """dpa4-small: its training checkpoint, and model-only copies each
    broken one way (a missing, extra, misshapen or integer tensor; an
    unsupported setting in model_params)."""
    work = tempfile.mkdtemp()
    trained_path = train_one_step(DPA4_SMALL, work)
    shutil.copy(trained_path, os.path.join(out, "dpa4-small.train.ckpt.pt"))
    broken_fixtures(out)
    shutil.rmtree(work)


def broken_fixtures(out):
    """The broken copies of the committed dpa4-small training checkpoint."""
    state = torch.load(os.path.join(out, "dpa4-small.train.ckpt.pt"),
                       weights_only=True)["model"]
    prefix = "model.Default.atomic_model."

    def broken(name, edit):
        copy = dict(state)
        copy["_extra_state"] = json.loads(json.dumps(state["_extra_state"]))
        edit(copy, copy["_extra_state"]["model_params"])
        torch.save({"model": copy},
                   os.path.join(out, f"dpa4-small.{name}.ckpt.pt"))

    gate = prefix + "descriptor.blocks.0.ffns.0.act.gate_linear.weight"
    freqs = prefix + "descriptor.radial_basis.adam_freqs"
    broken("missing", lambda m, p: m.pop(gate))
    broken("extra", lambda m, p: m.update(
        {prefix + "descriptor.blocks.0.so2_conv.extra_proj.weight":
         torch.zeros(8, 8)}))
    broken("shape", lambda m, p: m.update({freqs: torch.ones(1, 12)}))
    broken("dtype", lambda m, p: m.update(
        {gate: torch.zeros(m[gate].shape, dtype=torch.int64)}))
    broken("mmax2", lambda m, p: p["descriptor"].update({"mmax": 2}))
    broken("lmax7", lambda m, p: p["descriptor"].update({"lmax": 7}))
    broken("spin", lambda m, p: p.update(
        {"spin": {"use_spin": [True, False], "virtual_scale": [0.3]}}))
    broken("fparam", lambda m, p: p["fitting_net"].update({"numb_fparam": 2}))
    broken("zbl", lambda m, p: p.update({"use_srtab": "table.txt"}))
    broken("unknown", lambda m, p: p["descriptor"].update(
        {"future_option": True}))
    broken("s2so2", lambda m, p: p["descriptor"].update(
        {"s2_activation": [True, True]}))
    broken("productgrid", lambda m, p: p["descriptor"].update(
        {"s2_activation": [False, True], "lebedev_quadrature": False}))
    broken("branches", lambda m, p: p["descriptor"].update(
        {"ffn_so3_grid": True, "grid_branch": [0, 0, 2]}))
    broken("kmax", lambda m, p: p["descriptor"].update({"kmax": 2}))
    broken("messagefocus", lambda m, p: p["descriptor"].update(
        {"message_node_so3": True, "n_focus": 2}))
    broken("readout", lambda m, p: p["descriptor"].update(
        {"so3_readout": "attention"}))


def sezm_min_shape_fixture(out, name="sezm-min-shape", model=SEZM_MIN_SHAPE,
                           seed=21, strength=1.0):
    """A DPA4 of SeZM-min's shape (perturbed, model-only checkpoint), three
    structures, and DeePMD-kit's energy, forces and virial on each from the
    model as configured (float32) and from its float64 build (the same
    weights, `precision: float64`). References are named after the model
    except for the first, whose names the structures share."""
    from deepmd.infer import DeepPot
    work = tempfile.mkdtemp()
    trained = torch.load(train_one_step(model, work), weights_only=True)
    state = perturbed(trained["model"], seed=seed, strength=strength)
    model_path = os.path.join(out, f"{name}.model.ckpt.pt")
    torch.save({"model": state}, model_path)
    double_path = float64_copy(model_path, work)
    tag = "" if name == "sezm-min-shape" else f"{name}."
    for structure, species, positions, cell in water_structures():
        xyz = os.path.join(out, f"water-{structure}.xyz")
        write_xyz(xyz, species, positions, cell)
        for precision, path in (("float32", model_path),
                                ("float64", double_path)):
            dp = DeepPot(path)
            types = [dp.get_type_map().index(s) for s in species]
            e, f, v = dp.eval(positions.reshape(1, -1),
                              None if cell is None else cell.reshape(1, 9),
                              types)
            prefix = os.path.join(out, f"water-{structure}.{tag}dp-{precision}")
            np.save(prefix + ".energy.npy", np.asarray(e, np.float64).reshape(()))
            np.save(prefix + ".forces.npy", np.asarray(f, np.float64).reshape(-1, 3))
            np.save(prefix + ".virial.npy", np.asarray(v, np.float64).reshape(3, 3))
            print(f"{name} {structure} {precision}: energy "
                  f"{float(np.ravel(e)[0]):.10f}, "
                  f"max |force| {np.abs(f).max():.4f}")
    shutil.rmtree(work)


def float64_copy(model_path, work):
    """The checkpoint with its descriptor and fitting net in float64 (the
    same weights), written into `work`."""
    state = torch.load(model_path, weights_only=True)["model"]
    double = dict(state)
    extra = json.loads(json.dumps(state["_extra_state"]))
    for part in ("descriptor", "fitting_net"):
        extra["model_params"][part]["precision"] = "float64"
    double["_extra_state"] = extra
    path = os.path.join(work, "float64.ckpt.pt")
    torch.save({"model": double}, path)
    return path


def read_xyz(path):
    lines = open(path).read().split("\n")
    count = int(lines[0])
    lattice = re.search(r'Lattice="([^"]*)"', lines[1])
    cell = (np.array([float(v) for v in lattice.group(1).split()])
            if lattice else None)
    species = [line.split()[0] for line in lines[2:2 + count]]
    positions = np.array([[float(v) for v in line.split()[1:4]]
                          for line in lines[2:2 + count]])
    return species, positions, cell


def atomic_fixtures(out, name="sezm-min-shape"):
    """DeePMD-kit's atom_energy and atom_virial of a committed SeZM-min-shape
    checkpoint (or variant) on the committed water structures."""
    from deepmd.infer import DeepPot
    work = tempfile.mkdtemp()
    model_path = os.path.join(out, f"{name}.model.ckpt.pt")
    tag = "" if name == "sezm-min-shape" else f"{name}."
    for precision, path in (("float32", model_path),
                            ("float64", float64_copy(model_path, work))):
        dp = DeepPot(path)
        for structure in ("cubic", "triclinic", "cluster"):
            species, positions, cell = read_xyz(
                os.path.join(out, f"water-{structure}.xyz"))
            types = [dp.get_type_map().index(s) for s in species]
            _, _, _, atom_energy, atom_virial = dp.eval(
                positions.reshape(1, -1),
                None if cell is None else cell.reshape(1, 9), types,
                atomic=True)
            prefix = os.path.join(out,
                                  f"water-{structure}.{tag}dp-{precision}")
            np.save(prefix + ".atom_energy.npy",
                    np.asarray(atom_energy, np.float64).reshape(-1))
            np.save(prefix + ".atom_virial.npy",
                    np.asarray(atom_virial, np.float64).reshape(-1, 3, 3))
            print(f"{structure} {precision}: atom energies sum to "
                  f"{float(np.sum(atom_energy)):.10f}")
    shutil.rmtree(work)


def main():
    argv = sys.argv[1:]
    only = None
    if "--only" in argv:
        at = argv.index("--only")
        only = argv[at + 1]
        del argv[at:at + 2]
        if only not in VARIANTS:
            sys.exit(f"--only takes one of {', '.join(VARIANTS)}")
    args = [a for a in argv if a not in ("--atomic", "--broken")]
    out = os.path.abspath(args[0] if args else os.path.join(HERE, "fixtures"))
    if "--atomic" in argv:
        atomic_fixtures(out, only or "sezm-min-shape")
        return
    if "--broken" in argv:
        broken_fixtures(out)
        return
    os.makedirs(out, exist_ok=True)
    if only:
        model, seed, strength = VARIANTS[only]
        sezm_min_shape_fixture(out, only, model, seed=seed, strength=strength)
        return
    radial_fixture(out)
    sezm_min_shape_fixture(out)
    for name, (model, seed, strength) in VARIANTS.items():
        sezm_min_shape_fixture(out, name, model, seed=seed, strength=strength)
    small_fixtures(out)
    for name, model in MODELS.items():
        work = tempfile.mkdtemp()
        trained = os.path.join(out, f"{name}.train.ckpt.pt")
        shutil.copy(train_one_step(model, work), trained)
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
