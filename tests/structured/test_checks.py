"""Every structured estimator through the package's own checks (weaklabel.structured.checks)."""

import numpy as np
import pytest

from weaklabel.structured import LPMILM3N, MILM3N, RampCCCPM3N, chain_graph, grid_graph
from weaklabel.structured.checks import yield_structured_checks


def _chain_problem():
    rng = np.random.RandomState(0)
    X = rng.randint(0, 3, size=(12, 5))
    Y = np.where(rng.rand(12, 5) < 0.3, -1, X % 2)
    return X, Y


def _grid_problem():
    rng = np.random.RandomState(1)
    X = rng.randn(8, 4, 3)
    Y = np.where(rng.rand(8, 4) < 0.25, -1, (X[:, :, 0] > 0).astype(int))
    return X, Y


def _ragged_chain_problem():
    """Chains of 1 to 7 nodes, labels with some missing."""
    rng = np.random.RandomState(2)
    X = [rng.randint(0, 3, size=n) for n in (3, 7, 1, 5, 4, 6, 2, 5)]
    Y = [np.where(rng.rand(x.size) < 0.3, -1, x % 2) for x in X]
    return X, Y


def _ragged_graph_problem():
    """Examples with their own loopy graphs and node features, candidate sets per node."""
    rng = np.random.RandomState(3)
    X, Y = [], []
    for n in (3, 4, 5, 4, 3, 5):
        F = rng.randn(n, 3)
        E = np.c_[np.arange(n), (np.arange(n) + 1) % n]          # a cycle over the nodes
        M = np.ones((n, 3), dtype=bool)
        y = (F[:, 0] > 0).astype(int) + (F[:, 1] > 1)
        M[np.arange(n), (y + 1) % 3] = False                      # rule out one wrong label
        M[0] = False
        M[0, y[0]] = True                                         # and label the first node
        X.append((F, E))
        Y.append(M)
    return X, Y


ESTIMATORS = [
    (MILM3N(alpha=0.5, max_iter=30, random_state=0), _chain_problem),
    (MILM3N(graph=chain_graph(5), solver="bmrm", alpha=0.5, max_iter=30), _chain_problem),
    (MILM3N(graph=grid_graph(2, 2), inference="exact", alpha=0.5, max_iter=10, random_state=0), _grid_problem),
    (RampCCCPM3N(alpha=0.5, max_iter=20, n_rounds=2, random_state=0), _chain_problem),
    (LPMILM3N(max_iter=5, random_state=0), _chain_problem),
    (LPMILM3N(graph=grid_graph(2, 2), max_iter=5, random_state=0, pairwise_scale=2.0), _grid_problem),
    (MILM3N(alpha=0.5, max_iter=30, random_state=0), _ragged_chain_problem),
    (RampCCCPM3N(alpha=0.5, max_iter=20, n_rounds=2, random_state=0), _ragged_chain_problem),
    (LPMILM3N(max_iter=5, random_state=0), _ragged_chain_problem),
    (MILM3N(inference="exact", alpha=0.5, max_iter=10, random_state=0), _ragged_graph_problem),
    (LPMILM3N(max_iter=5, random_state=0), _ragged_graph_problem),
]


@pytest.mark.parametrize("est, problem", ESTIMATORS, ids=lambda v: repr(v) if not callable(v) else v.__name__)
@pytest.mark.parametrize("check", list(yield_structured_checks()), ids=lambda c: c.__name__)
def test_structured_estimator(est, problem, check):
    X, Y = problem()
    check(est, X, Y)


def test_milm3n_warns_when_max_iter_stops_it_early():
    from sklearn.exceptions import ConvergenceWarning

    X, Y = _chain_problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        MILM3N(alpha=0.01, max_iter=1, tol=1e-9, random_state=0).fit(X, Y)


@pytest.mark.parametrize("scale", [1e300, 1e-160])
def test_node_features_out_of_range_are_one_clear_error(scale):
    X = np.random.RandomState(0).randn(4, 3, 2)
    Y = (X[:, :, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="X has .*values of magnitude"):
        MILM3N(alpha=0.5, max_iter=5).fit(X * scale, Y)


@pytest.mark.parametrize("cls", ["MILM3N", "RampCCCPM3N", "LPMILM3N"])
def test_float16_node_features_give_the_float64_model(cls):
    """float16 node features once crashed the numba kernels (NotImplementedError('float16'));
    they are converted at the boundary and give the model float64 features give."""
    import warnings

    import weaklabel.structured as structured
    from weaklabel.simulate import hidden_markov_chain

    X, Y = hidden_markov_chain(20, length=10, n_states=3, random_state=0)
    F = np.eye(3)[X]
    make = getattr(structured, cls)
    kw = {"max_iter": 3}
    if "random_state" in make().get_params():
        kw["random_state"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        half, full = make(**kw).fit(F.astype(np.float16), Y), make(**kw).fit(F, Y)
    np.testing.assert_array_equal(half.unary_, full.unary_)
    np.testing.assert_array_equal(half.predict(F.astype(np.float16)), full.predict(F))
