"""Probabilities for margin learners, calibrated on weak labels.

The online and max-margin learners output class scores, not probabilities.
:class:`SoftmaxCalibrated` turns any of them into a classifier with ``predict_proba``:
``p(k | x) = softmax(s(x) / T)_k``, with the temperature ``T`` fitted by maximum likelihood
on rows held out from training, using only the weak labels those rows have: the
probability of a candidate set is the mass it holds (``sum_{k in S} p(k | x)``), and the
probability of a noisy label ``p`` under a known confusion matrix ``C`` is
``sum_q C[p, q] p(q | x)``.  With exact labels this is temperature scaling (Guo et al.,
"On Calibration of Modern Neural Networks", ICML 2017).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import ShuffleSplit
from ._validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from numbers import Real

from ._persist import EmbeddedModelFile, embedded_model, register
from .linear import SoftmaxProba
from .labels import check_candidates

__all__ = ["SoftmaxCalibrated", "fit_temperature", "fit_out_of_fold_temperature"]

_LOG_T_RANGE = (-12.0, 12.0)
#: score-table cells :func:`fit_temperature` evaluates at once on its grid (8 MB of float64)
_GRID_CELLS = 1 << 20


def _class_scores(est, X):
    s = np.asarray(est.decision_function(X), dtype=np.float64)
    if s.ndim == 1:                          # two classes: the score of classes_[1] minus classes_[0]
        s = np.column_stack([np.zeros_like(s), s])
    return s


def _row_logsumexp(z):
    """``log(sum(exp(z), axis=-1))`` with the last axis kept (of length 1), shifted by each
    row's largest value (a row of -inf gives -inf).  scipy's ``logsumexp`` computes the same,
    but its general machinery took about ten times as long on the small arrays of
    :func:`fit_temperature`.
    """
    m = np.max(z, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return m + np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def fit_temperature(scores, S, confusion=None):
    """The temperature ``T`` maximising the likelihood of the weak labels.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_classes)
        Class scores of a fitted learner.
    S : ndarray of bool, shape (n_samples, n_classes)
        Candidate sets (one-hot rows for exact labels).  With ``confusion``, one-hot noisy
        labels.
    confusion : ndarray of shape (n_classes, n_classes), default=None
        ``C[p, q] = P(noisy label p | true label q)``: the likelihood of noisy label ``p``
        is ``sum_q C[p, q] softmax(scores / T)_q``.

    Returns
    -------
    T : float
        In ``[exp(-12), exp(12)]``: the negative log-likelihood is evaluated on a grid of
        97 values of ``log T``, then minimised by bounded Brent search between the best
        point's neighbours.
    """
    scores = np.asarray(scores, dtype=np.float64)
    S = np.asarray(S, dtype=bool)
    if confusion is not None:
        rows = np.asarray(confusion, dtype=np.float64)[np.argmax(S, axis=1)]   # C[p_i, :]

    def nll_grid(log_ts):
        """The negative log-likelihood at each value of ``log_ts``, some at a time: the same
        operations on a stack of score tables (one Python call for the grid instead of 97)."""
        out = np.empty(log_ts.size)
        step = max(1, _GRID_CELLS // max(scores.size, 1))
        for a in range(0, log_ts.size, step):
            z = scores / np.exp(log_ts[a:a + step])[:, None, None]
            logp = z - _row_logsumexp(z)
            if confusion is None:
                out[a:a + step] = -np.sum(_row_logsumexp(np.where(S, logp, -np.inf))[..., 0], axis=1)
            else:
                out[a:a + step] = -np.sum(np.log(np.maximum(np.sum(rows * np.exp(logp), axis=-1), 1e-300)), axis=1)
        return out

    def nll(log_t):
        return float(nll_grid(np.array([log_t]))[0])

    # the likelihood need not be unimodal in log T (with a confusion matrix, T -> 0 is a
    # plateau): a grid finds the best bracket, bounded Brent search refines inside it
    grid = np.linspace(*_LOG_T_RANGE, 97)
    k = int(np.argmin(nll_grid(grid)))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    res = minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-7})
    return float(np.exp(res.x if res.fun <= nll(grid[k]) else grid[k]))


@register
class SoftmaxCalibrated(SoftmaxProba, EmbeddedModelFile, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A margin learner with ``predict_proba``: softmax of its scores at a fitted temperature.

    ``fit`` trains a clone of ``estimator`` on ``1 - holdout`` of the rows and fits the
    temperature ``T`` on the rest, by maximum likelihood of their weak labels (see
    :func:`fit_temperature`); ``predict_proba(X) = softmax(decision_function(X) / T)``.
    To calibrate a model that is already trained, wrap it in scikit-learn's
    :class:`~sklearn.frozen.FrozenEstimator`: it is not refitted and every row of ``fit``
    calibrates.

    Parameters
    ----------
    estimator : classifier with ``decision_function``
        Any weaklabel learner (or scikit-learn classifier) that scores classes.
    holdout : float in (0, 1), default=0.2
        Share of the rows kept out of training to fit ``T``.
    confusion : array-like of shape (n_classes, n_classes), default=None
        For noisy labels: ``C[p, q] = P(noisy p | true q)``; ``T`` is then fitted on the
        noisy labels through ``C`` (as :class:`weaklabel.noisy.UMA` learns).
    random_state : int, RandomState instance or None, default=None
        Seeds the hold-out split.

    Attributes
    ----------
    estimator_ : the fitted learner
    temperature_ : float
    classes_ : ndarray of shape (n_classes,)

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.calibration import SoftmaxCalibrated
    >>> from weaklabel.partial import AvgPegasos
    >>> clf = SoftmaxCalibrated(AvgPegasos(random_state=0), random_state=0).fit(X / 16, S)
    >>> P = clf.predict_proba(X / 16)
    >>> P.shape, bool(abs(P.sum(axis=1) - 1).max() < 1e-12)
    ((1797, 10), True)
    """

    _parameter_constraints = {"estimator": [HasMethods(["fit", "decision_function"])],
                              "holdout": [Interval(Real, 0, 1, closed="neither")],
                              "confusion": ["array-like", None], "random_state": ["random_state"]}

    _fitted_marker = "temperature_"

    def __init__(self, estimator, *, holdout=0.2, confusion=None, random_state=None):
        self.estimator = estimator
        self.holdout = holdout
        self.confusion = confusion
        self.random_state = random_state

    def fit(self, X, y):
        """Train the learner on part of the rows and fit the temperature on the others.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : CandidateSets, bool mask, list of label lists or 1-D labels
            The weak labels (noisy labels with ``confusion``).

        Returns
        -------
        self
            The fitted estimator.
        """
        from sklearn.frozen import FrozenEstimator

        self._validate_params()
        if sp.issparse(X):
            X = X.tocsr()                 # COO, BSR, DIA...: every sparse format the learners take
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        n_y = y.shape[0] if hasattr(y, "shape") else len(y)
        if n_y != n:
            raise ValueError(f"y has {n_y} rows but X has {n}; they must match.")
        if isinstance(self.estimator, FrozenEstimator):
            est, cal = self.estimator, np.arange(n)
        else:
            train, cal = next(ShuffleSplit(1, test_size=self.holdout, random_state=self.random_state).split(
                np.zeros((n, 1))))
            est = clone(self.estimator).fit(_rows(X, train), _rows(y, train))
        classes = est.classes_
        S, _ = check_candidates(_rows(y, cal), n_samples=cal.size, classes=classes, name="y")
        confusion = None
        if self.confusion is not None:
            confusion = np.asarray(self.confusion, dtype=np.float64)
            if confusion.shape != (classes.size, classes.size):
                raise ValueError(f"confusion must have shape ({classes.size}, {classes.size}) for the "
                                 f"{classes.size} classes; got {confusion.shape}.")
            if (S.sum(axis=1) != 1).any():
                raise ValueError("with confusion, y must hold one (noisy) label per row, not candidate sets.")
        T = fit_temperature(_class_scores(est, _rows(X, cal)), S, confusion)
        self.estimator_, self.temperature_, self.classes_ = est, T, classes
        if hasattr(est, "n_features_in_"):
            self.n_features_in_ = est.n_features_in_
        return self

    def decision_function(self, X):
        """Return the learner's class scores (unchanged by calibration).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The scores.
        """
        check_is_fitted(self, "temperature_")
        return self.estimator_.decision_function(X)

    def _proba_scores(self, X):
        check_is_fitted(self, "temperature_")
        return _class_scores(self.estimator_, X) / self.temperature_

    def predict(self, X):
        """Return the learner's predictions (calibration does not change the argmax).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        check_is_fitted(self, "temperature_")
        return self.estimator_.predict(X)

    def score(self, X, y, sample_weight=None):
        """Return the learner's own score (on weak labels where it takes them).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y : weak labels or labels
            In any form the learner's ``score`` takes.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row.

        Returns
        -------
        float
            The learner's score.
        """
        check_is_fitted(self, "temperature_")
        return self.estimator_.score(X, y, sample_weight=sample_weight)

    @classmethod
    def _declared_state(cls, params, state, shapes):
        return {"estimator_file": ("u", (None,), True), "classes": ("*", (None,), True)}

    def _state_arrays(self):
        return {"estimator_file": self._embedded_file(), "classes": self.classes_}

    def _state_meta(self):
        return {"temperature": float(self.temperature_)}

    def _set_state(self, arrays, meta):
        est = embedded_model(arrays)
        T = float(meta["temperature"])
        if not (np.isfinite(T) and T > 0):
            raise ValueError(f"the temperature must be a positive number, as a fit leaves it; got {T!r}")
        if not np.array_equal(np.asarray(arrays["classes"]), est.classes_):
            raise ValueError("the saved classes differ from the inner model's")
        self.estimator_, self.temperature_, self.classes_ = est, T, est.classes_
        if hasattr(est, "n_features_in_"):
            self.n_features_in_ = est.n_features_in_


def _rows(a, idx):
    from ._validation import safe_indexing

    return safe_indexing(a, idx)


def _score_spread(scores):
    """The root mean square of each row's finite scores around the row's mean (a margin
    learner's score scale), 1 when there is none.
    """
    s = np.where(np.isfinite(scores), scores, np.nan)
    dev = s - np.nanmean(s, axis=1, keepdims=True)
    v = float(np.sqrt(np.nanmean(dev * dev))) if np.isfinite(dev).any() else 0.0
    return v if v > 0 else 1.0


def _candidate_targets(est, y, n):
    """``(S, classes, confusion)`` of candidate sets or labels ``y`` for the temperature's
    likelihood: a candidate set's mass (a label's probability), no confusion."""
    S, classes = check_candidates(y, n, None)
    return S, classes, None


def _row_folds(y, n, n_folds, seed):
    """``(train rows, y of those rows, held-out rows)`` of each of ``n_folds`` shuffled folds of
    the ``n`` rows."""
    from sklearn.model_selection import KFold

    for tr, te in KFold(n_folds, shuffle=True, random_state=seed).split(np.arange(n)):
        yield tr, _rows(y, tr), te


def fit_out_of_fold_temperature(est, X, y, sample_weight=None, *, targets=_candidate_targets, folds=_row_folds,
                                fold_params=None, n_folds=5):
    """Fit ``est.temperature_``, the temperature of a fitted margin learner's ``predict_proba``.

    What ``probability=True`` does after a learner's ``fit`` on every row (as scikit-learn's
    ``SVC(probability=True)`` fits Platt scaling): ``n_folds`` clones of ``est`` are fitted
    (``probability=False``, ``verbose=0``), each on the rows ``folds`` gives; the temperature
    maximises the likelihood of the weak labels of their out-of-fold scores
    (:func:`fit_temperature`), then is multiplied by the ratio of the fitted model's score
    spread to theirs (a margin learner's scores grow with the rows it learns from, so the
    folds' temperature alone would make it overconfident).  ``est`` is then scored by
    ``softmax(decision_function(X) / temperature_)``.

    Parameters
    ----------
    est : classifier
        The learner, fitted on ``(X, y)``; it must have ``probability`` and
        ``decision_function``.  Only ``temperature_`` is set.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows ``est`` was fitted on.
    y : CandidateSets, bool mask, list of label lists, 1-D labels, or what ``targets`` reads
        The weak labels ``est`` was fitted on.
    sample_weight : array-like of shape (n_samples,), default=None
        The weights ``est`` was fitted with, passed to the fold fits.
    targets : callable, default reads candidate sets or labels
        ``targets(est, y, n) -> (S, classes, confusion)``: each row's accepted classes (an
        ``(n, K)`` bool mask over ``classes``) and an optional noise matrix for the
        likelihood (see :func:`fit_temperature`).
    folds : callable, default shuffled folds of rows
        ``folds(y, n, n_folds, seed)`` yields ``(training rows, their y, held-out rows)``.
    fold_params : dict, default=None
        Further parameters of the fold clones.
    n_folds : int, default=5
        Number of folds; at least ``2 * n_folds`` rows are needed.

    Returns
    -------
    None
        ``est.temperature_`` is set.
    """
    from .labels import BanditFeedback, CandidateSets
    from ._validation import check_X

    X = check_X(est, X, reset=False)
    if isinstance(y, BanditFeedback) or type(y).__name__ == "BanditLog":
        raise ValueError("probability=True fits a temperature on labels or candidate sets; a log of bandit "
                         "feedback has neither (fit with probability=False).")
    n = X.shape[0]
    if n < 2 * n_folds:
        raise ValueError(f"probability=True needs at least {2 * n_folds} rows for its {n_folds} folds; got "
                         f"n_samples = {n}.")
    if not isinstance(y, (list, CandidateSets)) and not hasattr(y, "instance_candidates"):
        y = np.asarray(y)
    S, classes, confusion = targets(est, y, n)
    scores = np.full((n, classes.size), -np.inf)
    rs = getattr(est, "random_state", None)
    seed = rs if isinstance(rs, (int, np.integer)) else 0
    params = {"probability": False, **({"verbose": 0} if "verbose" in est.get_params(deep=False) else {}),
              **(fold_params or {})}
    for tr, y_tr, te in folds(y, n, n_folds, seed):
        fold = clone(est).set_params(**params)
        kw = {} if sample_weight is None else {"sample_weight": _rows(np.asarray(sample_weight), tr)}
        fold.fit(_rows(X, tr), y_tr, **kw)
        cols = np.searchsorted(classes, fold.classes_)
        scores[np.ix_(te, cols)] = _class_scores(fold, _rows(X, te))
    # rows whose every candidate was missing from their fold's training part cannot be scored
    keep = np.isfinite(np.where(S, scores, -np.inf)).any(axis=1)
    if confusion is not None:
        keep = np.isfinite(scores).any(axis=1)
    T, spread = fit_temperature(scores[keep], S[keep], confusion=confusion), _score_spread(scores[keep])
    est.temperature_ = float(T * _score_spread(_class_scores(est, X)) / spread)
