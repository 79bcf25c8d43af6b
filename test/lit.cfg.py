# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ONEFLOW"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.oneflow_obj_root, "test")
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# `lit --param no_fuse=1`: every plan compiled without kernel fusion.
if lit_config.params.get("no_fuse") == "1":
    config.environment["ONEFLOW_NO_FUSE"] = "1"
    config.available_features.add("no-fuse")
llvm_config.use_default_substitutions()
# One kernel cache for the whole suite: a model compiled by several tests
# with the same flags runs LLVM once (`--param kernel_cache=0`: none).
if lit_config.params.get("kernel_cache", "1") != "0":
    config.environment["ONEFLOW_KERNEL_CACHE_DIR"] = os.environ.get(
        "ONEFLOW_KERNEL_CACHE_DIR",
        os.path.join(config.oneflow_obj_root, "kernel-cache"))

tool_dirs = [config.oneflow_tools_dir, config.llvm_tools_dir]
tools = ["oneflow-opt", "oneflow-run", "oneflow-cuda-gemm-bench"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The CUDA toolkit (ptxas, libdevice) for the GPU code generation tests.
config.substitutions.append(("%cuda_root", "/usr/local/cuda"))
# Stand-ins for the CUDA libraries (unittests/Runtime/CUDA/StandIn): CUDA
# plans run against them on machines without a GPU.
config.substitutions.append(
    ("%{cuda_standin}",
     os.path.join(config.oneflow_obj_root, "lib", "cuda-standin")))
config.substitutions.append(
    ("%{check_cuda_log}",
     os.path.join(config.test_source_root, "Runtime", "Inputs",
                  "check_cuda_log.py")))
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", "/usr/local/cuda/bin/ptxas"))
