"""BMRM's inner problem (``structured._kernels._simplex_fista`` through
``structured.solvers._simplex_qp``) against the numpy FISTA it replaced, on random problems
(hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.structured._kernels import _project_simplex
from weaklabel.structured.solvers import _simplex_qp


def _reference_projection(v):
    """The Euclidean projection onto the simplex as plain numpy (sort-based)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    r = k[u - css / k > 0][-1]
    return np.maximum(v - css[r - 1] / r, 0.0)


def _reference_qp(G, b, beta0, iters=500):
    """max_{beta in simplex} b.beta - 1/2 beta' G beta by FISTA on the negation, plain numpy."""
    L = max(float(np.linalg.eigvalsh(G)[-1]) if G.shape[0] > 1 else float(G[0, 0]), 1e-12)
    x = _reference_projection(beta0)
    y, tk = x.copy(), 1.0
    for _ in range(iters):
        grad = G @ y - b
        xn = _reference_projection(y - grad / L)
        tn = 0.5 * (1 + np.sqrt(1 + 4 * tk * tk))
        y = xn + (tk - 1) / tn * (xn - x)
        if np.max(np.abs(xn - x)) < 1e-12:
            x = xn
            break
        x, tk = xn, tn
    return x


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(0, 10_000), st.sampled_from([1e-3, 1.0, 1e3]))
def test_projection_equals_numpy(n, seed, scale):
    v = np.random.default_rng(seed).normal(size=n) * scale
    p = _project_simplex(v)
    np.testing.assert_array_equal(p, _reference_projection(v))
    assert abs(p.sum() - 1.0) < 1e-9 and (p >= 0).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 25), st.integers(1, 12), st.integers(0, 10_000), st.sampled_from([1e-2, 1.0, 100.0]),
       st.sampled_from([5, 500]))
def test_fista_equals_numpy(n, dim, seed, lam, iters):
    """Cutting planes' Gram matrices (rank at most ``dim``), as BMRM builds them; equal to
    rounding (the products G y are BLAS's in both, the steps the same operations)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, dim))
    G = A @ A.T / lam
    b = rng.normal(size=n)
    beta0 = rng.random(n)
    got = _simplex_qp(G, b, beta0, iters)
    want = _reference_qp(G, b, beta0, iters)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert abs(got.sum() - 1.0) < 1e-9 and (got >= 0).all()
