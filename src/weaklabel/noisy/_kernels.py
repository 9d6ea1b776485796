"""Numba kernels of UMA.

Dense rows: the caller updates the two score columns the last step changed with one
BLAS product (``s_q += X z``, ``s_r -= X z``); :func:`_uma_changes` then finds the rows
whose memberships of the sets ``A_p`` flipped, and :func:`_uma_apply` moves only those
rows in the running ``G[p, k] = sum_{i in A_p, y_i = k} x_i``.  A perceptron step
moves few rows, so an iteration costs about one pass of ``X @ z``.

CSR rows: :func:`_uma_members` updates the scores and marks every membership; the
caller forms Gamma with one sparse product.
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
def _uma_changes(scores, y_idx, alpha, member, ch_row, ch_set, ch_sign, top, tied, lo=0, hi=-1):
    """Dense path: recompute every row's memberships from the current scores.

    ``member`` (n, Q) holds the memberships behind the caller's running Gamma; every
    membership that flips is set in ``member`` and recorded as (row, set, +1/-1) in
    the ``ch_*`` buffers (length n * Q), for :func:`_uma_apply` to move into Gamma.

    Each row's argmax (lowest index) goes to ``top`` and whether it is tied to ``tied``.
    Only rows ``lo .. hi-1`` are visited (``hi = -1``: to the end).

    Returns
    -------
    (n_errors, n_changes) : rows whose argmax score (lowest index on ties) differs from
    the noisy label, and the number of recorded flips.
    """
    n, Q = scores.shape
    if hi < 0:
        hi = n
    n_errors = 0
    m = 0
    for i in range(lo, hi):
        best, second, n_top = _top(scores, i)
        top[i] = best
        tied[i] = n_top > 1
        if best != y_idx[i]:
            n_errors += 1
        for p in range(Q):
            now = _in_A(scores, i, p, best, second, n_top, alpha)
            if now != member[i, p]:
                member[i, p] = now
                ch_row[m] = i
                ch_set[m] = p
                ch_sign[m] = 1.0 if now else -1.0
                m += 1
    return n_errors, m


@njit(cache=True, nogil=True)
def _uma_changes_moved(scores, y_idx, member, q, r, ch_row, ch_set, ch_sign, top, tied):
    """``_uma_changes`` for ``alpha = 0`` after a step that moved only columns q and r.

    A row whose strict, untied best class b is neither q nor r, and still beats both
    new scores, keeps its only set A_b and its error: it is skipped in O(1).  Every other
    row is recomputed as in ``_uma_changes``.  Returns (change in n_errors, n_changes).
    """
    n, Q = scores.shape
    d_err = 0
    m = 0
    for i in range(n):
        b = top[i]
        if not tied[i] and b != q and b != r and scores[i, q] < scores[i, b] and scores[i, r] < scores[i, b]:
            continue
        old_err = b != y_idx[i]
        best, second, n_top = _top(scores, i)
        top[i] = best
        tied[i] = n_top > 1
        d_err += (best != y_idx[i]) - old_err
        for p in range(Q):
            now = _in_A(scores, i, p, best, second, n_top, 0.0)
            if now != member[i, p]:
                member[i, p] = now
                ch_row[m] = i
                ch_set[m] = p
                ch_sign[m] = 1.0 if now else -1.0
                m += 1
    return d_err, m


@njit(cache=True, nogil=True)
def _uma_apply(X, y_idx, G, ch_row, ch_set, ch_sign, m, j0=0, j1=-1):
    """G[p, y_i, j0:j1] += sign * x_i[j0:j1] for the m recorded flips, in their order
    (column ranges are disjoint, so they can run on threads)."""
    if j1 < 0:
        j1 = X.shape[1]
    for c in range(m):
        i = ch_row[c]
        p = ch_set[c]
        k = y_idx[i]
        s = ch_sign[c]
        for j in range(j0, j1):
            G[p, k, j] += s * X[i, j]


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
