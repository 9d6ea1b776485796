"""Numba kernels for the candidate-label online learners.

Weights are ``W`` of shape (n_features, n_classes), feature-major for sparse rows (a
sparse row touches ``nnz`` contiguous blocks of ``n_classes`` values) and passed as their
class-major view for dense ones (see :func:`_candidate_epoch`).  Pegasos keeps
the true weights as ``scale * W`` so that the L2 shrink of every round costs O(1); the
squared Frobenius norm of ``W`` is kept up to date in O(|touched classes| * nnz) per
update so the projection costs O(1) as well.

Only arrays and scalars cross the boundary; the visiting order (a permutation made
in Python) is passed in, so no RNG runs inside a kernel.  Ties in every argmax go to
the lowest class index.
"""

import numpy as np
from numba import njit

from .._intrinsics import prefetch_row
from .._row_kernels import Rows, _cm_scores, _cm_update, _dense_row_in_range, _pass_matrix, _row_nonzeros, _row_scores, _row_update, _write_back

# update rules
RULE_AVG = 0          # average prediction hinge loss (Eq. 2 / Eq. 4), step 1/|Y|
RULE_MAX = 1          # max prediction hinge loss (Eq. 3 / Eq. 5)
RULE_MISTAKE = 2      # classic multiclass Perceptron: update when argmax != y

# Fold the scale back into W only when it gets this small: precision does not depend
# on magnitude, and |W| <= radius / 1e-80 keeps ||W||^2 far from overflow.
_FOLD_BELOW = 1e-80
#: the same for float32 weights (a float32 pass on float32 rows): |W| / 1e-12 stays far
#: below float32's overflow even squared
_FOLD_BELOW_32 = 1e-12


@njit(cache=True, nogil=True, inline="always")
def _fold_scale(A, scale):
    """``A *= scale`` (all zero when ``scale == 0``); returns ``||A||_F^2`` afterwards."""
    # (a loop: numba compiles ``A *= scale`` as an array expression, with its broadcasting;
    # the sum reads the stored values, in A's precision, as it did)
    normsq = 0.0
    for a in range(A.shape[0]):
        for b in range(A.shape[1]):
            A[a, b] = A[a, b] * scale if scale != 0.0 else 0.0
            normsq += A[a, b] * A[a, b]
    return normsq


@njit(cache=True, nogil=True)
def _squared_norm(W, class_major):
    """``||W||_F^2`` of the weights, the same number whatever their layout: each class's sum of
    squares over the features in order, then those sums over the classes in order, without
    reassociation.  ``W`` is (n_features, n_classes) C-contiguous, or with ``class_major``
    its class-major view (n_classes, n_features).  A model's state after a call is then a
    function of its weights alone, so a saved and loaded model (whose weights come back
    feature-major) continues exactly as the original (class-major) does.  A stream of short
    ``partial_fit`` calls reads it after each (numpy's ``np.sum(W * W)`` made a temporary and
    took 3 us).
    """
    total = 0.0
    if class_major:
        K, d = W.shape
        b = 0
        while b + 4 <= K:                   # four classes' sums side by side (each in order)
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            for a in range(d):
                s0 += W[b, a] * W[b, a]
                s1 += W[b + 1, a] * W[b + 1, a]
                s2 += W[b + 2, a] * W[b + 2, a]
                s3 += W[b + 3, a] * W[b + 3, a]
            total += s0
            total += s1
            total += s2
            total += s3
            b += 4
        while b < K:
            s0 = 0.0
            for a in range(d):
                s0 += W[b, a] * W[b, a]
            total += s0
            b += 1
        return total
    d, K = W.shape
    sums = np.zeros(K)
    for a in range(d):                      # the classes' sums side by side, each in order
        for b in range(K):
            sums[b] += W[a, b] * W[a, b]
    for b in range(K):
        total += sums[b]
    return total


@njit(cache=True, nogil=True)
def _folded_squared_norm(W, class_major, scale):
    """Pegasos after a call's epochs: the lazy ``scale`` folded back into the weights (each
    entry times it, as numpy's ``W *= scale``), then :func:`_squared_norm` of the result
    (``W`` and ``class_major`` as there): one call where there were two."""
    if scale != 1.0:
        flat = W.reshape(-1)
        for p in range(flat.shape[0]):
            flat[p] *= scale
    return _squared_norm(W, class_major)


@njit(cache=True, nogil=True)
def _candidate_epoch(weights, state, rows, S, order, rule_params, predictions, sw):
    """One pass of an online candidate-label learner over the rows in ``order``.

    Parameters
    ----------
    weights : ``(W, class_major)``: float64 weights, updated in place; true weights are
        scale * W.  ``W`` is (n_features, n_classes), or with ``class_major`` its transposed
        view (n_classes, n_features), C-contiguous (the estimator keeps the weights in F
        order for dense rows: the pass then updates them in place, no copy).  Sparse rows
        need the feature-major form.  A pass on dense rows in the other form, or on float32
        rows, runs on a class-major copy in the rows' precision, written back at its end.
    state : ``(scale, normsq, t)``, the scale factor, ||W||_F^2 and the Pegasos round counter.
    rows : Rows, dense or CSR (:func:`weaklabel.linear.kernel_rows`), or its fields as a plain tuple.
    S : bool array (n_samples, n_classes), candidate sets.
    order : int array, rows to visit in order.
    rule_params : ``(rule, pegasos, eta, alpha)``: RULE_AVG, RULE_MAX or RULE_MISTAKE;
        Pegasos steps (eta_t = 1/(alpha t), shrink, projection) instead of the fixed step
        ``eta``; Pegasos' regularisation ``alpha``.
    predictions : int array (len(order),), filled with argmax_k score before each update.
    sw : float array, sample weights (each row's step is multiplied by ``sw[i]``); empty: all 1.

    Returns
    -------
    scale, normsq, t, n_updates
        ``n_updates`` is -1 when a dense row fails ``rows.limits``: the pass stopped at it
        (the weights then hold the rows before it when updated in place; a copy is not
        written back: the caller puts the weights back either way).
    """
    rows = Rows(*rows)                 # a plain tuple crosses the boundary (see _row_kernels.Rows)
    W, class_major = weights
    scale, normsq, t = state
    rule, pegasos, eta, alpha = rule_params
    n_classes = W.shape[0] if class_major else W.shape[1]
    scores = np.empty(n_classes)
    raw = np.empty(n_classes)        # dense rows: M[k] . x, before the scale
    dense = rows.is_dense
    # dense rows: the weights class-major for the pass (contiguous, vectorised dot products
    # and updates) in the rows' precision: W itself when it is class-major and the rows are
    # float64, else a copy written back at the end (float32 rows are learned in float32, the
    # steps too; W itself stays float64).  Sparse rows update W in place (M is then empty).
    M = _pass_matrix(W, class_major, rows.dense) if dense else np.empty((0, 0), dtype=rows.dense.dtype)
    # Pegasos keeps the weights divided by scale: fold the scale in before the precision
    # of the matrix the pass updates could overflow
    fold_below = _FOLD_BELOW if (M.itemsize == 8 or not dense) else _FOLD_BELOW_32
    width = 0 if dense else W.shape[0]        # (sparse rows: W is feature-major)
    nz_val = np.empty(width, dtype=W.dtype)
    nz_idx = np.empty(width, dtype=np.int64)
    upd_k = np.empty(n_classes, dtype=np.int64)
    upd_c = np.empty(n_classes)
    upd_m = np.empty(n_classes, dtype=M.dtype)     # the steps in M's precision
    radius = 1.0 / np.sqrt(alpha) if pegasos else 0.0
    n_updates = 0
    weighted = sw.shape[0] > 0
    for r in range(order.shape[0]):
        i = order[r]
        wi = sw[i] if weighted else 1.0
        if dense:
            if r + 1 < order.shape[0]:
                prefetch_row(rows.dense, order[r + 1])   # the next row's reads overlap this row's work
            cnt = 0
            nsq = _cm_scores(M, rows.dense, i, 1.0, raw)
            if not _dense_row_in_range(rows.dense, i, nsq, rows.limits):
                return scale, normsq, t, -1            # a row out of range: stop, W unchanged
            if rows.intercept >= 0:
                nsq += 1.0                             # the implicit constant feature
            for k in range(n_classes):
                scores[k] = raw[k] * scale if scale != 1.0 else raw[k]
        else:
            cnt = _row_nonzeros(rows, i, nz_val, nz_idx)
            _row_scores(W, scale, nz_val, nz_idx, cnt, scores)

        # prediction over all classes, lowest index on ties
        yhat = 0
        for k in range(1, n_classes):
            if scores[k] > scores[yhat]:
                yhat = k
        predictions[r] = yhat

        # loss and the classes it moves
        n_upd = 0
        n_in = 0
        mean_in = 0.0
        best_in = -1
        best_out = -1
        for k in range(n_classes):
            if S[i, k]:
                n_in += 1
                mean_in += scores[k]
                if best_in < 0 or scores[k] > scores[best_in]:
                    best_in = k
            elif best_out < 0 or scores[k] > scores[best_out]:
                best_out = k
        if rule == RULE_MISTAKE:
            if yhat != best_in:
                upd_k[0] = best_in
                upd_c[0] = 1.0
                upd_k[1] = yhat
                upd_c[1] = -1.0
                n_upd = 2
        elif best_out >= 0:           # a set holding every class gives no loss
            if rule == RULE_AVG:
                mean_in /= n_in
                if 1.0 - mean_in + scores[best_out] > 0.0:
                    inv = 1.0 / n_in
                    for k in range(n_classes):
                        if S[i, k]:
                            upd_k[n_upd] = k
                            upd_c[n_upd] = inv
                            n_upd += 1
                    upd_k[n_upd] = best_out
                    upd_c[n_upd] = -1.0
                    n_upd += 1
            else:
                if 1.0 - scores[best_in] + scores[best_out] > 0.0:
                    upd_k[0] = best_in
                    upd_c[0] = 1.0
                    upd_k[1] = best_out
                    upd_c[1] = -1.0
                    n_upd = 2

        if wi == 0.0:
            n_upd = 0                         # a round without a step (Pegasos still shrinks)
        if pegasos:
            eta_t = 1.0 / (alpha * t)
            scale *= 1.0 - eta_t * alpha      # the shrink happens every round
            folded = 1.0
            if scale < fold_below:           # also t == 1, where the shrink gives 0
                normsq = _fold_scale(M, scale) if dense else _fold_scale(W, scale)
                folded = scale
                scale = 1.0
            if n_upd > 0:
                step = eta_t * wi / scale
                for u in range(n_upd):
                    upd_c[u] *= step
                if dense:
                    for u in range(n_upd):  # (a loop: numba's array slice assignment compiles a message)
                        upd_m[u] = upd_c[u]
                    _cm_update(M, rows.dense, i, upd_k, upd_m, n_upd, False)
                    # ||M[k] + c x||^2 - ||M[k]||^2 = 2 c (M[k] . x) + c^2 ||x||^2, and M[k] . x
                    # is the row's raw score (times the fold): no second pass over the row
                    for u in range(n_upd):
                        c = np.float64(upd_m[u])
                        normsq += c * (2.0 * raw[upd_k[u]] * folded + c * nsq)
                else:
                    normsq += _row_update(W, nz_val, nz_idx, cnt, upd_k, upd_c, n_upd, True)
                if normsq < 0.0:
                    normsq = 0.0
                n_updates += 1
            norm = scale * np.sqrt(normsq)
            if norm > radius:
                scale *= radius / norm
        elif n_upd > 0:
            for u in range(n_upd):
                upd_c[u] *= eta * wi
            if dense:
                for u in range(n_upd):
                    upd_m[u] = upd_c[u]
                _cm_update(M, rows.dense, i, upd_k, upd_m, n_upd, False)
            else:
                _row_update(W, nz_val, nz_idx, cnt, upd_k, upd_c, n_upd, False)
            n_updates += 1
        t += 1.0
    if dense:
        _write_back(M, W, class_major)
    return scale, normsq, t, n_updates


@njit(cache=True, nogil=True, fastmath=True)
def _shift_by_row_max(Z, M, D):
    """``M[i] = max_a Z[i, a]`` and ``D = Z - M[:, None]``."""
    n, K = Z.shape
    for i in range(n):
        m = Z[i, 0]
        for a in range(1, K):
            m = max(m, Z[i, a])
        M[i] = m
        for a in range(K):
            D[i, a] = Z[i, a] - m


@njit(cache=True, nogil=True, fastmath=True)
def _weighted_cross_entropy(Z, M, Q, w, scale, G):
    """``scale`` times the sum over rows of ``w_i * -sum_a Q_ia log softmax(Z_i)_a``.

    ``M`` holds each row's largest score and ``G`` enters holding ``exp(Z - M)`` (taken by
    :func:`weaklabel._fastexp.exp_nonpositive`, vectorised, several times faster than a
    scalar exponential per class here); ``G`` leaves holding the gradient of the returned
    value in ``Z``.
    """
    n, K = Z.shape
    value = 0.0
    for i in range(n):
        s = 0.0
        qsum = 0.0
        qz = 0.0
        for a in range(K):
            s += G[i, a]
            q = Q[i, a]
            qsum += q
            qz += q * Z[i, a]
        lse = M[i] + np.log(s)
        c = w[i] * scale
        value += c * (qsum * lse - qz)
        f = qsum / s * c
        for a in range(K):
            G[i, a] = G[i, a] * f - Q[i, a] * c
    return value


@njit(cache=True, nogil=True)
def _candidate_softmax(Z, S, Q):
    """``Q`` = ``softmax(Z)`` restricted to the candidate sets ``S`` (bool) and
    renormalised per row; the best candidate is ``exp(0)``, so nothing underflows to an
    empty row.  Only the candidates' exponentials are taken.
    """
    n, K = Z.shape
    for i in range(n):
        m = -np.inf
        for a in range(K):
            Q[i, a] = 0.0
            if S[i, a] and Z[i, a] > m:
                m = Z[i, a]
        s = 0.0
        for a in range(K):
            if S[i, a]:
                e = np.exp(Z[i, a] - m)
                Q[i, a] = e
                s += e
        for a in range(K):
            Q[i, a] /= s


@njit(cache=True, nogil=True)
def _cc_from_exp(Z, M, S, w, G):
    """The candidate likelihood of :func:`weaklabel.partial.candidate_likelihood_loss`, row by
    row: returns ``sum_i w_i (logsumexp(Z_i) - logsumexp(Z_i over S_i))`` and writes its
    gradient ``w_i (softmax(Z_i) - softmax of Z_i restricted to S_i)`` into ``G``.

    ``M`` holds each row's largest score and ``G`` enters holding ``exp(Z - M)`` (one
    vectorised exponential a score, :func:`weaklabel._fastexp.exp_nonpositive`): both sums
    are read from it, since ``exp(Z_a - m_S) / sum_S exp(Z - m_S)`` is
    ``exp(Z_a - M) / sum_S exp(Z - M)``.  A row whose best candidate is more than 600 below
    its best score takes the candidates' exponentials afresh, shifted by their own maximum,
    as scipy's ``logsumexp`` would: there the candidates' sum would be within a few
    hundred powers of ten of the exponential's floor (``exp(-700)``, which the classes
    below it read), whose share of the sum must stay under the last place of a double.
    ``w`` sums to 1.
    """
    n, K = Z.shape
    total = 0.0
    for i in range(n):
        se = 0.0
        s_in = 0.0
        mi = -np.inf
        for a in range(K):
            e = G[i, a]
            se += e
            if S[i, a]:
                s_in += e
                if Z[i, a] > mi:
                    mi = Z[i, a]
        wi = w[i]
        if mi - M[i] > -600.0:
            total += wi * (np.log(se) - np.log(s_in))
            f, f_in = wi / se, wi / s_in
            for a in range(K):
                g = G[i, a] * f
                if S[i, a]:
                    g -= G[i, a] * f_in
                G[i, a] = g
        else:
            si = 0.0
            for a in range(K):
                if S[i, a]:
                    si += np.exp(Z[i, a] - mi)
            total += wi * ((M[i] + np.log(se)) - (mi + np.log(si)))
            f = wi / se
            for a in range(K):
                g = G[i, a] * f
                if S[i, a]:
                    g -= wi * np.exp(Z[i, a] - mi) / si
                G[i, a] = g
    return total


@njit(cache=True, nogil=True, inline="always")
def _psi_and_slope(u, hinge):
    """CLPL's ``psi(u)`` and ``psi'(u)``: the squared hinge ``max(0, 1 - u)^2`` or the
    logistic ``log(1 + exp(-u))``, the latter without overflow for large ``|u|``."""
    if hinge:
        m = 1.0 - u
        if m <= 0.0:
            return 0.0, 0.0
        return m * m, -2.0 * m
    if u > 0.0:
        e = np.exp(-u)
        return np.log1p(e), -e / (1.0 + e)
    e = np.exp(u)
    return -u + np.log1p(e), -1.0 / (1.0 + e)


@njit(cache=True, nogil=True)
def _clpl_loss_grad(Z, S, hinge, w, G):
    """The CLPL loss of :func:`weaklabel.partial._clpl.clpl_loss`, row by row in one pass:
    returns ``sum_i w_i (psi(mean of Z_i over S_i) + sum_{a not in S_i} psi(-Z_ia))`` and
    writes its gradient in ``Z`` into ``G``.  ``w`` sums to 1 (the mean's weights)."""
    n, K = Z.shape
    total = 0.0
    for i in range(n):
        size = 0
        s = 0.0
        for a in range(K):
            if S[i, a]:
                size += 1
                s += Z[i, a]
        wi = w[i]
        p_in, d_in = _psi_and_slope(s / size, hinge)
        row = p_in
        g_in = wi * d_in / size
        if hinge:                        # psi(-z) = max(0, 1 + z)^2, without a call per class
            for a in range(K):
                m = 1.0 + Z[i, a]
                if S[i, a]:
                    G[i, a] = g_in
                elif m > 0.0:
                    row += m * m
                    G[i, a] = 2.0 * wi * m
                else:
                    G[i, a] = 0.0
        else:
            for a in range(K):
                if S[i, a]:
                    G[i, a] = g_in
                else:
                    p, d = _psi_and_slope(-Z[i, a], hinge)
                    row += p
                    G[i, a] = -wi * d
        total += wi * row
    return total
