"""Bags with candidate labeling vectors from exact labels (Luo & Orabona 2010, Section 4.1)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import _classes_array, _labels_to_index, check_int_at_least
from ..labels import BagCandidates

__all__ = ["bags"]


def _pairs(rng, n_classes):
    """A random pairing of the classes: ``partner[k]`` (``-1`` for the odd one out)."""
    perm = rng.permutation(n_classes)
    partner = np.full(n_classes, -1, dtype=np.int64)
    for a, b in zip(perm[0::2], perm[1::2]):
        partner[a], partner[b] = b, a
    return partner


def _check_prob(p, name):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0 <= p <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {p!r}.")
    return float(p)


def bags(y, bag_size, n_labelings, p_correlated=0.0, p_ambiguous=0.0, *, classes=None, random_state=None):
    """Group labelled instances into bags with ``n_labelings`` candidate labeling vectors.

    The generator of Luo & Orabona (2010), Section 4.1:

    1. Classes are paired at random twice: "correlated" pairs and "ambiguous" pairs.
    2. Instances are grouped at random into bags of ``bag_size``; each bag is started
       from a random instance and, with probability ``p_correlated``, gets an instance of
       that instance's correlated class, so two instances of correlated classes share a
       bag with probability at least ``p_correlated``.  When fewer than ``bag_size``
       instances remain they form one last, smaller bag.
    3. A bag's ambiguous set holds its true labels plus, with probability ``p_ambiguous``
       each, the ambiguous partner of each of its true labels.
    4. Besides the true labeling vector, ``n_labelings - 1`` distinct vectors are made by
       changing ``k`` elements (``k`` uniform in ``1 .. bag_size``) of the true vector to
       labels of the ambiguous set other than the element's true label.  When a bag's
       ambiguous set cannot make that many distinct vectors (for example a bag whose
       instances all share one label, with ``p_ambiguous = 0``), it gets as many as it can.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True labels; row ``r`` of ``X`` is instance ``r``.
    bag_size : int
        Instances per bag ``B`` (>= 1).
    n_labelings : int
        Candidate labeling vectors per bag ``L`` (>= 1), the true one included.
    p_correlated, p_ambiguous : float in [0, 1], default=0.0
        ``P_c`` and ``P_a`` of the paper.
    classes : array-like, default=None
        All labels; ``None`` takes the labels in ``y``.
    random_state : int, RandomState instance or None, default=None
        Seed of the random draws; a fixed seed reproduces a run exactly.

    Returns
    -------
    bags : BagCandidates
        ``bags.bag_of[r]`` is the bag of row ``r``; the true labeling of every bag is
        among its candidates.

    Examples
    --------
    >>> from weaklabel.simulate import bags
    >>> B = bags([0, 1, 2, 3, 0, 1], bag_size=3, n_labelings=3, random_state=0)
    >>> B.n_bags, B.bag_sizes.tolist(), bool(B.contains([0, 1, 2, 3, 0, 1]).all())
    (2, [3, 3], True)
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of labels; got shape {y.shape}.")
    check_int_at_least(bag_size, "bag_size", 1)
    check_int_at_least(n_labelings, "n_labelings", 1)
    pc = _check_prob(p_correlated, "p_correlated")
    pa = _check_prob(p_ambiguous, "p_ambiguous")
    classes = _classes_array(np.unique(y) if classes is None else classes)
    yi = _labels_to_index(y, classes, "y").astype(np.int64)
    rng = check_random_state(random_state)
    K = classes.size
    corr = _pairs(rng, K)
    amb = _pairs(rng, K)
    n = yi.size

    # ---- grouping ----
    order = rng.permutation(n)
    by_class = [list(rng.permutation(np.flatnonzero(yi == k))) for k in range(K)]
    taken = np.zeros(n, dtype=bool)
    bag_of = np.empty(n, dtype=np.int64)
    pos = 0
    b = 0

    def next_free():
        nonlocal pos
        while pos < n and taken[order[pos]]:
            pos += 1
        return order[pos] if pos < n else -1

    while True:
        s = next_free()
        if s < 0:
            break
        members = [s]
        taken[s] = True
        partner = corr[yi[s]]
        if partner >= 0 and len(members) < bag_size and rng.random_sample() < pc:
            stack = by_class[partner]
            while stack and taken[stack[-1]]:
                stack.pop()
            if stack:
                r = stack.pop()
                members.append(r)
                taken[r] = True
        while len(members) < bag_size:
            r = next_free()
            if r < 0:
                break
            members.append(r)
            taken[r] = True
        bag_of[members] = b
        b += 1

    # ---- candidate labeling vectors ----
    n_bags = b
    rows_of = np.argsort(bag_of, kind="stable")
    ptr = np.searchsorted(bag_of[rows_of], np.arange(n_bags + 1))
    labelings = []
    for i in range(n_bags):
        rows = rows_of[ptr[i]:ptr[i + 1]]
        true = yi[rows]
        M = true.size
        A = set(true.tolist())
        for lab in np.unique(true):
            if amb[lab] >= 0 and rng.random_sample() < pa:
                A.add(int(amb[lab]))
        pools = [np.array(sorted(A - {int(t)}), dtype=np.int64) for t in true]
        changeable = np.array([m for m in range(M) if pools[m].size], dtype=np.int64)
        found = {tuple(true.tolist())}
        out = [true]
        attempts = 0
        while len(out) < n_labelings and changeable.size and attempts < 50 * n_labelings:
            attempts += 1
            k = min(int(rng.randint(1, M + 1)), changeable.size)
            where = rng.choice(changeable, k, replace=False)
            z = true.copy()
            for m in where:
                z[m] = pools[m][rng.randint(pools[m].size)]
            key = tuple(z.tolist())
            if key not in found:
                found.add(key)
                out.append(z)
        labelings.append(classes[np.vstack(out)])
    return BagCandidates(bag_of, labelings, classes=classes)
