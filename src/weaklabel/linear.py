"""Linear multiclass base: weights, scores, predictions and persistence.

Weights are ``_W`` of shape (n_features [+1], n_classes); ``coef_`` is the (n_classes,
n_features) transposed view and ``intercept_`` the last row when ``fit_intercept=True``.
In memory they are feature-major (C order), or class-major (F order) where an online
learner's passes over dense rows update them in place (:func:`_weights_layout`): the same
values either way, and every reader here takes both.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._persist import Scalar, SavesModel
from ._intrinsics import aligned_class_major
from ._row_kernels import NO_LIMITS, Rows
from ._validation import check_X_values, read_only
from ._validation import check_rows

__all__ = ["LinearMulticlass", "SoftmaxProba", "kernel_ready", "kernel_rows", "with_intercept"]

class SoftmaxProba:
    """Mixin: ``predict_proba`` and ``predict_log_proba`` as the softmax of the class scores a
    class gives by ``_proba_scores(X)`` (its scores, divided by a temperature where it has one).
    """

    def predict_proba(self, X):
        """Return the class probabilities: the softmax of the (tempered) class scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows summing to 1, columns in the order of ``classes_``.
        """
        from scipy.special import softmax

        return softmax(self._proba_scores(X), axis=1)

    def predict_log_proba(self, X):
        """Return the log of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probabilities, columns in the order of ``classes_``.
        """
        from scipy.special import log_softmax

        return log_softmax(self._proba_scores(X), axis=1)

    def _proba_scores(self, X):
        return self._scores(X)


class LinearMulticlass(SavesModel, ClassifierMixin, BaseEstimator):
    """Base for linear multiclass models scored by ``x @ coef_.T + intercept_``, with
    tempered softmax probabilities where they were fitted with ``probability=True``.
    """

    # ---- weights ------------------------------------------------------------
    @property
    def coef_(self):
        """Weights of shape (n_classes, n_features), a view."""
        W = self.__dict__.get("_W")
        if W is None:
            raise AttributeError("coef_ is set by fit or partial_fit.")
        return W[: self.n_features_in_].T

    @coef_.setter
    def coef_(self, value):
        value = np.asarray(value, dtype=np.float64)
        W = self.__dict__.get("_W")
        if W is None or value.shape != (W.shape[1], self.n_features_in_):
            raise ValueError(
                "coef_ can only be overwritten with an array of the fitted shape "
                f"{None if W is None else (W.shape[1], self.n_features_in_)}; got {value.shape}."
            )
        W[: self.n_features_in_] = value.T

    @property
    def intercept_(self):
        """Intercepts of shape (n_classes,): zeros unless ``fit_intercept=True``."""
        W = self.__dict__.get("_W")
        if W is None:
            raise AttributeError("intercept_ is set by fit or partial_fit.")
        if W.shape[0] > self.n_features_in_:
            return W[self.n_features_in_].copy()
        return np.zeros(W.shape[1])

    # ---- scoring ------------------------------------------------------------
    def _scores(self, X, W=None):
        """Class scores of ``X`` under the fitted weights, or under ``W`` (same layout)."""
        check_is_fitted(self, "classes_")
        check_X_values(X)
        X = check_rows(self, X)
        d = self.n_features_in_
        W = self._W if W is None else W
        scores = X @ W[:d]
        if sp.issparse(scores):
            scores = scores.toarray()
        scores = np.asarray(scores, dtype=np.float64)
        if W.shape[0] > d:
            scores += W[d]
        return scores

    def decision_function(self, X):
        """Class scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to score.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes), or (n_samples,) with two classes
            The score of each class; with two classes, the score of ``classes_[1]`` minus
            that of ``classes_[0]``.
        """
        s = self._scores(X)
        if s.shape[1] == 2:
            return s[:, 1] - s[:, 0]
        return s

    def predict(self, X):
        """Predicted labels: ``classes_[argmax_k score_k]``, ties to the lowest index.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted label of each sample.
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    # ---- probabilities (probability=True) -----------------------------------------
    def _check_probability(self):
        if not getattr(self, "probability", False):
            raise AttributeError(f"predict_proba is available with probability=True (then fit fits a temperature); "
                                 f"or wrap {type(self).__name__} in weaklabel.calibration.SoftmaxCalibrated.")
        return True

    # softmax(decision_function(X) / temperature_), available with probability=True, whose fit
    # fits temperature_ on out-of-fold scores (weaklabel.calibration.fit_out_of_fold_temperature)
    predict_proba = available_if(_check_probability)(SoftmaxProba.predict_proba)
    predict_log_proba = available_if(_check_probability)(SoftmaxProba.predict_log_proba)

    def _proba_scores(self, X):
        """The class scores (two classes: 0 and the difference, as ``decision_function``
        gives them) over ``temperature_``."""
        check_is_fitted(self, "temperature_")
        s = np.asarray(self.decision_function(X), dtype=np.float64)
        if s.ndim == 1:
            s = np.column_stack([np.zeros_like(s), s])
        return s / self.temperature_

    # ---- persistence --------------------------------------------------------
    @classmethod
    def _declared_state(cls, params, state, shapes):
        """The arrays a model file of this kind holds: the weights (features [+1 with an
        intercept] x classes) and the classes.
        """
        from ._persist import count, length

        K = length(shapes, "classes")
        rows = count(state, "n_features_in") + int(bool(params.get("fit_intercept", False)))
        return {"W": ("f", (rows, K), True), "classes": ("*", (K,), True)}

    _saved_arrays = {"W": "_W", "classes": "classes_"}
    _saved_scalars = {"n_features_in": Scalar("n_features_in_", "int")}

    def _restored(self, loaded):
        """A loaded model as a fit leaves it: ``n_features_in`` >= 1, distinct classes (the
        weights' shape and finiteness are checked by the loader)."""
        if loaded:
            if self.n_features_in_ < 1:
                raise ValueError(f"n_features_in must be an int >= 1; got {self.n_features_in_!r}")
            if np.unique(self.classes_).size != self.classes_.size:
                raise ValueError("classes must be distinct labels")


class ScoredClassifier:
    """Mixin: ``decision_function`` and ``predict`` from the class scores a class gives by
    ``_scores(X)`` (which validates ``X`` and checks that the model is fitted).
    """

    def decision_function(self, X):
        """Return the class scores (the logits of ``predict_proba``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or (n_samples,) with two classes
            The score of each class, columns in the order of ``classes_``; with two classes,
            the score of ``classes_[1]`` minus that of ``classes_[0]``.
        """
        s = self._scores(X)
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s

    def predict(self, X):
        """Return the class of the largest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]


def with_intercept(X):
    """Append a constant column of ones to ``X`` (dense or CSR).

    For CSR the new matrix is built directly (each row's entries, then the constant), in
    about the memory of the result: scipy's ``hstack`` goes through COO and peaks at
    several times the input.  Sorted indices stay sorted (the constant is the last column).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The rows.

    Returns
    -------
    {ndarray, csr_matrix} of shape (n_samples, n_features + 1)
        ``X`` with the constant last.
    """
    n, d = X.shape
    if not sp.issparse(X):
        ones = np.ones((n, 1), dtype=X.dtype)
        return np.hstack([X, ones])
    X = X.tocsr()
    idx_dtype = np.int64 if X.nnz + n >= 2**31 or d + 1 >= 2**31 else X.indices.dtype
    indptr = X.indptr.astype(idx_dtype) + np.arange(n + 1, dtype=idx_dtype)
    last = indptr[1:] - 1                                   # each row's new final slot
    keep = np.ones(X.nnz + n, dtype=bool)
    keep[last] = False
    indices = np.empty(X.nnz + n, dtype=idx_dtype)
    data = np.empty(X.nnz + n, dtype=X.dtype)
    indices[keep] = X.indices
    data[keep] = X.data
    del keep
    indices[last] = d
    data[last] = 1
    out = sp.csr_matrix((data, indices, indptr), shape=(n, d + 1))
    out.has_sorted_indices = X.has_sorted_indices
    return out


def kernel_ready(X, fit_intercept):
    """Return ``X`` as the kernels read it.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The validated rows.
    fit_intercept : bool
        Append the intercept column.

    Returns
    -------
    {ndarray, csr_matrix}
        C-contiguous dense rows, or CSR with sorted indices.
    """
    if type(X) is np.ndarray and not fit_intercept:
        return np.ascontiguousarray(X)
    if fit_intercept:
        X = with_intercept(X)
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        return X
    return np.ascontiguousarray(X)


def _weights_layout(est, names, class_major):
    """Keep the arrays ``names`` of ``est`` (each (n_features [+1], n_classes)) in the memory
    order a pass reads: F order (class-major: the transposed view is C-contiguous) for a pass
    over dense rows, made on a 64-byte boundary (``_intrinsics.ALIGN``: a pass given a
    matrix off it works on an aligned copy); C order (feature-major) for sparse rows.  An
    array in the other order is replaced by a copy in this one (the same values; a stream of
    calls of one form converts once).  Returns the arrays as the kernels take them: the
    class-major views (``a.T``) or the arrays themselves.
    """
    d = est.__dict__
    out = []
    for name in names:
        a = d[name]
        if class_major:
            if not a.flags.f_contiguous:
                a = d[name] = aligned_class_major(a)
            out.append(a.T)
        else:
            if not a.flags.c_contiguous:
                a = d[name] = np.ascontiguousarray(a)
            out.append(a)
    return out


def kernel_rows(X, limits=None, intercept=False):
    """Return the rows as a kernel takes them, one value.

    Parameters
    ----------
    X : {ndarray, csr_matrix}
        Rows as :func:`kernel_ready` returns them.
    limits : tuple of 3 floats or None, default=None
        ``(hi, lo, tiny)``: dense rows the input check has not yet passed, which a pass that
        supports it checks as it reads them (see ``weaklabel._row_kernels._dense_row_in_range``).
        ``None``: the rows are checked (sparse rows always are).
    intercept : bool, default=False
        Read each row with a constant feature 1 after its own (the weights' last row is the
        intercept), as :func:`with_intercept` would append it, without a copy of ``X``.

    Returns
    -------
    Rows
        ``(dense, is_dense, data, indices, indptr, limits, intercept)``, with empty dummies
        for the form ``X`` is not in; ``intercept`` the constant feature's index, or -1.
        The arrays are read-only views (:func:`weaklabel._validation.read_only`: writable
        and read-only rows share one compiled kernel).
    """
    column = X.shape[1] if intercept else -1
    if type(X) is not np.ndarray and sp.issparse(X):
        return Rows(_empty_rows(X.dtype)[0], False, read_only(X.data), read_only(X.indices), read_only(X.indptr),
                    NO_LIMITS, column)
    _, data, indices, indptr = _empty_rows(X.dtype)
    return Rows(read_only(X), True, data, indices, indptr, NO_LIMITS if limits is None else limits, column)


_EMPTY_ROWS = {}


def _empty_rows(dtype):
    """The placeholders of the form the rows are not in, made once per dtype (a stream of small
    ``partial_fit`` calls would otherwise make four arrays a call); read-only, no kernel
    writes them."""
    out = _EMPTY_ROWS.get(dtype)
    if out is None:
        dt = np.dtype(dtype)
        out = (np.empty((0, 0), dt), np.empty(0, dt), np.empty(0, np.int32), np.zeros(1, np.int32))
        for a in out:
            a.setflags(write=False)
        _EMPTY_ROWS[dtype] = out
    return out
