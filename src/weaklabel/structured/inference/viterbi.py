"""Viterbi: exact MAP on chains by dynamic programming, O(n K^2)."""

from __future__ import annotations

import numpy as np

from ._common import MAPResult, potentials
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
    U, P, E = potentials(unary, pairwise, edges)
    n = U.shape[0]
    if edges is not None and not np.array_equal(E, np.c_[np.arange(n - 1), np.arange(1, n)].reshape(-1, 2)):
        raise ValueError("viterbi needs the chain edges (0, 1), (1, 2), ...; use lp_map or exact_map for other graphs.")
    out = np.zeros(n, dtype=np.int64)
    if n == 1:
        out[0] = int(np.argmax(U[0]))
        v = float(U[0, out[0]])
        return MAPResult(out, v, v, True)
    v = float(_viterbi(U, P, out))
    return MAPResult(out, v, v, True)
