"""Input validation shared by every weaklabel estimator and container (a leaf module).

Estimator parameters are declared in each estimator's ``_parameter_constraints`` with
scikit-learn's constraint objects (the shorthands below) and checked by
``_validate_params()`` at the top of ``fit`` or of the first ``partial_fit``.  The
functions here check data and function arguments.  Every check raises ``ValueError``
or ``TypeError`` with a message that names the argument, what was expected and what
arrived.  None of them mutates its input.
"""

from __future__ import annotations

import copy
import functools
import math
import numbers
import os

import numpy as np
import scipy.sparse as sp
from numba import njit
# scikit-learn's private API is imported here only, so that one module meets its changes
from sklearn.utils import _safe_indexing as safe_indexing  # noqa: F401  (re-exported)
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params  # noqa: F401
from sklearn.utils.validation import _check_sample_weight
from sklearn.utils.validation import validate_data

__all__ = [
    "check_X",
    "canonical_sparse",
    "transactional",
    "check_int_at_least",
    "check_X_values",
    "check_X_finite",
    "ROW_LIMITS",
    "checked_squared_norm",
    "describe_rows",
    "ROW_SCALE",
    "row_scale_of",
    "DataScaleWarning",
    "read_only",
]

#: scikit-learn parameter constraints used across the estimators (``_parameter_constraints``)
POSITIVE = Interval(numbers.Real, 0, np.inf, closed="neither")        # finite, > 0
NON_NEGATIVE = Interval(numbers.Real, 0, np.inf, closed="left")      # finite, >= 0
AT_LEAST_1 = Interval(numbers.Integral, 1, None, closed="left")
UNIT_OPEN = Interval(numbers.Real, 0, 1, closed="neither")           # (0, 1)
#: a ``row_scale`` parameter: "auto" or a positive number
ROW_SCALE = [StrOptions({"auto"}), POSITIVE]


class EvenInt(Interval):
    """A parameter constraint: an even int of at least ``low`` (a scikit-learn ``Interval``)."""

    def __init__(self, low):
        super().__init__(numbers.Integral, low, None, closed="left")

    def is_satisfied_by(self, val):
        return super().is_satisfied_by(val) and val % 2 == 0

    def __str__(self):
        return f"an even int >= {self.left}"



def check_sample_weight(sample_weight, X, *, dtype=np.float64, ensure_non_negative=True, allow_all_zero=False):
    """scikit-learn's sample-weight check (one float per row of ``X``, finite, >= 0 by
    default), the one validator of every learner.  Weights all zero are an error unless
    ``allow_all_zero`` (a ``partial_fit`` chunk of zero weights learns nothing, and is no
    error).
    """
    return _check_sample_weight(sample_weight, X, dtype=dtype, ensure_non_negative=ensure_non_negative,
                                allow_all_zero_weights=allow_all_zero)





def class_weighted(sw, shares, classes, class_weight):
    """``sw`` (None or empty: all 1) times each row's class weight: ``shares`` (n, K) is each
    row's share of each class (rows summing to 1), ``class_weight`` a dict or "balanced".
    """
    n, K = shares.shape
    if isinstance(class_weight, str):                                # "balanced"
        counts = shares.sum(axis=0)
        w = np.where(counts > 0, n / (K * np.maximum(counts, 1e-300)), 1.0)
    else:
        known = set(classes.tolist())
        unknown = [k for k in class_weight if k not in known]
        if unknown:
            raise ValueError(f"class_weight names classes {unknown[:5]} that are not among the classes "
                             f"{classes.tolist()[:10]}.")
        w = np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])
        if not (np.isfinite(w).all() and (w >= 0).all()):
            raise ValueError(f"class_weight values must be finite and >= 0; got {class_weight}.")
    row_w = shares @ w
    return np.ascontiguousarray(row_w if sw is None or not len(sw) else row_w * sw)


def check_partial_fit_classes(est, classes, *, first, given_by_y=False, call="partial_fit"):
    """The one first-call protocol of ``partial_fit`` (as scikit-learn's
    ``_check_partial_fit_first_call``): on the first call ``classes`` is required unless
    ``y`` itself names every class (``given_by_y``); on a later call, ``classes`` may be
    repeated but must equal ``classes_``.  Returns the classes to encode against: the given
    ones (or None, to take them from ``y``) on the first call, ``classes_`` after.
    """
    if first:
        if classes is None and not given_by_y:
            raise ValueError(f"classes must be passed on the first call to {call} (every label the model will see), "
                             f"e.g. {call}(X, y, classes=np.arange(n_classes)); got classes=None.")
        return None if classes is None else _classes_array(classes)
    if classes is not None:
        if same_labels(classes, est.classes_):
            return est.classes_
        given = np.asarray(classes)
        given = np.unique(given)
        if not np.array_equal(given, est.classes_):
            raise ValueError(f"classes={given.tolist()} differs from the classes of the first {call} call "
                             f"{est.classes_.tolist()}; pass the same classes or none.")
    return est.classes_


def keyword_only(init):
    """Decorator of an ``__init__`` whose parameters are all keyword-only: positional use
    still works for one release, with a FutureWarning naming the keywords to use (as
    scikit-learn's ``_deprecate_positional_args`` did).  ``inspect.signature`` (and so
    ``get_params``) sees the keyword-only signature.
    """
    import inspect
    import warnings

    names = [p.name for p in inspect.signature(init).parameters.values() if p.kind == p.KEYWORD_ONLY]

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if args:
            if len(args) > len(names):
                raise TypeError(f"{type(self).__name__}() takes keyword arguments only ({', '.join(names)}); got "
                                f"{len(args)} positional arguments.")
            given = dict(zip(names, args))
            clash = sorted(set(given) & set(kwargs))
            if clash:
                raise TypeError(f"{type(self).__name__}() got {clash[0]!r} both by position and by keyword.")
            warnings.warn(f"Pass {', '.join(f'{k}={v!r}' for k, v in given.items())} as keyword argument(s) to "
                          f"{type(self).__name__}(): positional arguments will be an error in the next release.",
                          FutureWarning, stacklevel=2)
            kwargs.update(given)
        return init(self, **kwargs)

    return wrapper



def row_scale_of(X, row_scale, skip_last=False, squared_norm=None):
    """``row_scale`` resolved on ``X``: ``"auto"``: the root mean squared row norm of ``X``
    (dense or sparse; ``skip_last`` leaves out an appended intercept column), or 1.0 for an
    empty or all-zero ``X``; a number as it is, with a :class:`DataScaleWarning` when the
    rows of ``X / row_scale`` are far from unit norm (a root mean square below 0.1 or
    above 10).  ``squared_norm``: the sum of the squared entries of ``X`` without the
    intercept, when the input check has computed it (no second pass).
    """
    n = X.shape[0]
    if n == 0:
        return 1.0 if row_scale == "auto" else float(row_scale)
    if squared_norm is not None:
        sq = float(squared_norm)
    elif sp.issparse(X):
        sq = float(X.multiply(X).sum())
        if skip_last:
            last = X[:, X.shape[1] - 1]
            sq -= float(last.multiply(last).sum())
    else:
        Z = X[:, :-1] if skip_last else X
        sq = float(np.einsum("ij,ij->", Z, Z))
    rms = float(np.sqrt(max(sq, 0.0) / n))
    if row_scale == "auto":
        return rms if np.isfinite(rms) and rms > 0 else 1.0
    scale = float(row_scale)
    if rms > 0 and not 0.1 <= rms / scale <= 10.0:
        import warnings

        warnings.warn(f"the rows of X have a root mean squared norm of {rms:.3g}, and row_scale={scale:g} takes "
                      f"them as {rms / scale:.3g}: this learner's regularisation is meant for rows of about unit "
                      "norm. Use row_scale='auto' (the default), divide X by a constant, or put a "
                      "sklearn.preprocessing.StandardScaler first.", DataScaleWarning, stacklevel=4)
    return scale


class DataScaleWarning(UserWarning):
    """The features are far from the scale a learner's parameters are meant for."""


# Values beyond this magnitude overflow float64 once squared inside the kernels.
_MAX_ABS_X = 1e100
# A row whose nonzero values all lie below this magnitude has a squared norm that underflows.
_MIN_ABS_X = 1e-100
#: the same check as the limits a dense pass reads (``Rows.limits``: hi, lo, tiny), for a pass
#: that checks each row as it reads it (see ``weaklabel._row_kernels._dense_row_in_range``)
ROW_LIMITS = (_MAX_ABS_X ** 2, _MIN_ABS_X ** 2, _MIN_ABS_X)


def check_int_at_least(value, name, minimum):
    """Return ``value`` as int if it is an integer >= ``minimum``, else raise."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r} of type {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def describe_rows(rows, limit=5):
    """Format the first few row indices of a list for an error message."""
    rows = np.asarray(rows).ravel()
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return f"[{shown}]{more}"


def check_X_values(X, name="X"):
    """Reject object dtype and values so large that the kernels would overflow.

    NaN/inf and empty inputs are caught by scikit-learn's ``validate_data`` with
    messages that already name ``X``; this adds the two checks it does not make.
    """
    dtype = getattr(X, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", None) == "O":
        raise TypeError(
            f"{name} must hold numbers (float64 or float32); got an array of dtype object. "
            f"Convert it first, e.g. {name} = np.asarray({name}, dtype=float)."
        )
    return X


def read_only(a):
    """``a`` itself if it is read-only, else a read-only view of it (no copy).

    numba compiles a kernel once per combination of its arguments' types, and a read-only
    array is another type than a writable one.  The arrays a kernel only reads (the rows,
    the candidate sets) are therefore handed over read-only whatever the caller's flags:
    writable arrays and read-only ones (a user's memory map or scikit-learn's parallel
    search; the mask of a :class:`~weaklabel.CandidateSets`) then share one compiled
    kernel, instead of each compiling its own (several seconds for an epoch kernel).
    """
    if not a.flags.writeable:
        return a
    v = a.view()
    v.setflags(write=False)          # half the time of assigning v.flags.writeable
    return v


@njit(cache=True, nogil=True)
def _scan_values(values):
    """(index of the first non-finite value or -1, max |value| over the finite ones,
    min |value| over the finite nonzero ones).
    """
    m = 0.0
    lo = np.inf
    for p in range(values.size):
        v = values[p]
        if not np.isfinite(v):
            return p, m, lo
        a = abs(v)
        if a > m:
            m = a
        if a != 0.0 and a < lo:
            lo = a
    return -1, m, lo


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _row_norms_in_range(values, indptr, hi, tiny, dense):
    """First row whose squared norm is not ``<= hi`` (a NaN, an infinity, or values too large
    to square: a candidate for the exact scan), and first row holding a nonzero value of
    magnitude below ``tiny`` among the rows whose squared norm is below ``tiny ** 2``; each
    -1 if none; and the sum of the rows' squared norms (meaningful when both are -1).
    Row ``r`` is ``values[indptr[r]:indptr[r+1]]``, or ``dense[r]`` when ``dense`` (a
    C-contiguous 2-D array) has rows: rows of one width, read at the rate of ``X.sum()``.
    One vectorised pass in the values' own precision (the sums may be reordered, never
    assumed finite).
    """
    by_rows = dense.shape[0] > 0
    zero = np.zeros(1, dtype=values.dtype)[0]
    lo = tiny * tiny
    big = small = -1
    total = 0.0
    for r in range(dense.shape[0] if by_rows else indptr.size - 1):
        row = dense[r] if by_rows else values[indptr[r]:indptr[r + 1]]
        s = zero
        for p in range(row.shape[0]):
            s += row[p] * row[p]
        t = np.float64(s)                      # compared in float64 (hi, lo are beyond float32)
        total += t
        if not t <= hi:
            if big < 0:
                big = r
        elif t < lo and small < 0:
            for p in range(row.shape[0]):
                if row[p] != 0.0 and abs(row[p]) < tiny:
                    small = r
                    break
        if big >= 0 and small >= 0:
            break
    return big, small, total


def check_X_finite(X, name="X"):
    """Reject NaN/inf, values too large to square and rows whose squared norm underflows.

    See :func:`checked_squared_norm`, which this is without its sum.

    Parameters
    ----------
    X : {ndarray, sparse matrix}
        The rows.
    name : str, default="X"
        The argument's name in the messages.

    Returns
    -------
    bool
        Whether every row's squared norm is finite in ``X``'s own precision (float32 rows
        with values near 1e19 pass the check but their squares overflow float32).
    """
    return checked_squared_norm(X, name)[0]


def checked_squared_norm(X, name="X"):
    """Reject NaN/inf (naming the first row), values so large that the kernels' squared norms
    would overflow (``|x| > 1e100``), and rows whose nonzero values are so small that their
    squared norm underflows (below ``1e-200``).  One pass computes every row's squared norm;
    only when one is out of range does an exact pass find the value to name.

    Returns ``(in_range, total)``: whether every row's squared norm is finite in ``X``'s own
    precision (float32 rows with values near 1e19 pass the check but their squares overflow
    float32), and the sum of the rows' squared norms (``None`` unless ``in_range``), which
    the learners' ``row_scale="auto"`` reads instead of a second pass over ``X``.
    """
    if sp.issparse(X):
        flat, indptr = np.ravel(X.data), X.indptr
        big, small, total = _row_norms_in_range(read_only(flat), read_only(indptr), _MAX_ABS_X ** 2, _MIN_ABS_X,
                                                read_only(np.empty((0, 0), flat.dtype)))
    else:
        flat = np.ravel(X)
        width = max(1, math.prod(X.shape[1:]))               # a row: one entry of the first axis
        indptr = np.arange(0, flat.size + 1, width, dtype=np.int64)
        # rows of one width, read as the rows of a 2-D array (as fast as X.sum(); the CSR form's
        # loop over indptr was about a fifth slower)
        dense = flat.reshape(-1, width) if flat.size else np.empty((0, 0), flat.dtype)
        big, small, total = _row_norms_in_range(read_only(flat), read_only(indptr), _MAX_ABS_X ** 2, _MIN_ABS_X,
                                                read_only(dense))
    if big < 0 and small < 0:
        return True, float(total)
    if big >= 0:
        bad, biggest, _ = _scan_values(flat)
        if bad >= 0:
            row = int(np.searchsorted(indptr, bad, side="right") - 1)
            what = "NaN" if np.isnan(flat[bad]) else "infinity"
            raise ValueError(
                f"Input {name} contains {what} (first at row {row}); every value must be finite. "
                "Impute or drop those rows first (e.g. sklearn.impute.SimpleImputer)."
            )
        if biggest > _MAX_ABS_X:
            raise ValueError(
                f"{name} has values of magnitude up to {biggest:.3g}; the learners need "
                f"|{name}| <= {_MAX_ABS_X:g} to avoid overflow. Scale the features first "
                "(e.g. sklearn.preprocessing.MaxAbsScaler)."
            )
    if small >= 0:
        row = np.abs(flat[indptr[small]:indptr[small + 1]])
        smallest = float(np.min(row[row != 0]))
        raise ValueError(
            f"{name} has nonzero values of magnitude down to {smallest:.3g} (row {small}), so small that the "
            f"row's squared norm underflows; the learners need such values >= {_MIN_ABS_X:g}. Scale the "
            "features first (e.g. sklearn.preprocessing.MaxAbsScaler) or set such values to 0."
        )
    return False, None                   # float32 values whose squares overflow float32, no error


def same_labels(a, b):
    """Whether the label array ``a`` equals ``b`` (an ndarray) element for element: the check of
    a repeated call's ``classes``, without ``np.array_equal``'s cost when it is ``b`` itself
    or an array of the same dtype."""
    if a is b:
        return True
    if type(a) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape:
        if a.dtype.kind in "biu":                  # integers: equal values are equal bytes
            return a.tobytes() == b.tobytes()
        return bool((a == b).all())
    a = np.asarray(a)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _classes_array(classes, name="classes"):
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels; got shape {classes.shape}.")
    if classes.dtype == object:
        try:
            classes = classes.astype(str)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers or strings; got dtype object.") from None
    if classes.dtype.kind in "iuf" and (classes.size == 1 or bool(np.all(classes[1:] > classes[:-1]))):
        return classes.copy()                  # already sorted and distinct (a repeated call's classes)
    uniq = np.unique(classes)
    if uniq.size != classes.size:
        raise ValueError(f"{name} must not repeat a label; got {classes.size} labels, {uniq.size} distinct.")
    return uniq


@njit(cache=True, nogil=True)
def _int_label_positions(labels, classes):
    """The position of each integer label in the sorted ``classes`` (same dtype), as intp, by
    binary search; an empty array if a label is not among them."""
    out = np.empty(labels.shape[0], dtype=np.intp)
    K = classes.shape[0]
    for i in range(labels.shape[0]):
        v = labels[i]
        lo, hi = 0, K
        while lo < hi:
            mid = (lo + hi) >> 1
            if classes[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo == K or classes[lo] != v:
            return out[:0]
        out[i] = lo
    return out


def _labels_to_index(labels, classes, name):
    """Map labels to column indices in sorted ``classes``; raise naming unknown labels."""
    labels = np.asarray(labels)
    if labels.size == 0:
        return np.zeros(0, dtype=np.intp)
    if labels.ndim == 1 and labels.dtype == classes.dtype and labels.dtype.kind in "iu" and classes.ndim == 1:
        # integer labels (the common case, and a stream's every call): one compiled pass
        # (numpy's searchsorted, clip, compare and any took about 3 us on a short call)
        pos = _int_label_positions(labels, classes)
        if pos.size == labels.size:
            return pos                                  # every label known (else: the message below)
    try:
        pos = np.searchsorted(classes, labels)
    except TypeError:
        raise TypeError(
            f"{name} labels of dtype {labels.dtype} cannot be compared with classes of dtype {classes.dtype}."
        ) from None
    pos_clip = np.minimum(pos, classes.size - 1)
    unknown = np.asarray(classes[pos_clip] != labels)     # (an array on every numpy we support)
    if unknown.any():
        bad = np.unique(labels[unknown])
        rows = np.flatnonzero(unknown)
        raise ValueError(
            f"{name} holds label(s) {bad[:10].tolist()} that are not in classes {classes[:20].tolist()}"
            f"{' ...' if classes.size > 20 else ''} (first at rows {describe_rows(rows)}). "
            "Pass every class in `classes` at the first partial_fit."
        )
    return pos


def check_confusion(C, n_classes=None, name="confusion", max_cond=1e12):
    """Validate a confusion matrix ``C[p, q] = P(noisy = p | true = q)``.

    Checks, in order, with a message naming the failed condition: 2-D and square;
    ``n_classes`` x ``n_classes`` when given; finite; non-negative; every column sums
    to 1 (within 1e-6); invertible (condition number <= ``max_cond``).

    Returns
    -------
    C : ndarray of float64, shape (n_classes, n_classes)
    """
    C = np.asarray(C)
    if C.dtype == object or C.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a numeric (n_classes, n_classes) matrix; got dtype {C.dtype}.")
    C = C.astype(np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(f"{name} must be a square (n_classes, n_classes) matrix; got shape {C.shape}.")
    if n_classes is not None and C.shape[0] != n_classes:
        raise ValueError(f"{name} is {C.shape[0]} x {C.shape[1]}, but there are {n_classes} classes; "
                         "it needs one row and one column per class.")
    if not np.isfinite(C).all():
        raise ValueError(f"{name} contains NaN or inf; every entry must be a finite probability.")
    if (C < 0).any():
        p, q = np.argwhere(C < 0)[0]
        raise ValueError(f"{name} has negative entries (first {name}[{p}, {q}] = {C[p, q]:g}); "
                         "entries are probabilities P(noisy = p | true = q).")
    sums = C.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
    if bad.size:
        raise ValueError(
            f"{name} columns must each sum to 1 (C[p, q] = P(noisy = p | true = q)); columns "
            f"{describe_rows(bad)} sum to {np.round(sums[bad][:5], 6).tolist()}. "
            "If your matrix is row-stochastic, pass its transpose."
        )
    cond = np.linalg.cond(C)
    if not np.isfinite(cond) or cond > max_cond:
        raise ValueError(f"{name} is singular: not invertible (condition number {cond:.3g} > {max_cond:g}); "
                         "the corrections need C^-1. Estimate it from more labelled examples.")
    return C


def canonical_sparse(X):
    """A sparse ``X`` in canonical form (duplicate entries summed, indices sorted), on a copy
    when it is not already: every kernel then sees the matrix that ``X.toarray()`` shows,
    and the caller's matrix is never modified.  Dense input is returned as it is.
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if sp.issparse(X) and X.indices.dtype != np.int32 and X.nnz < 2**31 and X.shape[1] < 2**31:
        X = X.copy()                   # 32-bit indices: what LIBLINEAR (CL-SVM) and the kernels expect
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def check_class_labels(y):
    """scikit-learn's ``check_classification_targets``, without its cost for a plain 1-D array
    of integers, booleans or strings (always class labels); float and object labels, and
    every other form, go through scikit-learn's check (continuous values are an error)."""
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iubU":
        return
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


def check_X(est, X, *, reset, name="X", squared_norm=False, defer_dense_range=False):
    """The one boundary step for training rows: object dtype rejected, scikit-learn's
    ``validate_data`` (CSR or dense, float64/float32, ``n_features_in_`` set when
    ``reset``), the canonical sparse form, and finite values within the kernels' range.
    With ``squared_norm``, returns ``(X, sum of its squared entries or None)``.  With
    ``defer_dense_range``, dense rows skip the range check (the caller's pass makes it,
    reading :data:`ROW_LIMITS`; the sum is then ``None``).
    """
    d = est.__dict__                  # (fitted attributes: a missing one raises nothing to catch)
    if not reset and _plain_array(X) and "n_features_in_" in d and "feature_names_in_" not in d:
        # a later call with a plain float array, the estimator fitted on arrays without feature
        # names: what validate_data would check (the width), without its per-call cost (a
        # stream of small batches pays it every call)
        if X.shape[1] != est.n_features_in_:
            raise ValueError(f"{name} has {X.shape[1]} features, but {type(est).__name__} is expecting "
                             f"{est.n_features_in_} features as input.")
    elif reset and _plain_array(X) and X.shape[1] > 0:
        # a first call with a plain float array: all validate_data would do is record the
        # width and forget feature names of an earlier fit (about 50 us a call)
        est.n_features_in_ = X.shape[1]
        est.__dict__.pop("feature_names_in_", None)
    else:
        check_X_values(X, name)
        try:
            X = validate_data(est, X, accept_sparse="csr", reset=reset, dtype=[np.float64, np.float32],
                              ensure_all_finite=False)
        except ValueError as exc:               # scikit-learn's messages run over several lines
            raise ValueError(one_line(exc)) from None
        X = canonical_sparse(X)
    if defer_dense_range and (type(X) is np.ndarray or not sp.issparse(X)):
        return (X, None) if squared_norm else X
    in_range, total = checked_squared_norm(X, name)
    if not in_range and not sp.issparse(X) and X.dtype == np.float32:
        # dense float32 rows are learned in float32 unless a row's squared norm overflows
        # float32 (|x| near 1e19): those are learned in float64 (a copy)
        X = X.astype(np.float64)
        total = float(np.einsum("ij,ij->", X, X))
    return (X, total) if squared_norm else X


def check_rows(est, X, *, reset=False):
    """Rows to score (or, with ``reset``, to fit a meta-estimator on): scikit-learn's
    ``validate_data`` (CSR or dense float64/float32, the fitted width), its messages on one line."""
    try:
        return validate_data(est, X, accept_sparse="csr", reset=reset, dtype=[np.float64, np.float32])
    except ValueError as exc:
        raise ValueError(one_line(exc)) from None


def one_line(exc):
    """An exception's message on one line (scikit-learn's shape errors span three)."""
    return " ".join(str(exc).split())


#: the most one model's parameters may take, in bytes; None: half of the machine's memory
MEMORY_BUDGET = None


def memory_budget():
    """:data:`MEMORY_BUDGET`, or half of the machine's physical memory (4 GiB where it
    cannot be read)."""
    if MEMORY_BUDGET is not None:
        return MEMORY_BUDGET
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def check_memory(nbytes, what, hint=""):
    """Refuse, before allocating, what would take more than :func:`memory_budget`: one
    ValueError saying what, how much, and ``hint`` (the likely cause)."""
    budget = memory_budget()
    if nbytes > budget:
        raise ValueError(f"{what} would take {nbytes / 2**30:.3g} GiB, more than the {budget / 2**30:.1f} GiB "
                         f"allowed (half of this machine's memory unless weaklabel._validation.MEMORY_BUDGET says "
                         f"otherwise).{hint}")


_FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def _plain_array(X):
    """Whether ``X`` is a C-contiguous float64/float32 ndarray of 2 dimensions with rows
    (nothing for validate_data to convert or reject but an empty width)."""
    return (type(X) is np.ndarray and X.ndim == 2 and X.shape[0] > 0 and X.dtype in _FLOAT_DTYPES
            and X.flags.c_contiguous)


def transactional(method):
    """Decorator of ``fit`` / ``partial_fit``: a call that raises leaves the estimator exactly
    as it was.  The fitted state (attributes with a leading or trailing underscore, the
    generator included) is deep-copied first and put back on any exception; parameters
    are kept as they are.
    """
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        snapshot = {k: copy.deepcopy(v) if (k.endswith("_") or k.startswith("_")) else v
                    for k, v in self.__dict__.items()}
        try:
            out = method(self, *args, **kwargs)
            _check_finite_state(self, method.__name__)
            return out
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise
    return wrapper


def _check_finite_state(est, method, verified=()):
    """A call that leaves non-finite numbers in the state a model file would hold (weights
    that overflowed) has failed: it raises, and :func:`transactional` restores the model.
    ``verified``: names of attributes the caller has already checked (skipped here).
    """
    state = getattr(est, "_state_arrays", None)
    if state is None:
        return
    try:
        arrays = state()
    except (AttributeError, TypeError):            # nothing fitted yet (or no arrays to save)
        return
    d = est.__dict__
    skip = {id(d[k]) for k in verified if k in d}
    for name, value in arrays.items():
        if id(value) in skip or (type(value) is np.ndarray and value.dtype.kind not in "fc"):
            continue
        check_finite_result(est, method, name, value)


def check_finite_result(est, method, name, value):
    """Raise if the array (or sparse matrix) ``value`` that ``est.method`` produced holds a NaN
    or an infinity (an overflow), naming ``name``."""
    a = np.asarray(value) if not sp.issparse(value) else value.data
    # a finite sum means finite values (a NaN or an infinity makes it NaN or infinite): one
    # pass, no temporary array (a sketched Confidit's state on sector is 370 MB); a sum that
    # overflows is not proof, so max and min (which propagate NaN and meet any infinity) decide
    if (a.dtype.kind in "fc" and a.size and not np.isfinite(a.sum())
            and not (np.isfinite(a.max()) and np.isfinite(a.min()))):
        raise ValueError(f"{type(est).__name__}.{method} produced non-finite values in {name} (an overflow: "
                         "are sample_weight or the features very large?); the estimator is left as it was.")
