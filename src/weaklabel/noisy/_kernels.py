"""Numba kernels of UMA.

Dense rows: the caller updates the two score columns the last step changed with one
BLAS product (``s_q += X z``, ``s_r -= X z``); :func:`_uma_changes` then finds the rows
whose memberships of the sets ``A_p`` flipped, and :func:`_uma_apply` moves only those
rows in the running ``G[p, k] = sum_{i in A_p, y_i = k} x_i``.  A perceptron step
moves few rows, so an iteration costs about one pass of ``X @ z``.

CSR rows: :func:`_uma_sparse_changes` updates the scores and records the flips, and
:func:`_uma_sparse_apply` moves them into running sums of Gamma, its Gram matrix and
``Gamma W``, so the caller never forms Gamma.
"""

import numpy as np
from numba import njit
from .._intrinsics import prefetch_row
from .._row_kernels import DENSE_FASTMATH, _cm_scores


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


@njit(cache=True, nogil=True, inline="always")
def _record_flips(scores, i, top3, alpha, member, changes, m):
    """Set row i's memberships from its top scores ``top3 = (best, second, n_top)`` (as
    :func:`_top` gives them); record each flip as (row, set, +/-1) in ``changes``
    ``(ch_row, ch_set, ch_sign)`` at position m onward. Returns the new count.
    """
    best, second, n_top = top3
    ch_row, ch_set, ch_sign = changes
    for p in range(scores.shape[1]):
        now = _in_A(scores, i, p, best, second, n_top, alpha)
        if now != member[i, p]:
            member[i, p] = now
            ch_row[m] = i
            ch_set[m] = p
            ch_sign[m] = 1.0 if now else -1.0
            m += 1
    return m


@njit(cache=True, nogil=True)
def _uma_changes(scores, y_idx, alpha, member, changes, argmax, lo=0, hi=-1):
    """Dense path: recompute every row's memberships from the current scores.

    ``member`` (n, Q) holds the memberships behind the caller's running Gamma; every
    membership that flips is set in ``member`` and recorded as (row, set, +1/-1) in
    ``changes``, the buffers ``(ch_row, ch_set, ch_sign)`` (length n * Q), for
    :func:`_uma_apply` to move into Gamma.

    ``argmax`` is ``(top, tied)``: each row's argmax (lowest index) goes to ``top`` and
    whether it is tied to ``tied``.
    Only rows ``lo .. hi-1`` are visited (``hi = -1``: to the end).

    Returns
    -------
    (n_errors, n_changes) : rows whose argmax score (lowest index on ties) differs from
    the noisy label, and the number of recorded flips.
    """
    n, Q = scores.shape
    top, tied = argmax
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
        m = _record_flips(scores, i, (best, second, n_top), alpha, member, changes, m)
    return n_errors, m


@njit(cache=True, nogil=True)
def _uma_changes_moved(scores, y_idx, member, q, r, changes, argmax):
    """``_uma_changes`` for ``alpha = 0`` after a step that moved only columns q and r.

    A row whose strict, untied best class b is neither q nor r, and still beats both
    new scores, keeps its only set A_b and its error: it is skipped in O(1).  Every other
    row is recomputed as in ``_uma_changes``.  Returns (change in n_errors, n_changes).
    """
    n, Q = scores.shape
    top, tied = argmax
    d_err = 0
    m = 0
    for i in range(n):
        b = top[i]
        if not tied[i] and b != q and b != r and scores[i, q] < scores[i, b] and scores[i, r] < scores[i, b]:
            continue
        old_err = 1 if b != y_idx[i] else 0          # ints: numpy refuses bool - bool in Python mode
        best, second, n_top = _top(scores, i)
        top[i] = best
        tied[i] = n_top > 1
        d_err += (1 if best != y_idx[i] else 0) - old_err
        m = _record_flips(scores, i, (best, second, n_top), 0.0, member, changes, m)
    return d_err, m


@njit(cache=True, nogil=True)
def _uma_apply(X, y_idx, G, changes, m, counts):
    """G[p, y_i] += sign * x_i for the m recorded flips ``changes`` (as
    :func:`_uma_changes` records them), in their order.

    ``counts[p, k]`` holds the rows in each cell; a cell that empties is set to exact
    zeros, as a fresh sum would be (rounding residues would break exact ties).
    """
    ch_row, ch_set, ch_sign = changes
    d = X.shape[1]
    for c in range(m):
        i = ch_row[c]
        p = ch_set[c]
        k = y_idx[i]
        s = ch_sign[c]
        for j in range(d):
            G[p, k, j] += s * X[i, j]
        counts[p, k] += 1 if s > 0 else -1
        if counts[p, k] == 0:
            for j in range(d):
                G[p, k, j] = 0.0


@njit(cache=True, nogil=True)
def _uma_sparse_changes(csr, y_idx, scores, step, alpha, member, changes):
    """CSR rows ``csr = (data, indices, indptr)``: apply the last step
    ``step = (z, q_prev, r_prev)`` to the two score columns (``s_q += x.z``,
    ``s_r -= x.z``; none when ``q_prev < 0``), then record every membership flip as in
    :func:`_uma_changes`.  Returns (n_errors, n_changes).
    """
    data, indices, indptr = csr
    z, q_prev, r_prev = step
    n, Q = scores.shape
    n_errors = 0
    m = 0
    for i in range(n):
        if q_prev >= 0:
            dot = 0.0
            for t in range(indptr[i], indptr[i + 1]):
                dot += data[t] * z[indices[t]]
            scores[i, q_prev] += dot
            scores[i, r_prev] -= dot
        best, second, n_top = _top(scores, i)
        if best != y_idx[i]:
            n_errors += 1
        m = _record_flips(scores, i, (best, second, n_top), alpha, member, changes, m)
    return n_errors, m


@njit(cache=True, nogil=True)
def _uma_sparse_apply(csr, y_idx, changes, m, sums, scores, rw):
    """Move the m recorded flips ``changes`` of CSR rows ``csr = (data, indices, indptr)``
    into the running sums ``sums = (G, Gt, K, GW, counts)``, keeping what the selection
    needs up to date without touching all of G:

    * ``G`` (Q*Q, d): cell ``c = p*Q + k`` holds ``sum_{i in A_p, y_i = k} x_i``, and
      ``Gt`` (d, Q*Q) the same sums feature-major (so a sparse row reads contiguous cells);
    * ``K`` (Q*Q, Q*Q): the Gram matrix ``G G^T``;
    * ``GW`` (Q*Q, Q): ``G W``, moved by the row's scores ``x_i . w_r`` (so W is not read).

    A flip of row i into (+1) or out of (-1) cell c costs O(Q^2 nnz(x_i)).  ``counts``
    holds the rows per cell: the K and GW entries of an empty cell are exact zeros, as a
    fresh sum would give (rounding residues would break exact ties in the error sets).
    ``G`` may keep a residue of order 1e-16 in an empty cell; it only reaches ``z``.
    With sample weights, ``data`` holds the weighted rows ``w_i x_i`` and ``rw`` the
    weights (``G W`` then moves by ``w_i x_i . w_r``); ``rw`` empty: every weight 1.
    """
    data, indices, indptr = csr
    ch_row, ch_set, ch_sign = changes
    G, Gt, K, GW, counts = sums
    n_cells = G.shape[0]
    Q = scores.shape[1]
    dots = np.empty(n_cells)
    for t in range(m):
        i = ch_row[t]
        c = ch_set[t] * Q + y_idx[i]
        s = ch_sign[t]
        lo = indptr[i]
        hi = indptr[i + 1]
        xx = 0.0
        for e in range(n_cells):
            dots[e] = 0.0
        for u in range(lo, hi):
            xj = data[u]
            j = indices[u]
            xx += xj * xj
            for e in range(n_cells):
                dots[e] += xj * Gt[j, e]
        for e in range(n_cells):
            if counts[e] == 0:                          # an empty cell's sum is 0 (G keeps rounding residue)
                continue
            K[c, e] += s * dots[e]
            K[e, c] += s * dots[e]
        K[c, c] += xx                                   # (g + s x).(g + s x) = g.g + 2 s g.x + x.x
        for u in range(lo, hi):
            xj = data[u]
            j = indices[u]
            G[c, j] += s * xj
            Gt[j, c] += s * xj
        wi = rw[i] if rw.shape[0] > 0 else 1.0
        for r in range(Q):
            GW[c, r] += s * wi * scores[i, r]
        counts[c] += 1 if s > 0 else -1
        if counts[c] == 0:                              # exact zeros, as a fresh sum would give
            for e in range(n_cells):
                K[c, e] = 0.0
                K[e, c] = 0.0
            for r in range(Q):
                GW[c, r] = 0.0


# ---- loss-corrected logistic regression: averaged SGD, one row at a time ---------------------

_AVG_DECAY = 3.0        # polynomial-decay averaging (Shamir & Zhang, ICML 2013), eta = 3

@njit(cache=True, nogil=True)
def _corrected_sgd_epoch(W, A, t, rows, order, Y, correction, sw, step_params, predictions):
    """One pass of averaged SGD over the rows in ``order``, on the corrected log loss.

    ``W`` (n_cols, K) is the current iterate and ``A`` its polynomial-decay average over
    the ``t`` steps so far, ``A <- A + (W - A) (e + 1) / (t + e)`` with ``e = 3`` (Shamir &
    Zhang, ICML 2013): a running mean that forgets the first, poor iterates (both updated
    in place); row ``i``'s step is
    ``W <- (1 - eta alpha) W - eta sw_i x_i g_i^T`` on the first ``n_reg`` rows of ``W``
    (the intercept row, if any, is not decayed), with ``g_i`` the gradient of the
    corrected loss with respect to the scores (see :func:`corrected_loss`).  ``rows`` is a
    :class:`~weaklabel._row_kernels.Rows`, ``correction`` ``(C, CinvT, backward, trusted)``
    (the confusion, its inverse transposed, whether the correction is backward, and the
    rows whose labels are clean: plain log loss), ``step_params`` ``(eta, alpha, n_reg)``.
    ``predictions[r]`` receives the iterate's argmax class of row ``order[r]`` before its
    step (lowest index on ties).  Returns
    ``(t, sum_i sw_i loss_i, sum_i sw_i)``: the weighted loss of each row *before* its
    step (progressive validation).
    """
    dense, is_dense, data, indices, indptr, _, intercept = rows
    C, CinvT, backward, trusted = correction
    eta, alpha, n_reg = step_params
    n_cols, K = W.shape
    z = np.empty(K)
    p = np.empty(K)
    g = np.empty(K)
    total = 0.0
    wsum = 0.0
    decay = 1.0 - eta * alpha
    # dense rows: the iterate and its average class-major for the pass (contiguous,
    # vectorised scores, steps, decay and averaging), written back at the end
    M = np.empty((K, n_cols) if is_dense else (0, 0))
    Am = np.empty((K, n_cols) if is_dense else (0, 0))
    if is_dense:                               # (loops: numba's array slice assignment compiles
        for k in range(K):                     # an error message's string formatting)
            for j in range(n_cols):
                M[k, j] = W[j, k]
                Am[k, j] = A[j, k]
    for r in range(order.shape[0]):
        i = order[r]
        w = sw[i]
        for k in range(K):
            z[k] = 0.0
        if is_dense:
            if r + 1 < order.shape[0]:
                prefetch_row(dense, order[r + 1])      # the next row's reads overlap this row's work
            _cm_scores(M, dense, i, 1.0, z)
        else:
            for s in range(indptr[i], indptr[i + 1]):
                xj = data[s]
                j = indices[s]
                for k in range(K):
                    z[k] += xj * W[j, k]
            if intercept >= 0:                   # the implicit constant feature
                for k in range(K):
                    z[k] += W[intercept, k]
        zmax = z[0]
        best = 0
        for k in range(1, K):
            if z[k] > zmax:
                zmax = z[k]
                best = k
        predictions[r] = best
        norm = 0.0
        for k in range(K):
            p[k] = np.exp(z[k] - zmax)
            norm += p[k]
        for k in range(K):
            p[k] /= norm
        loss = 0.0
        if trusted[i] or not backward:
            if trusted[i]:                       # plain log loss: g = p sum(y) - y
                ysum = 0.0
                for k in range(K):
                    ysum += Y[i, k]
                    if Y[i, k] != 0.0:
                        loss -= Y[i, k] * np.log(max(p[k], 1e-300))
                for k in range(K):
                    g[k] = p[k] * ysum - Y[i, k]
            else:                                # forward: q = C p, dL/dp_b = -sum_a y_a C_ab / q_a
                for b in range(K):
                    g[b] = 0.0
                for a in range(K):
                    if Y[i, a] != 0.0:
                        q = 0.0
                        for b in range(K):
                            q += C[a, b] * p[b]
                        q = max(q, 1e-300)
                        loss -= Y[i, a] * np.log(q)
                        r = Y[i, a] / q
                        for b in range(K):
                            g[b] -= r * C[a, b]
                dot = 0.0
                for b in range(K):
                    dot += g[b] * p[b]
                for b in range(K):
                    g[b] = p[b] * (g[b] - dot)
        else:                                    # backward: v = y C^-T, g = p sum(v) - v
            vsum = 0.0
            for b in range(K):
                v = 0.0
                for a in range(K):
                    v += Y[i, a] * CinvT[a, b]
                g[b] = -v
                vsum += v
                loss -= v * (z[b] - zmax - np.log(norm))
            for b in range(K):
                g[b] += p[b] * vsum
        total += w * loss
        wsum += w
        step = eta * w
        t += 1
        inv = (_AVG_DECAY + 1.0) / (t + _AVG_DECAY)
        if is_dense:
            _cm_sgd_step(M, Am, dense, i, decay, n_reg, step, g, inv)
            continue
        if decay != 1.0:
            for j in range(n_reg):
                for k in range(K):
                    W[j, k] *= decay
        if step != 0.0:
            for s in range(indptr[i], indptr[i + 1]):
                xj = data[s]
                j = indices[s]
                for k in range(K):
                    W[j, k] -= step * xj * g[k]
            if intercept >= 0:
                for k in range(K):
                    W[intercept, k] -= step * g[k]
        for j in range(n_cols):
            for k in range(K):
                A[j, k] += (W[j, k] - A[j, k]) * inv
    if is_dense:
        for j in range(n_cols):
            for k in range(K):
                W[j, k] = M[k, j]
                A[j, k] = Am[k, j]
    return t, total, wsum


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_sgd_step(M, Am, X, i, decay, n_reg, step, g, inv):
    """One averaged-SGD step on a dense row, class-major: ``M[:, :n_reg] *= decay``,
    ``M[k] -= step g[k] X[i]``, then ``Am += (M - Am) inv`` (each a contiguous loop)."""
    K, n_cols = M.shape
    d = X.shape[1]
    for k in range(K):
        if decay != 1.0:
            for j in range(n_reg):
                M[k, j] *= decay
        if step != 0.0:
            c = step * g[k]
            for j in range(d):
                M[k, j] -= c * X[i, j]
            if n_cols > d:                       # the implicit constant feature
                M[k, d] -= c
        for j in range(n_cols):
            Am[k, j] += (M[k, j] - Am[k, j]) * inv


@njit(cache=True, nogil=True)
def _forward_corrected(Z, Y, C, w, trusted):
    """The forward-corrected log loss of scores ``Z`` and its gradient in ``Z``, summed with
    the row weights ``w`` (not yet divided by their sum), row by row.

    Row ``i``: ``p = softmax(Z_i)``, ``q = C p`` (``q = p`` on a ``trusted`` row; an empty
    ``trusted`` trusts none), floored at 1e-300; the loss ``-w_i sum_a Y_ia log q_a``; with
    ``g = -w_i C' (Y_i / q)`` (``-w_i Y_i / q`` when trusted), the gradient ``p (g - g.p)``.
    :func:`weaklabel.noisy.corrected_loss` computed these as a dozen numpy passes over
    ``(n, K)`` arrays (a logsumexp, two exponentials, two products by ``C``, a logarithm of
    every entry), most of CorrectedLogistic's time.
    """
    n, K = Z.shape
    grad = np.empty((n, K))
    p = np.empty(K)
    r = np.empty(K)
    loss = 0.0
    any_trusted = trusted.size > 0
    for i in range(n):
        m = Z[i, 0]
        for k in range(1, K):
            if Z[i, k] > m:
                m = Z[i, k]
        s = 0.0
        for k in range(K):
            p[k] = np.exp(Z[i, k] - m)
            s += p[k]
        for k in range(K):
            p[k] /= s
        plain = any_trusted and trusted[i]
        row = 0.0
        for a in range(K):
            if plain:
                qa = p[a]
            else:
                qa = 0.0
                for k in range(K):
                    qa += C[a, k] * p[k]
            qa = max(qa, 1e-300)
            r[a] = Y[i, a] / qa
            if Y[i, a] != 0.0:
                row += Y[i, a] * np.log(qa)
        loss -= w[i] * row
        gp = 0.0
        for k in range(K):
            if plain:
                gk = r[k]
            else:
                gk = 0.0
                for a in range(K):
                    gk += r[a] * C[a, k]
            gk *= -w[i]
            grad[i, k] = gk
            gp += gk * p[k]
        for k in range(K):
            grad[i, k] = p[k] * (grad[i, k] - gp)
    return loss, grad
