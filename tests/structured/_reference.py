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


def as_masks(a, K):
    """Annotations as candidate masks (n, K): an int label -> one True, -1 -> all True;
    bool masks pass through."""
    a = np.asarray(a)
    if a.dtype == bool:
        return a
    M = np.zeros((a.size, K), dtype=bool)
    for v, lab in enumerate(a):
        if lab >= 0:
            M[v, lab] = True
        else:
            M[v] = True
    return M


def psi_p(x, a, edges, S, K, p):
    """psi^p(x, a) (15): an annotated node's unary term / p_v, shared equally by the labels of
    its candidate set (one label: the paper's term); an edge with both ends annotated
    / (p_u p_v), shared equally by the pairs of the two sets.  A node whose set holds every
    label is missing and adds nothing."""
    M = as_masks(a, K)
    ann = ~M.all(axis=1)
    Gu = np.zeros((S, K))
    Gp = np.zeros((K, K))
    for v in range(len(M)):
        if ann[v]:
            for lab in np.flatnonzero(M[v]):
                Gu[x[v], lab] += 1 / (p[v] * M[v].sum())
    for u, v in edges:
        if ann[u] and ann[v]:
            for y in np.flatnonzero(M[u]):
                for z in np.flatnonzero(M[v]):
                    Gp[y, z] += 1 / (p[u] * p[v] * M[u].sum() * M[v].sum())
    return Gu, Gp


def partial_loss(a, y, K=None):
    """l^p (10) with the normalised Hamming loss: nodes whose label lies outside their
    candidate set (for int annotations: annotated mismatches), over n."""
    y = np.asarray(y)
    M = as_masks(a, K if K is not None else int(max(np.max(a), np.max(y))) + 1)
    return float(np.sum(~M[np.arange(len(y)), y]) / len(y))


def delta_p(Wu, Wp, x, a, edges, p):
    """Delta^p (14) by enumerating every labeling; returns (value, maximiser)."""
    n, K = len(a), Wp.shape[0]
    S = Wu.shape[0]
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        gu, gp = psi(x, y, edges, S, K)
        v = partial_loss(a, y, K) + np.sum(Wu * gu) + np.sum(Wp * gp)
        if v > best + 1e-12:
            best, arg = v, np.array(y)
    pu, pp = psi_p(x, a, edges, S, K, p)
    return best - np.sum(Wu * pu) - np.sum(Wp * pp), arg


def risk(Wu, Wp, X, A, edges, P):
    """Mean Delta^p and its subgradient psi(x, yhat) - psi^p(x, a) averaged."""
    m = len(X)
    S, K = Wu.shape[0], Wp.shape[0]
    R, Gu, Gp = 0.0, np.zeros_like(Wu), np.zeros_like(Wp)
    for i, (x, a, p) in enumerate(zip(X, A, P)):
        edges_i = edges[i] if isinstance(edges, list) else edges     # one graph, or one per example
        v, yhat = delta_p(Wu, Wp, x, a, edges_i, p)
        R += v / m
        gu, gp = psi(x, yhat, edges_i, S, K)
        pu, pp = psi_p(x, a, edges_i, S, K, p)
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
    M = as_masks(a, K)
    for v in range(n):
        U[v] += ~M[v] / n
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
