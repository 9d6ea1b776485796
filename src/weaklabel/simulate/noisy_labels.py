"""Noisy labels from a confusion matrix, and the confusion families of the UMA paper."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import _classes_array, _labels_to_index, check_confusion, check_int_at_least

__all__ = ["noisy_labels", "confusion_family", "random_stochastic_matrix"]


def _column_normalize(A):
    """Pi: negative entries to 0, then every column scaled to sum to 1."""
    A = np.where(A < 0, 0.0, A)
    s = A.sum(axis=0, keepdims=True)
    return A / np.where(s > 0, s, 1.0)


def random_stochastic_matrix(n_classes, *, random_state=None, max_cond=1e8):
    """Draw a random invertible column-stochastic matrix (entries uniform, columns normalised).

    Draws again until the condition number is at most ``max_cond``, as Section 4.1 of
    Louche & Ralaivola rejects non-invertible draws.

    Parameters
    ----------
    n_classes : int
        Its size.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    max_cond : float, default=1e8
        The largest condition number accepted.

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        Columns sum to 1.
    """
    n_classes = check_int_at_least(n_classes, "n_classes", 2)
    rng = check_random_state(random_state)
    while True:
        M = _column_normalize(rng.random_sample((n_classes, n_classes)))
        if np.linalg.cond(M) <= max_cond:
            return M


def confusion_family(n_classes, i, *, M=None, random_state=None):
    """``C_i = Pi(I + i N)`` with ``N = (M - I) / 10`` (UMA paper, Section 4.1).

    ``i = 0`` gives the identity (no noise); ``i = 10`` gives ``M``; larger ``i`` moves
    the mass off the diagonal towards ``Pi(N)``.  With ``M=None`` a random invertible
    column-stochastic ``M`` is drawn from ``random_state`` (the same seed gives the same
    family).

    Parameters
    ----------
    n_classes : int
        Number of classes Q.
    i : float
        Position in the family (>= 0).
    M : ndarray of shape (Q, Q), default=None
        The reference column-stochastic matrix.
    random_state : int, RandomState instance or None, default=None
        Seed for drawing ``M``.

    Returns
    -------
    C : ndarray of shape (Q, Q)
        Column-stochastic: ``C[p, q] = P(noisy = p | true = q)``.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.simulate import confusion_family
    >>> C = confusion_family(4, 10, random_state=0)
    >>> bool(np.allclose(C.sum(axis=0), 1.0))
    True
    """
    if M is None:
        M = random_stochastic_matrix(n_classes, random_state=random_state)
    M = check_confusion(M, n_classes, name="M")
    if not np.isfinite(i) or i < 0:
        raise ValueError(f"i must be a finite number >= 0; got {i!r}.")
    N = (M - np.eye(n_classes)) / 10.0
    return _column_normalize(np.eye(n_classes) + i * N)


def noisy_labels(y, C, *, classes=None, random_state=None):
    """Draw a noisy label for each true label from column ``q`` of ``C`` when the true label is ``q``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels.
    C : array-like of shape (n_classes, n_classes)
        Column-stochastic confusion matrix.
    classes : array-like of shape (n_classes,), default=None
        Labels of C's rows/columns; ``None`` takes the labels in ``y`` (must then be Q of them).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)
        The noisy labels.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
    classes = _classes_array(np.unique(y) if classes is None else classes)
    C = check_confusion(C, classes.size, name="C")
    idx = _labels_to_index(y, classes, "y")
    rng = check_random_state(random_state)
    cdf = np.cumsum(C, axis=0)[:, idx]                  # (Q, n): cumulative column of each true label
    u = rng.random_sample(y.size)
    noisy = (u[None, :] > cdf).sum(axis=0)
    noisy = np.minimum(noisy, classes.size - 1)
    return classes[noisy]


def annotators(y, confusions, *, p_missing=0.0, classes=None, random_state=None):
    """Draw labels from several annotators, each with its own confusion matrix.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels, as class indices ``0 .. n_classes-1`` (or labels of ``classes``).
    confusions : array-like of shape (n_annotators, n_classes, n_classes)
        ``confusions[j][p, q] = P(annotator j says p | true q)`` (columns sum to 1, as UMA's).
    p_missing : float or array-like of shape (n_annotators,), default=0.0
        Probability that an annotator leaves a row unannotated (every row keeps at least
        one annotation).
    classes : array-like of shape (n_classes,), default=None
        Labels of the matrices' rows/columns; ``None`` means ``0 .. n_classes-1``.
    random_state : int, RandomState instance or None, default=None
        Seed of the random draws; a fixed seed reproduces a run exactly.

    Returns
    -------
    A : ndarray of int, shape (n_samples, n_annotators)
        Class index said by each annotator, -1 where it said nothing.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
    Cs = np.asarray(confusions, dtype=np.float64)
    if Cs.ndim != 3 or Cs.shape[1] != Cs.shape[2]:
        raise ValueError(f"confusions must have shape (n_annotators, n_classes, n_classes); got {Cs.shape}.")
    m, Q, _ = Cs.shape
    classes = _classes_array(np.arange(Q) if classes is None else classes)
    if classes.size != Q:
        raise ValueError(f"classes has {classes.size} labels but the confusion matrices are {Q} x {Q}.")
    p_missing = np.broadcast_to(np.asarray(p_missing, dtype=np.float64), (m,))
    if np.any((p_missing < 0) | (p_missing >= 1)):
        raise ValueError(f"p_missing must lie in [0, 1); got {p_missing.tolist()}.")
    rng = check_random_state(random_state)
    idx = _labels_to_index(y, classes, "y")
    A = np.empty((y.size, m), dtype=np.int64)
    for j in range(m):
        C = check_confusion(Cs[j], Q, name=f"confusions[{j}]")
        A[:, j] = noisy_labels(idx, C, classes=np.arange(Q), random_state=rng)
    missing = rng.random_sample((y.size, m)) < p_missing[None, :]
    none_left = missing.all(axis=1)
    missing[none_left, rng.randint(0, m, size=int(none_left.sum()))] = False
    A[missing] = -1
    return A
