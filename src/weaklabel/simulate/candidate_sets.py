"""Candidate label sets from exact labels, as in the partial-label papers' protocol."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import _classes_array, _labels_to_index, check_int_at_least
from ..labels import CandidateSets

__all__ = ["make_candidate_sets"]


def make_candidate_sets(y, set_size, *, classes=None, random_state=None):
    """Candidate sets holding the true label plus ``set_size - 1`` distractors.

    The distractors of each sample are drawn uniformly without replacement from the
    other classes (Bhattacharjee & Manwani, Section 5).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels.
    set_size : int
        Size of every candidate set, 1 <= set_size <= n_classes.
    classes : array-like of shape (n_classes,), default=None
        All labels; ``None`` takes the labels present in ``y``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws; the same seed gives the same sets.

    Returns
    -------
    S : CandidateSets
        ``S.mask[i]`` holds ``y[i]`` and exactly ``set_size`` labels.

    Examples
    --------
    >>> from weaklabel.simulate import make_candidate_sets
    >>> S = make_candidate_sets([0, 1, 2, 3], set_size=2, classes=range(5), random_state=0)
    >>> S.sizes.tolist(), bool(S.contains([0, 1, 2, 3]).all())
    ([2, 2, 2, 2], True)
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
    if y.size == 0:
        raise ValueError("y is empty; at least one label is needed.")
    classes = _classes_array(np.unique(y) if classes is None else classes)
    n_classes = classes.size
    set_size = check_int_at_least(set_size, "set_size", 1)
    if set_size > n_classes:
        raise ValueError(f"set_size must be <= the number of classes ({n_classes}); got {set_size}.")
    idx = _labels_to_index(y, classes, "y")
    rng = check_random_state(random_state)
    n = y.size
    # Random keys: the true label gets -1 so it always sorts first; the set_size - 1
    # smallest keys among the others are a uniform draw without replacement.
    keys = rng.random_sample((n, n_classes))
    keys[np.arange(n), idx] = -1.0
    chosen = np.argpartition(keys, set_size - 1, axis=1)[:, :set_size] if set_size < n_classes \
        else np.tile(np.arange(n_classes), (n, 1))
    S = np.zeros((n, n_classes), dtype=bool)
    S[np.arange(n)[:, None], chosen] = True
    return CandidateSets(S, classes)
