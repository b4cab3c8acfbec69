#!/usr/bin/env python3
"""sezm against DeePMD-kit on the same edge list, in one process, on the GPU.

  dpa4_race.py --model model.ckpt.pt --artifact model.sezm \
      --runtime libsezm_runtime.so --structure s.xyz [s2.xyz ...]
      [--runs 10] [--eager] [--sezm-only] [--plot race.png]

Loads the checkpoint into DeePMD-kit 3.2.0 (compiled with its Triton kernels,
DP_COMPILE_INFER=1 and DP_TRITON_INFER=2, unless --eager) and the artifact
that sezm-compile made of the same checkpoint into libsezm_runtime. For each
structure it builds DeePMD-kit's edge list once on the GPU (timed on its
own), then times, with the graph already on the device, DeePMD-kit's
`forward_common_lower` on it and sezm's `sezm_model_compute_edges_gpu_f64`
on the same device arrays (its valid edges; the same convention: row 0 the
neighbour, row 1 the centre, edge_vec = neighbour image - centre). Prints
the median of --runs after two warm-up calls, each side's peak device
memory, DeePMD-kit's first call (its compile), and the relative errors
max |sezm - deepmd| / max |deepmd| of energy, forces and virial; with
--reference (an fp64 build), each side's distance from it too; with
--plot, time and memory against atom count as a PNG; with --save DIR, each
side's energy, forces and virial in DIR/<artifact or deepmd>-<atoms>.npz
(bench/against_fp64.py compares them with an fp64 run on the CPU).
"""
import argparse
import ctypes
import os
import re
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deepmd_eval import read_xyz  # noqa: E402


def load_runtime(path):
    rt = ctypes.CDLL(path)
    rt.sezm_model_open.restype = ctypes.c_void_p
    rt.sezm_model_open.argtypes = [ctypes.c_char_p]
    rt.sezm_last_error.restype = ctypes.c_char_p
    rt.sezm_model_compute_edges_gpu_f64.restype = ctypes.c_int
    rt.sezm_model_compute_edges_gpu_f64.argtypes = (
        [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64,
         ctypes.c_int] + [ctypes.c_void_p] * 7)
    rt.sezm_device_bytes_peak.restype = ctypes.c_size_t
    rt.sezm_reset_device_peak.restype = None
    rt.sezm_device_release_cache.restype = None
    rt.sezm_set_profiling.argtypes = [ctypes.c_int]
    rt.sezm_kernel_time_count.restype = ctypes.c_int
    rt.sezm_kernel_time_name.restype = ctypes.c_char_p
    rt.sezm_kernel_time_name.argtypes = [ctypes.c_int]
    rt.sezm_kernel_time_ms.restype = ctypes.c_double
    rt.sezm_kernel_time_ms.argtypes = [ctypes.c_int]
    return rt


def kernel_table(rt, call, top, launches=None):
    """One profiled call (launches serialized, CUDA events around each):
    the `top` kernels by total time, summed over launches of one name
    (less any _N suffix), and the total; with `launches` (a path), every
    launch's kernel (its whole name: sezm-compile --emit=ptx's file) and
    ms, in launch order, written there."""
    rt.sezm_set_profiling(1)
    call()
    rt.sezm_set_profiling(0)
    totals = {}
    each = []
    for i in range(rt.sezm_kernel_time_count()):
        name = rt.sezm_kernel_time_name(i).decode()
        each.append((name, rt.sezm_kernel_time_ms(i)))
        base = re.sub(r"_[0-9]+$", "", name)
        count, ms = totals.get(base, (0, 0.0))
        totals[base] = (count + 1, ms + each[-1][1])
    if launches:
        with open(launches, "w") as out:
            out.writelines(f"{name} {ms:.4f}\n" for name, ms in each)
    total = sum(ms for _, ms in totals.values())
    rows = sorted(totals.items(), key=lambda item: -item[1][1])[:top]
    return total, rows


def timed(torch, call, runs):
    """The median of `runs` calls after two warm-ups, in ms (CUDA events),
    and the first call's wall time in s."""
    start = time.perf_counter()
    call()
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    call()
    times = []
    for _ in range(runs):
        begin = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        begin.record()
        call()
        end.record()
        torch.cuda.synchronize()
        times.append(begin.elapsed_time(end))
    return statistics.median(times), first


def relative_error(mine, ref):
    mine = np.asarray(mine, np.float64).reshape(np.shape(ref))
    return np.abs(mine - ref).max() / np.abs(ref).max()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--artifact", required=True, nargs="+",
                        help="one artifact, or several builds of the same "
                             "checkpoint to time side by side (the first is "
                             "the one plotted)")
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--structure", required=True, nargs="+")
    parser.add_argument("--entry", default="energy_forces")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--eager", action="store_true")
    parser.add_argument("--plot")
    parser.add_argument("--reference",
                        help="an fp64 build of the same checkpoint (sezm-"
                             "compile --precision float64): each build's and "
                             "DeePMD-kit's distance from it is printed too")
    parser.add_argument("--profile", type=int, default=0, metavar="K",
                        help="also print each build's K slowest kernels "
                             "(summed per name) from one profiled call")
    parser.add_argument("--sezm-only", action="store_true",
                        help="time the sezm builds alone: DeePMD-kit's model "
                             "builds the edge list but is neither run nor "
                             "compared (its first compiled call takes "
                             "minutes)")
    parser.add_argument("--save", metavar="DIR",
                        help="write each side's energy, forces and virial "
                             "to DIR/<artifact or deepmd>-<atoms>.npz")
    parser.add_argument("--launches", metavar="DIR",
                        help="with --profile, write each build's launches "
                             "(kernel, ms) to DIR/<artifact>.launches")
    args = parser.parse_args()
    if not args.eager:
        os.environ.setdefault("DP_COMPILE_INFER", "1")
        os.environ.setdefault("DP_TRITON_INFER", "2")
    os.environ.setdefault("DP_TF32_INFER", "0")
    import torch
    from deepmd.infer import DeepPot

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rt = load_runtime(args.runtime)
    models = []
    for artifact in args.artifact:
        model = rt.sezm_model_open(artifact.encode())
        if not model:
            sys.exit(f"dpa4_race.py: {artifact}: "
                     f"{rt.sezm_last_error().decode()}")
        models.append(model)
    reference_model = None
    if args.reference:
        reference_model = rt.sezm_model_open(args.reference.encode())
        if not reference_model:
            sys.exit(f"dpa4_race.py: {args.reference}: "
                     f"{rt.sezm_last_error().decode()}")
    dp = DeepPot(args.model)
    inner = dp.deep_eval.dp.model["Default"]
    # The SeZM model builds its own edge list (DeepPot's external builders
    # are bypassed for it); its forward() calls forward_common_lower on it.
    if not hasattr(inner, "build_neighbor_list"):
        sys.exit(f"dpa4_race.py: {type(inner).__name__} has no "
                 "build_neighbor_list (not DeePMD-kit 3.2.0's SeZM model?)")
    type_map = dp.get_type_map()
    device = torch.device("cuda")
    # Whether DeePMD-kit is timed beside sezm (not with --sezm-only).
    raced = not args.sezm_only
    rows = []
    for path in args.structure:
        species, positions, cell = read_xyz(path)
        natoms = len(species)
        coord = torch.tensor(positions[None], dtype=torch.float64, device=device)
        atype = torch.tensor([[type_map.index(s) for s in species]],
                             dtype=torch.long, device=device)
        box = (torch.tensor(cell, dtype=torch.float64,
                            device=device).reshape(1, 9)
               if cell is not None else None)

        def build():
            return inner.build_neighbor_list(coord, atype, box)

        search_ms, _ = timed(torch, build, args.runs)
        edges = build()

        def deepmd_call():
            return inner.forward_common_lower(
                edges.coord, edges.atype, edges.edge_index, edges.edge_vec,
                edges.edge_scatter_index, edges.edge_mask,
                input_prec="float64")

        if raced:
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            deepmd_ms, first_s = timed(torch, deepmd_call, args.runs)
            deepmd_peak = torch.cuda.max_memory_allocated() - base
            ref = deepmd_call()
            missing = [k for k in ("energy_redu", "energy_derv_r",
                                   "energy_derv_c_redu") if k not in ref]
            if missing:
                sys.exit(f"dpa4_race.py: forward_common_lower gave "
                         f"{sorted(ref)}, not {missing}")
            ref_energy = (ref["energy_redu"].detach().double().cpu().numpy()
                          .reshape(()))
            ref_forces = (ref["energy_derv_r"].detach().double().cpu().numpy()
                          .reshape(-1, 3)[:natoms])
            ref_virial = (ref["energy_derv_c_redu"].detach().double().cpu()
                          .numpy().reshape(3, 3))
            if args.save:
                np.savez(os.path.join(args.save, f"deepmd-{natoms}.npz"),
                         energy=ref_energy, forces=ref_forces,
                         virial=ref_virial)
            # What PyTorch's allocator keeps cached is not sezm's to use.
            del ref
        torch.cuda.empty_cache()

        # sezm on the same device arrays: the valid edges, contiguous.
        valid = edges.edge_mask.reshape(-1).bool()
        edge_index = edges.edge_index[:, valid].contiguous().to(torch.int64)
        edge_vec = edges.edge_vec[valid].contiguous().to(torch.float64)
        xyz = coord.reshape(-1, 3).contiguous()
        types = atype.reshape(-1).to(torch.int32).contiguous()
        energy = torch.empty(1, dtype=torch.float64, device=device)
        forces = torch.empty(natoms, 3, dtype=torch.float64, device=device)
        virial = torch.empty(3, 3, dtype=torch.float64, device=device)
        nedges = edge_index.shape[1]

        print(f"{path}: {natoms} atoms, {nedges} edges; neighbour search "
              f"{search_ms:.2f} ms (DeePMD-kit's model's own, not in either "
              f"time)")
        if raced:
            print(f"  DeePMD-kit forward_common_lower: {deepmd_ms:.2f} ms, "
                  f"peak {deepmd_peak / 1e9:.2f} GB, first call "
                  f"{first_s:.1f} s")
        def run(model):
            if rt.sezm_model_compute_edges_gpu_f64(
                    model, args.entry.encode(), natoms, nedges,
                    len(type_map), xyz.data_ptr(), types.data_ptr(),
                    edge_index.data_ptr(), edge_vec.data_ptr(),
                    energy.data_ptr(), forces.data_ptr(),
                    virial.data_ptr()):
                raise RuntimeError(rt.sezm_last_error().decode())

        def compute(model):
            run(model)
            return (energy.cpu().numpy().reshape(()).copy(),
                    forces.cpu().numpy().copy(), virial.cpu().numpy().copy())

        exact = None
        if reference_model:
            exact = compute(reference_model)
            # Its (twice as large) freed blocks, kept for reuse, would be
            # taken by the builds below and count towards their peaks.
            rt.sezm_device_release_cache()
            if raced:
                print("  fp64 build (" + os.path.basename(args.reference) +
                      "); DeePMD-kit's relative error against it E / F / "
                      "virial: " + " / ".join(
                          f"{relative_error(mine, ref):.2g}" for mine, ref in
                          zip((ref_energy, ref_forces, ref_virial), exact)))
        plotted = None
        for artifact, model in zip(args.artifact, models):
            def sezm_call():
                run(model)

            rt.sezm_reset_device_peak()
            try:
                sezm_ms, _ = timed(torch, sezm_call, args.runs)
                sezm_peak = rt.sezm_device_bytes_peak()
                sezm_call()
            except RuntimeError as error:
                # One build failing leaves the others' lines to print.
                print(f"  sezm ({os.path.basename(artifact)}): {error}")
                continue
            if args.save:
                np.savez(os.path.join(
                    args.save, f"{os.path.basename(artifact)}-{natoms}.npz"),
                    energy=energy.cpu().numpy(), forces=forces.cpu().numpy(),
                    virial=virial.cpu().numpy())
            print(f"  sezm compute_edges_gpu_f64 ({os.path.basename(artifact)}):"
                  f" {sezm_ms:.2f} ms, peak {sezm_peak / 1e9:.2f} GB" +
                  (f"; DeePMD-kit / sezm {deepmd_ms / sezm_ms:.2f}x"
                   if raced else ""))
            if raced:
                errors = [relative_error(energy.cpu().numpy(), ref_energy),
                          relative_error(forces.cpu().numpy(), ref_forces),
                          relative_error(virial.cpu().numpy(), ref_virial)]
                print("    relative error E / F / virial: " +
                      " / ".join(f"{e:.2g}" for e in errors))
            if exact is not None:
                mine = (energy.cpu().numpy(), forces.cpu().numpy(),
                        virial.cpu().numpy())
                print("    against the fp64 build E / F / virial: " +
                      " / ".join(f"{relative_error(m, r):.2g}"
                                 for m, r in zip(mine, exact)))
            if args.profile:
                launches = args.launches and os.path.join(
                    args.launches, os.path.basename(artifact) + ".launches")
                total, slowest = kernel_table(rt, sezm_call, args.profile,
                                              launches)
                print(f"    kernels (one profiled call, launches "
                      f"serialized): {total:.2f} ms")
                for name, (count, ms) in slowest:
                    print(f"      {name:32s} {ms:8.2f} ms  {count:4d} "
                          f"launches")
            if plotted is None:
                plotted = (sezm_ms, sezm_peak)
        if plotted is not None and raced:
            rows.append((natoms, deepmd_ms, plotted[0], deepmd_peak / 1e9,
                         plotted[1] / 1e9))
    # Nothing to plot where DeePMD-kit was not raced.
    if args.plot and rows:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        atoms = [r[0] for r in rows]
        figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
        left.plot(atoms, [r[1] for r in rows], "o-", label="DeePMD-kit")
        left.plot(atoms, [r[2] for r in rows], "o-", label="sezm")
        left.set_xlabel("atoms")
        left.set_ylabel("ms per energy + forces")
        right.plot(atoms, [r[3] for r in rows], "o-", label="DeePMD-kit")
        right.plot(atoms, [r[4] for r in rows], "o-", label="sezm")
        right.set_xlabel("atoms")
        right.set_ylabel("peak device GB")
        for axis in (left, right):
            axis.set_xscale("log")
            axis.set_yscale("log")
            axis.legend()
        figure.tight_layout()
        figure.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
