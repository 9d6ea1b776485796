"""Every Python block of the README and of the documentation's Markdown pages (getting
started, user guide, reproductions, ...) runs as written, each in a namespace of its own
(nothing defined by another block is visible) in an empty folder, so the examples a
newcomer copies cannot rot. The blocks run in the test process: a fresh interpreter per
block cost 1.7 s of imports each, a third of the suite's budget for them."""

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").rglob("*.md")
                                      if "_build" not in p.parts and "generated" not in p.parts)


def _blocks():
    seen, out = set(), []
    for page in PAGES:
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S)):
            if block not in seen:                 # the README's quickstart is also the docs' one
                seen.add(block)
                out.append((page.relative_to(ROOT).as_posix(), i, block))
    return out


BLOCKS = _blocks()

# blocks that read the shared data (the rest use scikit-learn's bundled digits)
_DATA = {"sudoku": ("sudoku",), "registry.get(\"partial-labels\")": ("ecoli",)}


def _marks(block):
    names = [n for key, ns in _DATA.items() if key in block for n in ns]
    return [pytest.mark.data(*names)] if names else []


@pytest.mark.slow
@pytest.mark.parametrize("block", [pytest.param(b, marks=_marks(b), id=f"{page}-block{i}")
                                   for page, i, b in BLOCKS])
def test_page_block_runs(block, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")                          # a block's plt.show() draws nowhere
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        exec(compile(block, "<page block>", "exec"), {"__name__": "__main__"})
    assert os.getcwd() == str(tmp_path)


def test_the_pages_have_their_examples():
    by_page = {page for page, _, _ in BLOCKS}
    assert "README.md" in by_page and "docs/getting_started.md" in by_page
    for kind in ("partial", "bandit", "bags", "structured", "noisy"):
        assert f"docs/user_guide/{kind}.md" in by_page, kind
    assert len(BLOCKS) >= 12


def test_the_readme_is_a_front_door():
    """Issue 22: under 200 lines, with the two set-up commands."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 200
    assert 'pip install -e ".[all]" && weaklabel reproduce partial-labels --quick' in text
    assert 'pip install -e ".[dev]" && pytest' in text
