"""Compile step of the benchmark, on the machine without a GPU: compiles
every kernel of cases.py with pit-compile into OUT/NAME.so, next to a copy of
libpit_cuda_runtime.so.

    python3 bench/compile_cases.py BUILD_DIR OUT_DIR

The variants of the sweep (cases.VARIANTS) go to OUT_DIR/variants/.
"""

import pathlib
import shutil
import subprocess
import sys

import cases


def compile_one(build, out, name, text, pit_loop, variant=None):
    source = out / f"{name}.mlir"
    source.write_text(text)
    command = [str(build / "bin" / "pit-compile"), str(source), "-o",
               str(out / f"{name}.so"), "--chip", "sm_90", "--format", "bin",
               "--pit-loop", str(pit_loop)]
    if variant:
        columns, chunk, stages = variant
        command += ["--mma-block-columns", str(columns), "--mma-chunk",
                    str(chunk), "--mma-stages", str(stages)]
    subprocess.run(command, check=True)
    source.unlink()


def main():
    build, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    (out / "variants").mkdir(parents=True, exist_ok=True)
    shutil.copy(build / "lib" / "libpit_cuda_runtime.so", out)
    for name, text, pit_loop in cases.sources():
        compile_one(build, out, name, text, pit_loop)
        print(f"{name}: compiled", flush=True)
    for name, text, pit_loop, variant in cases.variant_sources():
        compile_one(build, out / "variants", name, text, pit_loop, variant)
    print(f"{len(cases.variant_sources())} variants compiled", flush=True)


if __name__ == "__main__":
    main()
