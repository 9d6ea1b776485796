"""Every Python block of the README runs as written (each in a fresh interpreter, in an
empty folder), so the examples a newcomer copies cannot rot."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)

# blocks that read the shared data (the rest use scikit-learn's bundled digits)
_DATA = {"sudoku": ("sudoku",), "registry.get(\"partial-labels\")": ("ecoli",)}


def _marks(block):
    names = [n for key, ns in _DATA.items() if key in block for n in ns]
    return [pytest.mark.data(*names)] if names else []


@pytest.mark.parametrize("block", [pytest.param(b, marks=_marks(b), id=f"block{i}") for i, b in enumerate(BLOCKS)])
def test_readme_block_runs(block, tmp_path):
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", block], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_readme_has_its_examples():
    assert len(BLOCKS) >= 6
