"""Viterbi (weaklabel.structured.inference.viterbi) against brute force and plain numpy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.structured.inference import brute_force, energy, viterbi


def numpy_viterbi(U, P):
    """Plain-numpy Viterbi (the benchmark's reference too)."""
    n, K = U.shape
    delta = U[0].copy()
    back = np.zeros((n, K), dtype=int)
    for t in range(1, n):
        cand = delta[:, None] + P[t - 1]
        back[t] = np.argmax(cand, axis=0)
        delta = cand[back[t], np.arange(K)] + U[t]
    y = np.zeros(n, dtype=int)
    y[-1] = int(np.argmax(delta))
    for t in range(n - 1, 0, -1):
        y[t - 1] = back[t, y[t]]
    return y, float(delta.max())


@st.composite
def chain_problem(draw):
    n = draw(st.integers(1, 6))
    K = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    shared = draw(st.booleans())
    P = rng.normal(size=(K, K)) if shared else rng.normal(size=(max(n - 1, 0), K, K))
    return rng.normal(size=(n, K)), P


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(chain_problem())
def test_viterbi_equals_brute_force(prob):
    U, P = prob
    r = viterbi(U, P)
    y, v = r.labels, r.value
    assert r.certified and r.bound == v
    b = brute_force(U, P)
    vb = b.value
    assert v == pytest.approx(vb, abs=1e-9)
    assert energy(U, P, None, y) == pytest.approx(v, abs=1e-9)
    if U.shape[0] > 1:
        Pf = P if P.ndim == 3 else np.broadcast_to(P, (U.shape[0] - 1,) + P.shape)
        yn, vn = numpy_viterbi(U, Pf)
        assert np.array_equal(y, yn) and vn == pytest.approx(v)
