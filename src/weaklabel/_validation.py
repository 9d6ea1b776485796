"""Input validation shared by every weaklabel estimator and container.

Every check raises ``ValueError`` or ``TypeError`` with a message that names the
argument, what was expected and what arrived.  None of them mutates its input.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.utils.validation import column_or_1d

__all__ = [
    "check_positive",
    "check_int_at_least",
    "check_bool",
    "check_X_values",
    "check_X_finite",
    "check_candidates",
    "describe_rows",
]

# Values beyond this magnitude overflow float64 once squared inside the kernels.
_MAX_ABS_X = 1e100


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_positive(value, name):
    """Return ``value`` as float if it is a finite real number > 0, else raise."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number > 0; got {value!r} of type {type(value).__name__}.")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}.")
    return float(value)


def check_int_at_least(value, name, minimum):
    """Return ``value`` as int if it is an integer >= ``minimum``, else raise."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r} of type {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


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
    if dtype is not None and dtype == object:
        raise TypeError(
            f"{name} must hold numbers (float64 or float32); got an array of dtype object. "
            f"Convert it first, e.g. {name} = np.asarray({name}, dtype=float)."
        )
    return X


@njit(cache=True, nogil=True)
def _scan_values(values):
    """(index of the first non-finite value or -1, max |value| over the finite ones)."""
    m = 0.0
    for p in range(values.size):
        v = values[p]
        if not np.isfinite(v):
            return p, m
        a = abs(v)
        if a > m:
            m = a
    return -1, m


def check_X_finite(X, name="X"):
    """One pass over the values: reject NaN/inf (naming the first row) and values so
    large that the kernels' squared norms would overflow."""
    values = X.data if sp.issparse(X) else X
    flat = np.ravel(values)
    bad, biggest = _scan_values(flat)
    if bad >= 0:
        if sp.issparse(X):
            row = int(np.searchsorted(X.indptr, bad, side="right") - 1)
        else:
            row = int(bad // max(1, X.shape[1])) if X.ndim == 2 else int(bad)
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


def _as_mask_from_2d(arr, name):
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf":
        if not np.isfinite(arr).all() if arr.dtype.kind == "f" else False:
            raise ValueError(f"{name} as a 2-D candidate mask must hold 0/1 values; it contains NaN or inf.")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            r = np.flatnonzero(bad.any(axis=1))
            raise ValueError(
                f"{name} as a 2-D candidate mask must be bool or hold only 0/1 values; "
                f"rows {describe_rows(r)} hold other values."
            )
        return arr.astype(bool)
    raise TypeError(f"{name} as a 2-D candidate mask must be bool or 0/1 numbers; got dtype {arr.dtype}.")


def _classes_array(classes, name="classes"):
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels; got shape {classes.shape}.")
    if classes.dtype == object:
        try:
            classes = classes.astype(str)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers or strings; got dtype object.") from None
    uniq = np.unique(classes)
    if uniq.size != classes.size:
        raise ValueError(f"{name} must not repeat a label; got {classes.size} labels, {uniq.size} distinct.")
    return uniq


def _labels_to_index(labels, classes, name):
    """Map labels to column indices in sorted ``classes``; raise naming unknown labels."""
    labels = np.asarray(labels)
    if labels.size == 0:
        return np.zeros(0, dtype=np.intp)
    try:
        pos = np.searchsorted(classes, labels)
    except TypeError:
        raise TypeError(
            f"{name} labels of dtype {labels.dtype} cannot be compared with classes of dtype {classes.dtype}."
        ) from None
    pos_clip = np.minimum(pos, classes.size - 1)
    unknown = classes[pos_clip] != labels
    if np.any(unknown):
        bad = np.unique(labels[unknown])
        rows = np.flatnonzero(unknown)
        raise ValueError(
            f"{name} holds label(s) {bad[:10].tolist()} that are not in classes {classes[:20].tolist()}"
            f"{' ...' if classes.size > 20 else ''} (first at rows {describe_rows(rows)}). "
            "Pass every class in `classes` at the first partial_fit."
        )
    return pos


def check_candidates(y, n_samples=None, classes=None, name="y"):
    """Turn any accepted weak-label form into a bool mask and sorted classes.

    Accepted forms: a :class:`weaklabel.CandidateSets`; a bool (or 0/1) mask of shape
    (n_samples, n_classes); a list of label lists; a plain 1-D array of labels
    (singleton sets); an (n_samples, 1) column of labels (raveled with a warning,
    as scikit-learn does).

    Parameters
    ----------
    y : CandidateSets, array-like or list of lists
    n_samples : int or None
        Expected number of rows; a mismatch raises ``ValueError``.
    classes : array-like or None
        The label set. With a mask, its length must equal the mask width; with labels,
        every label must be one of them. ``None`` infers the classes.
    name : str
        Argument name used in error messages.

    Returns
    -------
    S : ndarray of bool, shape (n_samples, n_classes)
    classes : ndarray, shape (n_classes,)
    """
    from .labels import CandidateSets  # local: labels imports this module

    if y is None:
        raise ValueError(f"requires {name} to be passed, but the target {name} is None; pass labels or candidate sets.")
    if classes is not None:
        classes = _classes_array(classes)

    if isinstance(y, CandidateSets):
        S, y_classes = y.mask, y.classes_
        if classes is not None and not np.array_equal(classes, y_classes):
            if np.isin(y_classes, classes).all():
                idx = np.searchsorted(classes, y_classes)
                full = np.zeros((S.shape[0], classes.size), dtype=bool)
                full[:, idx] = S
                S = full
            else:
                bad = y_classes[~np.isin(y_classes, classes)]
                raise ValueError(
                    f"{name} (CandidateSets) has classes {bad[:10].tolist()} that are not in classes "
                    f"{classes[:20].tolist()}."
                )
        else:
            classes = y_classes
    elif isinstance(y, list) and len(y) > 0 and all(
        isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in y
    ):
        S, classes = _mask_from_lists(y, classes, name)
    else:
        if sp.issparse(y):
            y = y.toarray()
        arr = np.asarray(y)
        if arr.dtype == object and arr.ndim == 1 and arr.size and all(
            isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in arr
        ):
            S, classes = _mask_from_lists(list(arr), classes, name)
        elif arr.ndim == 2 and arr.shape[1] == 1 and arr.dtype != bool:
            arr = column_or_1d(arr, warn=True)
            S, classes = _mask_from_labels(arr, classes, name)
        elif arr.ndim == 2:
            S = _as_mask_from_2d(arr, name)
            if classes is None:
                classes = np.arange(S.shape[1])
            elif classes.size != S.shape[1]:
                raise ValueError(
                    f"{name} is a candidate mask with {S.shape[1]} columns, but there are "
                    f"{classes.size} classes; the mask needs one column per class."
                )
        elif arr.ndim == 1:
            S, classes = _mask_from_labels(arr, classes, name)
        else:
            raise ValueError(
                f"{name} must be 1-D labels, a 2-D candidate mask or a list of label lists; "
                f"got an array of shape {arr.shape}."
            )

    S = np.ascontiguousarray(S, dtype=bool)
    if n_samples is not None and S.shape[0] != n_samples:
        raise ValueError(f"{name} has {S.shape[0]} rows but X has {n_samples} samples; they must match.")
    empty = ~S.any(axis=1)
    if empty.any():
        raise ValueError(
            f"{name} has empty candidate sets at rows {describe_rows(np.flatnonzero(empty))}; "
            "every sample needs at least one candidate label."
        )
    return S, classes


def _mask_from_labels(arr, classes, name):
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or inf; labels must be finite.")
    if arr.dtype.kind == "f" and arr.size and not np.all(arr == np.round(arr)):
        raise ValueError(
            f"Unknown label type: continuous. {name} must hold class labels (integers or strings); "
            f"got non-integer floats such as {arr[arr != np.round(arr)][0]!r}."
        )
    if arr.dtype == object:
        try:
            arr = arr.astype(str)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers or strings; got dtype object.") from None
    if classes is None:
        if arr.size == 0:
            raise ValueError(f"{name} is empty; at least one label is needed.")
        classes = np.unique(arr)
    idx = _labels_to_index(arr, classes, name)
    S = np.zeros((arr.size, classes.size), dtype=bool)
    S[np.arange(arr.size), idx] = True
    return S, classes


def _mask_from_lists(rows, classes, name):
    flat = [lab for r in rows for lab in r]
    if classes is None:
        if not flat:
            raise ValueError(f"{name} holds only empty candidate sets; no class can be inferred.")
        classes = _classes_array(np.unique(np.asarray(flat)))
    S = np.zeros((len(rows), classes.size), dtype=bool)
    if flat:
        idx = _labels_to_index(np.asarray(flat), classes, name)
        row_of = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
        S[row_of, idx] = True
    return S, classes


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
        raise ValueError(f"{name} is not invertible (condition number {cond:.3g} > {max_cond:g}); "
                         "UMA needs C^-1. Estimate it from more labelled examples.")
    return C
