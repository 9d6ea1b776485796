"""The L-BFGS solver of the batch linear learners (CLPL, PRODEN, CorrectedLogistic).

scipy's L-BFGS over a linear multiclass model with an L2 penalty and an unpenalised
intercept; on sparse rows the search runs over the columns some row uses.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["lbfgs_fit"]


def lbfgs_fit(X, n_classes, loss_grad, *, alpha, fit_intercept, max_iter, tol, W0=None, verbose=0, name="L-BFGS"):
    """Minimise ``loss(X W + b) + alpha/2 ||W||^2`` over a linear multiclass model by scipy's
    L-BFGS (the intercept ``b`` is not penalised).

    ``loss_grad(Z)`` returns the loss of the scores ``Z`` (n_samples, n_classes) and its
    gradient in ``Z``.  With sparse ``X`` and ``alpha > 0``, the search runs over the columns
    some row uses: the others have weight 0 at the optimum, and L-BFGS' cost per iteration
    grows with the number of variables.  ``W0`` (same layout as the result) is a warm start.
    ``verbose`` > 0 prints the objective after each iteration, prefixed by ``name``.

    Returns
    -------
    W : ndarray of shape (n_features [+1 with the intercept], n_classes)
    result : scipy.optimize.OptimizeResult
    """
    from scipy.optimize import minimize

    d, K, fi, alpha = X.shape[1], int(n_classes), bool(fit_intercept), float(alpha)
    cols = None
    if sp.issparse(X) and alpha > 0:
        used = np.unique(X.indices)
        if used.size < 0.75 * d:
            cols, X = used, X[:, used]
    dd = X.shape[1]

    ones = np.ones(X.shape[0])

    def objective(theta):
        flat = theta[:dd * K]
        W = flat.reshape(dd, K)
        Z = np.asarray(X @ W, dtype=np.float64)
        if fi:
            Z += theta[dd * K:]
        value, G = loss_grad(Z)
        grad = np.empty_like(theta)
        grad[:dd * K] = np.asarray(X.T @ G).ravel()
        grad[:dd * K] += alpha * flat
        if fi:
            grad[dd * K:] = ones @ G                # column sums, by BLAS
        return value + 0.5 * alpha * float(flat @ flat), grad

    theta0 = np.zeros(dd * K + (K if fi else 0))
    if W0 is not None:
        theta0[:dd * K] = (W0[:d] if cols is None else W0[cols]).ravel()
        if fi:
            theta0[dd * K:] = W0[d]
    callback = None
    if verbose:
        def callback(intermediate_result):
            callback.k += 1
            print(f"{name} iteration {callback.k}: objective {intermediate_result.fun:.6g}", flush=True)
        callback.k = 0
    res = minimize(objective, theta0, jac=True, method="L-BFGS-B", callback=callback,
                   options={"maxiter": int(max_iter), "gtol": float(tol)})
    W = np.zeros((d, K))
    W[slice(None) if cols is None else cols] = res.x[:dd * K].reshape(dd, K)
    return (np.vstack([W, res.x[dd * K:][None, :]]) if fi else W), res
