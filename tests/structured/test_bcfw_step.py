"""BCFW's block step (``structured._kernels._bcfw_block_step``) against the numpy update it
replaced in :func:`weaklabel.structured.solvers.bcfw`, on random blocks (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.structured._kernels import _bcfw_block_step


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
