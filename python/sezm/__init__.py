"""sezm from Python: models compiled by sezm-compile, run through
libsezm_runtime's C API (ctypes; no PyTorch, no MLIR).

    from sezm import Model
    model = Model("model.sezm")            # the GPU where there is one
    out = model.compute(coord, types, edge_index, edge_vec)

    from sezm.calculator import SeZMCalculator   # with ASE installed
    atoms.calc = SeZMCalculator("model.sezm")

The runtime library is found through $SEZM_RUNTIME_LIBRARY (its path), or
the loader's search path (libsezm_runtime.so).
"""
from .runtime import Model, RuntimeError_ as SeZMError

__all__ = ["Model", "SeZMError"]
