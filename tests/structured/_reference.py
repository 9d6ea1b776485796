"""Plain-numpy references of Franc & Yermakov's losses, with brute-force inference."""

import itertools

import numpy as np


def psi(x, y, edges, S, K, features=None):
    """Joint feature psi(x, y) (3) as (Gu, Gp): one-hot (symbol, label) unary terms (or node
    features times label indicators) and one-hot (label, label) pairwise terms."""
    Gu = np.zeros((S if features is None else features.shape[1], K))
    Gp = np.zeros((K, K))
    for v, lab in enumerate(y):
        if features is None:
            Gu[x[v], lab] += 1
        else:
            Gu[:, lab] += features[v]
    for u, v in edges:
        Gp[y[u], y[v]] += 1
    return Gu, Gp


def psi_p(x, a, edges, S, K, p):
    """psi^p(x, a) (15): annotated unary terms / p_v, edges with both ends annotated / (p_u p_v)."""
    Gu = np.zeros((S, K))
    Gp = np.zeros((K, K))
    for v, lab in enumerate(a):
        if lab >= 0:
            Gu[x[v], lab] += 1 / p[v]
    for u, v in edges:
        if a[u] >= 0 and a[v] >= 0:
            Gp[a[u], a[v]] += 1 / (p[u] * p[v])
    return Gu, Gp


def partial_loss(a, y):
    """l^p (10) with the normalised Hamming loss: annotated mismatches / n."""
    a, y = np.asarray(a), np.asarray(y)
    return float(np.sum((a >= 0) & (a != y)) / a.size)


def delta_p(Wu, Wp, x, a, edges, p):
    """Delta^p (14) by enumerating every labeling; returns (value, maximiser)."""
    n, K = len(a), Wp.shape[0]
    S = Wu.shape[0]
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        gu, gp = psi(x, y, edges, S, K)
        v = partial_loss(a, y) + np.sum(Wu * gu) + np.sum(Wp * gp)
        if v > best + 1e-12:
            best, arg = v, np.array(y)
    pu, pp = psi_p(x, a, edges, S, K, p)
    return best - np.sum(Wu * pu) - np.sum(Wp * pp), arg


def risk(Wu, Wp, X, A, edges, P):
    """Mean Delta^p and its subgradient psi(x, yhat) - psi^p(x, a) averaged."""
    m = len(X)
    S, K = Wu.shape[0], Wp.shape[0]
    R, Gu, Gp = 0.0, np.zeros_like(Wu), np.zeros_like(Wp)
    for x, a, p in zip(X, A, P):
        v, yhat = delta_p(Wu, Wp, x, a, edges, p)
        R += v / m
        gu, gp = psi(x, yhat, edges, S, K)
        pu, pp = psi_p(x, a, edges, S, K, p)
        Gu += (gu - pu) / m
        Gp += (gp - pp) / m
    return R, Gu, Gp


def objective(Wu, Wp, X, A, edges, P, lam):
    return 0.5 * lam * (np.sum(Wu ** 2) + np.sum(Wp ** 2)) + risk(Wu, Wp, X, A, edges, P)[0]


def lp_q(Wu, Wp, x, a, edges, p, phi):
    """u(x, a, phi, w) - <w, psi^p> of (23)-(24) and its subgradients (numpy, one example)."""
    n, K = len(a), Wp.shape[0]
    S = Wu.shape[0]
    U = Wu[x].copy()
    for v in range(n):
        if a[v] >= 0:
            U[v] += (np.arange(K) != a[v]) / n
    for e, (u, v) in enumerate(edges):
        U[u] -= phi[e, 0]
        U[v] -= phi[e, 1]
    ybar = U.argmax(1)
    val = U.max(1).sum()
    Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
    for v in range(n):
        Gu[x[v], ybar[v]] += 1
    Gphi = np.zeros_like(phi)
    for e, (u, v) in enumerate(edges):
        T = Wp + phi[e, 0][:, None] + phi[e, 1][None, :]
        y, z = np.unravel_index(np.argmax(T), T.shape)
        val += T[y, z]
        Gp[y, z] += 1
        Gphi[e, 0, y] += 1
        Gphi[e, 0, ybar[u]] -= 1
        Gphi[e, 1, z] += 1
        Gphi[e, 1, ybar[v]] -= 1
    pu, pp = psi_p(x, a, edges, S, K, p)
    return val - np.sum(Wu * pu) - np.sum(Wp * pp), Gu - pu, Gp - pp, Gphi
