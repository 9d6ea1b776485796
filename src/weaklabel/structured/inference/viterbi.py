"""Viterbi: exact MAP on chains by dynamic programming, O(n K^2)."""

from __future__ import annotations

import numpy as np

from ..graphs import check_graph
from ._common import MAPResult
from ._kernels import _viterbi

__all__ = ["viterbi"]


def viterbi(unary, pairwise, edges=None):
    """Exact MAP labeling of a chain by dynamic programming.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_nodes - 1, K, K)
        ``pairwise[t][y_t, y_{t+1}]``.
    edges : None or array-like of shape (n_nodes - 1, 2)
        Must be the chain ``(0, 1), (1, 2), ...`` when given.

    Returns
    -------
    MAPResult
        Certified (Viterbi is exact on chains); ``bound == value``.

    Examples
    --------
    >>> import numpy as np
    >>> r = viterbi([[1., 0.], [0., 0.2], [0., 0.]], [[0.5, 0.], [0., 0.5]])
    >>> r.labels.tolist(), round(r.value, 2), r.certified
    ([0, 0, 0], 2.0, True)
    """
    U = np.asarray(unary, dtype=np.float64)
    if U.ndim != 2 or U.shape[0] == 0 or U.shape[1] == 0:
        raise ValueError(f"unary must be a non-empty 2-D array (n_nodes, K); got shape {U.shape}.")
    n, K = U.shape
    if edges is not None:
        _, E = check_graph(n, edges)
        chain = np.c_[np.arange(n - 1), np.arange(1, n)].reshape(-1, 2)
        if E.shape != chain.shape or not np.array_equal(E, chain):
            raise ValueError("viterbi needs the chain edges (0, 1), (1, 2), ...; use lp_map or exact_map for other "
                             "graphs.")
    P = np.asarray(pairwise, dtype=np.float64)
    if P.shape == (K, K):                 # one table for every edge: a view, not n - 1 copies
        if not np.isfinite(P).all():
            raise ValueError("unary and pairwise must be finite.")
        P = np.broadcast_to(P, (max(n - 1, 0), K, K))
    elif P.shape == (max(n - 1, 0), K, K):
        if not np.isfinite(P).all():
            raise ValueError("unary and pairwise must be finite.")
    else:
        raise ValueError(f"pairwise must have shape ({K}, {K}) or ({max(n - 1, 0)}, {K}, {K}) for a chain of {n} "
                         f"nodes and {K} labels; got {P.shape}.")
    if not np.isfinite(U).all():
        raise ValueError("unary and pairwise must be finite.")
    U = np.ascontiguousarray(U)
    out = np.zeros(n, dtype=np.int64)
    v = float(_viterbi(U, P, out))
    return MAPResult(out, v, v, True)
