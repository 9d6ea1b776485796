"""What the batch partial-label learners share: the boundary checks of ``fit``, the score on
candidate sets, and the saved state."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp

from .._docs import fill_doc
from .._online import CandidateScore
from .._validation import check_X, saved_temperature, transactional
from ..labels import check_candidates
from ..linear import LinearMulticlass


class BatchPartialLinear(CandidateScore, LinearMulticlass, metaclass=ABCMeta):
    """Base of the linear batch learners from candidate sets (CLPL, PRODEN): one ``fit``
    that validates the inputs once and hands them to the learner's ``_fit_validated``."""

    @fill_doc
    @transactional
    def fit(self, X, y, sample_weight=None):
        """Fit on candidate label sets.

        {candidate_fit_sections}
        """
        Xf, S, classes, sw = fit_inputs(self, X, y, sample_weight)
        self._fit_validated(Xf, S, classes, sw)
        self.classes_ = classes
        self.__dict__.pop("temperature_", None)
        self._finish_fit(X, y, sample_weight)
        return self

    @abstractmethod
    def _fit_validated(self, Xf, S, classes, sw):
        """Fit the weights on validated inputs (sets ``_W``, ``n_iter_``, ``loss_``)."""

    def _finish_fit(self, X, y, sample_weight):
        """After the weights: what else ``fit`` fits (CLPL's temperature); default nothing."""

    def _state_meta(self):
        meta = {"n_features_in": int(self.n_features_in_), "n_iter": int(self.n_iter_), "loss": float(self.loss_)}
        if hasattr(self, "temperature_"):
            meta["temperature"] = float(self.temperature_)
        return meta

    def _set_state(self, arrays, meta):
        super()._set_state(arrays, meta)
        self._check_weight_shape()
        self.n_iter_, self.loss_ = int(meta["n_iter"]), float(meta["loss"])
        if saved_temperature(meta) is not None:
            self.temperature_ = saved_temperature(meta)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def fit_inputs(est, X, y, sample_weight):
    """A batch learner's validated ``fit`` inputs ``(Xf, S, classes, sw)``: the parameters
    checked, rows as CSR or float64 (``n_features_in_`` set), the candidate mask over
    ``est.classes`` or the labels seen (at least 2, no empty set), and the row weights
    (None when not given) times ``est.class_weight``'s.
    """
    from .._validation import check_sample_weight, class_weighted

    est._validate_params()
    X = check_X(est, X, reset=True)
    S, classes = check_candidates(y, X.shape[0], est.classes)
    if classes.size < 2:
        raise ValueError(f"{type(est).__name__} needs at least 2 classes; got 1 class {classes.tolist()}.")
    sw = None if sample_weight is None else check_sample_weight(sample_weight, X, dtype=np.float64,
                                                                 ensure_non_negative=True)
    if est.class_weight is not None:
        sw = class_weighted(sw, S / S.sum(axis=1, keepdims=True), classes, est.class_weight)
    Xf = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    return Xf, S, classes, sw


def held_out_split(est, n, rng, purpose, advice=""):
    """``(held, part)``: ``est.validation_fraction`` of ``n`` rows held out at random (sorted
    indices) and the rest, for ``purpose`` (said in the error when the split leaves fewer than
    1 held-out row or 2 rows to fit, with ``advice``)."""
    n_val = int(round(est.validation_fraction * n))
    if n_val < 1 or n_val > n - 2:
        raise ValueError(f"{purpose} holds out validation_fraction={est.validation_fraction} of the {n} rows: "
                         f"{n_val} rows, but it needs at least 1 held out and 2 to fit{advice}.")
    perm = rng.permutation(n)
    return np.sort(perm[:n_val]), np.sort(perm[n_val:])
