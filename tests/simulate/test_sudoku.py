"""Sudoku puzzles (simulate/_sudoku.py, simulate.sudoku_puzzles): valid, with a unique solution,
over the asked range of givens."""

import numpy as np

from weaklabel.simulate import sudoku_puzzles
from weaklabel.simulate._sudoku import count_solutions


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


def test_count_solutions_stops_at_the_limit_and_finds_none_in_a_broken_puzzle():
    solved = sudoku_puzzles(1, givens=(81, 81), random_state=0)[1][0]
    assert count_solutions(solved, 2) == 1
    one_blank = solved.copy()
    one_blank[40] = 0
    assert count_solutions(one_blank, 2) == 1
    assert count_solutions(np.zeros(81, dtype=solved.dtype), 2) == 2          # stops at the limit
    broken = solved.copy()
    broken[1] = broken[0]                                                     # a row holds one digit twice
    assert count_solutions(broken, 2) == 0
