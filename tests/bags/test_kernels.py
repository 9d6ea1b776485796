"""MMS's numba kernels (bags/_kernels.py: the bags' scores, the exact search, the Pegasos rounds)
through fits that equal the plain-numpy reference, dense and sparse, weighted and not."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import check_random_state

from tests.bags.test_mms import tiny_problem
from weaklabel.bags import MMS
from weaklabel.bags._mms import draw_batches

from ._reference import reference_mms


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("batch_size", [1, 3])
@pytest.mark.parametrize("max_passes", [3, 12])
def test_mms_matches_reference(seed, batch_size, max_passes):
    X, B = tiny_problem(seed)
    est = MMS(n_rounds=3, max_iter=3, max_passes=max_passes, batch_size=batch_size, random_state=seed,
              tol=0.0).fit(X, B)
    Xi = np.hstack([X, np.ones((X.shape[0], 1))])
    assert est.alpha_ == pytest.approx(est.row_scale_ ** 2 / B.n_bags)      # 1/N for rows of unit norm
    W, objs = reference_mms(Xi, B, est.alpha_, 3, 3, batch_size, 0.0, check_random_state(seed), draw_batches,
                            max_passes=max_passes)
    np.testing.assert_allclose(est.coef_, W[:-1].T, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(est.intercept_, W[-1], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(est.objective_, objs, rtol=1e-8, atol=1e-9)
    assert est.n_rounds_ == objs.size - 1


@pytest.mark.parametrize("seed", range(3))
def test_mms_sparse_equals_dense(seed):
    X, B = tiny_problem(seed, n_bags=10, d=6)
    X[np.abs(X) < 0.7] = 0.0
    a = MMS(n_rounds=2, max_iter=4, batch_size=2, random_state=seed).fit(X, B)
    b = MMS(n_rounds=2, max_iter=4, batch_size=2, random_state=seed).fit(sp.csr_matrix(X), B)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_mms_matches_the_weighted_reference(seed):
    """sample_weight per row; a bag weighs its rows' mean; subgradients and the loss of (5)
    scaled by it (the plain-numpy reference does the same); all ones = no weights."""
    X, B = tiny_problem(seed)
    rng = np.random.default_rng(seed)
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], size=B.n_rows)
    bw = np.array([sw[B.bag_rows(i)].mean() for i in range(B.n_bags)])
    est = MMS(n_rounds=3, max_iter=3, max_passes=6, batch_size=2, random_state=seed, tol=0.0).fit(X, B,
                                                                                                 sample_weight=sw)
    Xi = np.hstack([X, np.ones((X.shape[0], 1))])
    W, objs = reference_mms(Xi, B, est.alpha_, 3, 3, 2, 0.0, check_random_state(seed), draw_batches,
                            max_passes=6, bw=bw)
    np.testing.assert_allclose(est.coef_, W[:-1].T, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(est.objective_, objs, rtol=1e-8, atol=1e-9)
    plain = MMS(n_rounds=2, max_iter=3, random_state=seed).fit(X, B)
    ones = MMS(n_rounds=2, max_iter=3, random_state=seed).fit(X, B, sample_weight=np.ones(B.n_rows))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    with pytest.raises(ValueError, match="[Nn]egative"):
        plain.fit(X, B, sample_weight=-np.ones(B.n_rows))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)          # the failed call changed nothing
