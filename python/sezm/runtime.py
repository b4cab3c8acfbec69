"""ctypes over libsezm_runtime's C API (runtime/include/sezm_runtime.h)."""
import ctypes
import ctypes.util
import os

import numpy as np


class RuntimeError_(RuntimeError):
    """A call into libsezm_runtime failed; the message is its reason."""


_DEVICES = {"auto": 0, "cpu": 1, "gpu": 2}
_library = None


def _load():
    global _library
    if _library is not None:
        return _library
    path = os.environ.get("SEZM_RUNTIME_LIBRARY") or ctypes.util.find_library(
        "sezm_runtime") or "libsezm_runtime.so"
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise RuntimeError_(
            f"cannot load libsezm_runtime ({path}): {error}; set "
            "SEZM_RUNTIME_LIBRARY to its path (build/lib/libsezm_runtime.so)")
    pointer = ctypes.c_void_p
    lib.sezm_last_error.restype = ctypes.c_char_p
    lib.sezm_model_open_on.restype = pointer
    lib.sezm_model_open_on.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.sezm_model_close.argtypes = [pointer]
    lib.sezm_model_device.restype = ctypes.c_int
    lib.sezm_model_device.argtypes = [pointer]
    lib.sezm_model_type_count.restype = ctypes.c_int
    lib.sezm_model_type_count.argtypes = [pointer]
    lib.sezm_model_type_name.restype = ctypes.c_char_p
    lib.sezm_model_type_name.argtypes = [pointer, ctypes.c_int]
    lib.sezm_model_rcut.restype = ctypes.c_double
    lib.sezm_model_rcut.argtypes = [pointer]
    lib.sezm_model_output_count.restype = ctypes.c_int
    lib.sezm_model_output_count.argtypes = [pointer, ctypes.c_char_p]
    lib.sezm_model_output_name.restype = ctypes.c_char_p
    lib.sezm_model_output_name.argtypes = [pointer, ctypes.c_char_p,
                                           ctypes.c_int]
    lib.sezm_model_compute_edges.restype = ctypes.c_int
    lib.sezm_model_compute_edges.argtypes = (
        [pointer, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64,
         ctypes.c_int] + [pointer] * 9)
    _library = lib
    return lib


def _error(lib):
    return RuntimeError_(lib.sezm_last_error().decode())


def _data(array):
    return array.ctypes.data_as(ctypes.c_void_p)


class Model:
    """A compiled model (sezm-compile's artifact), open on `device`: "auto"
    (the GPU where the artifact has GPU code and a GPU is found, else the
    CPU), "cpu" or "gpu"."""

    def __init__(self, path, device="auto", entry="energy_forces"):
        if device not in _DEVICES:
            raise ValueError(f"device {device!r}: expected auto, cpu or gpu")
        self._lib = _load()
        self._handle = self._lib.sezm_model_open_on(
            os.fsencode(path), _DEVICES[device])
        if not self._handle:
            raise _error(self._lib)
        self.entry = entry
        count = self._lib.sezm_model_output_count(self._handle, entry.encode())
        if count < 0:
            raise RuntimeError_(f"{path}: no entry '{entry}' (compile an "
                                "energy with --forces-of, or a checkpoint)")
        self.outputs = [self._lib.sezm_model_output_name(
            self._handle, entry.encode(), i).decode() for i in range(count)]

    def close(self):
        if getattr(self, "_handle", None):
            self._lib.sezm_model_close(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    @property
    def device(self):
        return "cpu" if self._lib.sezm_model_device(self._handle) == 1 else "gpu"

    @property
    def type_map(self):
        """The species the model's type indices stand for (its type_map)."""
        return [self._lib.sezm_model_type_name(self._handle, i).decode()
                for i in range(self._lib.sezm_model_type_count(self._handle))]

    @property
    def rcut(self):
        """The cutoff radius (A) the neighbour list is built within."""
        return self._lib.sezm_model_rcut(self._handle)

    @property
    def per_atom(self):
        """Whether the entry returns each atom's energy and virial
        (sezm-compile --per-atom)."""
        return "atom_energy" in self.outputs and "atom_virial" in self.outputs

    def compute(self, coord, types, edge_index, edge_vec, ntypes=None):
        """Energy, forces and virial (and atom_energy, atom_virial where the
        entry has them) of atoms at `coord` (N, 3) of `types` (N) over the
        edge list `edge_index` (2, E: row 0 the neighbour, row 1 the centre)
        with `edge_vec` (E, 3) = coord[src] - coord[dst] + lattice shift,
        through sezm_model_compute_edges; a dict of float64 arrays."""
        coord = np.ascontiguousarray(coord, dtype=np.float64).reshape(-1, 3)
        types = np.ascontiguousarray(types, dtype=np.int32).reshape(-1)
        edge_index = np.ascontiguousarray(edge_index, dtype=np.int64).reshape(2, -1)
        edge_vec = np.ascontiguousarray(edge_vec, dtype=np.float64).reshape(-1, 3)
        atoms, edges = len(coord), edge_index.shape[1]
        if len(types) != atoms or len(edge_vec) != edges:
            raise ValueError(f"{atoms} coordinates, {len(types)} types, "
                             f"{edges} edges and {len(edge_vec)} edge vectors "
                             "do not match")
        ntypes = ntypes or max(len(self.type_map), int(types.max(initial=0)) + 1)
        out = {"energy": np.zeros(1), "forces": np.zeros((atoms, 3)),
               "virial": np.zeros((3, 3))}
        if self.per_atom:
            out["atom_energy"] = np.zeros(atoms)
            out["atom_virial"] = np.zeros((atoms, 3, 3))
        null = ctypes.c_void_p()
        if self._lib.sezm_model_compute_edges(
                self._handle, self.entry.encode(), atoms, edges, ntypes,
                _data(coord), _data(types), _data(edge_index), _data(edge_vec),
                _data(out["energy"]), _data(out["forces"]),
                _data(out["virial"]),
                _data(out["atom_energy"]) if self.per_atom else null,
                _data(out["atom_virial"]) if self.per_atom else null):
            raise _error(self._lib)
        out["energy"] = float(out["energy"][0])
        return out
