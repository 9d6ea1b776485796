"""The structured learners' solvers (structured/solvers.py): BMRM on a convex piecewise-linear
risk reaches the optimum scipy finds, with a valid lower bound; the flat layout of the parts."""

import numpy as np
import pytest
from scipy.optimize import minimize

from weaklabel.structured.solvers import bmrm, flat_parts


def test_flat_parts_lays_out_and_splits_back_views():
    dim, split = flat_parts([(2, 3), (3,), (1, 1)])
    v = np.arange(dim, dtype=float)
    a, b, c = split(v)
    assert dim == 10 and a.shape == (2, 3) and b.tolist() == [6, 7, 8] and c.tolist() == [[9]]
    a[0, 0] = -1
    assert v[0] == -1                                   # views, not copies


def test_bmrm_reaches_the_optimum_of_a_regularised_hinge_risk():
    rng = np.random.RandomState(0)
    X, y = rng.randn(40, 3), np.sign(rng.randn(40))
    lam = 0.5

    def risk(parts):
        w, = parts
        margins = 1 - y * (X @ w)
        on = margins > 0
        return float(np.mean(np.maximum(margins, 0))), [-(y[on, None] * X[on]).sum(0) / len(y)]

    (w,), hist = bmrm(risk, [(3,)], lam, max_iter=500, tol=1e-8, report=None)
    J = lambda v: 0.5 * lam * v @ v + np.mean(np.maximum(1 - y * (X @ v), 0))   # noqa: E731
    best = min((minimize(J, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20_000})
                for x0 in (np.zeros(3), w)), key=lambda r: r.fun)
    assert J(w) == pytest.approx(best.fun, abs=1e-6)
    hist = np.asarray(hist)
    assert (hist[:, 2] <= best.fun + 1e-9).all()               # every lower bound is one
    assert (np.diff(hist[:, 1]) <= 0).all() and hist[-1, 3] <= 1e-8 * abs(hist[-1, 1]) + 1e-12
