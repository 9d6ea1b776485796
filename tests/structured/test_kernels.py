"""The structured kernels (:mod:`weaklabel.structured._kernels`) against the numpy updates
they replaced, on random problems (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.structured._kernels import _bcfw_block_step, _project_simplex
from weaklabel.structured.solvers import _simplex_qp


# ---- BCFW's block step (``_bcfw_block_step``) against the numpy update it replaced in
# ``structured.solvers.bcfw`` ----

def _reference_step(g, Wi, li, w, wbar, i, lam, m, loss, k, first):
    """The block step as plain numpy (Lacoste-Julien et al. 2013, with the exact line search
    and the weighted average of BCFW-wavg)."""
    ws = g * (-1.0 / (lam * m))
    ls = loss / m
    d = Wi[i] - ws
    gi = lam * (d @ w) - li[i] + ls
    den = lam * (d @ d)
    gamma = 1.0 if first else (min(max(gi / den, 0.0), 1.0) if den > 0 else 0.0)
    dl = 0.0
    if gamma > 0:
        step = gamma * (ws - Wi[i])
        w += step
        Wi[i] += step
        dl = gamma * (ls - li[i])
        li[i] += dl
    wbar *= k / (k + 2.0)
    wbar += (2.0 / (k + 2.0)) * w
    return gi, dl


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 30), st.integers(0, 10_000), st.sampled_from([1e-4, 1e-2, 1.0]),
       st.booleans(), st.booleans())
def test_block_step_equals_the_numpy_update(m, dim, seed, lam, first, zero_block):
    rng = np.random.default_rng(seed)
    i = int(rng.integers(m))
    g = rng.normal(size=dim)
    Wi = rng.normal(size=(m, dim)) * 0.1
    if zero_block:
        Wi[i] = g * (-1.0 / (lam * m))          # d = 0: no step after the first pass
    li, w, wbar = rng.random(m), rng.normal(size=dim), rng.normal(size=dim)
    loss, k = float(rng.random()), float(rng.integers(1, 50))
    ref = [a.copy() for a in (g, Wi, li, w, wbar)]
    gi_ref, dl_ref = _reference_step(*ref, i, lam, float(m), loss, k, first)
    gi, dl = _bcfw_block_step(g, Wi, li, w, wbar, (i, lam, float(m), loss, k), first)
    # the two dot products are summed in another order than BLAS's: equal to rounding
    np.testing.assert_allclose([gi, dl], [gi_ref, dl_ref], rtol=1e-9, atol=1e-12)
    for got, want in zip((Wi, li, w, wbar), ref[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert not g.any()                          # left zero for the next oracle call


# ---- BMRM's inner problem (``_simplex_fista`` through ``structured.solvers._simplex_qp``)
# against the numpy FISTA it replaced ----

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
