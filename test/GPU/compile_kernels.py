"""Compile step of the GPU check, on the machine without a GPU: writes each
case of kernels.py as .mlir and compiles it with pit-compile into OUT/*.so,
next to a copy of libpit_cuda_runtime.so. A case meant to be refused must
fail to compile, and its message is kept in OUT/NAME.refused."""

import pathlib
import shutil
import subprocess
import sys

import kernels

# The GPU machines are H100/H200: sm_90a, whose wgmma the dense blocks use.
CHIP = "sm_90a"


def main():
    build, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(build / "lib" / "libpit_cuda_runtime.so", out)
    failures = 0
    for name, template, params, pit_loop, refused in kernels.cases():
        source = out / f"{name}.mlir"
        source.write_text(template.format(**params))
        command = [str(build / "bin" / "pit-compile"), str(source), "-o",
                   str(out / f"{name}.so"), "--chip", params.get("chip", CHIP), "--pit-loop",
                   str(pit_loop)]
        if "table" in params:
            command += ["--latency-table", params["table"]]
        if "variant" in params:
            command += ["--variant", str(params["variant"])]
        if "cluster" in params:
            command += ["--mma-cluster-blocks", str(params["cluster"])]
        if "chunk" in params:
            command += ["--mma-chunk", str(params["chunk"])]
        result = subprocess.run(command, capture_output=True, text=True)
        if refused:
            ok = result.returncode != 0 and "does not divide" in result.stderr
            (out / f"{name}.refused").write_text(result.stderr)
            print(f"{name}: refused at compile time: "
                  f"{result.stderr.strip().splitlines()[0] if result.stderr else ''}")
        else:
            ok = result.returncode == 0
            print(f"{name}: {'compiled' if ok else 'FAILED ' + result.stderr}")
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
