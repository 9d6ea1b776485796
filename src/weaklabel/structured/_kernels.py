"""Numba kernels of the missing-label M3N learners (Franc & Yermakov).

Model: unary scores ``theta_v(y) = Wu[x_v, y]`` (symbolic input, ``x_v`` a symbol) or
``F_v . Wu[:, y]`` (real node features ``F_v``), and one shared pairwise table
``Wp[y, y']`` on every edge.  Annotations ``a_v`` are labels or -1 (missing).  The target
loss is the Hamming loss normalised by the number of nodes ``n``; its partial version
counts annotated nodes only, and is 0 for EVERY label at a missing node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .inference._kernels import _viterbi


@njit(cache=True)
def _unary(Wu, sym, Xs, F, i, out):
    """Unary scores of example ``i`` into ``out`` (n, K)."""
    n, K = out.shape
    if sym:
        for v in range(n):
            for y in range(K):
                out[v, y] = Wu[Xs[i, v], y]
    else:
        d = F.shape[2]
        for v in range(n):
            for y in range(K):
                s = 0.0
                for f in range(d):
                    s += F[i, v, f] * Wu[f, y]
                out[v, y] = s


@njit(cache=True)
def _add_unary(G, sym, Xs, F, i, v, y, c):
    """G_u += c * psi_v(x, y)."""
    if sym:
        G[Xs[i, v], y] += c
    else:
        for f in range(F.shape[2]):
            G[f, y] += c * F[i, v, f]


@njit(cache=True)
def _add_psi_p(Gu, Gp, sym, Xs, F, A, pu, edges, i, c):
    """(Gu, Gp) += c * psi^p(x_i, a_i): annotated unary terms weighted 1/p(z_v = 1), edges
    with both ends annotated weighted 1/(p_u p_v) (independent annotation)."""
    n = A.shape[1]
    for v in range(n):
        if A[i, v] >= 0:
            _add_unary(Gu, sym, Xs, F, i, v, A[i, v], c / pu[i, v])
    for e in range(edges.shape[0]):
        u = edges[e, 0]
        v = edges[e, 1]
        if A[i, u] >= 0 and A[i, v] >= 0:
            Gp[A[i, u], A[i, v]] += c / (pu[i, u] * pu[i, v])


@njit(cache=True)
def _psi_p_score(Wu, Wp, sym, Xs, F, A, pu, edges, i, scores):
    """<w, psi^p(x_i, a_i)> given the unary scores scores of example i."""
    n = A.shape[1]
    s = 0.0
    for v in range(n):
        if A[i, v] >= 0:
            s += scores[v, A[i, v]] / pu[i, v]
    for e in range(edges.shape[0]):
        u = edges[e, 0]
        v = edges[e, 1]
        if A[i, u] >= 0 and A[i, v] >= 0:
            s += Wp[A[i, u], A[i, v]] / (pu[i, u] * pu[i, v])
    return s


@njit(cache=True)
def _chain_oracle(Wu, Wp, sym, Xs, F, A, pu, ramp, yref, i, scores, P, edges, yhat, Gu, Gp, c):
    """Loss-augmented inference for example ``i`` of a chain model (Viterbi).

    Adds ``c * (psi(x_i, yhat) - psi_ref)`` to ``(Gu, Gp)``, where ``yhat`` maximises
    ``l^p(a_i, y) + <w, psi(x_i, y)>`` and ``psi_ref`` is ``psi^p(x_i, a_i)`` (15) or, with
    ``ramp``, ``psi(x_i, yref_i)`` (the CCCP-linearised ramp loss).  Returns
    ``(Delta_i, l^p(a_i, yhat))``: the example's loss (14) and the partial loss of ``yhat``.
    Buffers: ``scores`` (n, K), ``P`` (n-1, K, K) filled with ``Wp``, ``edges`` the chain's,
    ``yhat`` (n,).
    """
    n = A.shape[1]
    K = Wp.shape[0]
    _unary(Wu, sym, Xs, F, i, scores)
    base = 0.0
    if ramp:
        for v in range(n):
            base += scores[v, yref[i, v]]
        for t in range(n - 1):
            base += Wp[yref[i, t], yref[i, t + 1]]
    else:
        base = _psi_p_score(Wu, Wp, sym, Xs, F, A, pu, edges, i, scores)
    for v in range(n):                      # loss augmentation on annotated nodes only
        if A[i, v] >= 0:
            for y in range(K):
                if y != A[i, v]:
                    scores[v, y] += 1.0 / n
    if n == 1:
        best = -np.inf
        for y in range(K):
            if scores[0, y] > best:
                best = scores[0, y]
                yhat[0] = y
        top = best
    else:
        top = _viterbi(scores, P, yhat)
    loss = 0.0
    for v in range(n):
        if A[i, v] >= 0 and yhat[v] != A[i, v]:
            loss += 1.0 / n
        _add_unary(Gu, sym, Xs, F, i, v, yhat[v], c)
    for t in range(n - 1):
        Gp[yhat[t], yhat[t + 1]] += c
    if ramp:
        for v in range(n):
            _add_unary(Gu, sym, Xs, F, i, v, yref[i, v], -c)
        for t in range(n - 1):
            Gp[yref[i, t], yref[i, t + 1]] -= c
    else:
        _add_psi_p(Gu, Gp, sym, Xs, F, A, pu, edges, i, -c)
    return top - base, loss


@njit(cache=True)
def _chain_buffers(Wp, n):
    """Work buffers of :func:`_chain_oracle` for chains of ``n`` nodes."""
    K = Wp.shape[0]
    scores = np.empty((n, K))
    P = np.empty((max(n - 1, 1), K, K))
    for t in range(max(n - 1, 1)):
        P[t] = Wp
    edges = np.empty((max(n - 1, 0), 2), np.int64)
    for t in range(n - 1):
        edges[t, 0] = t
        edges[t, 1] = t + 1
    return scores, P, edges, np.empty(n, np.int64)


@njit(cache=True)
def _chain_risk(Wu, Wp, sym, Xs, F, A, pu, ramp, yref, Gu, Gp):
    """Mean partial margin-rescaling loss (14) over the examples of a chain model, and its
    subgradient into (Gu, Gp) (zeroed first).  Loss-augmented inference by Viterbi.

    ``ramp``: the CCCP-linearised ramp loss instead, ``max_y [l^p + s(y)] - s(yref_i)``.
    """
    m, n = A.shape
    Gu[:] = 0.0
    Gp[:] = 0.0
    scores, P, edges, yhat = _chain_buffers(Wp, n)
    risk = 0.0
    inv_m = 1.0 / m
    for i in range(m):
        val, _ = _chain_oracle(Wu, Wp, sym, Xs, F, A, pu, ramp, yref, i, scores, P, edges, yhat, Gu, Gp, inv_m)
        risk += inv_m * val
    return risk


@njit(cache=True)
def _lp_example_grad(Wu, Wp, sym, Xs, F, A, pu, edges, i, phi, alpha, Gu, Gp, Gphi, scores, ybar):
    """Value of Q_i (24) at (w, phi_i) without the regulariser, and its subgradient:
    ``Gu, Gp`` accumulate d/dw (not zeroed), ``Gphi`` (n_edges, 2, K) is set.

    ``u_v(y) = theta_v(y) + l_v(y) - sum_{e at v} phi_e,side(y)`` and
    ``u_e(y, y') = Wp[y, y'] + phi_e,0(y) + phi_e,1(y')``; the LP upper bound is
    ``sum_v max u_v + sum_e max u_e``.
    """
    m, n = A.shape
    K = Wp.shape[0]
    E = edges.shape[0]
    _unary(Wu, sym, Xs, F, i, scores)
    base = _psi_p_score(Wu, Wp, sym, Xs, F, A, pu, edges, i, scores)
    for v in range(n):
        if A[i, v] >= 0:
            for y in range(K):
                if y != A[i, v]:
                    scores[v, y] += 1.0 / n
    for e in range(E):
        u = edges[e, 0]
        v = edges[e, 1]
        for y in range(K):
            scores[u, y] -= phi[e, 0, y]
            scores[v, y] -= phi[e, 1, y]
    val = 0.0
    for v in range(n):
        best = -np.inf
        arg = 0
        for y in range(K):
            if scores[v, y] > best:
                best = scores[v, y]
                arg = y
        ybar[v] = arg
        val += best
        _add_unary(Gu, sym, Xs, F, i, v, arg, 1.0)
    for e in range(E):
        u = edges[e, 0]
        v = edges[e, 1]
        best = -np.inf
        by = 0
        bz = 0
        for y in range(K):
            p0 = phi[e, 0, y]
            for z in range(K):
                t = Wp[y, z] + p0 + phi[e, 1, z]
                if t > best:
                    best = t
                    by = y
                    bz = z
        val += best
        Gp[by, bz] += 1.0
        for y in range(K):
            Gphi[e, 0, y] = 0.0
            Gphi[e, 1, y] = 0.0
        Gphi[e, 0, by] += 1.0
        Gphi[e, 0, ybar[u]] -= 1.0
        Gphi[e, 1, bz] += 1.0
        Gphi[e, 1, ybar[v]] -= 1.0
    _add_psi_p(Gu, Gp, sym, Xs, F, A, pu, edges, i, -1.0)
    return val - base


@njit(cache=True)
def _adam_step(p, g, m1, m2, lr, b1, b2, t, eps):
    c1 = 1.0 - b1 ** t
    c2 = 1.0 - b2 ** t
    flat_p = p.ravel()
    flat_g = g.ravel()
    f1 = m1.ravel()
    f2 = m2.ravel()
    for j in range(flat_p.size):
        gj = flat_g[j]
        f1[j] = b1 * f1[j] + (1.0 - b1) * gj
        f2[j] = b2 * f2[j] + (1.0 - b2) * gj * gj
        flat_p[j] -= lr * (f1[j] / c1) / (np.sqrt(f2[j] / c2) + eps)


@njit(cache=True)
def _lp_epoch(Wu, Wp, sym, Xs, F, A, pu, edges, phi, order, alpha, lr, mu, nu, t0, phi_m, phi_v, phi_t,
              batch):
    """One Adam pass of LP-MIL-M3N over the examples in ``order`` (mini-batches of ``batch``).
    ``mu, nu`` hold Adam moments of (Wu, Wp) stacked as tuples; each example's phi has its
    own moments and step count.  Returns (mean Q_i over the pass, Adam steps taken)."""
    m, n = A.shape
    K = Wp.shape[0]
    E = edges.shape[0]
    Gu = np.zeros_like(Wu)
    Gp = np.zeros_like(Wp)
    Gphi = np.empty((E, 2, K))
    scores = np.empty((n, K))
    ybar = np.empty(n, np.int64)
    mu_u, mu_p = mu
    nu_u, nu_p = nu
    t = t0
    tot = 0.0
    b1 = 0.9
    b2 = 0.999
    q = 0
    while q < order.size:
        kb = min(batch, order.size - q)
        Gu[:] = 0.0
        Gp[:] = 0.0
        for r in range(kb):
            i = order[q + r]
            val = _lp_example_grad(Wu, Wp, sym, Xs, F, A, pu, edges, i, phi[i], alpha, Gu, Gp, Gphi, scores, ybar)
            tot += val
            phi_t[i] += 1
            _adam_step(phi[i], Gphi, phi_m[i], phi_v[i], lr, b1, b2, phi_t[i], 1e-8)
        for j in range(Gu.size):
            Gu.ravel()[j] = Gu.ravel()[j] / kb + alpha * Wu.ravel()[j]
        for j in range(Gp.size):
            Gp.ravel()[j] = Gp.ravel()[j] / kb + alpha * Wp.ravel()[j]
        t += 1
        _adam_step(Wu, Gu, mu_u, nu_u, lr, b1, b2, t, 1e-8)
        _adam_step(Wp, Gp, mu_p, nu_p, lr, b1, b2, t, 1e-8)
        q += kb
    return tot / max(order.size, 1), t
