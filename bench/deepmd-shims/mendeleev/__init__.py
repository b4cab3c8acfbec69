"""A stand-in for mendeleev on the GPU machine, which lacks it: deepmd-kit
imports `element` at start-up but DPA4's eval never calls it (only the
electronic-configuration type embedding does). bench/h200-run.sh puts this
folder on PYTHONPATH after the carried wheels."""


def element(*args, **kwargs):
    raise ImportError("mendeleev is not installed (bench/deepmd-shims)")
