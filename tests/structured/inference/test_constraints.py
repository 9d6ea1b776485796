"""Decode-time constraints (weaklabel.structured.inference.constraints) honoured by every method."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.structured import chain_graph, grid_graph
from weaklabel.structured.inference import energy, exact_map, lp_map, milp_map, viterbi


def _constrained_reference(U, P, E, A, F):
    """The best labeling that keeps every constraint, by enumeration (None if none does)."""
    import itertools

    n, K = U.shape
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        y = np.array(y)
        if not A[np.arange(n), y].all() or (E.shape[0] and F[np.arange(E.shape[0]), y[E[:, 0]], y[E[:, 1]]].any()):
            continue
        v = U[np.arange(n), y].sum() + sum(P[e][y[a], y[b]] for e, (a, b) in enumerate(E))
        if v > best + 1e-12:
            best, arg = v, y
    return arg, best


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_every_method_honours_decode_constraints(seed, loopy):
    """Allowed labels per node and forbidden pairs per edge, imposed on the potentials: every
    exact method returns the constrained MAP, or, when no labeling keeps the constraints, a
    labeling that breaks one (which satisfies() reports)."""
    from weaklabel.structured.inference import check_constraints, constrain, satisfies

    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 4))
    E = grid_graph(2, 3).edges if loopy else chain_graph(int(rng.integers(2, 6))).edges
    n = int(E.max()) + 1
    U, P = rng.normal(size=(n, K)), rng.normal(size=(E.shape[0], K, K))
    A = rng.random((n, K)) < 0.7
    A[np.arange(n), rng.integers(0, K, n)] = True
    A, F = check_constraints(A, rng.random((K, K)) < 0.25, n, E.shape[0], K)
    ref, best = _constrained_reference(U, P, E, A, F)
    Uc, Pc = constrain(U, P, E.shape[0], A, F)
    methods = [exact_map, milp_map] + ([] if loopy else [viterbi])
    for f in methods:
        r = f(Uc, Pc, E)
        if ref is None:
            assert not satisfies(r.labels, E, A, F)
        else:
            assert satisfies(r.labels, E, A, F), f.__name__
            assert energy(U, P, E, r.labels) == pytest.approx(best, abs=1e-9), f.__name__
    r = lp_map(Uc, Pc, E)
    if r.certified and ref is not None:
        assert energy(U, P, E, r.labels) == pytest.approx(best, abs=1e-9)


def test_constraint_shapes_are_checked():
    from weaklabel.structured.inference import check_constraints

    with pytest.raises(ValueError, match=r"no label at nodes \[1\]"):
        check_constraints(np.array([[True, False], [False, False]]), None, 2, 1, 2)
    with pytest.raises(ValueError, match=r"shape \(2, 2\) or \(2,\)"):
        check_constraints(np.ones((3, 2), dtype=bool), None, 2, 1, 2)
    with pytest.raises(ValueError, match="bool mask"):
        check_constraints(None, np.zeros((2, 2)), 2, 1, 2)
    with pytest.raises(ValueError, match=r"\(2, 2\) or \(1, 2, 2\)"):
        check_constraints(None, np.zeros((3, 3), dtype=bool), 2, 1, 2)
