"""Compile step of the benchmark, on the machine without a GPU: compiles
every kernel of cases.py with pit-compile into OUT/NAME.so, next to a copy of
libpit_cuda_runtime.so.

    python3 bench/compile_cases.py BUILD_DIR OUT_DIR
"""

import pathlib
import shutil
import subprocess
import sys

import cases


def main():
    build, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(build / "lib" / "libpit_cuda_runtime.so", out)
    for name, text, pit_loop in cases.sources():
        source = out / f"{name}.mlir"
        source.write_text(text)
        subprocess.run([str(build / "bin" / "pit-compile"), str(source), "-o",
                        str(out / f"{name}.so"), "--chip", "sm_90",
                        "--format", "bin", "--pit-loop", str(pit_loop)],
                       check=True)
        print(f"{name}: compiled", flush=True)


if __name__ == "__main__":
    main()
