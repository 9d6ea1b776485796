"""UMA against a plain-numpy reference, iterate by iterate, and its guarantees."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

import weaklabel
from weaklabel.noisy import UMA
from weaklabel.simulate import confusion_family, noisy_labels


def _reference_uma(X, y, C, alpha, max_iter, tol):
    """Algorithm 2 with the paper's Perceptron steps, scores recomputed every iteration.

    Returns W (Q, d), the list of (p, q, r) pairs and whether a near-tie made a decision
    ambiguous (then rounding may legitimately send the kernel another way).
    """
    n, d = X.shape
    Q = C.shape[0]
    Cinv = np.linalg.inv(C)
    W = np.zeros((Q, d))
    pairs, ambiguous = [], False
    for _ in range(max_iter):
        s = X @ W.T
        Gamma = np.zeros((Q, Q, d))
        for i in range(n):
            for p in range(Q):
                other = np.max(np.delete(s[i], p))
                margin = s[i, p] - other
                if W.any() and abs(margin - alpha) < 1e-9:
                    ambiguous = True
                if margin >= alpha:
                    Gamma[p, y[i]] += X[i]               # sequential sums, as the kernel
        Gamma /= n
        Z = np.array([Cinv @ Gamma[p] for p in range(Q)])   # Z[p, q] = row q of C^-1 Gamma_p
        best, best_norm = None, -1.0
        max_norm = 0.0
        for p in range(Q):
            for q in range(Q):
                if p == q:
                    continue
                z = Z[p, q]
                nz = np.sqrt(np.dot(z, z))
                max_norm = max(max_norm, nz)
                v = W @ z
                E = [r for r in range(Q) if r != q and v[r] - v[q] >= alpha]
                if E and nz > best_norm:
                    best, best_norm = (p, q, E, v), nz
        if max_norm < tol or best is None:
            break
        p, q, E, v = best
        r = E[int(np.argmax(v[E]))]
        W[q] += Z[p, q]
        W[r] -= Z[p, q]
        pairs.append((p, q, r))
    return W, pairs, ambiguous


@st.composite
def noisy_problems(draw):
    Q = draw(st.integers(2, 4))
    n = draw(st.integers(Q, 30))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d))
    y = rng.integers(0, Q, n)
    y[:Q] = np.arange(Q)
    C = confusion_family(Q, draw(st.sampled_from([0, 2, 5])), random_state=int(rng.integers(1 << 30)))
    return X, y, C


@given(problem=noisy_problems(), alpha=st.sampled_from([0.0, 0.05]), sparse=st.booleans())
@settings(max_examples=60, deadline=None)
def test_uma_matches_reference_iterate_by_iterate(problem, alpha, sparse):
    X, y, C = problem
    W, pairs, ambiguous = _reference_uma(X, y, C, alpha, max_iter=15, tol=1e-9)
    assume(not ambiguous)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = UMA(confusion=C, alpha=alpha, max_iter=15, tol=1e-9).fit(sp.csr_matrix(X) if sparse else X, y)
    got = list(zip(est.history_["p"], est.history_["q"], est.history_["r"]))
    assert got == pairs
    assert_allclose(est.coef_, W, atol=1e-9, rtol=1e-7)
    assert_allclose(est.coef_.sum(axis=0), 0.0, atol=1e-9)          # sum_q w_q stays 0


def _separable(n=400, Q=5, d=3, margin=0.05, seed=0):
    """Unit-norm points labelled by a random linear concept, margin enforced, every class present."""
    rng = np.random.default_rng(seed)
    while True:
        Wt = rng.standard_normal((Q, d))
        X = rng.standard_normal((n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        s = np.sort(X @ Wt.T, axis=1)
        keep = s[:, -1] - s[:, -2] > margin
        y = np.argmax(X[keep] @ Wt.T, axis=1)
        if np.bincount(y, minlength=Q).min() >= 5:
            return X[keep], y


def test_identity_on_clean_separable_data_reaches_zero_error():
    X, y = _separable()
    est = UMA(confusion=np.eye(5), max_iter=5000).fit(X, y)
    assert est.converged_
    assert est.score(X, y) == 1.0
    assert est.history_["train_error"][0] > 0.5


def test_uma_beats_the_perceptron_under_class_noise():
    X, y = _separable(n=3000, seed=1)
    C = confusion_family(5, 4, random_state=3)
    yn = noisy_labels(y, C, random_state=4)
    assert (yn != y).mean() > 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        uma = UMA(confusion=C, max_iter=1500).fit(X, yn)
        perc = UMA(confusion=np.eye(5), max_iter=1500).fit(X, yn)
    assert uma.score(X, y) > 0.9
    assert uma.score(X, y) > perc.score(X, y) + 0.05


@pytest.mark.parametrize("selection", ["error", "confusion", "random"])
def test_selections_run_and_are_seeded(selection):
    X, y = _separable(n=300, seed=2)
    C = confusion_family(5, 2, random_state=0)
    yn = noisy_labels(y, C, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UMA(confusion=C, selection=selection, max_iter=200, random_state=0).fit(X, yn)
        b = UMA(confusion=C, selection=selection, max_iter=200, random_state=0).fit(X, yn)
    assert_array_equal(a.coef_, b.coef_)
    assert a.score(X, y) > 0.6
    assert set(a.history_) == {"p", "q", "r", "norm", "train_error"}


def test_confusion_validation_messages():
    X, y = _separable(n=100)
    bad = [
        (np.eye(4), "5 classes"),
        (np.full((5, 5), 0.2) + np.eye(5) * np.nan, "NaN"),
        (np.eye(5) * 2, "columns must each sum to 1"),
        (np.eye(5)[::-1][:, [0, 1, 2, 3, 4]] * 0 + 0.2, "not invertible"),
        (-np.eye(5) + np.full((5, 5), 0.4), "negative"),
        (np.ones((5, 4)), "square"),
    ]
    for C, match in bad:
        with pytest.raises(ValueError, match=match):
            UMA(confusion=C).fit(X, y)
    with pytest.raises(ValueError, match="The 'selection' parameter of UMA must be a str among"):
        UMA(confusion=np.eye(5), selection="best").fit(X, y)
    with pytest.raises(ValueError, match="confusion is required"):
        UMA().fit(X, y)
    est = UMA(confusion=np.eye(5), max_iter=100).fit(X, y)
    W = est.coef_.copy()
    with pytest.raises(ValueError, match="alpha"):
        est.set_params(alpha=-1).fit(X, y)
    assert_array_equal(est.coef_, W)


def test_max_iter_warns_and_save_load(tmp_path):
    X, y = _separable(n=200)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        est = UMA(confusion=np.eye(5), max_iter=3).fit(X, y)
    assert est.n_iter_ == 3 and not est.converged_
    est.save(tmp_path / "uma.npz")
    back = weaklabel.load(tmp_path / "uma.npz")
    assert_array_equal(back.predict(X), est.predict(X))
    assert_allclose(np.asarray(back.confusion), np.eye(5))


def test_warm_start_continues_the_same_trajectory():
    X, y = _separable(n=300, seed=3)
    C = confusion_family(5, 3, random_state=0)
    yn = noisy_labels(y, C, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        whole = UMA(confusion=C, max_iter=40).fit(X, yn)
        step = UMA(confusion=C, max_iter=10, warm_start=True)
        for _ in range(4):
            step.fit(X, yn)
    assert step.n_iter_ == whole.n_iter_
    assert_array_equal(step.history_["q"], whole.history_["q"])
    assert_allclose(step.coef_, whole.coef_, atol=1e-9)


def test_incremental_gamma_matches_rebuilding_it_every_iteration(monkeypatch):
    """The dense path moves only the rows whose memberships flipped; rebuilding Gamma from
    scratch at every iteration gives the same trajectory."""
    import weaklabel.noisy._uma as mod

    X, y = _separable(n=1200, seed=6)
    C = confusion_family(5, 3, random_state=0)
    yn = noisy_labels(y, C, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        inc = UMA(confusion=C, max_iter=150).fit(X, yn)
        monkeypatch.setattr(mod, "_REBUILD_EVERY", 1)
        full = UMA(confusion=C, max_iter=150).fit(X, yn)
    assert inc.n_iter_ == full.n_iter_ > 100
    assert_array_equal(inc.history_["q"], full.history_["q"])
    assert_array_equal(inc.history_["p"], full.history_["p"])
    assert_allclose(inc.coef_, full.coef_, atol=1e-9)
    assert_allclose(inc.history_["train_error"], full.history_["train_error"])

def test_identity_confusion_is_the_identity_matrix():
    X, y = _separable(n=200, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UMA(confusion="identity", max_iter=40).fit(X, y)
        b = UMA(confusion=np.eye(np.unique(y).size), max_iter=40).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="'identity'"):
        UMA(confusion="eye").fit(X, y)
    with pytest.raises(ValueError, match="1 class"):
        UMA(confusion="identity").fit(X, np.zeros(len(y), int))


@given(seed=st.integers(0, 2**31 - 1), Q=st.integers(2, 5), alpha=st.sampled_from([0.0, 1.0]),
       selection=st.sampled_from(["error", "confusion"]))
@settings(max_examples=200, deadline=None)
def test_lazy_selection_equals_the_full_one(seed, Q, alpha, selection):
    """The dense path computes w_r . z_pq only for the pairs it inspects, best first; with
    small integers (exact arithmetic, many ties) it picks what the full V would."""
    from weaklabel.noisy._uma import _select, _select_lazy

    rng = np.random.default_rng(seed)
    d = 3
    Z = rng.integers(-2, 3, size=(Q, Q, d)).astype(float)
    W = rng.integers(-2, 3, size=(d, Q)).astype(float)
    norms = np.sqrt(np.einsum("pqd,pqd->pq", Z, Z))
    pi = rng.integers(1, 4, size=Q) / 4.0
    full = _select(norms, np.matmul(Z, W), pi, alpha, selection, 1e-6, None)
    lazy = _select_lazy(norms, Z, W, pi, alpha, selection, 1e-6)
    assert full == lazy


def test_sparse_running_sums_match_rebuilding_them_and_the_dense_path(monkeypatch):
    """CSR rows: the sums moved row by row (Gamma, its Gram matrix, Gamma W) give the
    trajectory of rebuilding them at every iteration, and the dense path's."""
    import weaklabel.noisy._uma as mod

    X, y = _separable(n=600, seed=8)
    X[np.abs(X) < 0.3] = 0.0
    C = confusion_family(5, 3, random_state=0)
    yn = noisy_labels(y, C, random_state=2)
    Xs = sp.csr_matrix(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        inc = UMA(confusion=C, max_iter=120).fit(Xs, yn)
        dense = UMA(confusion=C, max_iter=120).fit(X, yn)
        monkeypatch.setattr(mod, "_SPARSE_REBUILD_EVERY", 1)
        full = UMA(confusion=C, max_iter=120).fit(Xs, yn)
    assert inc.n_iter_ > 60
    for other in (full, dense):
        assert_array_equal(inc.history_["q"], other.history_["q"])
        assert_array_equal(inc.history_["p"], other.history_["p"])
        assert_allclose(inc.coef_, other.coef_, atol=1e-9)
        assert_allclose(inc.history_["train_error"], other.history_["train_error"])


# ---- sample weights (issue 18) ------------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
def test_uma_integer_weights_equal_repeated_rows(sparse):
    """Every sum over rows is weighted: a weight of k is the row repeated k times (the error
    sets depend on the scores only), dense and CSR; weights of 1 are no weights."""
    import warnings

    import scipy.sparse as sps
    from sklearn.exceptions import ConvergenceWarning

    from weaklabel.simulate import confusion_family, noisy_labels

    rng = np.random.RandomState(0)
    X = rng.randn(120, 5) + np.repeat(np.eye(3, 5) * 3, 40, axis=0)
    y = noisy_labels(np.repeat([0, 1, 2], 40), confusion_family(3, 2, random_state=0), random_state=1)
    C = confusion_family(3, 2, random_state=0)
    w = rng.randint(0, 4, 120).astype(float)
    w[:3] = 1.0
    rows = np.repeat(np.arange(120), w.astype(int))
    F = sps.csr_matrix if sparse else np.asarray
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = UMA(confusion=C, max_iter=60).fit(F(X), y)
        ones = UMA(confusion=C, max_iter=60).fit(F(X), y, sample_weight=np.ones(120))
        weighted = UMA(confusion=C, max_iter=60).fit(F(X), y, sample_weight=w)
        repeated = UMA(confusion=C, max_iter=60).fit(F(X[rows]), y[rows])
    np.testing.assert_array_equal(ones.coef_, plain.coef_)
    np.testing.assert_array_equal(weighted.history_["q"], repeated.history_["q"])
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weighted.class_prior_, repeated.class_prior_)
    assert not np.allclose(weighted.coef_, plain.coef_)
    before = weighted.coef_.copy()
    with pytest.raises(ValueError, match="[Nn]egative"):
        weighted.fit(F(X), y, sample_weight=-w)
    np.testing.assert_array_equal(weighted.coef_, before)
