"""Guarantees that hold for every estimator (issue 16).

1. A call that raises leaves the estimator exactly as it was: every attribute, compared
   byte for byte (pickled) before and after a matrix of rejected calls.
2. Every valid form of the same matrix (dense, canonical CSR, CSR with duplicate entries,
   CSR with unsorted indices, CSC, COO) gives the same model, and the caller's matrix is
   never modified.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel import BagCandidates
from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, GaussianSupport
from weaklabel.noisy import UMA, LabelALittle
from weaklabel.partial import AvgPegasos, AvgPerceptron, KernelPRODEN, MLPPRODEN, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from tests.test_online import _state

ONLINE = [AvgPerceptron(random_state=0), MaxPerceptron(random_state=0), AvgPegasos(alpha=0.01, random_state=0),
          MaxPegasos(alpha=0.01, random_state=0), Perceptron(random_state=0), Pegasos(alpha=0.01, random_state=0),
          CSPA(beta=0.5, random_state=0), SPA(random_state=0), Banditron(random_state=0), BPA(random_state=0),
          Confidit(random_state=0), Confidit(diagonal=True, random_state=0)]
BATCH = [UMA(confusion="identity", max_iter=30), UMA(confusion=np.eye(3), max_iter=30, warm_start=True),
         LabelALittle(m=3, max_iter=30, random_state=0), MMS(max_iter=2, random_state=0),
         CandidateLabelSVM(random_state=0), GaussianSupport(n_support=10),
         KernelPRODEN(gamma=0.5, alpha=0.01, n_components=20, max_iter=50, random_state=0),
         # from uniform confidences: the linear start (PRODEN's L-BFGS) differs between sparse and dense rows
         MLPPRODEN(hidden_units=8, alpha=0.01, max_iter=10, init="uniform", random_state=0)]


def _data(n=60, d=5, seed=0):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 3
    X = rng.randn(n, d) + 2.0 * np.eye(3, d)[y]
    X[rng.rand(n, d) < 0.3] = 0.0
    return X, y


def _target(est, y):
    if isinstance(est, (MMS, CandidateLabelSVM)):
        return BagCandidates.from_labels(y, np.arange(y.size) // 2)         # bags of two
    if isinstance(est, LabelALittle):
        return np.where(np.arange(y.size) % 2 == 0, y, -1)
    return y


def _rejected_calls(est, X, y):
    """Calls that must raise, each a (name, function of the estimator)."""
    t = _target(est, y)
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    calls = [
        ("NaN in X", lambda e: e.fit(Xnan, t)),
        ("X of object dtype", lambda e: e.fit(X.astype(object), t)),
        ("huge values", lambda e: e.fit(X * 1e120, t)),
        ("tiny values", lambda e: e.fit(X * 1e-160, t)),
    ]
    if not isinstance(est, GaussianSupport):                                # a transformer: y is ignored
        calls.append(("y of the wrong length", lambda e: e.fit(X, _target(e, y[:-1]))))
    if hasattr(est, "partial_fit"):
        calls += [
            ("partial_fit with other features", lambda e: e.partial_fit(X[:, :-1], y)),
            ("partial_fit with an unseen label", lambda e: e.partial_fit(X, np.where(y == 0, 7, y))),
            ("partial_fit with NaN", lambda e: e.partial_fit(Xnan, y)),
        ]
    if hasattr(est, "eta") and isinstance(est, (AvgPerceptron, MaxPerceptron, Perceptron)):
        def overflow(e):
            e.set_params(eta=1e300)
            try:
                e.partial_fit(X * 1e10, y)
            finally:
                e.set_params(eta=1.0)
        calls.append(("weights overflow (eta=1e300)", overflow))
    if isinstance(est, UMA) and est.warm_start:
        calls.append(("warm start on other features", lambda e: e.fit(X[:, :-1], y)))
    return calls


@pytest.mark.parametrize("est", ONLINE + BATCH, ids=repr)
def test_a_rejected_call_leaves_the_estimator_exactly_as_it_was(est):
    X, y = _data()
    est.fit(X, _target(est, y))
    expected = est.predict(X) if hasattr(est, "predict") else est.transform(X)
    before = _state(est)
    for name, call in _rejected_calls(est, X, y):
        with pytest.raises((ValueError, TypeError, FloatingPointError)):
            call(est)
        assert _state(est) == before, f"{name}: the estimator changed"
        now = est.predict(X) if hasattr(est, "predict") else est.transform(X)
        assert np.array_equal(now, expected), f"{name}: predictions changed"


def _forms(X):
    csr = sp.csr_matrix(X)
    # every stored entry split into two halves at the same (row, column): duplicates
    rows = np.repeat(np.arange(X.shape[0]), np.diff(csr.indptr))
    data = np.r_[csr.data / 2, csr.data / 2]
    cols = np.r_[csr.indices, csr.indices]
    r2 = np.r_[rows, rows]
    order = np.argsort(r2, kind="stable")
    dup = sp.csr_matrix((data[order], cols[order], np.r_[0, np.cumsum(2 * np.diff(csr.indptr))]), shape=X.shape)
    unsorted = csr.copy()
    for i in range(X.shape[0]):
        lo, hi = unsorted.indptr[i], unsorted.indptr[i + 1]
        unsorted.indices[lo:hi] = unsorted.indices[lo:hi][::-1].copy()
        unsorted.data[lo:hi] = unsorted.data[lo:hi][::-1].copy()
    unsorted.has_sorted_indices = False
    return {"dense": X, "csr": csr, "csr with duplicates": dup, "csr unsorted": unsorted, "csc": sp.csc_matrix(X),
            "coo": sp.coo_matrix(X)}


def test_the_test_forms_are_the_same_matrix():
    X, _ = _data()
    for name, F in _forms(X).items():
        assert np.array_equal(F.toarray() if sp.issparse(F) else F, X), name
    f = _forms(X)
    assert not f["csr with duplicates"].has_canonical_format and not f["csr unsorted"].has_sorted_indices


def _model(est):
    if hasattr(est, "coef_"):
        return np.asarray(est.coef_)
    if hasattr(est, "support_"):
        return est.support_
    if isinstance(est, KernelPRODEN):
        return np.concatenate([est.landmarks_.ravel(), est._W.ravel()])
    if isinstance(est, MLPPRODEN):
        return np.concatenate([a.ravel() for a in est.coefs_ + est.intercepts_])
    raise AssertionError(f"no model array on {est!r}")


@pytest.mark.parametrize("est", ONLINE + BATCH, ids=repr)
def test_every_valid_form_of_the_same_matrix_gives_the_same_model(est):
    X, y = _data()
    models = {}
    for name, F in _forms(X).items():
        kept = F.copy()
        e = pickle.loads(pickle.dumps(est))
        e.fit(F, _target(e, y))
        models[name] = _model(e)
        if sp.issparse(F):
            same = F.format == kept.format and all(np.array_equal(getattr(F, a), getattr(kept, a))
                                                   for a in (("row", "col", "data") if F.format == "coo"
                                                             else ("indices", "indptr", "data")))
            assert same, f"{name} was modified"
    for name, W in models.items():
        np.testing.assert_allclose(W, models["csr"], rtol=1e-9, atol=1e-12, err_msg=name)


def test_mixed_label_types_are_one_clear_error():
    X, _ = _data(n=6)
    with pytest.raises(ValueError, match="mixes string and number labels"):
        UMA(confusion="identity").fit(X, np.array([0, "a", 1, "b", 0, 1], dtype=object))


def test_64_bit_sparse_indices_are_accepted_everywhere():
    X, y = _data()
    X64 = sp.csr_matrix(X)
    X64.indices, X64.indptr = X64.indices.astype(np.int64), X64.indptr.astype(np.int64)
    for est in ONLINE + BATCH:
        a = pickle.loads(pickle.dumps(est)).fit(X64, _target(est, y))
        b = pickle.loads(pickle.dumps(est)).fit(sp.csr_matrix(X), _target(est, y))
        np.testing.assert_allclose(_model(a), _model(b), rtol=1e-9, atol=1e-12, err_msg=repr(est))


@pytest.mark.slow
def test_the_intercept_column_costs_about_the_result_in_memory():
    import tracemalloc

    from weaklabel.linear import with_intercept

    X = sp.random(5000, 2000, density=0.01, format="csr", random_state=0)
    expected = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    got = with_intercept(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (got != expected).nnz == 0 and got.has_sorted_indices
    assert peak < 1.5 * size                     # scipy's hstack peaks near 2.7x (measured)
    np.testing.assert_array_equal(with_intercept(X.toarray()), expected.toarray())
