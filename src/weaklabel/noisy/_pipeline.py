"""Confusion estimation and the label-a-little pipeline of the UMA paper (Section 4.2.1)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import column_or_1d

from .._validation import check_class_labels, StrOptions

from .._validation import AT_LEAST_1, NON_NEGATIVE, _classes_array, _labels_to_index, check_X, transactional
from .._persist import register
from ..linear import LinearMulticlass
from ._uma import SELECTIONS, UMA

__all__ = ["estimate_confusion", "LabelALittle"]


def estimate_confusion(y_true, y_pred, classes, *, max_cond=1e12):
    """Estimate ``C[p, q] = P(pred = p | true = q)`` from a small labelled set.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels of the labelled set.
    y_pred : array-like of shape (n_samples,)
        Labels the rough classifier gives them.
    classes : array-like of shape (n_classes,)
        Every class.
    max_cond : float, default=1e12
        Largest acceptable condition number.

    Returns
    -------
    C : ndarray of shape (n_classes, n_classes)
        Column-stochastic estimate.

    Raises
    ------
    ValueError
        If a class has no labelled example, or the estimate is singular; the message
        says how many more labelled examples of which classes are needed.

    Examples
    --------
    >>> from weaklabel.noisy import estimate_confusion
    >>> estimate_confusion([0, 0, 1, 1], [0, 1, 1, 1], classes=[0, 1]).tolist()
    [[0.5, 0.0], [0.5, 1.0]]
    """
    classes = _classes_array(classes)
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-D of one length; got {y_true.shape} and {y_pred.shape}.")
    t = _labels_to_index(y_true, classes, "y_true")
    p = _labels_to_index(y_pred, classes, "y_pred")
    Q = classes.size
    counts = np.zeros((Q, Q))
    np.add.at(counts, (p, t), 1.0)
    n_q = counts.sum(axis=0)
    missing = np.flatnonzero(n_q == 0)
    if missing.size:
        raise ValueError(
            f"the labelled set has no example of classes {classes[missing].tolist()}; label at least one "
            f"example of each (better 5 or more) to estimate their columns of the confusion matrix."
        )
    C = counts / n_q
    cond = np.linalg.cond(C)
    if not np.isfinite(cond) or cond > max_cond:
        never = np.flatnonzero(counts.sum(axis=1) == 0)
        few = np.flatnonzero(n_q < 5)
        need = {str(classes[k]): int(5 - n_q[k]) for k in few}
        hint = (f" The classifier never predicts classes {classes[never].tolist()} on this set." if never.size else "")
        more = (f" Label more examples: at least {need} more of those classes (by class)." if need else
                " Label more examples of the classes it confuses, or train the rough classifier on more labels.")
        raise ValueError(f"the estimated confusion matrix is singular (condition number {cond:.3g})."
                         f"{hint}{more}")
    return C


@register
class LabelALittle(LinearMulticlass):
    """Label a little, let a rough classifier label the rest, unconfuse with UMA.

    The five steps of Louche & Ralaivola, Section 4.2.1, as one estimator:

    1. take ``m`` labelled examples of each class;
    2. learn a rough classifier ``g`` on them (UMA with ``C = I``, i.e. a Perceptron);
    3. estimate ``g``'s confusion ``C`` on the other labelled rows (``S_conf``);
    4. label every unlabelled row with ``g`` (noisy labels);
    5. learn the final classifier with UMA on all rows and ``C``.

    Parameters
    ----------
    m : int, default=10
        Labelled examples per class for ``g``.
    alpha, selection, max_iter, tol : see :class:`UMA`
        Settings of the final UMA (``g`` uses ``alpha=0`` and ``max_iter``).
    random_state : int, RandomState instance or None, default=None
        Seed of the choice of the ``m`` examples per class.

    Attributes
    ----------
    rough_ : UMA
        The rough classifier ``g``.
    confusion_ : ndarray of shape (n_classes, n_classes)
        ``g``'s confusion estimated on ``S_conf``.
    uma_ : UMA
        The final classifier (its weights are this estimator's ``coef_``).
    noisy_labels_ : ndarray of shape (n_samples,)
        The labels UMA learned from.
    classes_ : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.noisy import LabelALittle
    >>> rng = np.random.default_rng(0)
    >>> angles = np.repeat([0.0, 2.1, 4.2], 100)             # three clusters around the origin
    >>> X = rng.standard_normal((300, 2)) + 6 * np.c_[np.cos(angles), np.sin(angles)]
    >>> y = np.repeat([0, 1, 2], 100)
    >>> y_partial = np.where(rng.random(300) < 0.3, y, -1)
    >>> clf = LabelALittle(m=5, max_iter=200, random_state=0).fit(X, y_partial)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {"m": [AT_LEAST_1], "alpha": [NON_NEGATIVE], "selection": [StrOptions(set(SELECTIONS))],
                              "max_iter": [AT_LEAST_1], "tol": [NON_NEGATIVE], "random_state": ["random_state"]}

    def __init__(self, *, m=10, alpha=0.0, selection="error", max_iter=1000, tol=1e-6, random_state=None):
        self.m = m
        self.alpha = alpha
        self.selection = selection
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @transactional
    def fit(self, X, y_partial, sample_weight=None):
        """Run the five steps.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            All samples, labelled or not.
        y_partial : array-like of shape (n_samples,)
            True label of the labelled rows, -1 for the unlabelled ones.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows in the final UMA (step 5); the rough classifier and its
            confusion estimate (steps 2-3) use the labelled rows unweighted.

        Returns
        -------
        self : LabelALittle
            The fitted estimator.
        """
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        self._validate_params()
        m = int(self.m)
        X = check_X(self, X, reset=True)
        if sample_weight is not None:                  # checked here, before any step runs
            from .._validation import check_sample_weight

            sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if y_partial is None:
            raise ValueError("LabelALittle requires y to be passed, but the target y is None; pass y_partial "
                             "(-1 = unlabelled).")
        y_partial = np.asarray(y_partial)
        if y_partial.ndim == 2 and y_partial.shape[1] == 1:
            y_partial = column_or_1d(y_partial, warn=True)
        if y_partial.ndim == 1 and y_partial.shape[0] == X.shape[0]:
            check_class_labels(y_partial)
        if y_partial.ndim != 1 or y_partial.shape[0] != X.shape[0]:
            raise ValueError(f"y_partial must be 1-D of length {X.shape[0]} (-1 = unlabelled); got {y_partial.shape}.")
        labelled = np.flatnonzero(y_partial != -1)
        if labelled.size == 0:
            raise ValueError("y_partial has no labelled row (all -1); label at least m examples per class.")
        classes = np.unique(y_partial[labelled])
        rng = check_random_state(self.random_state)
        seed_rows = []
        for c in classes:
            rows = labelled[y_partial[labelled] == c]
            if rows.size < m:
                raise ValueError(f"class {np.asarray(c).item()!r} has {rows.size} labelled rows; m={m} are needed for the rough "
                                 f"classifier, plus more for S_conf: label at least {m - rows.size + 1} more.")
            seed_rows.append(rng.choice(rows, m, replace=False))
        seed_rows = np.concatenate(seed_rows)
        conf_rows = np.setdiff1d(labelled, seed_rows)
        if conf_rows.size == 0:
            raise ValueError(f"every labelled row went to the m={m} per class of the rough classifier; label more "
                             "rows so that some are left to estimate its confusion (S_conf).")
        Q = classes.size
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            g = UMA(confusion=np.eye(Q), max_iter=self.max_iter, classes=classes).fit(X[seed_rows], y_partial[seed_rows])
        C = estimate_confusion(y_partial[conf_rows], g.predict(X[conf_rows]), classes)
        y_noisy = y_partial.copy()
        unl = y_partial == -1
        if unl.any():
            y_noisy[unl] = g.predict(X[unl])
        final = UMA(confusion=C, alpha=self.alpha, selection=self.selection, max_iter=self.max_iter, tol=self.tol,
                    random_state=self.random_state, classes=classes).fit(X, y_noisy, sample_weight=sample_weight)
        self.rough_, self.confusion_, self.uma_, self.noisy_labels_ = g, C, final, y_noisy
        self.classes_ = classes
        self.n_features_in_ = final.n_features_in_
        self._W = final._W
        return self

    def score(self, X, y_partial, sample_weight=None):
        """Accuracy on the labelled rows of ``y_partial`` (-1 = unlabelled, not scored), so
        model selection works on the partly labelled data ``fit`` takes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y_partial : array-like of shape (n_samples,)
            Labels, -1 for an unlabelled row.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; None gives every row weight 1.

        Returns
        -------
        score : float
            NaN when no row is labelled.
        """
        y_partial = np.asarray(y_partial)
        pred = self.predict(X)
        if y_partial.shape != pred.shape:
            raise ValueError(f"y_partial must have shape {pred.shape}; got {y_partial.shape}.")
        lab = y_partial != -1
        if not lab.any():
            return float("nan")
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[lab]
        return float(np.average(pred[lab] == y_partial[lab], weights=w))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
