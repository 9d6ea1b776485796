"""Row kernels shared by every online learner (numba, inlined into the epoch kernels).

Weights are ``W`` of shape (n_features, n_classes): feature-major for sparse rows, so a
sparse row touches ``nnz`` contiguous blocks of ``n_classes`` values; a pass over dense
rows works on the class-major view (``_cm_*`` helpers; the estimators keep such weights
in F order, :func:`_pass_matrix`).  A row is read either from a
dense C-contiguous array or from CSR ``(data, indices, indptr)``; ties in an argmax go
to the lowest index.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ._intrinsics import ALIGN


#: the rows a kernel reads, as one value: a dense C-contiguous ``dense`` (``is_dense``) or
#: CSR ``(data, indices, indptr)``, the other form an empty dummy; ``limits`` is
#: ``(hi, lo, tiny)``, the range check a dense pass makes of each row as it reads it (see
#: :func:`_dense_row_in_range`; rows the input check has already passed carry
#: :data:`NO_LIMITS`); ``intercept`` is the index of an implicit constant feature 1 after
#: the row's own (the weights' last row, the intercept), or -1 for none: the rows are read
#: as if that column were appended, without a copy of ``X``.  The dense helpers below see
#: it as weights one feature wider than the rows.  :func:`weaklabel.linear.kernel_rows`
#: builds it once per call.  The estimators pass it (and the kernels' other namedtuples) to a
#: kernel as a plain tuple of its fields, which the kernel rebuilds (``rows = Rows(*rows)``,
#: free once compiled): numba's dispatcher types a plain tuple in compiled code, a namedtuple
#: in Python (about 0.6 us more per argument, a call's cost in a stream of short calls).
Rows = namedtuple("Rows", "dense is_dense data indices indptr limits intercept")
#: the limits of rows already checked: every finite squared norm passes
NO_LIMITS = (np.inf, 0.0, 0.0)


def _cast_to(arr, x):
    """``x`` as a scalar of ``arr``'s dtype (in numba, chosen when the kernel is compiled).

    Call it from the small row helpers (``_cm_*``), not in the body of a pass that also
    inlines functions marked ``inline="always"``: there (numba 0.6x) it once left a pass's
    history unwritten, compiled, while the Python reading was right.
    """
    return arr.dtype.type(x)


@overload(_cast_to, inline="always")
def _cast_to_impl(arr, x):
    if isinstance(arr, types.Array) and arr.dtype == types.float32:
        return lambda arr, x: np.float32(x)
    return lambda arr, x: np.float64(x)


@njit(cache=True, nogil=True, inline="always")
def _row_nonzeros(rows, i, nz_val, nz_idx):
    """Row ``i``'s nonzero (value, feature) pairs: a view of CSR, or a branch-free
    compaction of a dense row into the buffers. Returns their count.
    """
    X_dense, is_dense, data, indices, indptr, _, intercept = rows
    if is_dense:
        cnt = 0
        for j in range(X_dense.shape[1]):
            xj = X_dense[i, j]
            nz_val[cnt] = xj
            nz_idx[cnt] = j
            cnt += xj != 0.0
    else:
        lo = indptr[i]
        cnt = indptr[i + 1] - lo
        for p in range(cnt):
            nz_val[p] = data[lo + p]
            nz_idx[p] = indices[lo + p]
    if intercept >= 0:                      # the implicit constant feature, last
        nz_val[cnt] = 1.0
        nz_idx[cnt] = intercept
        cnt += 1
    return cnt

@njit(cache=True, nogil=True, inline="always")
def _row_scores(W, scale, nz_val, nz_idx, cnt, scores):
    n_classes = W.shape[1]
    for k in range(n_classes):
        scores[k] = 0.0
    for p in range(cnt):
        xj = nz_val[p]
        j = nz_idx[p]
        for k in range(n_classes):
            scores[k] += xj * W[j, k]
    if scale != 1.0:
        for k in range(n_classes):
            scores[k] *= scale

@njit(cache=True, nogil=True, inline="always")
def _row_update(W, nz_val, nz_idx, cnt, upd_k, upd_c, n_upd, track_norm):
    """W[:, upd_k[u]] += upd_c[u] * x for u < n_upd; returns the change of ||W||_F^2."""
    dnorm = 0.0
    for p in range(cnt):
        xj = nz_val[p]
        j = nz_idx[p]
        for u in range(n_upd):
            k = upd_k[u]
            delta = upd_c[u] * xj
            if track_norm:
                dnorm += delta * (2.0 * W[j, k] + delta)
            W[j, k] += delta
    return dnorm

@njit(cache=True, nogil=True, inline="always")
def _argmax(v):
    best = 0
    for k in range(1, v.shape[0]):
        if v[k] > v[best]:
            best = k
    return best


# ---- the dense fast path: weights class-major (n_classes, n_features) during a pass ----------
#: the floating-point liberties of the dense path: sums may be reassociated (vectorised) and
#: multiply-adds fused; NaN and infinities keep their meaning
DENSE_FASTMATH = {"reassoc", "contract", "nsz"}


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_scores(Wt, X, i, scale, scores):
    """``scores[k] = scale * Wt[k] . X[i]`` for a dense row, ``Wt`` class-major: one
    contiguous, vectorised dot product per class.  Returns ``||X[i]||^2`` (of the row's own
    features).  ``Wt`` one column wider than ``X``: the implicit constant feature 1 (the
    intercept) is added to every score."""
    n_classes = Wt.shape[0]
    d = X.shape[1]
    # each sum starts from a zero of the operands' dtype, so it is accumulated in the rows'
    # and weights' own precision (float32 rows and weights: float32 lanes, twice as many
    # per vector).  (Starting from the first term instead let LLVM reassociate the scale
    # into the product differently for different classes, so classes with equal weights
    # could score apart and break a tie away from the lowest index.)
    nsq = _cast_to(X, 0.0)
    for j in range(d):
        xj = X[i, j]
        nsq += xj * xj
    # four or five classes a loop: each element of the row is loaded once for four (five)
    # products (one class a loop loads two operands a product, and the loads, not the
    # multiply-adds, set the pace).  The last block repeats the last class, so that every
    # class of a call is computed by the same loop, in the same order: classes with equal
    # weights score equal to the bit.  Five a loop when that repeats fewer classes (ten
    # classes: two blocks of five instead of three of four, two of them repeats).
    last = n_classes - 1
    if (-n_classes) % 5 <= (-n_classes) % 4:
        for k in range(0, n_classes, 5):
            k1, k2, k3, k4 = min(k + 1, last), min(k + 2, last), min(k + 3, last), min(k + 4, last)
            s0 = _cast_to(Wt, 0.0)
            s1 = _cast_to(Wt, 0.0)
            s2 = _cast_to(Wt, 0.0)
            s3 = _cast_to(Wt, 0.0)
            s4 = _cast_to(Wt, 0.0)
            for j in range(d):
                xj = X[i, j]
                s0 += Wt[k, j] * xj
                s1 += Wt[k1, j] * xj
                s2 += Wt[k2, j] * xj
                s3 += Wt[k3, j] * xj
                s4 += Wt[k4, j] * xj
            if Wt.shape[1] > d:             # the implicit constant feature (the intercept)
                s0, s1, s2 = s0 + Wt[k, d], s1 + Wt[k1, d], s2 + Wt[k2, d]
                s3, s4 = s3 + Wt[k3, d], s4 + Wt[k4, d]
            if scale != 1.0:
                s0, s1, s2, s3, s4 = s0 * scale, s1 * scale, s2 * scale, s3 * scale, s4 * scale
            scores[k4] = s4
            scores[k3] = s3
            scores[k2] = s2
            scores[k1] = s1
            scores[k] = s0
        return np.float64(nsq)
    for k in range(0, n_classes, 4):
        k1, k2, k3 = min(k + 1, last), min(k + 2, last), min(k + 3, last)
        s0 = _cast_to(Wt, 0.0)
        s1 = _cast_to(Wt, 0.0)
        s2 = _cast_to(Wt, 0.0)
        s3 = _cast_to(Wt, 0.0)
        for j in range(d):
            xj = X[i, j]
            s0 += Wt[k, j] * xj
            s1 += Wt[k1, j] * xj
            s2 += Wt[k2, j] * xj
            s3 += Wt[k3, j] * xj
        if Wt.shape[1] > d:                 # the implicit constant feature (the intercept)
            s0, s1, s2, s3 = s0 + Wt[k, d], s1 + Wt[k1, d], s2 + Wt[k2, d], s3 + Wt[k3, d]
        if scale != 1.0:
            s0, s1, s2, s3 = s0 * scale, s1 * scale, s2 * scale, s3 * scale
        scores[k3] = s3
        scores[k2] = s2
        scores[k1] = s1
        scores[k] = s0
    return np.float64(nsq)


@njit(cache=True, nogil=True, inline="always")
def _dense_row_in_range(X, i, nsq, limits):
    """Whether dense row ``X[i]``, of squared norm ``nsq`` (as :func:`_cm_scores` returns it),
    passes the input check the pass was handed (``limits = (hi, lo, tiny)``): ``nsq <= hi``
    (no NaN, no infinity, nothing too large to square) and, when ``nsq < lo``, no nonzero
    value below ``tiny`` in magnitude (a squared norm that underflows).  A pass that meets a
    row out of range stops before it changes anything with it, and the caller runs the exact
    check of every row (which names the first bad one).  It is the check of
    :func:`weaklabel._validation.checked_squared_norm`, made while the row is in cache.
    """
    hi, lo, tiny = limits
    if not nsq <= hi:
        return False
    if nsq < lo:
        for j in range(X.shape[1]):
            v = X[i, j]
            if v != 0.0 and abs(v) < tiny:
                return False
    return True


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_update(Wt, X, i, upd_k, upd_c, n_upd, track_norm):
    """``Wt[upd_k[u]] += upd_c[u] * X[i]`` for u < n_upd (class-major, dense row), each a
    contiguous axpy; returns the change of ``||Wt||_F^2`` when ``track_norm``.  With
    float32 ``Wt``, ``X`` and ``upd_c`` every operation is in float32.  ``Wt`` one column
    wider than ``X``: the implicit constant feature 1 (the intercept)."""
    d = X.shape[1]
    dnorm = 0.0
    for u in range(n_upd):
        k = upd_k[u]
        c = upd_c[u]
        if track_norm:
            dk = _cast_to(Wt, 0.0)                           # in the weights' precision
            for j in range(d):
                delta = c * X[i, j]
                dk += delta * (Wt[k, j] + Wt[k, j] + delta)
                Wt[k, j] += delta
            if Wt.shape[1] > d:
                dk += c * (Wt[k, d] + Wt[k, d] + c)
                Wt[k, d] += c
            dnorm += dk
        else:
            for j in range(d):
                Wt[k, j] += c * X[i, j]
            if Wt.shape[1] > d:
                Wt[k, d] += c
    return dnorm


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_update_pair(Wt, At, X, i, upd_k, upd_c, upd_a, n_upd):
    """``Wt[upd_k[u]] += upd_c[u] * X[i]`` and ``At[upd_k[u]] += upd_a[u] * X[i]`` for u <
    n_upd (class-major, dense row): :func:`_cm_update` on two matrices at once (averaged
    Banditron's weights and their accumulator), one sweep of the row a class instead of two;
    every entry gets the same operations in the same order as two calls would give it."""
    d = X.shape[1]
    for u in range(n_upd):
        k = upd_k[u]
        c = upd_c[u]
        a = upd_a[u]
        for j in range(d):
            x = X[i, j]
            Wt[k, j] += c * x
            At[k, j] += a * x
        if Wt.shape[1] > d:
            Wt[k, d] += c
            At[k, d] += a


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_dot(v, X, i):
    """``v . X[i]`` for a dense row, accumulated in the operands' precision (vectorised);
    ``v`` one longer than the row: the implicit constant feature."""
    d = X.shape[1]
    s = _cast_to(v, 0.0)
    for j in range(d):
        s += v[j] * X[i, j]
    if v.shape[0] > d:
        s += v[d]
    return np.float64(s)


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_axpy(v, c, X, i):
    """``v += c * X[i]`` for a dense row, ``c`` cast to ``v``'s precision (vectorised);
    ``v`` one longer than the row: the implicit constant feature."""
    d = X.shape[1]
    c_v = _cast_to(v, c)
    for j in range(d):
        v[j] += c_v * X[i, j]
    if v.shape[0] > d:
        v[d] += c_v


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _total(A):
    """The sum of a C-contiguous 2-D array's entries, vectorised (a NaN or an infinity among
    them makes it NaN or infinite: the engine's finiteness check of the weights after every
    call, which numpy's ``A.sum()`` made in about 1 us on a small model)."""
    flat = A.reshape(-1)
    total = 0.0
    for p in range(flat.shape[0]):
        total += flat[p]
    return total


def _pass_matrix(W, class_major, X):
    """The class-major matrix a pass over the dense rows ``X`` updates, in their precision:
    ``W`` itself when it is class-major (``class_major``: ``W`` is (n_classes, n_features),
    the transposed view of weights kept in F order), of ``X``'s dtype and starts on a 64-byte
    boundary (:data:`ALIGN`; the estimators keep it so, :func:`weaklabel.linear._weights_layout`);
    otherwise a class-major copy cast to ``X``'s dtype, which :func:`_write_back` writes back
    at the end.  (In numba the form is chosen when the pass is compiled, by ``X``'s dtype.)
    """
    if class_major and X.dtype == W.dtype:
        return W if W.ctypes.data % ALIGN == 0 else W.copy()
    if class_major:
        return W.astype(X.dtype)
    M = np.empty((W.shape[1], W.shape[0]), dtype=X.dtype)
    _to_class_major(W, M)
    return M


@overload(_pass_matrix)
def _pass_matrix_impl(W, class_major, X):
    if X.dtype == W.dtype:
        def same(W, class_major, X):
            if class_major:
                if W.ctypes.data % ALIGN == 0:
                    return W
                return W.copy()        # numba aligns an allocation of this size
            M = np.empty((W.shape[1], W.shape[0]), dtype=W.dtype)
            _to_class_major(W, M)
            return M
        return same
    dtype = X.dtype

    def cast(W, class_major, X):
        if class_major:
            M = np.empty(W.shape, dtype=dtype)
            for k in range(W.shape[0]):
                for j in range(W.shape[1]):
                    M[k, j] = W[k, j]
            return M
        M = np.empty((W.shape[1], W.shape[0]), dtype=dtype)
        _to_class_major(W, M)
        return M
    return cast


@njit(cache=True, nogil=True)
def _write_back(M, W, class_major):
    """The end of a dense pass: the class-major matrix :func:`_pass_matrix` gave written into
    the weights ``W`` (nothing when it is ``W`` itself)."""
    if class_major:
        if M.ctypes.data != W.ctypes.data:
            for k in range(W.shape[0]):
                for j in range(W.shape[1]):
                    W[k, j] = M[k, j]
    else:
        _from_class_major(M, W)


@njit(cache=True, nogil=True, inline="always")
def _to_class_major(W, M):
    """``M[:, :] = W.T`` (feature-major weights into the pass's class-major copy, cast to its
    precision), as an explicit loop: numba's strided slice assignment took about 30 % longer,
    and a stream of short calls pays the copy and :func:`_from_class_major` every call."""
    for k in range(M.shape[0]):
        for j in range(M.shape[1]):
            M[k, j] = W[j, k]


@njit(cache=True, nogil=True, inline="always")
def _from_class_major(M, W):
    """``W[:, :] = M.T``: the pass's class-major weights written back (see
    :func:`_to_class_major`)."""
    for j in range(W.shape[0]):
        for k in range(W.shape[1]):
            W[j, k] = M[k, j]
