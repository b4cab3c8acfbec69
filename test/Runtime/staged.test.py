# staged.test's driver: sezm_model_compute_edges_staged through ctypes
# (Python's standard library alone), against the whole model's host entry.
#   staged.test.py LIBRARY STAGED.sezm WHOLE.sezm CLUSTER.xyz
import ctypes
import math
import sys

library, staged_path, whole_path, xyz = sys.argv[1:5]
lib = ctypes.CDLL(library)
P = ctypes.c_void_p
lib.sezm_last_error.restype = ctypes.c_char_p
lib.sezm_model_open_on.restype = P
lib.sezm_model_open_on.argtypes = [ctypes.c_char_p, ctypes.c_int]
lib.sezm_model_stage_count.argtypes = [P, ctypes.c_char_p]
lib.sezm_model_stage_width.restype = ctypes.c_int64
lib.sezm_model_stage_width.argtypes = [P, ctypes.c_char_p]
EXCHANGE = ctypes.CFUNCTYPE(None, P, ctypes.POINTER(ctypes.c_double),
                            ctypes.c_int64, ctypes.c_int64)
lib.sezm_model_compute_edges_staged.argtypes = [
    P, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_int, P, P, P, P, EXCHANGE, EXCHANGE, P, P, P, P, P, P]
lib.sezm_model_compute_edges.argtypes = [
    P, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int] + [P] * 9

lines = open(xyz).read().splitlines()
atoms = [l.split() for l in lines[2:2 + int(lines[0])]]
types = [{"O": 0, "H": 1}[a[0]] for a in atoms]
coord = [float(v) for a in atoms for v in a[1:4]]
n = len(atoms)
src, dst, vec = [], [], []
for i in range(n):  # the centre
    for j in range(n):
        d = [coord[3 * j + k] - coord[3 * i + k] for k in range(3)]
        if i != j and math.sqrt(sum(x * x for x in d)) < 6.0:
            src.append(j)
            dst.append(i)
            vec.extend(d)
edges = len(src)


def array(kind, values):
    return (kind * max(len(values), 1))(*values)


c_coord, c_types = array(ctypes.c_double, coord), array(ctypes.c_int32, types)
c_index, c_vec = array(ctypes.c_int64, src + dst), array(ctypes.c_double, vec)
calls = []


def exchange(kind):
    def call(ctx, rows, natoms, width):
        calls.append((kind, natoms, width))
    return EXCHANGE(call)


forward, reverse = exchange("forward"), exchange("reverse")


def staged(model, natoms, nlocal, nedges, index=c_index, per_atom=False):
    energy, force, virial = (ctypes.c_double * 1)(), \
        (ctypes.c_double * max(3 * natoms, 1))(), (ctypes.c_double * 9)()
    atom = (ctypes.c_double * max(9 * natoms, 1))() if per_atom else None
    status = lib.sezm_model_compute_edges_staged(
        model, b"energy", natoms, nlocal, nedges, 2, c_coord, c_types, index,
        c_vec, forward, reverse, None, energy, force, virial, atom, atom)
    return status, energy[0], list(force)[:3 * natoms], list(virial)


model = lib.sezm_model_open_on(staged_path.encode(), 1)
whole = lib.sezm_model_open_on(whole_path.encode(), 1)
print(f"{lib.sezm_model_stage_count(model, b'energy')} stages, "
      f"{lib.sezm_model_stage_width(model, b'energy')} features per atom")

# One rank that owns every atom: nothing to exchange, the whole model's
# numbers.
status, energy, force, virial = staged(model, n, n, edges)
assert status == 0, lib.sezm_last_error()
ref = [(ctypes.c_double * k)() for k in (1, 3 * n, 9)]
assert lib.sezm_model_compute_edges(whole, b"energy_forces", n, edges, 2,
                                    c_coord, c_types, c_index, c_vec, *ref,
                                    None, None) == 0, lib.sezm_last_error()


def relerr(a, b):
    return max(abs(x - y) for x, y in zip(a, b)) / max(abs(y) for y in b)


print(f"cluster, {n} atoms, {edges} edges: energy {relerr([energy], ref[0]):.1e}, "
      f"forces {relerr(force, ref[1]):.1e}, virial {relerr(virial, ref[2]):.1e}")
print("exchanges:", " ".join(f"{k}({w})" for k, _, w in calls))

# A rank with no atoms of its own runs nothing and makes the same calls.
calls.clear()
status, energy, force, virial = staged(model, 0, 0, 0)
print(f"no own atoms: status {status}, energy {energy}, virial {max(map(abs, virial))}, "
      "exchanges:", " ".join(f"{k}({a})" for k, a, _ in calls))

# Bad calls, each refused with its reason.
bad_centre = array(ctypes.c_int64, src + [0] * (edges - 1) + [n - 1])
for what, args in [("no stages", (whole, n, n, edges)),
                   ("nlocal > natoms", (model, n, n + 1, edges)),
                   ("edges on an idle rank", (model, n, 0, edges)),
                   ("a ghost centre", (model, n, n - 1, edges, bad_centre)),
                   ("per-atom", (model, n, n, edges, c_index, True))]:
    status = staged(*args)[0]
    print(f"{what}: status {status}: {lib.sezm_last_error().decode()}")
