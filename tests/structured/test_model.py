"""The annotation model (structured/model.py): the ML estimate of the annotation rate, and
Section 4.2's Sudoku annotation process."""

import numpy as np
import pytest

from weaklabel.structured import estimate_missingness, sudoku_label_prob


def test_the_annotation_rate_is_the_share_of_labelled_nodes():
    A = np.array([[0, -1, 2, -1], [1, 1, -1, 0]])
    assert estimate_missingness(A) == pytest.approx(5 / 8)
    assert estimate_missingness([[3, 1]]) == 1.0
    with pytest.raises(ValueError, match="Y is empty"):
        estimate_missingness(np.zeros((0, 3), dtype=int))


def test_sudoku_givens_are_always_labelled_and_blanks_with_one_minus_tau():
    X = np.array([[5, 0, 0, 7] + [0] * 77])
    p = sudoku_label_prob(X, 0.3)
    assert p.shape == (1, 81) and p[0, 0] == p[0, 3] == 1.0
    np.testing.assert_allclose(p[0, [1, 2, 4, 80]], 0.7)
    assert (sudoku_label_prob(X, 0.0) == 1.0).all()
    for tau in (-0.1, 1.0):
        with pytest.raises(ValueError, match=r"tau must be in \[0, 1\)"):
            sudoku_label_prob(X, tau)
