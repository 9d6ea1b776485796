"""Loss-augmented inference for bags: the most violating labeling outside the candidates."""

from __future__ import annotations

import numpy as np

from .._validation import read_only
from ._kernels import _search

__all__ = ["most_violating_labeling"]


def most_violating_labeling(scores, labelings, canonical=True):
    """Exact ``argmax_{zbar not in Z} min_{z in Z} Hamming(zbar, z) + sum_m scores[m, zbar_m]``.

    Branch and bound over the bag's instances.  Only ``|U_m| + 1`` labels can be optimal
    at instance ``m`` (the labels ``U_m`` that some candidate gives it, and the best label
    outside them); partial labelings are bounded by the per-candidate decomposition
    ``s + min_l (h_l + sum_{m' >= m} max_y (scores[m', y] + [y != Z[l, m']]))``.

    Complexity: ``O(M C + L M)`` to set up, ``O(L)`` per node visited, at most
    ``O(M prod_m (|U_m| + 1))`` nodes in the worst case (the paper's bound); the bound
    prunes almost everything in practice (``benchmarks/mms_speed.py`` measures bags of
    10 instances over 200 classes).

    Parameters
    ----------
    scores : array-like of shape (M, C)
        Instance scores ``w_y . x_m`` of the bag's ``M`` instances.
    labelings : array-like of int, shape (L, M)
        Candidate labeling vectors (class indices ``0 .. C-1``).
    canonical : bool, default=True
        Return the lexicographically smallest maximiser (a second, pruned pass).

    Returns
    -------
    value : float
        The maximum, or ``-inf`` when every labeling is a candidate.
    zbar : ndarray of int, shape (M,)
        A maximiser (``-1`` everywhere when there is none).

    Examples
    --------
    >>> import numpy as np
    >>> v, z = most_violating_labeling(np.zeros((2, 3)), [[0, 1], [1, 0]])
    >>> float(v), z.tolist()
    (2.0, [2, 2])
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    Z = np.ascontiguousarray(labelings)
    if scores.ndim != 2 or scores.shape[0] == 0 or scores.shape[1] == 0:
        raise ValueError(f"scores must be a non-empty 2-D array (M, C); got shape {scores.shape}.")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores hold NaN or infinite values.")
    if Z.ndim == 1:
        Z = Z[None, :]
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] != scores.shape[0]:
        raise ValueError(f"labelings must be 2-D (L >= 1, M={scores.shape[0]}); got shape {Z.shape}.")
    if Z.dtype.kind not in "iu":
        raise TypeError(f"labelings must hold class indices (integers); got dtype {Z.dtype}.")
    if Z.min() < 0 or Z.max() >= scores.shape[1]:
        raise ValueError(f"labelings must hold class indices in 0..{scores.shape[1] - 1}; got "
                         f"{int(Z.min())}..{int(Z.max())}.")
    zbar = np.full(scores.shape[0], -1, dtype=np.int64)
    # read-only labelings, as the learners' passes hand them over: one compiled search for both
    v = _search(scores, read_only(np.ascontiguousarray(Z, dtype=np.int32)), bool(canonical), zbar)
    return float(v), zbar
