"""Metrics for weak supervision: ambiguous 0-1 loss, label-free model-selection criteria
(candidate likelihood, covering rate, approximated accuracy) and progressive (online) curves."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .labels import BanditFeedback, CandidateSets, check_candidates

#: the parameters every candidate-set scorer takes (``GridSearchCV``'s scorer signature)
_SCORER = """
    Parameters
    ----------
    estimator : fitted classifier with ``{method}`` and ``classes_``
        The model to score.
    X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        The held-out rows.
    S : CandidateSets or any form :func:`~weaklabel.labels.check_candidates` accepts
        Their candidate sets, over the estimator's classes."""
_SCORER_DOCS = {"scorer_proba": _SCORER.format(method="predict_proba"), "scorer_predict": _SCORER.format(method="predict")}

__all__ = ["ambiguous_zero_one_loss", "candidate_log_loss", "candidate_log_loss_score", "covering_rate",
           "covering_rate_score", "approximated_accuracy", "approximated_accuracy_score", "progressive_error",
           "progressive_error_curve", "progressive_validation", "ProgressiveScore", "accuracy"]


def ambiguous_zero_one_loss(S, y_pred, *, classes=None, normalize=True):
    """The ambiguous 0-1 loss: a prediction is wrong only if it is outside the candidate set.

    Parameters
    ----------
    S : CandidateSets, bool mask, list of label lists or 1-D labels
        The candidate sets.
    y_pred : array-like of shape (n_samples,)
        The predicted labels.
    classes : array-like, default=None
        Needed when ``S`` is a bare mask whose columns are not ``0 .. n_classes-1``.
    normalize : bool, default=True
        Mean (True) or count (False) of the mistakes.

    Returns
    -------
    float
        The share (or count) of predictions outside their candidate set.

    Examples
    --------
    >>> from weaklabel.metrics import ambiguous_zero_one_loss
    >>> ambiguous_zero_one_loss([[0, 1], [2]], [1, 0])
    0.5
    """
    y_pred = np.asarray(y_pred)
    mask, classes_ = check_candidates(S, n_samples=y_pred.shape[0], classes=classes, name="S")
    idx = np.searchsorted(classes_, y_pred)
    idx_c = np.minimum(idx, classes_.size - 1)
    inside = (classes_[idx_c] == y_pred) & mask[np.arange(y_pred.size), idx_c]
    wrong = ~inside
    return float(wrong.mean()) if normalize else int(wrong.sum())


def candidate_log_loss(S, proba, *, eps=1e-15):
    """Mean negative log-probability a model gives the candidate sets:
    ``-mean_i log sum_{a in S_i} p_a(x_i)``.

    The likelihood of what was observed (a set, not a label) under the model, when the
    sets hold the true label and do not depend on which of their labels is true (the
    usual "candidates at random" assumption): a proper criterion for choosing
    hyper-parameters from candidate sets alone, which unlike the ambiguous 0-1 loss
    rewards confidence placed on the right set and punishes it elsewhere.  With 1-D labels
    it is scikit-learn's log loss.

    Parameters
    ----------
    S : CandidateSets, bool mask (n_samples, n_classes), list of label lists or 1-D labels
        Columns in the order of the model's ``classes_``; labels are column indices.
    proba : array-like of shape (n_samples, n_classes)
        ``predict_proba`` of the model.
    eps : float, default=1e-15
        Probabilities are clipped below at ``eps``.

    Returns
    -------
    float
        The mean negative log-probability of the sets.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.metrics import candidate_log_loss
    >>> round(candidate_log_loss([[0, 1], [2]], np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]), eps=1e-15), 4)
    0.2231
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2:
        raise ValueError(f"proba must be 2-D (n_samples, n_classes); got shape {proba.shape}.")
    classes = None if isinstance(S, CandidateSets) else np.arange(proba.shape[1])   # labels: column indices
    mask, _ = check_candidates(S, n_samples=proba.shape[0], classes=classes, name="S")
    if mask.shape != proba.shape:
        raise ValueError(f"S has {mask.shape[1]} classes but proba has {proba.shape[1]} columns; they must match.")
    inside = np.sum(proba * mask, axis=1)
    return float(-np.mean(np.log(np.clip(inside, eps, None))))


def candidate_log_loss_score(estimator, X, S):
    """Score an estimator by the likelihood of held-out candidate sets.

    A scorer for ``GridSearchCV(scoring=...)``: minus :func:`candidate_log_loss` of
    ``estimator.predict_proba(X)`` on the candidate sets ``S`` (greater is better), so that
    hyper-parameters are chosen by the likelihood of held-out candidate sets.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` and ``classes_``
        The model to score.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The held-out rows.
    S : CandidateSets or any form :func:`~weaklabel.labels.check_candidates` accepts
        Their candidate sets, over the estimator's classes.

    Returns
    -------
    float
        Minus the mean candidate log loss.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import GridSearchCV
    >>> from weaklabel.metrics import candidate_log_loss_score
    >>> from weaklabel.partial import PRODEN
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y[:600], 3, random_state=0)
    >>> search = GridSearchCV(PRODEN(), {"alpha": [1e-3, 1.0]}, scoring=candidate_log_loss_score, cv=3)
    >>> search.fit(X[:600] / 16, S).best_params_
    {'alpha': 0.001}
    """
    mask, _ = check_candidates(S, n_samples=X.shape[0], classes=estimator.classes_, name="S")
    return -candidate_log_loss(mask, estimator.predict_proba(X))


def covering_rate(S, y_pred, *, classes=None):
    """Share of predictions inside their candidate set: one minus the ambiguous 0-1 loss.

    The covering rate (CR) of Wang et al., "Realistic evaluation of deep partial-label
    learning algorithms" (PLENCH, ICLR 2025), one of their criteria for choosing a
    partial-label learner's hyper-parameters without a true label.

    Parameters
    ----------
    S : CandidateSets, bool mask, list of label lists or 1-D labels
        The candidate sets.
    y_pred : array-like of shape (n_samples,)
        The predicted labels.
    classes : array-like, default=None
        Needed when ``S`` is a bare mask whose columns are not ``0 .. n_classes-1``.

    Returns
    -------
    float
        The share of predictions inside their candidate set, in [0, 1].

    See Also
    --------
    ambiguous_zero_one_loss : One minus this.
    approximated_accuracy : PLENCH's other label-free criterion, from probabilities.

    Examples
    --------
    >>> from weaklabel.metrics import covering_rate
    >>> covering_rate([[0, 1], [2]], [1, 0])
    0.5
    """
    return 1.0 - ambiguous_zero_one_loss(S, y_pred, classes=classes)


def approximated_accuracy(S, proba):
    """Estimate the accuracy of a model's predictions from candidate sets alone.

    The approximated accuracy (AA) of Wang et al. (PLENCH, ICLR 2025): each row's
    prediction ``argmax_k p_k(x)`` is right with the probability the model itself gives it
    once the model's probabilities are restricted to the row's candidate set and
    renormalised, ``q(yhat) = p_yhat [yhat in S] / sum_{a in S} p_a``; AA is the mean of
    ``q(yhat)``.  It is at most the covering rate (a prediction outside the set counts 0)
    and equals the accuracy when every set holds one label.

    Parameters
    ----------
    S : CandidateSets, bool mask (n_samples, n_classes), list of label lists or 1-D labels
        Columns in the order of the model's ``classes_``; labels are column indices.
    proba : array-like of shape (n_samples, n_classes)
        ``predict_proba`` of the model.

    Returns
    -------
    float
        The estimated accuracy, in [0, 1].

    Raises
    ------
    ValueError
        If ``proba`` is not 2-D, holds a negative or non-finite value, or its columns do not
        match the sets' classes.

    See Also
    --------
    covering_rate : The share of predictions inside their sets.
    candidate_log_loss : The likelihood criterion.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.metrics import approximated_accuracy
    >>> round(approximated_accuracy([[0, 1], [2]], np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])), 4)
    0.8125
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2:
        raise ValueError(f"proba must be 2-D (n_samples, n_classes); got shape {proba.shape}.")
    if not np.isfinite(proba).all() or (proba < 0).any():
        raise ValueError("proba must hold finite, non-negative probabilities.")
    classes = None if isinstance(S, CandidateSets) else np.arange(proba.shape[1])   # labels: column indices
    mask, _ = check_candidates(S, n_samples=proba.shape[0], classes=classes, name="S")
    if mask.shape != proba.shape:
        raise ValueError(f"S has {mask.shape[1]} classes but proba has {proba.shape[1]} columns; they must match.")
    inside = proba * mask
    total = inside.sum(axis=1)
    rows = np.arange(proba.shape[0])
    pred = np.argmax(proba, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(total > 0, inside[rows, pred] / total, 0.0)
    return float(np.mean(q)) if q.size else float("nan")


def covering_rate_score(estimator, X, S):
    """Score an estimator by the share of its predictions inside held-out candidate sets.

    A scorer for ``GridSearchCV(scoring=...)``: :func:`covering_rate` of
    ``estimator.predict(X)`` on ``S`` (greater is better).

    Parameters
    ----------
    estimator : fitted classifier with ``predict`` and ``classes_``
        The model to score.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The held-out rows.
    S : CandidateSets or any form :func:`~weaklabel.labels.check_candidates` accepts
        Their candidate sets, over the estimator's classes.

    Returns
    -------
    float
        The covering rate.

    See Also
    --------
    approximated_accuracy_score : The scorer of PLENCH's other criterion.
    candidate_log_loss_score : The likelihood scorer.
    """
    mask, classes = check_candidates(S, n_samples=X.shape[0], classes=estimator.classes_, name="S")
    return covering_rate(mask, estimator.predict(X), classes=classes)


def approximated_accuracy_score(estimator, X, S):
    """Score an estimator by its approximated accuracy on held-out candidate sets.

    A scorer for ``GridSearchCV(scoring=...)``: :func:`approximated_accuracy` of
    ``estimator.predict_proba(X)`` on ``S`` (greater is better).

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` and ``classes_``
        The model to score.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The held-out rows.
    S : CandidateSets or any form :func:`~weaklabel.labels.check_candidates` accepts
        Their candidate sets, over the estimator's classes.

    Returns
    -------
    float
        The approximated accuracy.

    See Also
    --------
    covering_rate_score : The scorer of PLENCH's covering rate.
    candidate_log_loss_score : The likelihood scorer.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import GridSearchCV
    >>> from weaklabel.metrics import approximated_accuracy_score
    >>> from weaklabel.partial import PRODEN
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y[:600], 3, random_state=0)
    >>> search = GridSearchCV(PRODEN(), {"alpha": [1e-3, 1.0]}, scoring=approximated_accuracy_score, cv=3)
    >>> search.fit(X[:600] / 16, S).best_params_
    {'alpha': 0.001}
    """
    mask, _ = check_candidates(S, n_samples=X.shape[0], classes=estimator.classes_, name="S")
    return approximated_accuracy(mask, estimator.predict_proba(X))


def progressive_error(y_true, predictions):
    """Return the per-round 0-1 errors of a predict-then-learn run.

    Parameters
    ----------
    y_true : array-like of shape (n_rounds,)
        True label of the sample seen at each round.
    predictions : array-like of shape (n_rounds,)
        Label predicted at each round before the update (``est.predictions_``).

    Returns
    -------
    ndarray of shape (n_rounds,)
        1.0 where the prediction was wrong, else 0.0.
    """
    y_true = np.asarray(y_true)
    predictions = np.asarray(predictions)
    if y_true.shape != predictions.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but predictions {predictions.shape}; they must match.")
    return (y_true != predictions).astype(np.float64)


def progressive_error_curve(y_true, predictions, *, checkpoints=None):
    """The paper's curve: average error over the rounds seen so far, after each round.

    ``curve[t-1] = (1/t) * sum_{r <= t} 1[prediction_r != y_r]``, measured against
    the true labels (the hard criterion of Bhattacharjee & Manwani, Section 5).

    Parameters
    ----------
    y_true : array-like of shape (n_rounds,)
        True label of the sample seen at each round.
    predictions : array-like of shape (n_rounds,)
        Label predicted at each round before the update (``est.predictions_``).
    checkpoints : array-like of int, default=None
        Rounds (1-based) at which to report the curve; ``None`` reports every round.

    Returns
    -------
    curve : ndarray of shape (n_rounds,) or (len(checkpoints),)
        The running mean error.
    """
    err = progressive_error(y_true, predictions)
    curve = np.cumsum(err) / np.arange(1, err.size + 1)
    if checkpoints is None:
        return curve
    cp = np.asarray(checkpoints, dtype=np.int64)
    if cp.size and (cp.min() < 1 or cp.max() > err.size):
        raise ValueError(f"checkpoints must lie in 1..{err.size}; got {cp.min()}..{cp.max()}.")
    return curve[cp - 1]


def accuracy(y_true, y_pred):
    """Return the fraction of exact matches.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.

    Returns
    -------
    float
        The share of rows where they agree.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but y_pred {y_pred.shape}; they must match.")
    return float(np.mean(y_true == y_pred))


class ProgressiveScore(NamedTuple):
    """What :func:`progressive_validation` measured.

    Parameters
    ----------
    loss : float
        The mean loss over every round.
    losses : ndarray of shape (n_rounds,)
        The loss of each round.
    lines : list of str
        The progress lines printed.
    """

    #: mean loss over every round
    loss: float
    #: per-round loss (1 = the prediction made before the update was wrong), shape (n_rounds,)
    losses: np.ndarray
    #: ``(rounds seen, mean loss so far, mean loss since the previous line)`` at each report
    lines: list


def progressive_validation(est, X, y, *, classes=None, print_every=None, out=print):
    """Predict-then-learn over a stream, reporting the running loss (progressive validation).

    Each row is first predicted by the model of the rows before it, then learnt: the
    protocol of river's ``progressive_val_score`` and of Vowpal Wabbit's progress lines.
    The rows are fed to ``est.partial_fit`` in their order, ``print_every`` at a time
    (one call when ``None``); the loss of a round is read from the learner's own
    ``predictions_`` (its prediction before the update), so the result does not depend
    on ``print_every``.

    The loss of a round is the ambiguous 0-1 loss (prediction outside the candidate set;
    with exact labels, the 0-1 error).  For a bandit learner given exact labels it is the
    0-1 error of its greedy prediction; given a logged :class:`weaklabel.BanditFeedback`,
    disagreement with the feedback (see the learners' ``score``).

    Parameters
    ----------
    est : online weaklabel estimator
        Anything with ``partial_fit`` that records ``predictions_`` (the partial-label and
        bandit learners).  It learns: pass a fresh one (or ``clone`` it) to start from 0.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The training rows.
    y : CandidateSets, bool mask, list of label lists, 1-D labels, or BanditFeedback
        The weak labels of the rows.
    classes : array-like, default=None
        Every class, for the first ``partial_fit``; ``None`` takes them from ``y``.
    print_every : int, default=None
        Report after every ``print_every`` rounds (and at the end).
    out : callable, default=print
        Where the report lines go.

    Returns
    -------
    ProgressiveScore
        ``loss`` (mean over the stream), per-round ``losses`` and the reported ``lines``.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.partial import AvgPerceptron
    >>> from weaklabel.metrics import progressive_validation
    >>> X, y = load_digits(return_X_y=True)
    >>> res = progressive_validation(AvgPerceptron(), X / 16, y, print_every=600)
         600  loss 0.2700  since last 0.2700
        1200  loss 0.2033  since last 0.1367
        1797  loss 0.1753  since last 0.1189
    """
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if len(y) != n:
        raise ValueError(f"y holds {len(y)} rows but X has {n}; they must match.")
    if print_every is not None and (isinstance(print_every, bool) or int(print_every) != print_every
                                    or print_every < 1):
        raise ValueError(f"print_every must be a positive integer or None; got {print_every!r}.")
    logged = isinstance(y, BanditFeedback)
    if classes is None and not hasattr(est, "classes_"):
        if logged:
            classes = np.unique(y.proposed)
        else:
            _, classes = check_candidates(y, n_samples=n, name="y")
    step = n if print_every is None else int(print_every)
    losses = np.empty(n, dtype=np.float64)
    lines = []
    last_loss, last_n = 0.0, 0
    for a in range(0, n, step):
        b = min(a + step, n)
        Xc, yc = X[a:b], y[a:b]
        if logged:
            est.partial_fit_feedback(Xc, yc, None, classes=None if hasattr(est, "classes_") else classes)
            pred = est.predictions_
            losses[a:b] = (pred == yc.proposed) != yc.correct
        else:
            est.partial_fit(Xc, yc, classes=None if hasattr(est, "classes_") else classes)
            S, _ = check_candidates(yc, n_samples=b - a, classes=est.classes_, name="y")
            idx = np.searchsorted(est.classes_, est.predictions_)
            losses[a:b] = ~S[np.arange(b - a), idx]
        total = float(losses[:b].sum())
        line = (b, total / b, (total - last_loss) / (b - last_n))
        lines.append(line)
        last_loss, last_n = total, b
        if print_every is not None:
            out(f"{line[0]:8d}  loss {line[1]:.4f}  since last {line[2]:.4f}")
    return ProgressiveScore(float(losses.mean()) if n else float("nan"), losses, lines)
