"""Metrics for weak supervision: ambiguous 0-1 loss and progressive (online) curves."""

from __future__ import annotations

import numpy as np

from .labels import check_candidates

__all__ = ["ambiguous_zero_one_loss", "progressive_error", "progressive_error_curve", "accuracy"]


def ambiguous_zero_one_loss(S, y_pred, *, classes=None, normalize=True):
    """The ambiguous 0-1 loss: a prediction is wrong only if it is outside the candidate set.

    Parameters
    ----------
    S : CandidateSets, bool mask, list of label lists or 1-D labels
    y_pred : array-like of shape (n_samples,)
    classes : array-like, default=None
        Needed when ``S`` is a bare mask whose columns are not ``0 .. n_classes-1``.
    normalize : bool, default=True
        Mean (True) or count (False) of the mistakes.

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


def progressive_error(y_true, predictions):
    """Per-round 0-1 errors of a predict-then-learn run, shape (n_rounds,)."""
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
    """Fraction of exact matches."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but y_pred {y_pred.shape}; they must match.")
    return float(np.mean(y_true == y_pred))
