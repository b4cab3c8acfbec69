#!/usr/bin/env python3
"""SeZM-min (examples/sezm-min/model.mlir) in plain PyTorch, written from
sezm-ops.md, as the comparator of sezm's compiled model: the same weights
(the safetensors file of make_weights.py), the same structure and neighbour
graph rules (every ordered pair and periodic image within the cutoff), energy
by the same ops and forces and virial by autograd.

Checks its energy, forces and virial against sezm's (--expect DIR, the .npy
files of `sezm-run --output-dir`) and, with --bench, times eager PyTorch and
torch.compile (CUDA events, median of --bench runs after warm-up) and reports
their peak device memory (so2_compare.time_ms: two warm-up calls, then
the median, and the memory allocated beyond what was live before).

  sezm_min_torch.py --structure S.xyz --weights W.safetensors
      [--expect DIR] [--device cuda] [--dtype float32] [--bench 20]
      [--compile]
"""
import argparse
import json
import math
import re
import struct
import sys
import time

import torch

from so2_compare import relative_error, time_ms

LMAX, CHANNELS, WIDTH, FOCUS, RCUT = 3, 32, 32, 2, 6.0
BLOCKS, LAYERS = 2, 3
EPS = 1e-7


# --- Inputs -----------------------------------------------------------------

def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", f"{name}: {entry['dtype']}"
        begin, end = entry["data_offsets"]
        t = torch.frombuffer(bytearray(body[begin:end]), dtype=torch.float32)
        tensors[name] = t.reshape(entry["shape"])
    return tensors


def read_xyz(path, species_order):
    with open(path) as f:
        lines = f.read().splitlines()
    count = int(lines[0])
    lattice = re.search(r'Lattice="([^"]*)"', lines[1])
    cell = [float(v) for v in lattice.group(1).split()] if lattice else None
    types, positions = [], []
    for line in lines[2:2 + count]:
        fields = line.split()
        types.append(species_order.index(fields[0]))
        positions.append([float(v) for v in fields[1:4]])
    return positions, types, cell


def neighbour_graph(pos, cell, cutoff):
    """Every ordered pair (src, dst) and lattice translation within the
    cutoff, but an atom and itself untranslated: src, dst and the Cartesian
    shift, so that edge_vec = pos[src] - pos[dst] + shift. In fp64, on the
    device of `pos`, in blocks of destinations."""
    p = pos.double()
    a = torch.tensor(cell, dtype=torch.float64, device=pos.device).reshape(3, 3)
    reach = [math.ceil(cutoff / (abs(torch.linalg.det(a).item()) /
                                 torch.linalg.norm(torch.linalg.cross(
                                     a[(k + 1) % 3], a[(k + 2) % 3])).item()))
             for k in range(3)]
    images = torch.tensor([[i, j, k] for i in range(-reach[0], reach[0] + 1)
                           for j in range(-reach[1], reach[1] + 1)
                           for k in range(-reach[2], reach[2] + 1)],
                          dtype=torch.float64, device=pos.device)
    shifts = images @ a
    n = p.shape[0]
    srcs, dsts, shs = [], [], []
    block = max(1, (1 << 24) // (n * shifts.shape[0]))
    for start in range(0, n, block):
        d = torch.arange(start, min(n, start + block), device=pos.device)
        v = (p[None, None, :, :] + shifts[None, :, None, :]
             - p[d][:, None, None, :])  # (dst, image, src, 3)
        r2 = (v * v).sum(-1)
        ok = r2 < cutoff * cutoff
        zero = (images == 0).all(-1)
        ok &= ~(zero[None, :, None] &
                (d[:, None, None] == torch.arange(n, device=pos.device)[None, None, :]))
        di, ii, si = ok.nonzero(as_tuple=True)
        srcs.append(si)
        dsts.append(d[di])
        shs.append(shifts[ii])
    return torch.cat(srcs), torch.cat(dsts), torch.cat(shs)


# --- The Wigner-D matrices as polynomials of the edge quaternion -------------

def _poly_mul(a, b):
    out = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            e = tuple(x + y for x, y in zip(ea, eb))
            out[e] = out.get(e, 0) + ca * cb
    return out


def _poly_pow(a, n):
    out = {(0, 0, 0, 0): 1 + 0j}
    for _ in range(n):
        out = _poly_mul(out, a)
    return out


def wigner_coefficients(lmax):
    """(monomial exponents, coefficients): D[e] (packed (L+1)^2 square,
    block diagonal) = sum_k coeff[k] * prod_i q[e, i]^exp[k, i], the real
    Wigner-D of sezm-ops.md 2.2 expanded exactly from its complex form."""
    w, x, y, z = [{tuple(int(i == k) for i in range(4)): 1 + 0j} for k in range(4)]
    ra = {**{e: c for e, c in w.items()}, **{e: -1j * c for e, c in z.items()}}
    rac = {**{e: c for e, c in w.items()}, **{e: 1j * c for e, c in z.items()}}
    rb = {**{e: c for e, c in y.items()}, **{e: -1j * c for e, c in x.items()}}
    rbc = {**{e: c for e, c in y.items()}, **{e: 1j * c for e, c in x.items()}}
    rows = (lmax + 1) ** 2
    table = {}
    for l in range(lmax + 1):
        width = 2 * l + 1
        dc = [[None] * width for _ in range(width)]
        for mu in range(-l, l + 1):
            for nu in range(-l, l + 1):
                pre = math.sqrt(math.factorial(l + nu) * math.factorial(l - nu) /
                                (math.factorial(l + mu) * math.factorial(l - mu)))
                total = {}
                for rho in range(max(0, mu - nu), min(l + mu, l - nu) + 1):
                    c = (-1) ** rho * math.comb(l + mu, rho) * \
                        math.comb(l - mu, l - nu - rho) * pre
                    term = _poly_mul(_poly_mul(_poly_pow(ra, l + mu - rho),
                                               _poly_pow(rac, l - nu - rho)),
                                     _poly_mul(_poly_pow(rb, rho - mu + nu),
                                               _poly_pow(rbc, rho)))
                    for e, v in term.items():
                        total[e] = total.get(e, 0) + c * v
                dc[mu + l][nu + l] = total
        h = 1 / math.sqrt(2)
        u = [[0j] * width for _ in range(width)]
        for m in range(-l, l + 1):
            parity = -1.0 if abs(m) % 2 else 1.0
            if m == 0:
                u[l][l] = 1
            elif m > 0:
                u[m + l][m + l] = h
                u[m + l][-m + l] = parity * h
            else:
                u[m + l][-m + l] = -1j * h
                u[m + l][m + l] = 1j * parity * h
        for a_ in range(width):
            for b_ in range(width):
                entry = {}
                for i in range(width):
                    for k in range(width):
                        f = u[a_][i] * u[b_][k].conjugate()
                        if f == 0:
                            continue
                        for e, v in dc[i][k].items():
                            entry[e] = entry.get(e, 0) + f * v
                for e, v in entry.items():
                    if abs(v.real) > 1e-12:
                        table[(e, (l * l + a_) * rows + l * l + b_)] = v.real
    monomials = sorted({e for e, _ in table})
    index = {e: i for i, e in enumerate(monomials)}
    coeff = torch.zeros(len(monomials), rows * rows, dtype=torch.float64)
    for (e, slot), v in table.items():
        coeff[index[e], slot] += v
    return torch.tensor(monomials), coeff


# --- The model ----------------------------------------------------------------

def reduced_rows(lmax):
    """Packed row of each reduced (m-major, |m| <= 1) row, and its degree."""
    rows = [l * l + l for l in range(lmax + 1)]
    rows += [l * l + l - 1 for l in range(1, lmax + 1)]
    rows += [l * l + l + 1 for l in range(1, lmax + 1)]
    degree = list(range(lmax + 1)) + list(range(1, lmax + 1)) * 2
    return rows, degree


class SeZMMin:
    def __init__(self, weights, device, dtype):
        self.w = {k: v.to(device=device, dtype=dtype) for k, v in weights.items()}
        exps, coeff = wigner_coefficients(LMAX)
        self.exps = exps.to(device)
        self.coeff = coeff.to(device=device, dtype=dtype)
        rows, degree = reduced_rows(LMAX)
        self.rows = torch.tensor(rows, device=device)
        packed_degree = torch.tensor([int(math.isqrt(d)) for d in range((LMAX + 1) ** 2)],
                                     device=device)
        self.packed_degree = packed_degree
        # Rotation back: reduced row j reaches packed row d of its degree.
        self.same_degree = (torch.tensor(degree, device=device)[:, None] ==
                            packed_degree[None, :]).to(dtype)
        self.rescale = torch.tensor(
            [math.sqrt((2 * l + 1) / 3) if l > 1 else 1.0
             for l in packed_degree.tolist()], device=device, dtype=dtype)

    @staticmethod
    def _normalize(q):
        return q / torch.sqrt((q * q).sum(-1, keepdim=True) + EPS * EPS)

    def quaternion(self, v):
        r = torch.sqrt((v * v).sum(-1, keepdim=True) + EPS * EPS)
        u = v / torch.sqrt(r * r + EPS * EPS)
        ux, uy, uz = u.unbind(-1)
        zero = torch.zeros_like(ux)
        plus = self._normalize(torch.stack([1 + uz, uy, -ux, zero], -1))
        minus = self._normalize(torch.stack([-ux, zero, 1 - uz, uy], -1))
        flip = torch.where((minus * plus).sum(-1, keepdim=True) < 0, -1.0, 1.0)
        plus = plus * flip
        t = (uz + 1) / 2
        tiny = torch.finfo(v.dtype).eps
        tc = t.clamp(tiny, 1 - tiny)
        a = torch.exp(-1 / tc)
        b = torch.exp(-1 / (1 - tc))
        beta = torch.where(t <= 0, 0.0, torch.where(t >= 1, 1.0, a / (a + b)))
        beta = beta[:, None]
        return self._normalize(self._normalize((1 - beta) * minus + beta * plus))

    def wigner(self, v):
        q = self.quaternion(v)
        powers = torch.stack([q ** k for k in range(2 * LMAX + 1)], -1)  # (E,4,7)
        mono = (powers[:, 0, self.exps[:, 0]] * powers[:, 1, self.exps[:, 1]] *
                powers[:, 2, self.exps[:, 2]] * powers[:, 3, self.exps[:, 3]])
        rows = (LMAX + 1) ** 2
        return (mono @ self.coeff).reshape(-1, rows, rows)

    @staticmethod
    def poly_envelope(x, p):
        # DeePMD-kit's C^3 envelope: (1-x)^4 sum_{k<p} C(k+3, 3) x^k.
        series = torch.full_like(x, math.comb(p + 2, 3))
        for k in reversed(range(p - 1)):
            series = math.comb(k + 3, 3) + x * series
        env = (1 - x) ** 4 * series
        return torch.where(x < 1, env, torch.zeros_like(env))

    def degree_linear(self, x, w):
        return torch.einsum("ndi,dio->ndo", x, w[self.packed_degree])

    def so2_linear(self, u, w0, wu, wv):
        e = u.shape[0]
        out = []
        for f in range(FOCUS):
            uf = u[:, :, f * WIDTH:(f + 1) * WIDTH]
            m0 = uf[:, :LMAX + 1].reshape(e, -1) @ w0[f]
            xn = uf[:, LMAX + 1:2 * LMAX + 1].reshape(e, -1)
            xp = uf[:, 2 * LMAX + 1:].reshape(e, -1)
            neg = xn @ wu[f] - xp @ wv[f]
            pos = xn @ wv[f] + xp @ wu[f]
            out.append(torch.cat([m0.reshape(e, LMAX + 1, WIDTH),
                                  neg.reshape(e, LMAX, WIDTH),
                                  pos.reshape(e, LMAX, WIDTH)], 1))
        return torch.cat(out, 2)

    def gate(self, z, gw):
        out = []
        for f in range(FOCUS):
            zf = z[:, :, f * WIDTH:(f + 1) * WIDTH]
            s = zf[:, 0]
            g = torch.sigmoid(s @ gw[f]).reshape(-1, LMAX, WIDTH)  # (E, l-1, cf)
            # Rows l, L + l, 2L + l take the gate of degree l.
            gates = torch.cat([g, g, g], 1)
            out.append(torch.cat([(s * torch.sigmoid(s))[:, None],
                                  zf[:, 1:] * gates], 1))
        return torch.cat(out, 2)

    def focus_compete(self, u, wfc):
        logits = torch.stack([u[:, 0, f * WIDTH:(f + 1) * WIDTH] @ wfc[:, f]
                              for f in range(FOCUS)], -1)
        return 0.98 * torch.softmax(logits, -1) + 0.02 / FOCUS

    def energy(self, pos, shift, src, dst, types):
        w = self.w
        n = pos.shape[0]
        v = pos[src] - pos[dst] + shift
        wig = self.wigner(v)
        r = torch.sqrt((v * v).sum(-1) + EPS * EPS)
        env = self.poly_envelope(r / RCUT, 5)
        k = torch.arange(1, 17, device=pos.device, dtype=pos.dtype)
        rbf = torch.sin(k * math.pi / RCUT * r[:, None]) / r[:, None] * \
            self.poly_envelope(r / RCUT, 7)[:, None]
        radial = torch.nn.functional.silu(rbf @ w["radial.w1"]) @ w["radial.w2"]
        pair = (w["type_embedding"][types[src]] +
                w["type_embedding"][types[dst]]).repeat(1, 4)
        rad = radial * env[:, None] + pair
        deg = torch.zeros(n, dtype=pos.dtype, device=pos.device).index_add(
            0, dst, env * env)
        isd = torch.rsqrt(deg + 0.25)

        x = torch.zeros(n, (LMAX + 1) ** 2, CHANNELS, dtype=pos.dtype,
                        device=pos.device)
        x = x.index_copy(1, torch.tensor([0], device=pos.device),
                         w["type_embedding"][types][:, None, :])
        wred = wig[:, self.rows, :]  # (E, 10, 16): kept rows of D
        wback = wred * self.same_degree[None]
        for b in range(BLOCKS):
            p = f"block{b}."
            xw = self.degree_linear(x, w[p + "pre_mix"])
            radw = torch.einsum("eli,io->elo", rad.reshape(-1, 4, 32),
                                w[p + "radial_to_hidden"]).reshape(-1, 256)
            kc = radw @ w[p + "radial_to_kernel"]
            # rotate: xl[e, j] = D[e, row_j, block of j] x[src[e]]
            xl = torch.einsum("ejd,edc->ejc", wback, xw[src])
            keff = kc[:, :, None] * w[p + "channel_basis"][0][None, None, :]
            m0 = torch.einsum("eioc,eic->eoc",
                              keff[:, :16].reshape(-1, 4, 4, 2 * CHANNELS),
                              xl[:, :4])
            k1 = keff[:, 16:].reshape(-1, 3, 3, 2 * CHANNELS)
            mn = torch.einsum("eioc,eic->eoc", k1, xl[:, 4:7])
            mp = torch.einsum("eioc,eic->eoc", k1, xl[:, 7:])
            u0 = torch.cat([m0, mn, mp], 1)
            alpha = self.focus_compete(u0, w[p + "focus_compete"])
            u = u0
            for layer in range(LAYERS):
                q = f"{p}layer{layer}."
                z = self.so2_linear(u, w[q + "w0"], w[q + "wu"], w[q + "wv"])
                u = u + (self.gate(z, w[q + "gate"]) if layer < LAYERS - 1 else z)
            y = u * alpha.repeat_interleave(WIDTH, 1)[:, None, :]
            message = torch.einsum("ejd,ejc->edc", wback, y) * \
                self.rescale[None, :, None]
            agg = torch.zeros(n, (LMAX + 1) ** 2, 2 * CHANNELS, dtype=pos.dtype,
                              device=pos.device).index_add(
                                  0, dst, message * env[:, None, None])
            agg = agg * isd[:, None, None]
            x = x + self.degree_linear(agg, w[p + "post_mix"])
        h = torch.nn.functional.silu(x[:, 0] @ w["readout.w1"])
        atom = (h @ w["readout.w2"])[:, 0] + w["readout.type_bias"][types]
        return atom.sum()


def energy_forces_virial(model, pos, shift, src, dst, types):
    pos = pos.detach().requires_grad_(True)
    shift = shift.detach().requires_grad_(True)
    energy = model.energy(pos, shift, src, dst, types)
    # dE/dshift is dE/dv per edge: the virial is -sum_e dE/dv_e (x) v_e.
    g_pos, g_shift = torch.autograd.grad(energy, (pos, shift))
    v = (pos[src] - pos[dst] + shift).detach()
    virial = -(g_shift.T @ v)
    return energy.detach(), -g_pos, virial


# --- Driver -------------------------------------------------------------------

def compare(name, got, expected, rtol):
    got = got.detach().double().cpu()
    diff = (got - expected.double()).abs().max().item()
    rel = relative_error(got, expected)
    ok = rel <= rtol
    print(f"  {name}: max abs diff {diff:.3g}, rel {rel:.3g} "
          f"({'ok' if ok else 'FAIL'}, rtol {rtol:g})")
    return ok


def load_npy(path):
    import numpy
    return torch.from_numpy(numpy.load(path).astype("float64"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--structure", required=True)
    parser.add_argument("--weights", required=True)
    parser.add_argument("--species", default="H,O")
    parser.add_argument("--expect", help="folder of sezm-run's .npy outputs")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--bench", type=int, default=0)
    parser.add_argument("--compile", action="store_true",
                        help="also time torch.compile of the energy")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dtype = getattr(torch, args.dtype)
    device = args.device

    positions, types, cell = read_xyz(args.structure, args.species.split(","))
    # sezm-run reads positions into float32: start from the same values.
    pos = torch.tensor(positions, dtype=torch.float32).to(device=device, dtype=dtype)
    types = torch.tensor(types, device=device)
    src, dst, shift = neighbour_graph(pos, cell, RCUT)
    shift = shift.to(dtype)
    print(f"{args.structure}: {pos.shape[0]} atoms, {src.shape[0]} edges; "
          f"PyTorch {torch.__version__} on {device}, {args.dtype}")
    model = SeZMMin(read_safetensors(args.weights), device, dtype)
    energy, forces, virial = energy_forces_virial(model, pos, shift, src, dst, types)
    print(f"  energy {energy.item():.6f}")
    ok = True
    if args.expect:
        print(f"against sezm ({args.expect}):")
        ok &= compare("energy", energy, load_npy(args.expect + "/energy.npy"), args.rtol)
        ok &= compare("forces", forces, load_npy(args.expect + "/forces.npy"), args.rtol)
        ok &= compare("virial", virial, load_npy(args.expect + "/virial.npy"), args.rtol)
    if args.bench:
        if device != "cuda":
            sys.exit("sezm_min_torch.py: --bench times on a GPU (--device cuda)")
        run = lambda: energy_forces_virial(model, pos, shift, src, dst, types)
        ms, peak = time_ms(run, args.bench)
        print(f"eager PyTorch: median {ms:.3f} ms of {args.bench}, "
              f"peak {peak} bytes of device memory beyond the inputs")
        if args.compile:
            model.energy = torch.compile(model.energy, dynamic=False)
            t = time.perf_counter()
            e2, f2, v2 = run()
            print(f"torch.compile: first call {time.perf_counter() - t:.1f} s")
            ok &= compare("compiled forces vs eager", f2, forces.detach().cpu(), args.rtol)
            ms, peak = time_ms(run, args.bench)
            print(f"torch.compile: median {ms:.3f} ms of {args.bench}, "
                  f"peak {peak} bytes of device memory beyond the inputs")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
