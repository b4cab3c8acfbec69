#!/usr/bin/env python3
"""sezm's SO(2) kernels beside their comparators, on one workload, in one run.

For the workload that make-so2-workload wrote to WORKLOAD (lmax 3, C 64 =
F 2 x Cf 32, rank 1), times with CUDA events (warm-up, median of --repeats):

  rotate_mix forward          u = mix(rotate(x[src]))                 (E,10,C)
  backward fused + reduce     x_grad, wigner_grad, kc_grad from grad  (N,16,C)
  backward unfused + reduce   the per-edge node gradient, then a CSR reduction
  segment_reduce alone        the reduction of the (E,16,C) node gradient

for sezm (the compiled artifact, run by sezm-exec, per-kernel medians), an
eager PyTorch implementation of sezm-ops.md 3.3 and 4.1 written here,
torch.compile of it, and DeePMD-kit's Triton kernels when the deepmd-kit
wheel is unpacked at --deepmd. Every comparator's results are checked
against sezm's (max |diff| / max |sezm|), and each line prints ms, the ratio
to sezm, the effective bandwidth of the minimum bytes against the
device-to-device copy bandwidth measured in the same run, and the transient
device memory (bytes allocated beyond the inputs while the op runs).
"""

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import time
import types

import numpy as np
import torch

LMAX, ROWS, REDUCED, KERNEL = 3, 16, 10, 25
M0 = LMAX + 1
TOLERANCE = 2e-5


# --------------------------------------------------------------------------
# The SO(2) layout (sezm-ops.md 1): reduced row j keeps m = 0 for l = 0..3,
# then m = -1 and m = +1 for l = 1..3; packed row of degree l, order m is
# l*l + l + m.
# --------------------------------------------------------------------------
def reduced_rows():
    rows = [l * l + l for l in range(LMAX + 1)]
    rows += [l * l + l - 1 for l in range(1, LMAX + 1)]
    rows += [l * l + l + 1 for l in range(1, LMAX + 1)]
    return rows


def degree_of(packed_row):
    l = 0
    while (l + 1) * (l + 1) <= packed_row:
        l += 1
    return l


def kept_places():
    """Where the Wigner-D entries a rotation keeps lie in its flattened
    16 x 16 matrix, in the order of the kept-entries layout (reduced row j,
    then column d of its degree's block): wigner_kept = wigner[:, places]."""
    places = []
    for row in reduced_rows():
        l = degree_of(row)
        places += [row * ROWS + d for d in range(l * l, (l + 1) * (l + 1))]
    return places


def block_mask(device):
    """(10, 16): 1 where reduced row j meets a column of its degree block."""
    mask = torch.zeros(REDUCED, ROWS, device=device)
    for j, row in enumerate(reduced_rows()):
        l = degree_of(row)
        mask[j, l * l:(l + 1) * (l + 1)] = 1
    return mask


# --------------------------------------------------------------------------
# Eager PyTorch, from sezm-ops.md 3.3 (forward) and 4.1 (backward).
# --------------------------------------------------------------------------
def kernel_blocks(kc):
    """(E, 4, 4) for m = 0 and (E, 3, 3) for |m| = 1, indexed [e, in, out]."""
    edges = kc.shape[0]
    return kc[:, :M0 * M0].reshape(edges, M0, M0), kc[:, M0 * M0:].reshape(
        edges, LMAX, LMAX)


def rotate_mix(x, src, wigner, kc, cb, coeff, mask):
    d_to_m = wigner.index_select(1, coeff) * mask  # (E, 10, 16) kept rows
    x_local = torch.bmm(d_to_m, x.index_select(0, src))  # (E, 10, C)
    k0, k1 = kernel_blocks(kc)
    y0 = torch.einsum("eio,eic->eoc", k0, x_local[:, :M0])
    y1 = torch.einsum("eio,eic->eoc", k1, x_local[:, M0:M0 + LMAX])
    y2 = torch.einsum("eio,eic->eoc", k1, x_local[:, M0 + LMAX:])
    return torch.cat([y0, y1, y2], dim=1) * cb.view(1, 1, -1)


def rotate_mix_backward(grad, x, src, wigner, kc, cb, coeff, mask):
    """x_grad (summed over each source node's edges), wigner_grad, kc_grad.

    The per-edge node gradient is summed with index_add_, PyTorch's way.
    """
    d_to_m = wigner.index_select(1, coeff) * mask
    x_src = x.index_select(0, src)
    x_local = torch.bmm(d_to_m, x_src)
    k0, k1 = kernel_blocks(kc)
    g = grad * cb.view(1, 1, -1)
    gl0 = torch.einsum("eio,eoc->eic", k0, g[:, :M0])
    gl1 = torch.einsum("eio,eoc->eic", k1, g[:, M0:M0 + LMAX])
    gl2 = torch.einsum("eio,eoc->eic", k1, g[:, M0 + LMAX:])
    g_local = torch.cat([gl0, gl1, gl2], dim=1)
    node_grad = torch.bmm(d_to_m.transpose(1, 2), g_local)  # (E, 16, C)
    x_grad = torch.zeros_like(x).index_add_(0, src, node_grad)
    rows = torch.bmm(g_local, x_src.transpose(1, 2)) * mask  # (E, 10, 16)
    wigner_grad = torch.zeros_like(wigner)
    wigner_grad.index_copy_(1, coeff, rows)
    gk0 = torch.einsum("eoc,eic->eio", g[:, :M0], x_local[:, :M0])
    gk1 = torch.einsum("eoc,eic->eio", g[:, M0:M0 + LMAX],
                       x_local[:, M0:M0 + LMAX]) + torch.einsum(
                           "eoc,eic->eio", g[:, M0 + LMAX:],
                           x_local[:, M0 + LMAX:])
    kc_grad = torch.cat(
        [gk0.reshape(-1, M0 * M0), gk1.reshape(-1, LMAX * LMAX)], dim=1)
    return x_grad, wigner_grad, kc_grad


# --------------------------------------------------------------------------
# DeePMD-kit's Triton kernels, loaded from an unpacked wheel without running
# the package's __init__ files (which import the whole of deepmd).
# --------------------------------------------------------------------------
def load_deepmd(root):
    for package in [
            "deepmd", "deepmd.kernels", "deepmd.kernels.triton",
            "deepmd.kernels.triton.sezm", "deepmd.pt", "deepmd.pt.model",
            "deepmd.pt.model.descriptor", "deepmd.pt.model.descriptor.sezm_nn"
    ]:
        module = types.ModuleType(package)
        module.__path__ = [os.path.join(root, *package.split("."))]
        sys.modules[package] = module
    return importlib.import_module("deepmd.kernels.triton.sezm.so2_value_path")


# --------------------------------------------------------------------------
# Timing and checks
# --------------------------------------------------------------------------
def time_ms(fn, repeats):
    """Median of `repeats` CUDA-event timings after two warm-up calls, and
    the device memory allocated beyond what was live before (transient)."""
    fn()
    fn()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
        del out
    transient = torch.cuda.max_memory_allocated() - before
    return statistics.median(times), transient


def relative_error(got, want):
    got = got.double()
    want = want.double()
    scale = want.abs().max().item()
    return (got - want).abs().max().item() / (scale if scale > 0 else 1.0)


def copy_bandwidth(repeats):
    """Device-to-device copy of 1 GiB: bytes read + written per second."""
    a = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
    b = torch.empty_like(a)
    ms, _ = time_ms(lambda: b.copy_(a), repeats)
    return 2 * a.numel() * 4 / (ms * 1e-3), ms


def run_sezm(args, entry, inputs, output_dir=None):
    """Per-kernel medians (ms) of one entry and the device memory its timed
    runs allocated beyond their device-resident inputs (transient)."""
    command = [args.sezm_exec, args.library, "--entry", entry]
    for name in inputs:
        command += ["--input", f"{name}={args.workload}/{name}.npy"]
    command += ["--bench", str(args.repeats), "--profile"]
    if output_dir:
        command += ["--output-dir", output_dir]
    began = time.monotonic()
    text = subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout
    # Wall time of the whole call (loading, checks, runs, writing), to see
    # where a large N spends its time.
    print(f"sezm-exec @{entry}: {time.monotonic() - began:.1f} s wall",
          flush=True)
    kernels = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"kernel (\S+): median ([0-9.]+) ms", text)
    }
    transient = int(re.search(r"peak (\d+) bytes beyond", text).group(1))
    return kernels, transient, text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", required=True)
    parser.add_argument("--sezm-exec", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--deepmd", help="an unpacked deepmd-kit wheel")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-compile", action="store_true",
                        help="skip torch.compile (its compile takes minutes)")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def load(name):
        return torch.from_numpy(np.load(f"{args.workload}/{name}.npy")).cuda()

    x, src, wigner, kc, cb, grad = (load(n) for n in
                                    ["x", "src", "wigner", "kc", "cb", "grad"])
    order, rowptr = load("src_order"), load("src_rowptr")
    nodes, edges, channels = x.shape[0], src.shape[0], x.shape[2]
    coeff = torch.tensor(reduced_rows(), device="cuda")
    mask = block_mask("cuda")
    kept = int(mask.sum().item())
    bandwidth, copy_ms = copy_bandwidth(args.repeats)
    print(f"N = {nodes}, E = {edges}, C = {channels}, F = 2, rank 1; "
          f"{torch.cuda.get_device_name()}; copy of 1 GiB {copy_ms:.3f} ms = "
          f"{bandwidth / 1e12:.2f} TB/s (read + write)")

    # Minimum bytes (performance.md): each input read once, each output
    # written once, Wigner-D and its gradient as their kept entries only.
    f32 = 4
    node_rows = nodes * ROWS * channels * f32
    forward_bytes = (edges * REDUCED * channels * f32 + node_rows +
                     edges * (kept + KERNEL) * f32 + edges * 8)
    backward_bytes = (edges * REDUCED * channels * f32 + 2 * node_rows +
                      2 * edges * (kept + KERNEL) * f32 + 3 * edges * 8)
    reduce_bytes = edges * ROWS * channels * f32 + node_rows + edges * 8

    # sezm, run by its own runtime on the same files.
    sezm_dir = os.path.join(args.workload, "sezm")
    fwd_kernels, fwd_transient, _ = run_sezm(args, "rotate_mix",
                                        ["x", "src", "wigner", "kc", "cb"],
                                        sezm_dir + "-forward")
    fm_kernels, fm_transient, _ = run_sezm(args, "rotate_mix_focus_major",
                                           ["x", "src", "wigner", "kc", "cb"],
                                           sezm_dir + "-focus-major")
    bwd_inputs = [
        "grad", "x", "src", "wigner", "kc", "cb", "src_order", "src_rowptr"
    ]
    fused_kernels, fused_transient, _ = run_sezm(args, "fused_backward", bwd_inputs,
                                            sezm_dir + "-fused")
    unfused_kernels, unfused_transient, _ = run_sezm(args, "unfused_backward",
                                                bwd_inputs)
    # The same with the Wigner-D as its kept entries (wigner_kept).
    kept_fwd_kernels, kept_fwd_transient, _ = run_sezm(
        args, "rotate_mix_kept", ["x", "src", "wigner_kept", "kc", "cb"],
        sezm_dir + "-kept-forward")
    kept_bwd_inputs = [
        "wigner_kept" if name == "wigner" else name for name in bwd_inputs
    ]
    kept_fused_kernels, kept_fused_transient, _ = run_sezm(
        args, "fused_backward_kept", kept_bwd_inputs, sezm_dir + "-kept-fused")
    for entry, kernels in [("rotate_mix", fwd_kernels),
                           ("rotate_mix_focus_major", fm_kernels),
                           ("fused_backward", fused_kernels),
                           ("unfused_backward", unfused_kernels),
                           ("rotate_mix_kept", kept_fwd_kernels),
                           ("fused_backward_kept", kept_fused_kernels)]:
        print(f"sezm @{entry} kernels (median ms): " +
              ", ".join(f"{k} {v:.3f}" for k, v in sorted(kernels.items())))

    def kernel_sum(kernels):
        return sum(kernels.values())

    def sezm_out(folder, name):
        return load_path(os.path.join(sezm_dir + folder, name + ".npy"))

    def load_path(path):
        return torch.from_numpy(np.load(path)).cuda()

    u_sezm = sezm_out("-forward", "u")
    x_grad_sezm = sezm_out("-fused", "x_grad")
    wigner_grad_sezm = sezm_out("-fused", "wigner_grad")
    kc_grad_sezm = sezm_out("-fused", "kc_grad")

    # The unfused entry's kernels: the per-edge backward (with the zero fill
    # of wigner_grad) and the segment reduction.
    reduce_ms = unfused_kernels["segment_reduce"]
    rows = []
    rows.append(("rotate_mix forward", "sezm", kernel_sum(fwd_kernels),
                 fwd_transient, forward_bytes, None))
    # Stored focus-major, it must hold the same numbers in that layout.
    focus = 2
    cf = channels // focus

    def to_focus_major(t):
        return (t.view(edges, REDUCED, focus, cf).permute(2, 0, 1, 3)
                .reshape(focus, edges, REDUCED * cf).contiguous())

    u0_sezm = sezm_out("-focus-major", "u0")
    rows.append(("rotate_mix fwd focus-major", "sezm", kernel_sum(fm_kernels),
                 fm_transient, forward_bytes,
                 relative_error(u0_sezm, to_focus_major(u_sezm))))
    rows.append(("backward fused + reduce", "sezm", kernel_sum(fused_kernels),
                 fused_transient, backward_bytes, None))
    rows.append(("backward unfused + reduce", "sezm",
                 kernel_sum(unfused_kernels), unfused_transient,
                 backward_bytes, None))
    rows.append(("segment_reduce alone", "sezm", reduce_ms, None, reduce_bytes,
                 None))
    # Kept entries: the same numbers as the whole matrix (its gradient's kept
    # entries), checked here.
    places = torch.tensor(kept_places(), device="cuda")
    kept_error = relative_error(sezm_out("-kept-forward", "u"), u_sezm)
    rows.append(("rotate_mix fwd, kept W", "sezm", kernel_sum(kept_fwd_kernels),
                 kept_fwd_transient, forward_bytes, kept_error))
    kept_error = max(
        relative_error(sezm_out("-kept-fused", "x_grad"), x_grad_sezm),
        relative_error(sezm_out("-kept-fused", "wigner_grad"),
                       wigner_grad_sezm.reshape(edges, -1)[:, places]),
        relative_error(sezm_out("-kept-fused", "kc_grad"), kc_grad_sezm))
    rows.append(("backward fused, kept W", "sezm",
                 kernel_sum(kept_fused_kernels), kept_fused_transient,
                 backward_bytes, kept_error))

    def check_backward(result):
        xg, wg, kg = result
        return max(relative_error(xg, x_grad_sezm),
                   relative_error(wg, wigner_grad_sezm),
                   relative_error(kg, kc_grad_sezm))

    # Eager PyTorch and torch.compile of it.
    def forward_eager():
        return rotate_mix(x, src, wigner, kc, cb, coeff, mask)

    def backward_eager():
        return rotate_mix_backward(grad, x, src, wigner, kc, cb, coeff, mask)

    variants = [("eager", forward_eager, backward_eager)]
    if not args.no_compile:
        compiled_forward = torch.compile(rotate_mix, dynamic=False)
        compiled_backward = torch.compile(rotate_mix_backward, dynamic=False)
        variants.append(
            ("torch.compile",
             lambda: compiled_forward(x, src, wigner, kc, cb, coeff, mask),
             lambda: compiled_backward(grad, x, src, wigner, kc, cb, coeff,
                                       mask)))
    for label, forward, backward in variants:
        error = relative_error(forward(), u_sezm)
        ms, transient = time_ms(forward, args.repeats)
        rows.append(("rotate_mix forward", label, ms, transient, forward_bytes,
                     error))
        error = check_backward(backward())
        ms, transient = time_ms(backward, args.repeats)
        rows.append(("backward unfused + reduce", label, ms, transient,
                     backward_bytes, error))

    # DeePMD-kit's Triton kernels: focus-major (F, E, 10*Cf) activations.
    if args.deepmd:
        triton_path = load_deepmd(args.deepmd)

        def from_focus_major(t):
            return (t.view(focus, edges, REDUCED, cf).permute(1, 2, 0, 3)
                    .reshape(edges, REDUCED, channels))

        grad_focus = to_focus_major(grad)

        def forward_triton():
            return triton_path._rotate_mix_impl(x, src, wigner, kc, cb, LMAX,
                                                focus, 1)

        def backward_triton():
            node_grad, wg, kg = triton_path._rotate_mix_bwd_impl(
                grad_focus, x, src, wigner, kc, cb, LMAX, focus, 1)
            return (triton_path._segment_sum_impl(node_grad, order, rowptr),
                    wg, kg)

        error = relative_error(from_focus_major(forward_triton()), u_sezm)
        ms, transient = time_ms(forward_triton, args.repeats)
        rows.append(("rotate_mix forward", "deepmd triton", ms, transient,
                     forward_bytes, error))
        rows.append(("rotate_mix fwd focus-major", "deepmd triton", ms,
                     transient, forward_bytes,
                     relative_error(forward_triton(), u0_sezm)))
        # Triton takes the whole Wigner-D only: the same time, beside sezm's
        # kept-entries line.
        rows.append(("rotate_mix fwd, kept W", "deepmd triton", ms, transient,
                     forward_bytes, error))
        error = check_backward(backward_triton())
        ms, transient = time_ms(backward_triton, args.repeats)
        rows.append(("backward unfused + reduce", "deepmd triton", ms,
                     transient, backward_bytes, error))
        rows.append(("backward fused, kept W", "deepmd triton", ms, transient,
                     backward_bytes, error))
        node_grad = triton_path._rotate_mix_bwd_impl(
            grad_focus, x, src, wigner, kc, cb, LMAX, focus, 1)[0]
        error = relative_error(
            triton_path._segment_sum_impl(node_grad, order, rowptr),
            x_grad_sezm)
        ms, transient = time_ms(
            lambda: triton_path._segment_sum_impl(node_grad, order, rowptr),
            args.repeats)
        rows.append(("segment_reduce alone", "deepmd triton", ms, transient,
                     reduce_bytes, error))

    # The table: each op's sezm line first, then its comparators with the
    # ratio comparator / sezm (> 1: sezm is faster).
    sezm_ms = {}
    for op, who, ms, _, _, _ in rows:
        if who == "sezm":
            sezm_ms.setdefault(op, ms)
    sezm_ms["backward unfused + reduce"] = sezm_ms["backward fused + reduce"]
    print(f"\n{'op':27} {'who':14} {'ms':>9} {'x sezm':>7} {'GB/s':>7} "
          f"{'% copy':>7} {'transient MB':>13} {'rel err':>9}")
    failed = False
    for op in [
            "rotate_mix forward", "rotate_mix fwd focus-major",
            "rotate_mix fwd, kept W", "backward fused + reduce",
            "backward unfused + reduce", "backward fused, kept W",
            "segment_reduce alone"
    ]:
        for row_op, who, ms, transient, minimum, error in rows:
            if row_op != op:
                continue
            rate = minimum / (ms * 1e-3)
            ratio = "" if who == "sezm" else f"{ms / sezm_ms[op]:.2f}"
            memory = "" if transient is None else f"{transient / 1e6:.0f}"
            check = "" if error is None else f"{error:.1e}"
            if error is not None and not error <= TOLERANCE:
                check += " FAIL"
                failed = True
            print(f"{op:27} {who:14} {ms:9.3f} {ratio:>7} {rate / 1e9:7.0f} "
                  f"{100 * rate / bandwidth:6.1f}% {memory:>13} {check:>9}")
    print("\nx sezm: the comparator's time over sezm's fused backward (for the "
          "backward lines) or sezm's same op;\nrel err: max |comparator - "
          "sezm| / max |sezm| over every output;\nkept W: sezm given the "
          "Wigner-D as the 46 entries a rotation keeps (wigner_kept), its "
          "comparators the whole (E, 16, 16) one.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
