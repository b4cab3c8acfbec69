# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "SEZM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sezm_obj_root, "test")
config.excludes = ["Inputs", "Reference", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%sezm_src_root", config.sezm_src_root))
config.substitutions.append(("%sezm_obj_root", config.sezm_obj_root))
llvm_config.add_tool_substitutions(
    ["sezm-opt", "sezm-run"], [os.path.join(config.sezm_obj_root, "bin")]
)
config.substitutions.append(
    ("%npytool", "%s %s" % (config.python_executable,
                            os.path.join(config.sezm_src_root, "utils", "npytool.py")))
)
