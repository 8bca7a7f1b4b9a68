# -*- Python -*-
# The PIT lit suite: one directory per component, one file per topic.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "PIT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "consumer",
                   "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pit_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.pit_shlib_ext))
config.substitutions.append(("%pit_src_root", config.pit_src_root))
config.substitutions.append(("%pit_obj_root", config.pit_obj_root))
config.substitutions.append(("%pit_lib_dir", config.pit_lib_dir))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))

# The CPU integration tests run under mlir-runner with these helpers.
config.substitutions.append(
    ("%pit_runner_utils",
     os.path.join(config.pit_lib_dir, "libpit_test_runner_utils" + config.pit_shlib_ext)))
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils" + config.pit_shlib_ext)))
# printMemrefF32 and the other printers of memrefs.
config.substitutions.append(
    ("%mlir_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_runner_utils" + config.pit_shlib_ext)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.pit_tools_dir, append_path=True)

tool_dirs = [config.pit_tools_dir, config.llvm_tools_dir]
tools = [
    "pit-opt",
    "pit-capi-test",
    "pit-translate",
    "pit-compile",
    "pit-fuzz",
    # Debian's stock mlir-opt, which loads PIT as a plugin.
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CUDA toolkit (nvcc, ptxas) is optional; the tests that need it say so
# with %if cuda or REQUIRES: cuda, and lit reports them as unsupported.
if config.pit_enable_cuda:
    config.available_features.add("cuda")
config.substitutions.append(("%cuda_home", config.cuda_home))

# The Python bindings are optional too; test/python/pytest.test runs the
# pytest suite with the interpreter they were built for.
if config.pit_enable_python:
    config.available_features.add("python-bindings")
    config.environment["PYTHONPATH"] = os.path.join(config.pit_obj_root, "python_packages")
    # Keep the source tree free of __pycache__ directories.
    config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
config.substitutions.append(("%pit_python", config.pit_python))
