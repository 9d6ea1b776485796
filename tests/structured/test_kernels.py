"""The structured kernels (:mod:`weaklabel.structured._kernels`) against the numpy updates
they replaced, on random problems (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.structured.test_m3n import tiny
from weaklabel.structured import (
    chain_graph,
)
from weaklabel.structured._examples import check_examples, check_labels
from weaklabel.structured._kernels import _bcfw_block_step, _chain_risk, _lp_example_grad, _project_simplex, flat_layout
from weaklabel.structured.solvers import _simplex_qp

from . import _reference as ref

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


def flat(X, Y, P, K, graph=None):
    """The kernels' flat layout of examples ``X`` with annotations ``Y`` (labels or masks)."""
    ex = check_examples(X, graph)
    A, C, _ = check_labels(Y, ex, K)
    p = P.ravel() if isinstance(P, np.ndarray) else np.concatenate(P)
    return ex, A, C, np.ascontiguousarray(p, dtype=np.float64)


def chain_risk(Wu, Wp, ex, A, C, p):
    Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
    R = _chain_risk((Wu, Wp), flat_layout(ex, A, C, p), False, np.zeros(1, np.int64), (Gu, Gp))
    return R, Gu, Gp


def random_annotations(rng, n, K, kind):
    """Per node: a label, missing (-1 / all True) or (kind 'sets') a random candidate set."""
    y = rng.integers(0, K, size=n)
    if kind == "labels":
        return np.where(rng.random(n) < 0.4, -1, y)
    M = rng.random((n, K)) < 0.5
    M[np.arange(n), y] = True
    M[rng.random(n) < 0.25] = True                      # missing
    return M


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["labels", "sets"]))
def test_chain_risk_and_subgradient_match_reference(seed, kind):
    """Chains of different lengths (1-4 nodes), labels or candidate sets: the Viterbi kernel's
    risk and subgradient equal the enumeration over every labeling."""
    rng = np.random.default_rng(seed)
    K, S = 3, 3
    lengths = rng.integers(1, 5, size=4)
    X = [rng.integers(0, S, size=n) for n in lengths]
    Y = [random_annotations(rng, n, K, kind) for n in lengths]
    P = [rng.uniform(0.3, 1.0, size=n) for n in lengths]
    Wu, Wp = rng.normal(size=(S, K)), rng.normal(size=(K, K))
    ex, A, C, p = flat(X, Y, P, K)
    R, Gu, Gp = chain_risk(Wu, Wp, ex, A, C, p)
    Rr, Gur, Gpr = ref.risk(Wu, Wp, X, Y, [chain_graph(n).edges for n in lengths], P)
    assert R == pytest.approx(Rr, abs=1e-10)
    np.testing.assert_allclose(Gu, Gur, atol=1e-10)
    np.testing.assert_allclose(Gp, Gpr, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_chain_risk_of_fixed_size_examples_matches_reference(seed):
    X, A = tiny(seed)
    rng = np.random.default_rng(seed + 1)
    Wu, Wp = rng.normal(size=(3, 2)), rng.normal(size=(2, 2))
    P = rng.uniform(0.3, 1.0, size=A.shape)
    R, Gu, Gp = chain_risk(Wu, Wp, *flat(X, A, P, 2))
    Rr, Gur, Gpr = ref.risk(Wu, Wp, X, A, chain_graph(A.shape[1]).edges, P)
    assert R == pytest.approx(Rr, abs=1e-10)
    np.testing.assert_allclose(Gu, Gur, atol=1e-10)
    np.testing.assert_allclose(Gp, Gpr, atol=1e-10)


def test_candidate_sets_reduce_to_labels_and_missing_labels():
    """A one-label mask is the label, an all-True mask the missing label: same risk."""
    rng = np.random.default_rng(0)
    X, A = tiny(3, m=5, n=4, K=3)
    Wu, Wp = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    P = np.full(A.shape, 0.7)
    M = ref.as_masks(A.ravel(), 3).reshape(A.shape + (3,))
    r1 = chain_risk(Wu, Wp, *flat(X, A, P, 3))
    r2 = chain_risk(Wu, Wp, *flat(X, M, P, 3))
    for u, v in zip(r1, r2):
        np.testing.assert_allclose(u, v, atol=1e-12)


def test_missing_node_has_zero_loss_for_every_label():
    # one node, label missing: Delta^p = max_y s(y) exactly.  A variant that zeroed the
    # loss of only one label there would add 1/n to the others and give max s + 1.
    Wu = np.array([[0.3, 0.3, 0.1]])
    Wp = np.zeros((3, 3))
    X = np.zeros((1, 1), np.int64)
    A = np.full((1, 1), -1)
    R, _, _ = chain_risk(Wu, Wp, *flat(X, A, np.ones((1, 1)), 3))
    assert R == pytest.approx(0.3)
    # and on a chain: a missing middle node never adds loss, whatever label it takes
    X = np.zeros((1, 3), np.int64)
    A = np.array([[0, -1, 1]])
    Wu = np.zeros((1, 3))
    R, _, _ = chain_risk(Wu, Wp, *flat(X, A, np.ones((1, 3)), 3))
    assert R == pytest.approx(2 / 3)        # only the two annotated nodes can be wrong
    # a candidate set {0, 1} at the middle node: label 2 there costs 1/3 more
    M = np.array([[[1, 0, 0], [1, 1, 0], [0, 1, 0]]], dtype=bool)
    R, _, _ = chain_risk(Wu, Wp, *flat(X, M, np.ones((1, 3)), 3))
    assert R == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["labels", "sets"]))
def test_lp_example_gradient_matches_reference(seed, kind):
    """Examples with their own loopy graphs, labels or candidate sets: the LP kernel's value
    and subgradients equal the numpy reference, and bound Delta^p from above."""
    rng = np.random.default_rng(seed)
    K, S = 2, 3
    sizes = [3, 4]
    graphs = [np.array([[0, 1], [1, 2], [0, 2]]), np.array([[0, 1], [1, 2], [2, 3], [0, 3]])]
    X = [(rng.integers(0, S, size=n), e) for n, e in zip(sizes, graphs)]
    Y = [random_annotations(rng, n, K, kind) for n in sizes]
    P = [rng.uniform(0.3, 1.0, size=n) for n in sizes]
    Wu, Wp = rng.normal(size=(S, K)), rng.normal(size=(K, K))
    ex, A, C, p = flat(X, Y, P, K)
    phi_all = rng.normal(size=(ex.E.shape[0], 2, K))
    for i in range(2):
        phi = phi_all[ex.eoff[i]:ex.eoff[i + 1]]
        Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
        Gphi = np.empty((4, 2, K))
        val = _lp_example_grad((Wu, Wp), flat_layout(ex, A, C, p), i, phi, (Gu, Gp), Gphi,
                               (np.empty((4, K)), np.empty(4, np.int64)))
        v2, gu2, gp2, gphi2 = ref.lp_q(Wu, Wp, X[i][0], Y[i], graphs[i], P[i], phi)
        assert val == pytest.approx(v2, abs=1e-10)
        np.testing.assert_allclose(Gu, gu2, atol=1e-10)
        np.testing.assert_allclose(Gp, gp2, atol=1e-10)
        np.testing.assert_allclose(Gphi[:len(graphs[i])], gphi2, atol=1e-10)
        # the LP value upper-bounds Delta^p (any phi)
        d, _ = ref.delta_p(Wu, Wp, X[i][0], Y[i], graphs[i], P[i])
        assert v2 >= d - 1e-10
