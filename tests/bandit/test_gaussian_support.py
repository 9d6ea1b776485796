"""GaussianSupport (bandit/_gaussian_support.py): the features against the kernel, and in a
pipeline with a bandit learner."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import make_pipeline

from weaklabel.bandit import CSPA, GaussianSupport

X = np.random.RandomState(0).randn(60, 4)


def test_gaussian_support_matches_the_kernel_and_runs_in_a_pipeline():
    g = 2.5
    gs = GaussianSupport(n_support=10, g=g, normalize=False).fit(X)
    K = gs.transform(X[:7])
    direct = np.exp(-((X[:7, None, :] - X[None, :10, :]) ** 2).sum(-1) / g)
    np.testing.assert_allclose(K, direct, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(GaussianSupport(n_support=10, g=g, normalize=False).fit(sp.csr_matrix(X)).transform(
        sp.csr_matrix(X[:7])), direct, rtol=1e-10, atol=1e-12)
    # the default (the paper's protocol, issue 17): every kernel row has unit length
    unit = direct / np.linalg.norm(direct, axis=1, keepdims=True)
    np.testing.assert_allclose(GaussianSupport(n_support=10, g=g).fit(X).transform(X[:7]), unit, rtol=1e-10)
    np.testing.assert_allclose(GaussianSupport(n_support=10, g=g).fit(sp.csr_matrix(X)).transform(
        sp.csr_matrix(X[:7])), unit, rtol=1e-10)
    centred = GaussianSupport(n_support=10, g=g, center=True).fit(X)
    Kc = direct - centred.offset_
    np.testing.assert_allclose(centred.transform(X[:7]), Kc / np.linalg.norm(Kc, axis=1, keepdims=True),
                               rtol=1e-10)
    # a row far from every support point: its raw features underflow, its direction does not
    far = np.vstack([X[:10], X[:1] + 40.0])
    Kf = GaussianSupport(n_support=10, g=0.01).fit(far).transform(far[-1:])
    assert np.isclose(np.linalg.norm(Kf), 1.0) and np.argmax(Kf) == np.argmin(((X[:10] - far[-1]) ** 2).sum(1))
    assert np.all((Kf == 0) | (np.abs(Kf) > 1e-100))   # the learners accept it
    assert GaussianSupport(n_support=1000).fit(X).n_support_ == len(X)
    with pytest.raises(ValueError, match="The 'g' parameter of GaussianSupport must be a float in the range"):
        GaussianSupport(g=0).fit(X)
    # a ring inside a ring: not linearly separable, separable in the kernel features
    rng = np.random.RandomState(0)
    ang = rng.rand(1500) * 2 * np.pi
    rad = np.where(rng.rand(1500) < 0.5, 1.0, 3.0)
    Xr = np.c_[rad * np.cos(ang), rad * np.sin(ang)] + 0.1 * rng.randn(1500, 2)
    yr = (rad > 2).astype(int)
    lin = CSPA(beta=0.5, fit_intercept=False, max_iter=1, shuffle=False).fit(Xr, yr)
    ker = make_pipeline(GaussianSupport(n_support=200, g=1.0), CSPA(beta=0.5, max_iter=1, shuffle=False)).fit(Xr, yr)
    assert ker[-1].correct_.mean() > 0.9 > lin.correct_.mean() + 0.2
