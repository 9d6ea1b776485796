"""Numba kernels of the M3N learners from partially annotated examples (Franc & Yermakov).

Model: unary scores ``theta_v(y) = Wu[x_v, y]`` (symbolic input, ``x_v`` a symbol) or
``F_v . Wu[:, y]`` (real node features ``F_v``), and one shared pairwise table
``Wp[y, y']`` on every edge.

Examples are laid out flat (:mod:`weaklabel.structured._examples`): example ``i``'s nodes
are ``off[i] .. off[i+1]-1`` of ``Xs`` / ``F`` / ``A`` / ``pu``, its edges (local node ids)
rows ``eoff[i] .. eoff[i+1]-1`` of ``E``; examples may differ in size and graph.

Annotations: ``A[v]`` is a label, ``-1`` (missing: every label allowed) or ``-2`` (a
candidate set, the labels ``y`` with ``C[v, y]``).  The target loss is the Hamming loss
normalised by the example's number of nodes ``n``; its partial version counts a node's
label as wrong when it lies outside the node's set, so it is 0 for EVERY label at a
missing node (the paper's case) and the Hamming loss at a labelled one.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .inference._kernels import _max_arg, _pair_max, _viterbi

#: the flat examples and annotations as the kernels take them, one value: node inputs
#: (``sym``: symbols ``Xs``, else features ``F``), node offsets ``off``, annotations ``A``
#: / ``C``, annotation probabilities ``pu``, edges ``E`` and edge offsets ``eoff``
Flat = namedtuple("Flat", "sym Xs F off A C pu E eoff")


def flat_layout(ex, A, C, pu):
    """The :class:`Flat` value of examples ``ex`` (:mod:`weaklabel.structured._examples`)
    with flat annotations ``A``, ``C`` and probabilities ``pu``.
    """
    return Flat(bool(ex.sym), ex.Xs, ex.F, ex.off, A, C, pu, ex.E, ex.eoff)


@njit(cache=True)
def _unary(Wu, sym, Xs, F, a, n, out):
    """Unary scores of the ``n`` nodes starting at flat node ``a`` into ``out[:n]``."""
    K = out.shape[1]
    if sym:
        for v in range(n):
            for y in range(K):
                out[v, y] = Wu[Xs[a + v], y]
    else:
        d = F.shape[1]
        for v in range(n):
            for y in range(K):
                s = 0.0
                for f in range(d):
                    s += F[a + v, f] * Wu[f, y]
                out[v, y] = s


@njit(cache=True)
def _add_unary(G, sym, Xs, F, node, y, c):
    """G_u += c * psi_v(x, y) for the flat node ``node``."""
    if sym:
        G[Xs[node], y] += c
    else:
        for f in range(F.shape[1]):
            G[f, y] += c * F[node, f]


@njit(cache=True)
def _outside(A, C, node, y):
    """Whether label ``y`` lies outside the node's candidate set (costs the partial loss)."""
    code = A[node]
    if code >= 0:
        return y != code
    if code == -1:
        return False
    return not C[node, y]


@njit(cache=True)
def _set_size(A, C, node):
    code = A[node]
    if code >= 0:
        return 1
    cnt = 0
    for y in range(C.shape[1]):
        if C[node, y]:
            cnt += 1
    return cnt


@njit(cache=True)
def _add_psi_p(G, flat, span, c):
    """(Gu, Gp) += c * psi^p(x_i, a_i) (15): an annotated node's unary term weighted
    1/p(z_v = 1) (a candidate set's labels share it equally), an edge with both ends
    annotated weighted 1/(p_u p_v) (independent annotation; over the pairs of the two sets).
    ``G`` is ``(Gu, Gp)``, ``span`` example i's ``(a, n, ea, eb)``: first node, nodes, edges.
    """
    Gu, Gp = G
    sym, Xs, F, A, C, pu, E = flat.sym, flat.Xs, flat.F, flat.A, flat.C, flat.pu, flat.E
    a, n, ea, eb = span
    K = Gp.shape[0]
    for v in range(n):
        node = a + v
        code = A[node]
        if code >= 0:
            _add_unary(Gu, sym, Xs, F, node, code, c / pu[node])
        elif code == -2:
            w = c / (pu[node] * _set_size(A, C, node))
            for y in range(K):
                if C[node, y]:
                    _add_unary(Gu, sym, Xs, F, node, y, w)
    for e in range(ea, eb):
        u = a + E[e, 0]
        v = a + E[e, 1]
        if A[u] == -1 or A[v] == -1:
            continue
        w = c / (pu[u] * pu[v])
        if A[u] >= 0 and A[v] >= 0:
            Gp[A[u], A[v]] += w
        else:
            w /= _set_size(A, C, u) * _set_size(A, C, v)
            for y in range(K):
                if _outside(A, C, u, y):
                    continue
                for z in range(K):
                    if not _outside(A, C, v, z):
                        Gp[y, z] += w


@njit(cache=True)
def _psi_p_score(Wp, flat, span, scores):
    """<w, psi^p(x_i, a_i)> given example i's unary scores ``scores`` (``span`` as in
    :func:`_add_psi_p`).
    """
    A, C, pu, E = flat.A, flat.C, flat.pu, flat.E
    a, n, ea, eb = span
    K = Wp.shape[0]
    s = 0.0
    for v in range(n):
        node = a + v
        code = A[node]
        if code >= 0:
            s += scores[v, code] / pu[node]
        elif code == -2:
            t = 0.0
            for y in range(K):
                if C[node, y]:
                    t += scores[v, y]
            s += t / (pu[node] * _set_size(A, C, node))
    for e in range(ea, eb):
        u = a + E[e, 0]
        v = a + E[e, 1]
        if A[u] == -1 or A[v] == -1:
            continue
        w = 1.0 / (pu[u] * pu[v])
        if A[u] >= 0 and A[v] >= 0:
            s += w * Wp[A[u], A[v]]
        else:
            t = 0.0
            for y in range(K):
                if _outside(A, C, u, y):
                    continue
                for z in range(K):
                    if not _outside(A, C, v, z):
                        t += Wp[y, z]
            s += w * t / (_set_size(A, C, u) * _set_size(A, C, v))
    return s


@njit(cache=True)
def _augment(scores, A, C, a, n):
    """Loss augmentation: every label outside a node's candidate set gains 1/n."""
    K = scores.shape[1]
    inv = 1.0 / n
    for v in range(n):
        if A[a + v] == -1:
            continue
        for y in range(K):
            if _outside(A, C, a + v, y):
                scores[v, y] += inv


@njit(cache=True)
def _chain_oracle(W, flat, ramp, yref, i, buffers, G, c):
    """Loss-augmented inference for chain example ``i`` (Viterbi).

    ``W`` is ``(Wu, Wp)``, ``flat`` a :class:`Flat`, ``buffers`` ``(scores, P, yhat)``.
    Adds ``c * (psi(x_i, yhat) - psi_ref)`` to ``G = (Gu, Gp)``, where ``yhat`` maximises
    ``l^p(a_i, y) + <w, psi(x_i, y)>`` and ``psi_ref`` is ``psi^p(x_i, a_i)`` (15) or, with
    ``ramp``, ``psi(x_i, yref_i)`` (the CCCP-linearised ramp loss; ``yref`` flat).  Returns
    ``(Delta_i, l^p(a_i, yhat))``.  Buffers, at least the longest example: ``scores``
    (n, K), ``P`` (n-1, K, K) filled with ``Wp``, ``yhat`` (n,).
    """
    Wu, Wp = W
    Gu, Gp = G
    scores, P, yhat = buffers
    sym, Xs, F, off, A, C, eoff = flat.sym, flat.Xs, flat.F, flat.off, flat.A, flat.C, flat.eoff
    a = off[i]
    n = off[i + 1] - a
    ea = eoff[i]
    eb = eoff[i + 1]
    span = (a, n, ea, eb)
    _unary(Wu, sym, Xs, F, a, n, scores)
    base = 0.0
    if ramp:
        for v in range(n):
            base += scores[v, yref[a + v]]
        for t in range(n - 1):
            base += Wp[yref[a + t], yref[a + t + 1]]
    else:
        base = _psi_p_score(Wp, flat, span, scores)
    _augment(scores, A, C, a, n)
    top = _viterbi(scores[:n], P[:n - 1], yhat[:n])
    loss = 0.0
    for v in range(n):
        if _outside(A, C, a + v, yhat[v]):
            loss += 1.0 / n
        _add_unary(Gu, sym, Xs, F, a + v, yhat[v], c)
    for t in range(n - 1):
        Gp[yhat[t], yhat[t + 1]] += c
    if ramp:
        for v in range(n):
            _add_unary(Gu, sym, Xs, F, a + v, yref[a + v], -c)
        for t in range(n - 1):
            Gp[yref[a + t], yref[a + t + 1]] -= c
    else:
        _add_psi_p(G, flat, span, -c)
    return top - base, loss


@njit(cache=True)
def _chain_buffers(Wp, n):
    """Work buffers of :func:`_chain_oracle` for chains of at most ``n`` nodes."""
    K = Wp.shape[0]
    scores = np.empty((n, K))
    P = np.empty((max(n - 1, 1), K, K))
    for t in range(max(n - 1, 1)):             # (loops: numba's array slice assignment compiles
        for ra in range(K):                    # an error message's string formatting)
            for ca in range(K):
                P[t, ra, ca] = Wp[ra, ca]
    return scores, P, np.empty(n, np.int64)


@njit(cache=True)
def _chain_risk(W, flat, ramp, yref, G):
    """Mean partial margin-rescaling loss (14) over the chain examples, and its subgradient
    into ``G = (Gu, Gp)`` (zeroed first); ``W = (Wu, Wp)``.  Loss-augmented inference by Viterbi.

    ``ramp``: the CCCP-linearised ramp loss instead, ``max_y [l^p + s(y)] - s(yref_i)``.
    """
    Wu, Wp = W
    Gu, Gp = G
    off = flat.off
    m = off.size - 1
    nmax = 1
    for i in range(m):
        nmax = max(nmax, off[i + 1] - off[i])
    Gu[:] = 0.0
    Gp[:] = 0.0
    buffers = _chain_buffers(Wp, nmax)
    risk = 0.0
    inv_m = 1.0 / m
    for i in range(m):
        val, _ = _chain_oracle(W, flat, ramp, yref, i, buffers, G, inv_m)
        risk += inv_m * val
    return risk


@njit(cache=True)
def _lp_example_grad(W, flat, i, phi, G, Gphi, work):
    """Value of Q_i (24) at (w, phi) without the regulariser, and its subgradient:
    ``G = (Gu, Gp)`` accumulate d/dw (not zeroed), ``Gphi[:n_edges_i]`` is set.  ``phi`` is
    example i's (n_edges_i, 2, K) messages, ``W`` ``(Wu, Wp)``, ``work`` the buffers
    ``(scores, ybar)``.

    ``u_v(y) = theta_v(y) + l_v(y) - sum_{e at v} phi_e,side(y)`` and
    ``u_e(y, y') = Wp[y, y'] + phi_e,0(y) + phi_e,1(y')``; the LP upper bound is
    ``sum_v max u_v + sum_e max u_e``.
    """
    Wu, Wp = W
    Gu, Gp = G
    scores, ybar = work
    sym, Xs, F, off, A, C, E, eoff = flat.sym, flat.Xs, flat.F, flat.off, flat.A, flat.C, flat.E, flat.eoff
    a = off[i]
    n = off[i + 1] - a
    ea = eoff[i]
    eb = eoff[i + 1]
    span = (a, n, ea, eb)
    K = Wp.shape[0]
    _unary(Wu, sym, Xs, F, a, n, scores)
    base = _psi_p_score(Wp, flat, span, scores)
    _augment(scores, A, C, a, n)
    for e in range(eb - ea):
        u = E[ea + e, 0]
        v = E[ea + e, 1]
        for y in range(K):
            scores[u, y] -= phi[e, 0, y]
            scores[v, y] -= phi[e, 1, y]
    val = 0.0
    for v in range(n):
        best, arg = _max_arg(scores[v])
        ybar[v] = arg
        val += best
        _add_unary(Gu, sym, Xs, F, a + v, arg, 1.0)
    for e in range(eb - ea):
        u = E[ea + e, 0]
        v = E[ea + e, 1]
        best, by, bz = _pair_max(Wp, phi[e, 0], phi[e, 1], 1.0)
        val += best
        Gp[by, bz] += 1.0
        for y in range(K):
            Gphi[e, 0, y] = 0.0
            Gphi[e, 1, y] = 0.0
        Gphi[e, 0, by] += 1.0
        Gphi[e, 0, ybar[u]] -= 1.0
        Gphi[e, 1, bz] += 1.0
        Gphi[e, 1, ybar[v]] -= 1.0
    _add_psi_p(G, flat, span, -1.0)
    return val - base


@njit(cache=True)
def _adam_step(p, g, moments, adam, t):
    """Adam step ``t`` of ``p`` with the gradient ``g``; ``moments`` ``(m1, m2)`` (updated),
    ``adam`` ``(lr, b1, b2, eps)``.
    """
    m1, m2 = moments
    lr, b1, b2, eps = adam
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
def _adam_rows(p, g, moments, span, adam, t):
    """Adam step of the rows ``ea:eb`` (``span``) of ``p`` (n_rows, 2, K) with the gradient
    ``g[:eb - ea]``; ``moments`` and ``adam`` as in :func:`_adam_step`.
    """
    m1, m2 = moments
    ea, eb = span
    lr, b1, b2, eps = adam
    c1 = 1.0 - b1 ** t
    c2 = 1.0 - b2 ** t
    for e in range(eb - ea):
        for s in range(p.shape[1]):
            for y in range(p.shape[2]):
                gj = g[e, s, y]
                r = ea + e
                m1[r, s, y] = b1 * m1[r, s, y] + (1.0 - b1) * gj
                m2[r, s, y] = b2 * m2[r, s, y] + (1.0 - b2) * gj * gj
                p[r, s, y] -= lr * (m1[r, s, y] / c1) / (np.sqrt(m2[r, s, y] / c2) + eps)


@njit(cache=True)
def _lp_epoch(W, flat, phi, order, params, moments, phi_state):
    """One Adam pass of LP-MIL-M3N over the examples in ``order``.

    ``W`` is ``(Wu, Wp)``, ``params`` ``(alpha, lr, batch)`` (mini-batches of ``batch``),
    ``moments`` ``(mu, nu, t0)``: the Adam moments of (Wu, Wp) as tuples and the steps taken;
    ``phi`` (all edges, 2, K) holds every example's messages (example i's at rows
    ``eoff[i]:eoff[i+1]``), each example with its own moments and step count,
    ``phi_state = (phi_m, phi_v, phi_t)``.  Returns (mean Q_i over the pass, Adam steps taken).
    """
    Wu, Wp = W
    alpha, lr, batch = params
    mu, nu, t0 = moments
    phi_m, phi_v, phi_t = phi_state
    off, eoff = flat.off, flat.eoff
    m = off.size - 1
    K = Wp.shape[0]
    nmax = 1
    emax = 1
    for i in range(m):
        nmax = max(nmax, off[i + 1] - off[i])
        emax = max(emax, eoff[i + 1] - eoff[i])
    Gu = np.zeros_like(Wu)
    Gp = np.zeros_like(Wp)
    Gphi = np.empty((emax, 2, K))
    scores = np.empty((nmax, K))
    ybar = np.empty(nmax, np.int64)
    mu_u, mu_p = mu
    nu_u, nu_p = nu
    t = t0
    tot = 0.0
    adam = (lr, 0.9, 0.999, 1e-8)
    G = (Gu, Gp)
    work = (scores, ybar)
    q = 0
    while q < order.size:
        kb = min(batch, order.size - q)
        Gu[:] = 0.0
        Gp[:] = 0.0
        for r in range(kb):
            i = order[q + r]
            ea = eoff[i]
            eb = eoff[i + 1]
            val = _lp_example_grad(W, flat, i, phi[ea:eb], G, Gphi, work)
            tot += val
            phi_t[i] += 1
            _adam_rows(phi, Gphi, (phi_m, phi_v), (ea, eb), adam, phi_t[i])
        for j in range(Gu.size):
            Gu.ravel()[j] = Gu.ravel()[j] / kb + alpha * Wu.ravel()[j]
        for j in range(Gp.size):
            Gp.ravel()[j] = Gp.ravel()[j] / kb + alpha * Wp.ravel()[j]
        t += 1
        _adam_step(Wu, Gu, (mu_u, nu_u), adam, t)
        _adam_step(Wp, Gp, (mu_p, nu_p), adam, t)
        q += kb
    return tot / max(order.size, 1), t


@njit(cache=True)
def _bcfw_block_step(g, Wi, li, w, wbar, step, first):
    """One block step of BCFW after its oracle call (Lacoste-Julien et al. 2013), in place.

    ``g`` holds the oracle's subgradient of example ``i``'s loss; its corner is ``ws = g *
    (-1 / (lam m))`` and ``ls = loss / m``; ``d = Wi[i] - ws``.  The block gap is ``gi = lam (d
    . w) - li[i] + ls``, the exact line search's step ``gamma = clip(gi / (lam (d . d)), 0,
    1)`` (1 on the first pass, where each block starts at its corner); then ``w`` and ``Wi[i]``
    move by ``gamma (ws - Wi[i])``, ``li[i]`` by ``gamma (ls - li[i])``, and the weighted
    average becomes ``wbar k / (k + 2) + w 2 / (k + 2)`` for the step's number ``k``.  ``g`` is
    left zero for the next oracle call.  ``step`` is ``(i, lam, m, loss, k)``.  Returns
    ``(gi, the change of sum(li))``; :func:`weaklabel.structured.solvers.bcfw` made these
    vector operations one numpy call each, which took more time than a chain's oracle.
    """
    i, lam, m, loss, k = step
    inv = -1.0 / (lam * m)
    ls = loss / m
    dw = 0.0
    dd = 0.0
    for p in range(w.shape[0]):
        d = Wi[i, p] - g[p] * inv
        dw += d * w[p]
        dd += d * d
    gi = lam * dw - li[i] + ls
    den = lam * dd
    if first:
        gamma = 1.0
    elif den > 0:
        gamma = min(max(gi / den, 0.0), 1.0)
    else:
        gamma = 0.0
    dl = 0.0
    if gamma > 0:
        for p in range(w.shape[0]):
            s = gamma * (g[p] * inv - Wi[i, p])
            w[p] += s
            Wi[i, p] += s
        dl = gamma * (ls - li[i])
        li[i] += dl
    a = k / (k + 2.0)
    b = 2.0 / (k + 2.0)
    for p in range(w.shape[0]):
        wbar[p] = wbar[p] * a + b * w[p]
        g[p] = 0.0
    return gi, dl


@njit(cache=True)
def _project_simplex(v):
    """The Euclidean projection of ``v`` onto the probability simplex: ``max(v - theta, 0)``
    with ``theta = (sum of the r largest entries - 1) / r`` for the largest ``r`` whose
    ``r``-th largest entry exceeds its own such ``theta`` (the sort-based rule; Held, Wolfe
    & Crowder 1974)."""
    u = np.sort(v)[::-1]
    css = 0.0
    theta = 0.0
    for k in range(u.size):
        css += u[k]
        t = (css - 1.0) / (k + 1)
        if u[k] - t > 0:
            theta = t
    out = np.empty(v.size)
    for i in range(v.size):
        out[i] = max(v[i] - theta, 0.0)
    return out


@njit(cache=True)
def _simplex_fista(G, b, beta0, L, iters):
    """``max_{beta in simplex} b . beta - 1/2 beta' G beta`` by FISTA (Beck & Teboulle 2009)
    on its negation, from the projection of ``beta0``, with step ``1 / L`` (``L`` at least
    ``G``'s largest eigenvalue); stops after ``iters`` steps or when a step moves no entry
    by 1e-12.  :func:`weaklabel.structured.solvers._simplex_qp` ran these steps as numpy
    calls, some 500 a cutting plane, most of BMRM's time."""
    x = _project_simplex(beta0)
    n = x.size
    y = x.copy()
    z = np.empty(n)
    tk = 1.0
    for _ in range(iters):
        grad = np.dot(G, y)
        for i in range(n):
            z[i] = y[i] - (grad[i] - b[i]) / L
        xn = _project_simplex(z)
        tn = 0.5 * (1 + np.sqrt(1 + 4 * tk * tk))
        c = (tk - 1) / tn
        moved = 0.0
        for i in range(n):
            diff = xn[i] - x[i]
            y[i] = xn[i] + c * diff
            moved = max(moved, abs(diff))
        x = xn
        if moved < 1e-12:
            break
        tk = tn
    return x
