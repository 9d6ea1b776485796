"""The LP relaxation (weaklabel.structured.inference.lp): exact on chains and trees, a bound on loopy graphs, valid Sudokus as unary constraints."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel import datasets
from weaklabel.structured import chain_graph, sudoku_graph
from weaklabel.structured.inference import brute_force, energy, exact_map, lp_map, milp_map


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_lp_map_is_exact_on_chains_and_trees(seed, tree):
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(2, 7)), int(rng.integers(2, 4))
    E = np.array([[rng.integers(0, i), i] for i in range(1, n)]) if tree else chain_graph(n).edges
    U, P = rng.normal(size=(n, K)), rng.normal(size=(n - 1, K, K))
    b = brute_force(U, P, E)
    vb = b.value
    r = lp_map(U, P, E)
    assert r.bound >= vb - 1e-9
    assert r.certified and r.bound == pytest.approx(vb, abs=1e-7)
    assert r.value == pytest.approx(vb, abs=1e-9)
    assert r.gap == pytest.approx(0.0, abs=1e-7) and r.nodes == 0


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_lp_bound_and_exact_map_on_loopy_graphs(seed):
    rng = np.random.default_rng(seed)
    n, K = 5, 3
    E = np.array([[i, j] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6]).reshape(-1, 2)
    U, P = rng.normal(size=(n, K)), rng.normal(scale=rng.choice([0.3, 2.0]), size=(len(E), K, K))
    b = brute_force(U, P, E)
    vb = b.value
    r = lp_map(U, P, E)
    assert r.bound >= vb - 1e-9                   # an upper bound, always
    assert r.value <= vb + 1e-9
    if r.certified:
        assert r.value == pytest.approx(vb, abs=1e-7)
    e = exact_map(U, P, E)
    y, v = e.labels, e.value
    assert v == pytest.approx(vb, abs=1e-9) and e.certified and e.bound == e.value
    assert energy(U, P, E, y) == pytest.approx(v)
    if not r.certified:                               # the integer program too
        mi = milp_map(U, P, E)
        assert mi.value == pytest.approx(vb, abs=1e-7) and mi.certified


@pytest.mark.data("sudoku")
def test_lp_map_solves_valid_sudokus_given_as_unary_constraints():
    d = datasets.load("sudoku")
    g = sudoku_graph()
    rng = np.random.default_rng(0)
    for i in rng.choice(len(d.X_train), 30, replace=False):
        x, sol = d.X_train[i], d.y_train[i]
        U = np.zeros((81, 9))
        U[x > 0, x[x > 0] - 1] = 1.0                # givens as unary constraints
        r = lp_map(U, -np.eye(9), g.edges)
        labels, bound, tight = r.labels, r.bound, r.certified
        assert tight and bound == pytest.approx((x > 0).sum())
        assert np.array_equal(labels + 1, sol)
