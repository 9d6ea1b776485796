"""Bandit (one-bit) feedback from exact labels: the oracle of the bandit papers."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import _classes_array, _labels_to_index
from ..labels import BanditFeedback

__all__ = ["bandit_feedback", "acceptable_labels"]


def bandit_feedback(y, proposed=None, *, classes=None, random_state=None):
    """Answer "was the proposal right?" for each sample: logged one-bit feedback.

    Parameters
    ----------
    y : array-like of shape (n_samples,), or candidate sets
        True labels (the oracle); or, where several labels are acceptable, candidate sets
        (a :class:`weaklabel.CandidateSets`, a bool mask, or label lists): a proposal is
        right when it is any acceptable label of its row.
    proposed : array-like of shape (n_samples,), default=None
        The labels proposed; ``None`` proposes a uniformly random class per sample
        (a uniform logging policy, the usual way to make an off-line bandit log).
    classes : array-like of shape (n_classes,), default=None
        Every label; ``None`` takes the labels present in ``y``.
    random_state : int, RandomState instance or None, default=None
        Seed of the uniform proposals.

    Returns
    -------
    feedback : BanditFeedback
        ``proposed`` and ``correct = (proposed == y)``; learn from it with a bandit
        learner's ``partial_fit_feedback`` or turn it into candidate sets with
        ``CandidateSets.from_bandit``.

    Examples
    --------
    >>> from weaklabel.simulate import bandit_feedback
    >>> fb = bandit_feedback([0, 1, 2, 1], proposed=[0, 2, 2, 0])
    >>> fb.correct.tolist()
    [True, False, True, False]
    >>> bandit_feedback([[0, 1], [1], [1, 2], [0]], proposed=[1, 2, 2, 0]).correct.tolist()
    [True, False, True, True]
    """
    from ..labels import CandidateSets, check_candidates

    if isinstance(y, (CandidateSets, list)) or np.ndim(y) == 2:
        S, classes = check_candidates(y, None, classes)
        n = S.shape[0]
    else:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D labels or candidate sets; got shape {y.shape}.")
        classes = _classes_array(np.unique(y) if classes is None else classes)
        S = None
        n = y.size
        idx = _labels_to_index(y, classes, "y")
    if proposed is None:
        rng = check_random_state(random_state)
        proposed = classes[rng.randint(classes.size, size=n)]
    else:
        proposed = np.asarray(proposed)
        if proposed.shape != (n,):
            raise ValueError(f"proposed must have one label per row of y ({n},); got shape {proposed.shape}.")
    p_idx = _labels_to_index(proposed, classes, "proposed")
    correct = S[np.arange(n), p_idx] if S is not None else p_idx == idx
    return BanditFeedback(proposed, correct)


def acceptable_labels(y, p=0.5, *, classes=None, partner_seed=0, random_state=None):
    """Draw sets of acceptable labels: each row's label, and with probability ``p`` its class's partner too.

    Every class is paired with one other class, once for the data set (a random
    permutation without fixed points drawn from ``partner_seed``), as synonyms or a
    shared parent make two labels both right for some rows.  Feed the sets to a bandit
    learner's ``fit`` / ``partial_fit`` (a proposal is right when it is in the set) or to
    :func:`bandit_feedback`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels.
    p : float in [0, 1], default=0.5
        Probability that the partner label is acceptable too, per row.
    classes : array-like of shape (n_classes,), default=None
        Every label (at least 2); ``None`` takes the labels present in ``y``.
    partner_seed : int, default=0
        Seed of the pairing (fixed per data set, so that the structure can be learnt).
    random_state : int, RandomState instance or None, default=None
        Seed of the per-row draws.

    Returns
    -------
    S : CandidateSets
        One set per row.

    Examples
    --------
    >>> from weaklabel.simulate import acceptable_labels
    >>> S = acceptable_labels([0, 1, 2, 2], p=1.0, classes=range(3))
    >>> S.sizes.tolist()
    [2, 2, 2, 2]
    """
    from numbers import Real

    from ..labels import CandidateSets

    if isinstance(p, bool) or not isinstance(p, Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1]; got {p!r}.")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
    classes = _classes_array(np.unique(y) if classes is None else classes)
    K = classes.size
    if K < 2:
        raise ValueError(f"acceptable_labels needs at least 2 classes; got {K}.")
    idx = _labels_to_index(y, classes, "y")
    prng = np.random.RandomState(partner_seed)
    while True:
        partner = prng.permutation(K)
        if not (partner == np.arange(K)).any():
            break
    rng = check_random_state(random_state)
    S = np.zeros((y.size, K), dtype=bool)
    S[np.arange(y.size), idx] = True
    both = np.flatnonzero(rng.random_sample(y.size) < p)
    S[both, partner[idx[both]]] = True
    return CandidateSets(S, classes=classes)
