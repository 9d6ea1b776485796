"""Which training labels are most likely wrong: a ranking under class-conditional noise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from .._validation import _labels_to_index
from ._corrected import CorrectedLogistic, estimate_confusion_anchors

__all__ = ["LabelIssues", "label_issues"]


@dataclass
class LabelIssues:
    """What :func:`label_issues` returns.

    Parameters
    ----------
    ranking : ndarray of int
        Row indices, the most likely mislabelled first.
    wrong : ndarray of float of shape (n_samples,)
        ``P(true label != given label | x, given label)`` of each row.
    posterior : ndarray of shape (n_samples, n_classes)
        ``P(true label = q | x, given label)``.
    confusion : ndarray of shape (n_classes, n_classes)
        The estimated ``C[p, q] = P(given p | true q)``.
    classes : ndarray of shape (n_classes,)
        The label of each column.
    """

    ranking: np.ndarray
    wrong: np.ndarray
    posterior: np.ndarray
    confusion: np.ndarray
    classes: np.ndarray

    def top(self, k):
        """The ``k`` rows most likely mislabelled.

        Parameters
        ----------
        k : int
            How many rows.

        Returns
        -------
        rows : ndarray of int
            Their indices, the most likely mislabelled first.
        """
        return self.ranking[:k]


def label_issues(X, y, *, estimator=None, confusion=None, cv=5, random_state=0):
    """Rank training rows by the probability that their label is wrong.

    Under class-conditional noise ``C[p, q] = P(given p | true q)`` (Patrini et al., CVPR
    2017), a row's true class given its features and its given label ``p`` has the
    posterior ``P(q | x, p) ∝ C[p, q] P(q | x)``. Both factors are estimated without a
    clean label, each row's by models that did not see it (``cv`` folds): the rows' noisy-
    label probabilities give ``C`` by anchor points (:func:`estimate_confusion_anchors`,
    unless ``confusion`` is given), and a forward-corrected model (:class:`CorrectedLogistic`
    with that ``C``) gives ``P(q | x)``. Rows are ranked by ``1 - P(given label | x, given
    label)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The training rows.
    y : array-like of shape (n_samples,)
        The given, possibly wrong, labels.
    estimator : CorrectedLogistic, default=None
        The model fitted in each fold (cloned; its ``confusion`` is set); ``None`` means
        ``CorrectedLogistic(alpha=1e-4)``.
    confusion : array-like of shape (n_classes, n_classes), default=None
        A known ``C`` instead of the estimate.
    cv : int, default=5
        Folds (stratified on the given labels).
    random_state : int, default=0
        The folds' shuffle.

    Returns
    -------
    LabelIssues
        The ranking, the posteriors and the confusion used.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.noisy import label_issues
    >>> X, y = load_digits(return_X_y=True)
    >>> X, y = X[:600] / 16, y[:600]
    >>> rng = np.random.RandomState(0)
    >>> flipped = rng.rand(y.size) < 0.1
    >>> noisy = np.where(flipped, (y + 1) % 10, y)
    >>> issues = label_issues(X, noisy, cv=3)
    >>> found = flipped[issues.top(int(flipped.sum()))].mean()    # precision at the number of flips
    >>> bool(found > 0.7)
    True
    """
    if not hasattr(X, "shape") or len(X.shape) != 2:
        X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}); got shape {y.shape}.")
    classes = np.unique(y)
    K = classes.size
    if K < 2:
        raise ValueError("y holds a single class: no label can be told wrong.")
    t = _labels_to_index(y, classes, "y")
    base = estimator if estimator is not None else CorrectedLogistic(alpha=1e-4)
    if not isinstance(base, CorrectedLogistic):
        raise TypeError(f"estimator must be a CorrectedLogistic (its confusion is set); got {type(base).__name__}.")
    folds = list(StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state).split(np.zeros(y.size), t))
    if confusion is None:
        noisy = np.zeros((y.size, K))
        for train, test in folds:
            est = clone(base).set_params(confusion="identity", classes=classes).fit(X[train], y[train])
            noisy[test] = est.predict_proba(X[test])
        C = estimate_confusion_anchors(noisy)
    else:
        C = np.asarray(confusion, dtype=np.float64)
        if C.shape != (K, K):
            raise ValueError(f"confusion must be ({K}, {K}) for the {K} classes of y; got {C.shape}.")
    clean = np.zeros((y.size, K))
    for train, test in folds:
        est = clone(base).set_params(confusion=C, classes=classes).fit(X[train], y[train])
        clean[test] = est.predict_proba(X[test])
    post = C[t, :] * clean
    post /= np.maximum(post.sum(axis=1, keepdims=True), 1e-300)
    wrong = 1.0 - post[np.arange(y.size), t]
    ranking = np.argsort(-wrong, kind="stable")
    return LabelIssues(ranking=ranking, wrong=wrong, posterior=post, confusion=C, classes=classes)
