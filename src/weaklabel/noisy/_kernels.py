"""Numba kernels of UMA: one fused pass over the data per iteration.

For every row a pass (1) applies the previous iteration's update to the two score
columns it changed (``s_q += x.z``, ``s_r -= x.z``), (2) decides which sets ``A_p``
the row belongs to, and (3) either adds the row into ``G[p, y_i]`` (dense rows) or
marks the membership (CSR rows: the caller then forms Gamma with one sparse product).
So an iteration reads X once, whatever the number of classes.

The kernels release the GIL (``nogil``), so ``_fit_uma`` runs fixed row chunks of a
dense pass on a thread pool without numba's threading layer (which is not fork-safe).
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _top(scores, i):
    """(best class, second-best score, number of classes tied at the best score) of row i."""
    Q = scores.shape[1]
    best = 0
    for k in range(1, Q):
        if scores[i, k] > scores[i, best]:
            best = k
    second = -np.inf
    n_top = 0
    for k in range(Q):
        if scores[i, k] == scores[i, best]:
            n_top += 1
        elif scores[i, k] > second:
            second = scores[i, k]
    return best, second, n_top


@njit(cache=True, nogil=True, inline="always")
def _in_A(scores, i, p, best, second, n_top, alpha):
    """x_i in A_p: s_p - max_{k != p} s_k >= alpha (a non-maximal p gives a negative margin)."""
    if scores[i, p] != scores[i, best]:
        return False
    other = scores[i, best] if n_top > 1 else second
    return scores[i, p] - other >= alpha


@njit(cache=True, nogil=True)
def _uma_pass(X, y_idx, scores, z, q_prev, r_prev, alpha, G):
    """Sequential dense pass over every row (see _uma_rows)."""
    return _uma_rows(X, y_idx, scores, z, q_prev, r_prev, alpha, G, 0, scores.shape[0])


@njit(cache=True, nogil=True)
def _uma_rows(X, y_idx, scores, z, q_prev, r_prev, alpha, G, lo, hi):
    """Dense pass over rows lo..hi-1.

    Parameters
    ----------
    X : float array (n, d), dense rows.
    y_idx : int array (n,), noisy label indices.
    scores : float64 (n, Q), updated in place for the previous step (if q_prev >= 0).
    z : float64 (d,), the previous update vector.
    q_prev, r_prev : classes the previous step moved (+z to q, -z to r); -1 for none.
    alpha : membership margin of A_p.
    G : float64 (Q, Q, d), zeroed by the caller; G[p, k] += x_i for i in A_p with y_i = k.

    Returns
    -------
    n_errors : rows whose argmax score (lowest index on ties) differs from the noisy label.
    """
    Q = scores.shape[1]
    d = X.shape[1]
    n_errors = 0
    for i in range(lo, hi):
        if q_prev >= 0:
            dot = 0.0
            for j in range(d):
                dot += X[i, j] * z[j]
            scores[i, q_prev] += dot
            scores[i, r_prev] -= dot
        best, second, n_top = _top(scores, i)
        if best != y_idx[i]:
            n_errors += 1
        yi = y_idx[i]
        for p in range(Q):
            if _in_A(scores, i, p, best, second, n_top, alpha):
                for j in range(d):
                    G[p, yi, j] += X[i, j]
    return n_errors


@njit(cache=True, nogil=True)
def _uma_members(data, indices, indptr, y_idx, scores, z, q_prev, r_prev, alpha, member):
    """The CSR pass: like _uma_rows, but it marks ``member[i, p] = True`` for x_i in A_p
    instead of accumulating. Returns the number of noisy-label errors."""
    n, Q = scores.shape
    n_errors = 0
    for i in range(n):
        if q_prev >= 0:
            dot = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                dot += data[p] * z[indices[p]]
            scores[i, q_prev] += dot
            scores[i, r_prev] -= dot
        best, second, n_top = _top(scores, i)
        if best != y_idx[i]:
            n_errors += 1
        for p in range(Q):
            member[i, p] = _in_A(scores, i, p, best, second, n_top, alpha)
    return n_errors
