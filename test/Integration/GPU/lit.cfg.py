# -*- Python -*-
# The GPU checks as a lit suite of their own (issue 40): each test runs one
# step of the check on the GPU machine, on the libraries that
# `scripts/gpu-check.sh compile` built here. Where no CUDA device answers
# (this machine, CI), every test reports itself unsupported, as upstream
# MLIR's CUDA integration tests do. It needs no LLVM tool: the GPU machine
# has none (scripts/gpu-check.sh carries lit itself there).
#
# Environment: PIT_GPU_ARTIFACTS, the compiled libraries (default
# build/gpu-check); PIT_GPU_LOGS, where each test leaves its log (default
# the artifacts' logs/).

import os
import shutil
import subprocess
import sys
import tempfile

import lit.formats

config.name = "PIT-GPU"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.excludes = ["lit.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
source_root = os.path.normpath(os.path.join(config.test_source_root, "..", "..", ".."))
artifacts = os.path.abspath(os.environ.get(
    "PIT_GPU_ARTIFACTS", os.path.join(source_root, "build", "gpu-check")))
logs = os.path.abspath(os.environ.get("PIT_GPU_LOGS", os.path.join(artifacts, "logs")))


def cuda_device_answers():
    """Whether nvidia-smi lists a GPU: the driver and a device are here."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    listed = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return listed.returncode == 0 and "GPU" in listed.stdout


# lit keeps its test times in the exec root: the artifacts' where they run.
config.test_exec_root = os.path.join(artifacts, "lit-run")
if not cuda_device_answers():
    config.unsupported = True
    config.test_exec_root = os.path.join(tempfile.gettempdir(), "pit-gpu-lit")
    os.makedirs(config.test_exec_root, exist_ok=True)
elif not os.path.isdir(artifacts):
    lit_config.fatal(f"no compiled GPU check in {artifacts}: run "
                     "`scripts/gpu-check.sh compile` and carry build/gpu-check")
else:
    os.makedirs(logs, exist_ok=True)
if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%artifacts", artifacts))
config.substitutions.append(("%checks", os.path.join(source_root, "test", "GPU")))
config.substitutions.append(("%logs", logs))
for name in ("PATH", "HOME", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_VISIBLE_DEVICES",
             "PIT_CUDA_DEVICE"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.environment["PYTHONUNBUFFERED"] = "1"
