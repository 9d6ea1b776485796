"""What the batch partial-label learners share: the boundary checks of ``fit``, the score on
candidate sets, and the saved state."""

from __future__ import annotations

from ..labels import candidate_set_score
from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp

from .._persist import Scalar
from .._validation import check_X, transactional
from ..labels import check_candidates
from ..linear import LinearMulticlass


class BatchPartialLinear(LinearMulticlass, metaclass=ABCMeta):
    """Base of the linear batch learners from candidate sets (CLPL, PRODEN): one ``fit``
    that validates the inputs once and hands them to the learner's ``_fit_validated``."""

    score = candidate_set_score       # the fraction of predictions inside the candidate sets

    @transactional
    def fit(self, X, y, sample_weight=None):
        """Fit on candidate label sets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
            Candidate label set of each sample (1-D labels are singleton sets).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; None gives every row weight 1.

        Returns
        -------
        self
            The fitted estimator.
        """
        Xf, S, classes, sw = fit_inputs(self, X, y, sample_weight)
        merged = merge_duplicate_rows(Xf, S, sw)
        if merged is None:
            self._fit_validated(Xf, S, classes, sw)
        else:                                    # the same objective on fewer rows
            Xm, Sm, wm, inverse = merged
            self._fit_validated(Xm, Sm, classes, wm)
            self._expand_rows(inverse)
        self.classes_ = classes
        self.__dict__.pop("temperature_", None)
        self._finish_fit(X, y, sample_weight)
        return self

    @abstractmethod
    def _fit_validated(self, Xf, S, classes, sw):
        """Fit the weights on validated inputs (sets ``_W``, ``n_iter_``, ``loss_``)."""

    def _finish_fit(self, X, y, sample_weight):
        """After the weights: what else ``fit`` fits (CLPL's temperature); default nothing."""

    def _expand_rows(self, inverse):
        """After a fit on merged rows (:func:`merge_duplicate_rows`): give each training row
        its merged row's per-row results (PRODEN's confidences); default nothing."""

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_scalars = {**LinearMulticlass._saved_scalars, "n_iter": Scalar("n_iter_", "int"),
                      "loss": Scalar("loss_", "float"), "temperature": Scalar("temperature_", "positive", True)}

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


#: merge a fit's duplicate rows only when they make at least this share of its rows
MERGE_AT_LEAST = 0.1


def merge_duplicate_rows(Xf, S, sw):
    """Rows that repeat, merged: ``(X, S, weights, inverse)`` with each distinct pair of a row
    and its candidate set once, in the order of its first occurrence, weighted by the sum of
    its copies' weights (1 each when ``sw`` is None), and ``inverse`` mapping every original
    row to its merged row; None when fewer than :data:`MERGE_AT_LEAST` of the rows repeat.

    A loss that is a weighted mean over rows (CLPL's, PRODEN's cross-entropy, whose
    confidences start equal on equal rows and stay so) takes the same value on the merged
    rows, so the fit is the same up to the order of the floating-point sums, for less:
    binary or categorical data repeat rows often (italian's 17,500 training rows of a split
    hold 11,400 distinct pairs).  Rows are grouped by a random projection of the row and
    its set, then every row is compared exactly with its group's first: if a projection
    ever grouped two different rows, nothing is merged.
    """
    n = Xf.shape[0]
    if n < 2:
        return None
    rng = np.random.default_rng(0)
    h = np.asarray(Xf @ rng.standard_normal(Xf.shape[1])).ravel() + S @ rng.standard_normal(S.shape[1])
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    if first.size > (1.0 - MERGE_AT_LEAST) * n:
        return None
    rep = first[inverse]
    if sp.issparse(Xf):
        same = (Xf != Xf[rep]).nnz == 0
    else:
        same = bool((Xf == Xf[rep]).all())
    if not (same and bool((S == S[rep]).all())):
        return None
    order = np.argsort(first, kind="stable")         # merged rows in their first occurrence's order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    inverse = rank[inverse.ravel()]
    keep = first[order]
    w = np.bincount(inverse, weights=None if sw is None else sw, minlength=keep.size).astype(np.float64)
    return Xf[keep], S[keep], w, inverse
