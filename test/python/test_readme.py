"""The README's Python examples run as shown: each ```python block of its
sections "From Python" and "From PyTorch", in a process of its own."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def section_code(title):
    text = README.read_text()
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, f"the README's section '{title}' has no Python example"
    return blocks[0]


@pytest.mark.parametrize("title", ["From Python", "From PyTorch"])
def test_readme_example_runs(title, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PIT_CACHE_DIR=str(tmp_path))
    ran = subprocess.run([sys.executable, "-c", section_code(title)], env=env,
                         capture_output=True, text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    printed = float(ran.stdout.split()[-1])
    if title == "From Python":
        assert printed < 1e-4  # the largest error against float64
    else:
        assert printed == 0.0  # no gradient reaches a pruned weight
