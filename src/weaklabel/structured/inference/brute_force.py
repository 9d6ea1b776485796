"""Exact MAP by enumeration, for tests on tiny problems."""

from __future__ import annotations

import itertools

import numpy as np


from ._common import MAPResult, potentials

__all__ = ["brute_force"]


def brute_force(unary, pairwise, edges=None):
    """Find the exact MAP labeling by enumerating all K^n labelings (for tests).

    Refuses more than 2 million labelings; the first maximiser in lexicographic order wins.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``: one table for every edge,
        or one per edge.
    edges : array-like of int of shape (n_edges, 2) or None, default=None
        The graph; ``None`` means the chain 0-1-...-(n_nodes - 1).

    Returns
    -------
    MAPResult
        Certified.
    """
    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    if K ** n > 2_000_000:
        raise ValueError(f"brute_force would enumerate {K}^{n} labelings; it is meant for tiny problems.")
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        ya = np.asarray(y)
        v = U[np.arange(n), ya].sum() + (P[np.arange(E.shape[0]), ya[E[:, 0]], ya[E[:, 1]]].sum() if E.shape[0] else 0)
        if v > best + 1e-12:
            best, arg = v, ya
    return MAPResult(arg.astype(np.int64), float(best), float(best), True)
