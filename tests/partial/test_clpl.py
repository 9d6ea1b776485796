"""CLPL (Cour, Sapp & Taskar 2011): the loss and gradient against a plain-numpy loop, and the
learner on digits, sparse, weighted and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad
from sklearn.datasets import load_digits

from weaklabel.partial import CLPL
from weaklabel.partial._clpl import clpl_loss
from weaklabel.simulate import make_candidate_sets


def _reference(Z, S, loss, w):
    """The paper's loss, row by row: psi(mean of the candidates' scores) + sum over the
    other classes of psi(-score)."""
    psi = (lambda u: max(0.0, 1.0 - u) ** 2) if loss == "squared_hinge" else (lambda u: np.log1p(np.exp(-u)))
    total = 0.0
    for i in range(Z.shape[0]):
        cands = [a for a in range(Z.shape[1]) if S[i, a]]
        value = psi(sum(Z[i, a] for a in cands) / len(cands))
        value += sum(psi(-Z[i, a]) for a in range(Z.shape[1]) if not S[i, a])
        total += w[i] * value
    return total / w.sum()


def _numpy_loss_grad(Z, S, loss, w):
    """The loss and its gradient in plain numpy, vectorised (the kernel's reference)."""
    def psi(u):
        if loss == "squared_hinge":
            m = np.maximum(0.0, 1.0 - u)
            return m * m, -2.0 * m
        return np.logaddexp(0.0, -u), -1.0 / (1.0 + np.exp(np.clip(u, -700, 700)))

    Sf = S.astype(np.float64)
    size = Sf.sum(axis=1)
    p_in, d_in = psi((Z * Sf).sum(axis=1) / size)
    p_out, d_out = psi(-Z)
    total = float(w.sum())
    value = float(np.sum(w * (p_in + np.sum(p_out * (1.0 - Sf), axis=1)))) / total
    return value, (Sf * (d_in / size)[:, None] - d_out * (1.0 - Sf)) * (w / total)[:, None]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), loss=st.sampled_from(["squared_hinge", "logistic"]),
       scale=st.sampled_from([0.1, 1.5, 40.0, 900.0]))
def test_kernel_equals_numpy(seed, loss, scale):
    # scores up to 900 in size: the logistic loss neither overflows nor loses its slope
    rng = np.random.default_rng(seed)
    n, K = 9, 6
    Z = rng.normal(size=(n, K)) * scale
    S = rng.random((n, K)) < 0.4
    S[np.arange(n), rng.integers(0, K, n)] = True
    w = rng.uniform(0.1, 2.0, n)
    value, G = clpl_loss(Z, S, loss, w)
    ref_value, ref_G = _numpy_loss_grad(Z, S, loss, w)
    assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-300)
    np.testing.assert_allclose(G, ref_G, rtol=1e-12, atol=1e-300)
    assert np.isfinite(value) and np.isfinite(G).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), loss=st.sampled_from(["squared_hinge", "logistic"]))
def test_loss_and_gradient_match_numpy(seed, loss):
    rng = np.random.default_rng(seed)
    n, K = 7, 4
    Z = rng.normal(size=(n, K)) * 1.5
    S = rng.random((n, K)) < 0.4
    S[np.arange(n), rng.integers(0, K, n)] = True
    w = rng.uniform(0.1, 2.0, n)
    value, _ = clpl_loss(Z, S, loss, w)
    assert value == pytest.approx(_reference(Z, S, loss, w), rel=1e-10)
    f = lambda z: clpl_loss(z.reshape(n, K), S, loss, w)[0]
    g = lambda z: clpl_loss(z.reshape(n, K), S, loss, w)[1].ravel()
    assert check_grad(f, g, Z.ravel()) < 1e-5


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def test_learns_from_candidate_sets(digits):
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    acc = CLPL(alpha=1e-3, loss="logistic").fit(X[:1400], S[:1400]).score(X[1400:], y[1400:])
    assert acc > 0.83                                                    # measured 0.856
    est = CLPL(alpha=1e-3).fit(X[:1400], S[:1400])
    assert est.score(X[:1400], S[:1400]) > est.score(X[:1400], y[:1400])  # candidates are easier to hit


def test_sparse_weights_and_bad_input_leave_the_model_unchanged(digits):
    X, y = digits
    X, y = X[:300], y[:300]
    S = make_candidate_sets(y, 2, random_state=1)
    kw = dict(alpha=1e-2, tol=1e-10, max_iter=5000, loss="logistic")    # smooth: L-BFGS lands on one point
    dense = CLPL(**kw).fit(X, S)
    np.testing.assert_allclose(CLPL(**kw).fit(sp.csr_matrix(X), S).coef_, dense.coef_, atol=1e-6)
    w = np.random.default_rng(0).integers(1, 4, 300).astype(float)
    rows = np.repeat(np.arange(300), w.astype(int))
    np.testing.assert_allclose(CLPL(**kw).fit(X, S, sample_weight=w).coef_, CLPL(**kw).fit(X[rows], S[rows]).coef_,
                               atol=1e-4)
    before = dense.coef_.copy()
    mask = np.asarray(S).copy()
    mask[3] = False
    for bad, match in [(mask, "empty candidate sets at rows \\[3\\]"), (y[:5], "300")]:
        with pytest.raises(ValueError, match=match):
            dense.fit(X, bad)
        np.testing.assert_array_equal(dense.coef_, before)
    with pytest.raises(ValueError, match="[Nn]egative"):
        dense.fit(X, S, sample_weight=-w)
    np.testing.assert_array_equal(dense.coef_, before)
