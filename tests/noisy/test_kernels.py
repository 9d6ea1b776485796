"""The noisy-label kernels (noisy/_kernels.py) against plain-numpy references: the forward-
corrected loss, CorrectedLogistic's averaged SGD pass."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.noisy import corrected_loss
from weaklabel.simulate import confusion_family


def _numpy_forward(Z, Y, C, w, trusted=None):
    """The forward loss and gradient as whole-array numpy (before the row kernel)."""
    from scipy.special import log_softmax

    P = np.exp(log_softmax(Z, axis=1))
    Q = P @ C.T
    if trusted is not None:
        Q[trusted] = P[trusted]
    Q = np.maximum(Q, 1e-300)
    R = Y / Q
    G = R @ C
    if trusted is not None:
        G[trusted] = R[trusted]
    G *= -w[:, None]
    loss = -np.sum(w[:, None] * Y * np.log(Q))
    grad = P * (G - np.sum(G * P, axis=1, keepdims=True))
    return loss / w.sum(), grad / w.sum()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(2, 12), st.integers(0, 10_000), st.booleans(), st.booleans(),
       st.sampled_from([0.1, 3.0, 40.0]))
def test_forward_kernel_equals_numpy(n, K, seed, soft, with_trusted, scale):
    """The forward loss's row kernel against the whole-array numpy it replaced: soft and hard
    labels, trusted rows, scores large enough to underflow some probabilities."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, K)) * scale
    Y = rng.dirichlet(np.ones(K), size=n) if soft else np.eye(K)[rng.integers(0, K, n)]
    C = confusion_family(K, 3, random_state=seed)
    w = rng.uniform(0.2, 2.0, n)
    trusted = rng.random(n) < 0.3 if with_trusted else None
    loss, G = corrected_loss(Z, Y, C, "forward", w, trusted=trusted)
    want_loss, want_G = _numpy_forward(Z, Y, C, w, trusted)
    assert loss == pytest.approx(want_loss, rel=1e-12, abs=1e-300)
    np.testing.assert_allclose(G, want_G, rtol=1e-9, atol=1e-15)


def _reference_sgd(W, A, t, X, Y, C, correction, trusted, sw, eta, alpha, n_reg, order):
    """One pass of averaged SGD, row by row in ``order`` in plain numpy: the gradient of each
    row's corrected loss from corrected_loss (itself checked against the paper above), an L2
    decay of the non-intercept rows, then A <- A + (W - A) 4 / (t + 3).  Also returns each
    round's prediction, the iterate's argmax before the step."""
    W, A = W.copy(), A.copy()
    preds = []
    for i in order:
        preds.append(int(np.argmax(X[i] @ W)))
        _, g = corrected_loss(X[i:i + 1] @ W, Y[i:i + 1], C, correction, trusted=trusted[i:i + 1])
        W[:n_reg] *= 1 - eta * alpha
        W -= eta * sw[i] * np.outer(X[i], g[0])
        t += 1
        A += (W - A) * 4.0 / (t + 3.0)
    return W, A, t, np.asarray(preds)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), correction=st.sampled_from(["forward", "backward"]),
       sparse=st.booleans(), soft=st.booleans())
def test_sgd_kernel_equals_numpy(seed, correction, sparse, soft):
    from weaklabel.linear import kernel_rows
    from weaklabel.noisy._kernels import _corrected_sgd_epoch

    rng = np.random.default_rng(seed)
    n, d, K = 9, 5, 3
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    X[:, -1] = 1.0                                              # an intercept column, not decayed
    Y = rng.dirichlet(np.ones(K), size=n) if soft else np.eye(K)[rng.integers(0, K, n)]
    C = confusion_family(K, 2, random_state=seed % 1000)
    trusted = rng.random(n) < 0.3
    sw = rng.uniform(0, 2, n)
    W0 = rng.normal(size=(d, K)) * 0.1
    A0 = W0.copy()
    eta, alpha, t0 = 0.3, 0.05, int(rng.integers(0, 5))
    order = rng.permutation(n)
    W_ref, A_ref, t_ref, p_ref = _reference_sgd(W0, A0, t0, X, Y, C, correction, trusted, sw, eta, alpha, d - 1,
                                                order)
    W, A = W0.copy(), A0.copy()
    Xk = sp.csr_matrix(X) if sparse else X
    preds = np.empty(n, dtype=np.intp)
    t, _, _ = _corrected_sgd_epoch(W, A, t0, kernel_rows(Xk), order, Y,
                                   (C, np.linalg.inv(C.T), correction == "backward", trusted), sw, (eta, alpha, d - 1),
                                   preds)
    assert t == t_ref
    np.testing.assert_array_equal(preds, p_ref)
    np.testing.assert_allclose(W, W_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(A, A_ref, rtol=1e-10, atol=1e-12)
