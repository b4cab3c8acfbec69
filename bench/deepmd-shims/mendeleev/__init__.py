"""A stand-in for mendeleev on the GPU machine, which lacks it. deepmd-kit
imports `element` at start-up; its eval of DPA4 never calls it, and its
training asks only for atomic numbers (to sort the observed types), which
this gives for the first 36 elements. The electronic-configuration type
embedding, which needs the rest of mendeleev, is refused.
bench/h200-run.sh puts this folder on PYTHONPATH after the carried wheels."""

_SYMBOLS = ("H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr "
            "Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr").split()


class _Element:
    def __init__(self, symbol):
        self.symbol = symbol
        self.atomic_number = _SYMBOLS.index(symbol) + 1

    def __getattr__(self, name):
        raise ImportError(f"mendeleev is not installed (bench/deepmd-shims): "
                          f"no {name} for {self.symbol}")


def element(symbol):
    if symbol not in _SYMBOLS:
        raise ImportError(f"mendeleev is not installed (bench/deepmd-shims): "
                          f"no data for {symbol}")
    return _Element(symbol)
