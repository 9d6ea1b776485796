"""bandit-sets (issue 21): several acceptable labels, on small slices of the same code path."""

import numpy as np
import pytest

from weaklabel.experiments import bandit_sets, cspa
from weaklabel.simulate import acceptable_labels


def _cfg(method, params, seed, p, rounds=10**9):
    part, scaling, _ = cspa.LINEAR_DATA["vehicle"]
    return {"dataset": "vehicle", "part": part, "scaling": scaling, "method": method, "params": params,
            "seed": seed, "rounds": rounds, "p": p}


def test_acceptable_labels_pair_each_class_once():
    y = np.repeat(np.arange(5), 200)
    S = acceptable_labels(y, 0.5, random_state=0).mask
    assert S[np.arange(y.size), y].all()
    partner = {}
    for i in np.flatnonzero(S.sum(axis=1) == 2):
        other = int(np.flatnonzero(S[i] & (np.arange(5) != y[i]))[0])
        assert partner.setdefault(int(y[i]), other) == other and other != y[i]   # one partner per class
    assert abs((S.sum(axis=1) == 2).mean() - 0.5) < 0.05
    assert (acceptable_labels(y, 0.0).sizes == 1).all() and (acceptable_labels(y, 1.0).sizes == 2).all()
    with pytest.raises(ValueError, match="probability"):
        acceptable_labels(y, -0.1)


def test_more_acceptable_labels_mean_more_right_proposals():
    """CSPA on vehicle: p = 1 (two right labels per row) is well above p = 0.5, which is
    above the single-label stream (cspa-linear's 49); a wrong reading of the sets (say,
    only the first label counted right) would not rise with p."""
    r = {p: np.mean([bandit_sets.cell(_cfg("cspa", {"beta": 0.3}, s, p))["ratio"] for s in range(3)])
         for p in (0.5, 1.0)}
    single = np.mean([cspa.online_cell({k: v for k, v in _cfg("cspa", {"beta": 0.3}, s, 0).items() if k != "p"})
                      ["ratio"] for s in range(3)])
    assert single + 0.02 < r[0.5] < r[1.0] - 0.02


@pytest.mark.slow
def test_quick_run_renders(tmp_path):
    summary = bandit_sets.EXPERIMENTS[0].run(tmp_path, quick=True, repeats=1, datasets=["vehicle"], progress=False)
    table = summary.tables[0]
    assert [r[1] for r in table.rows] == [0.5, 1.0]
    assert all(v is not None for v in table.rows[0][3:-1])
    assert (tmp_path / "report.md").exists()
