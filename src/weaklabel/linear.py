"""Linear multiclass base: weights, scores, predictions and persistence.

Weights are stored feature-major, ``_W`` of shape (n_features [+1], n_classes), which
is what the kernels want; ``coef_`` is the (n_classes, n_features) transposed view
and ``intercept_`` the last row when ``fit_intercept=True``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_X_finite, check_X_values

__all__ = ["LinearMulticlass", "load", "FORMAT_VERSION"]

FORMAT_VERSION = 1
_REGISTRY = {}


def register(cls):
    """Class decorator: make ``cls`` loadable by :func:`load`."""
    _REGISTRY[cls.__name__] = cls
    return cls


class LinearMulticlass(ClassifierMixin, BaseEstimator):
    """Base for linear multiclass models scored by ``x @ coef_.T + intercept_``."""

    # ---- weights ------------------------------------------------------------
    @property
    def coef_(self):
        """ndarray of shape (n_classes, n_features): the weights (a view)."""
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
        """ndarray of shape (n_classes,): zeros unless ``fit_intercept=True``."""
        W = self.__dict__.get("_W")
        if W is None:
            raise AttributeError("intercept_ is set by fit or partial_fit.")
        if W.shape[0] > self.n_features_in_:
            return W[self.n_features_in_].copy()
        return np.zeros(W.shape[1])

    # ---- scoring ------------------------------------------------------------
    def _scores(self, X):
        check_is_fitted(self, "classes_")
        check_X_values(X)
        X = validate_data(self, X, accept_sparse="csr", reset=False, dtype=[np.float64, np.float32])
        d = self.n_features_in_
        W = self._W
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

    # ---- persistence --------------------------------------------------------
    def _state_arrays(self):
        return {"W": self._W, "classes": self.classes_}

    def _state_meta(self):
        return {"n_features_in": int(self.n_features_in_)}

    def _set_state(self, arrays, meta):
        self._W = np.ascontiguousarray(arrays["W"], dtype=np.float64)
        self.classes_ = arrays["classes"]
        self.n_features_in_ = int(meta["n_features_in"])

    def _check_weight_shape(self):
        """Loaded weights must be (n_features [+1 with an intercept], n_classes)."""
        if self._W.ndim != 2 or self._W.shape[1] != self.classes_.size or \
                self._W.shape[0] != self.n_features_in_ + int(bool(self.fit_intercept)):
            raise ValueError(f"weights of shape {self._W.shape} do not fit {self.classes_.size} classes and "
                             f"{self.n_features_in_} features")

    def save(self, path):
        """Write the fitted model to ``path`` (.npz arrays + JSON metadata, no pickle).

        The file is written to a temporary name and moved into place, so a failed
        save never leaves a half-written model.

        Parameters
        ----------
        path : str or path-like
        """
        check_is_fitted(self, "classes_")
        arrays = {k: np.asarray(v) for k, v in self._state_arrays().items()}
        for k, v in arrays.items():
            if v.dtype == object:
                arrays[k] = v.astype(str)
        digest = {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() for k, v in arrays.items()}
        from . import __version__

        meta = {
            "format": "weaklabel-model",
            "format_version": FORMAT_VERSION,
            "weaklabel_version": __version__,
            "kind": type(self).__name__,
            "params": _jsonable_params(self.get_params(deep=False)),
            "state": self._state_meta(),
            "arrays": {k: {"shape": list(v.shape), "dtype": str(v.dtype), "sha256": digest[k]} for k, v in arrays.items()},
        }
        path = os.fspath(path)
        tmp = path + ".tmp"
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        with zipfile.ZipFile(buf, "a") as zf:
            zf.writestr("meta.json", json.dumps(meta, indent=1))
        with open(tmp, "wb") as fh:
            fh.write(buf.getvalue())
        os.replace(tmp, path)
        return path


def doc_with_common(common):
    """Class decorator factory: the class docstring ``text`` with ``{common}`` replaced by
    the shared parameter/attribute block ``common``."""
    def make(text):
        def deco(cls):
            cls.__doc__ = text.replace("{common}", common.strip("\n"))
            return cls
        return deco
    return make


def with_intercept(X):
    """``X`` with a constant column of ones appended (dense or CSR)."""
    ones = np.ones((X.shape[0], 1), dtype=X.dtype)
    return sp.hstack([X, ones], format="csr") if sp.issparse(X) else np.hstack([X, ones])


def kernel_rows(X):
    """The arguments a row kernel takes: ``(dense, is_dense, data, indices, indptr)``,
    with empty dummies for the form ``X`` is not in."""
    if sp.issparse(X):
        return np.empty((0, 0), X.dtype), False, X.data, X.indices, X.indptr
    return X, True, np.empty(0, X.dtype), np.empty(0, np.int32), np.zeros(1, np.int32)


class OnlineLinear(LinearMulticlass):
    """Base of the online learners: validated kernel-ready rows, round counters, persistence."""

    def _online_X(self, X, first):
        """Validate ``X`` (resetting ``n_features_in_`` when ``first``), append the intercept
        column, and return C-contiguous dense rows or CSR with sorted indices."""
        check_X_values(X)
        X = validate_data(self, X, accept_sparse="csr", reset=first, dtype=[np.float64, np.float32],
                          ensure_all_finite=False)
        check_X_finite(X)
        if self.fit_intercept:
            X = with_intercept(X)
        if sp.issparse(X):
            X = X.tocsr()
            if not X.has_sorted_indices:
                X = X.sorted_indices()
            return X
        return np.ascontiguousarray(X)

    def _state_meta(self):
        return {"n_features_in": int(self.n_features_in_), "t": int(self.t_),
                "n_iter": int(self.n_iter_), "n_updates": int(self.n_updates_)}

    def _set_state(self, arrays, meta):
        super()._set_state(arrays, meta)
        self._check_weight_shape()
        self.t_, self.n_iter_, self.n_updates_ = int(meta["t"]), int(meta["n_iter"]), int(meta["n_updates"])
        from sklearn.utils import check_random_state

        self._rng = check_random_state(self.random_state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _jsonable_params(params):
    out = {}
    for k, v in params.items():
        if isinstance(v, (np.integer,)):
            v = int(v)
        elif isinstance(v, (np.floating,)):
            v = float(v)
        elif isinstance(v, (np.ndarray, list, tuple)) and np.asarray(v).dtype.kind in "iufb":
            v = np.asarray(v).tolist()            # e.g. UMA's confusion matrix
        elif not (v is None or isinstance(v, (bool, int, float, str))):
            raise TypeError(f"parameter {k}={v!r} cannot be saved; only None, bool, int, float and str can.")
        out[k] = v
    return out


def load(path):
    """Load a model written by ``est.save(path)``.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is truncated, altered, of another format version, or of an unknown kind.
    """
    from . import bags, bandit, noisy, partial  # noqa: F401  (registers the estimators)

    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file not found: {path}")
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise ValueError(f"member {bad} is corrupt")
            if "meta.json" not in zf.namelist():
                raise ValueError("it has no meta.json")
            meta = json.loads(zf.read("meta.json"))
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files if k != "meta.json"}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a readable weaklabel model ({exc}); it may be truncated or altered.") from None
    if meta.get("format") != "weaklabel-model":
        raise ValueError(f"{path} is not a weaklabel model file (format={meta.get('format')!r}).")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path} has model format version {meta.get('format_version')}; this weaklabel reads version "
            f"{FORMAT_VERSION}. Re-save the model with a matching weaklabel."
        )
    kind = meta.get("kind")
    if kind not in _REGISTRY:
        raise ValueError(f"{path} holds a model of unknown kind {kind!r}; known: {sorted(_REGISTRY)}.")
    spec = meta.get("arrays", {})
    if set(spec) != set(arrays):
        raise ValueError(f"{path}: arrays {sorted(arrays)} do not match the metadata {sorted(spec)}; the file was altered.")
    for k, v in arrays.items():
        s = spec[k]
        if list(v.shape) != s["shape"] or str(v.dtype) != s["dtype"]:
            raise ValueError(f"{path}: array {k} has shape {v.shape} dtype {v.dtype}, metadata says {s['shape']} {s['dtype']}.")
        if hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() != s["sha256"]:
            raise ValueError(f"{path}: array {k} does not match its checksum; the file was altered.")
    est = _REGISTRY[kind](**meta["params"])
    try:
        est._set_state(arrays, meta["state"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: inconsistent model state ({exc}).") from None
    return est
