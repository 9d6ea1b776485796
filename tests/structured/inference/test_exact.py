"""Exact MAP (weaklabel.structured.inference.exact): branch and bound where the LP is fractional, hard Sudokus."""

import numpy as np
import pytest

from weaklabel.structured import sudoku_graph
from weaklabel.structured.inference import brute_force, energy, exact_map, lp_map, milp_map


def test_grid_frustrated_problem_needs_branching():
    # a 3-cycle of "must differ" with 2 labels: LP is not tight; exact_map still exact
    E = np.array([[0, 1], [1, 2], [0, 2]])
    P = -np.eye(2)
    U = np.array([[0.1, 0], [0, 0.05], [0, 0]])
    r = lp_map(U, P, E)
    assert not r.certified and r.bound > r.value
    e = exact_map(U, P, E)
    vb = brute_force(U, P, E).value
    assert e.value == pytest.approx(vb) and not e.info["tight_at_root"] and e.certified and e.nodes > 0
    mi = milp_map(U, P, E)
    assert mi.value == pytest.approx(vb) and mi.certified and mi.info["n_binary"] > 0


@pytest.mark.slow
def test_exact_map_decodes_hard_sudokus_under_soft_learned_like_rules():
    # Scores shaped like a trained LPMILM3N (givens favoured by ~11, a same-digit pair
    # penalised by ~1.3 with 0.01 noise, one row of small preferences shared by the empty
    # cells, as the symbol-indexed unary of the model has it).  The LP is loose on these
    # puzzles.  Searching from the LP labeling's score (the former exact_map) explores
    # every labeling that breaks a rule or two; the deepening target proves the MAP.
    from weaklabel.simulate import sudoku_puzzles
    from weaklabel.structured.inference import _adjacency
    from weaklabel.structured.inference._kernels import _beliefs, _dfbb

    rng = np.random.default_rng(3)
    X, Y = sudoku_puzzles(8, givens=(30, 36), random_state=7)
    g = sudoku_graph()
    P = 1.33 + 0.01 * rng.standard_normal((9, 9)) - 1.33 * np.eye(9)
    budget = 100_000
    new_nodes, old_nodes = [], []
    for x, sol in zip(X, Y):
        U = np.tile(rng.uniform(0, 0.1, size=9), (81, 1))
        U[x > 0] = -5.0
        U[x > 0, x[x > 0] - 1] = 6.5
        r = lp_map(U, P, g.edges)
        if r.certified:
            continue
        e = exact_map(U, P, g.edges, max_nodes=budget)
        y, v = e.labels, e.value
        assert e.certified and v >= energy(U, P, g.edges, sol - 1) - 1e-9
        assert np.array_equal(y + 1, sol)
        new_nodes.append(e.nodes)
        msg = r.info["messages"]                          # the former search, same budget
        ue = np.ascontiguousarray(P - msg[:, 0, :, None] - msg[:, 1, None, :])
        out = r.labels.copy()
        _, done, used = _dfbb(_beliefs(U, g.edges, msg), ue, g.edges, *_adjacency(g.edges, 81), r.value, budget, out)
        old_nodes.append(used)
    assert len(new_nodes) >= 4
    assert sum(new_nodes) < sum(old_nodes) / 5, (new_nodes, old_nodes)
