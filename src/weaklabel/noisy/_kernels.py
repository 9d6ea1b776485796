"""Numba kernel of UMA: one fused pass over the data per iteration.

The kernel releases the GIL (``nogil``), so ``_fit_uma`` runs fixed row chunks on a
thread pool without numba's threading layer (which is not fork-safe).

For every row the pass (1) applies the previous iteration's update to the two score
columns it changed (``s_q += x.z``, ``s_r -= x.z``), (2) decides which sets ``A_p``
the row belongs to, and (3) adds the row into ``G[p, y_i]`` for each of them.  So an
iteration reads X once, whatever the number of classes.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _uma_pass(X_dense, is_dense, data, indices, indptr, y_idx, scores, z, q_prev, r_prev, alpha, G):
    """Sequential pass over every row (see _uma_rows)."""
    return _uma_rows(X_dense, is_dense, data, indices, indptr, y_idx, scores, z, q_prev, r_prev, alpha, G,
                     0, scores.shape[0])


@njit(cache=True, nogil=True)
def _uma_rows(X_dense, is_dense, data, indices, indptr, y_idx, scores, z, q_prev, r_prev, alpha, G, lo, hi):
    """One UMA pass.

    Parameters
    ----------
    X_dense, is_dense, data, indices, indptr : the rows, dense or CSR (the other a dummy).
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
    n_errors = 0
    for i in range(lo, hi):
        if q_prev >= 0:
            dot = 0.0
            if is_dense:
                for j in range(X_dense.shape[1]):
                    dot += X_dense[i, j] * z[j]
            else:
                for p in range(indptr[i], indptr[i + 1]):
                    dot += data[p] * z[indices[p]]
            scores[i, q_prev] += dot
            scores[i, r_prev] -= dot
        # best and second-best scores
        best = 0
        for k in range(1, Q):
            if scores[i, k] > scores[i, best]:
                best = k
        if best != y_idx[i]:
            n_errors += 1
        second = -np.inf
        n_top = 0
        for k in range(Q):
            if scores[i, k] == scores[i, best]:
                n_top += 1
            elif scores[i, k] > second:
                second = scores[i, k]
        yi = y_idx[i]
        for p in range(Q):
            # s_p - max_{k != p} s_k >= alpha
            if scores[i, p] == scores[i, best]:
                other = scores[i, best] if n_top > 1 else second
            else:
                continue               # s_p - max_{k != p} s_k = s_p - s_best < 0 <= alpha
            if scores[i, p] - other >= alpha:
                if is_dense:
                    for j in range(X_dense.shape[1]):
                        G[p, yi, j] += X_dense[i, j]
                else:
                    for pp in range(indptr[i], indptr[i + 1]):
                        G[p, yi, indices[pp]] += data[pp]
    return n_errors


@njit(cache=True, nogil=True)
def _uma_members(data, indices, indptr, y_idx, scores, z, q_prev, r_prev, alpha, member):
    """The sparse pass: like _uma_rows on CSR rows, but it marks membership
    (``member[i, p] = True`` for x_i in A_p) instead of accumulating, so the caller can
    form Gamma with one sparse product. Returns the number of noisy-label errors."""
    n, Q = scores.shape
    n_errors = 0
    for i in range(n):
        if q_prev >= 0:
            dot = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                dot += data[p] * z[indices[p]]
            scores[i, q_prev] += dot
            scores[i, r_prev] -= dot
        best = 0
        for k in range(1, Q):
            if scores[i, k] > scores[i, best]:
                best = k
        if best != y_idx[i]:
            n_errors += 1
        second = -np.inf
        n_top = 0
        for k in range(Q):
            if scores[i, k] == scores[i, best]:
                n_top += 1
            elif scores[i, k] > second:
                second = scores[i, k]
        for p in range(Q):
            member[i, p] = False
            if scores[i, p] == scores[i, best]:
                other = scores[i, best] if n_top > 1 else second
                if scores[i, p] - other >= alpha:
                    member[i, p] = True
    return n_errors
