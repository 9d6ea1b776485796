"""The structured simulators: HMC, MAR annotation, second-source Sudoku puzzles."""

import numpy as np
import pytest

from weaklabel.simulate import hidden_markov_chain, hmc_model, missing_labels, sudoku_puzzles
from weaklabel.simulate._sudoku import count_solutions


def test_hmc_model_normalises_and_matches_the_paper():
    start, trans, emit = hmc_model(30)
    assert np.allclose(trans.sum(1), 1) and np.allclose(emit.sum(1), 1)
    assert trans[0, 0] == 0.5 and emit[0, 0] == 0.5 and emit[0, 1] == pytest.approx(1 / 58)
    X, Y = hidden_markov_chain(400, length=50, random_state=0)
    assert np.mean(X == Y) == pytest.approx(0.5, abs=0.02)
    assert np.mean(Y[:, 1:] == Y[:, :-1]) == pytest.approx(0.5, abs=0.02)


def test_missing_labels_is_mar_and_keeps_given_cells():
    Y = np.arange(1000).reshape(100, 10) % 9
    A = missing_labels(Y, 0.3, random_state=0)
    assert np.mean(A == -1) == pytest.approx(0.3, abs=0.03)
    assert np.all((A == -1) | (A == Y))
    always = np.zeros_like(Y, dtype=bool)
    always[:, :5] = True
    A = missing_labels(Y, 1.0, always=always, random_state=0)
    assert np.all(A[:, :5] == Y[:, :5]) and np.all(A[:, 5:] == -1)
    with pytest.raises(ValueError, match="rate must be a probability"):
        missing_labels(Y, 1.5)


def test_sudoku_puzzles_are_valid_unique_and_span_the_givens():
    X, Y = sudoku_puzzles(30, givens=(25, 77), random_state=0)
    for x, y in zip(X, Y):
        g = y.reshape(9, 9)
        assert all(sorted(g[r]) == list(range(1, 10)) for r in range(9))
        assert all(sorted(g[:, c]) == list(range(1, 10)) for c in range(9))
        assert all(sorted(g[3 * a:3 * a + 3, 3 * b:3 * b + 3].ravel()) == list(range(1, 10))
                   for a in range(3) for b in range(3))
        assert np.all((x == 0) | (x == y))
        assert count_solutions(x) == 1
    givens = (X > 0).sum(1)
    assert givens.min() < 35 and givens.max() > 60
    assert count_solutions(np.zeros(81, int)) == 2


def test_structured_speed_and_sudoku_bench_slices(tmp_path):
    from weaklabel import datasets
    if not datasets.available("sudoku"):
        pytest.skip("shared data not found")
    from weaklabel.bench import speed, sudoku

    lines = []
    r = speed.run_structured(out=lines.append, repeats=5, n_train=60)
    assert r["viterbi_ratio"] > 1 and r["solved"] >= 95
    md = sudoku.run(tmp_path, quick=True, progress=False)
    text = md.read_text()
    assert "| 100 | 0.5 |" in text and "second source" in text
    assert (tmp_path / "sudoku_scores.png").stat().st_size > 5000
