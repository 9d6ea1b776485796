"""The registry of experiments (experiments/registry.py)."""

import pytest

from weaklabel.experiments import registry


def test_every_paper_reproduction_is_registered():
    assert set(registry.names()) >= {
        "partial-labels", "pll-realworld", "uma-toy", "uma-real", "cspa-linear", "cspa-kernel", "cspa-beta",
        "mms-artificial", "mms-realworld", "m3n-hmc", "sudoku", "visual-sudoku"}
    with pytest.raises(ValueError, match="unknown experiment 'nope'"):
        registry.get("nope")
