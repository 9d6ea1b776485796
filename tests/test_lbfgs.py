"""The batch learners' L-BFGS (_lbfgs.py): multinomial logistic regression through it equals
scikit-learn's, the intercept unpenalised; on sparse rows the unused columns stay 0 and the
search over the used ones finds the dense optimum; a warm start and the progress lines."""

import numpy as np
import scipy.sparse as sp
from scipy.special import log_softmax

from weaklabel._lbfgs import lbfgs_fit


def _log_loss(Y):
    def loss_grad(Z):
        logp = log_softmax(Z, axis=1)
        return -float(np.sum(Y * logp)), np.exp(logp) - Y
    return loss_grad


def _problem(n=200, d=6, K=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = np.argmax(X @ rng.randn(d, K) + 0.5 * rng.randn(n, K), axis=1)
    return X, y, np.eye(K)[y]


def test_logistic_regression_through_lbfgs_is_scikit_learns():
    from sklearn.linear_model import LogisticRegression

    X, y, Y = _problem()
    alpha = 0.5
    W, res = lbfgs_fit(X, 3, _log_loss(Y), alpha=alpha, fit_intercept=True, max_iter=1000, tol=1e-10)
    assert res.success and W.shape == (7, 3)
    # sklearn's C is the inverse of the penalty on the summed loss; its intercept is not penalised
    lr = LogisticRegression(C=1 / alpha, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(W[:6].T - W[:6].T.mean(axis=0), lr.coef_ - lr.coef_.mean(axis=0), atol=2e-4)
    np.testing.assert_allclose(W[6] - W[6].mean(), lr.intercept_ - lr.intercept_.mean(), atol=2e-4)


def test_sparse_rows_leave_unused_columns_at_zero_and_reach_the_dense_optimum():
    X, _, Y = _problem(d=12)
    X[:, [2, 5, 7, 9, 11]] = 0.0                         # columns no row uses
    Ws, _ = lbfgs_fit(sp.csr_matrix(X), 3, _log_loss(Y), alpha=0.1, fit_intercept=False, max_iter=500, tol=1e-10)
    Wd, _ = lbfgs_fit(X, 3, _log_loss(Y), alpha=0.1, fit_intercept=False, max_iter=500, tol=1e-10)
    assert Ws.shape == (12, 3) and not Ws[[2, 5, 7, 9, 11]].any()
    np.testing.assert_allclose(Ws, Wd, atol=1e-4)


def test_a_warm_start_at_the_optimum_stays_there_and_progress_is_printed(capsys):
    X, _, Y = _problem()
    W, res = lbfgs_fit(X, 3, _log_loss(Y), alpha=1.0, fit_intercept=True, max_iter=500, tol=1e-10)
    W2, res2 = lbfgs_fit(X, 3, _log_loss(Y), alpha=1.0, fit_intercept=True, max_iter=500, tol=1e-8, W0=W,
                         verbose=1, name="Test")
    assert res2.nit <= 2 and res.fun - 1e-6 <= res2.fun <= res.fun + 1e-12      # no worse, barely moved
    np.testing.assert_allclose(W2, W, atol=1e-4)
    lbfgs_fit(X, 3, _log_loss(Y), alpha=1.0, fit_intercept=True, max_iter=3, tol=1e-10, verbose=1, name="Test")
    assert "Test iteration 1: objective" in capsys.readouterr().out
