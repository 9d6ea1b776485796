"""`weaklabel speed`'s measurements (experiments/_speed.py) run as the command runs them, on small
sizes: the code path and the accuracies (speed ratios are the benchmarks', never a test's)."""

import pytest


@pytest.mark.slow
@pytest.mark.data("sudoku")
def test_structured_speed_runs_viterbi_sudoku_and_variable_length_chains():
    from weaklabel.experiments import _speed as speed

    lines = []
    r = speed.run_structured(out=lines.append, repeats=1, n_train=60, n_test=12, n_other=8, n_chains=60)  # in %
    assert r["viterbi_ratio"] > 0 and r["solved"] >= 95
    assert r["solved_other"] >= 80     # 60 training puzzles: weaker rules than the 500 of the real run (100)
    assert any("another source" in line for line in lines)
    assert any("chains of lengths 5-100" in line for line in lines) and r["variable_length_fit_ratio"] > 0
