"""Exact MAP on any graph: the LP relaxation, then branch and bound in the reparametrised
problem with a deepening target."""

from __future__ import annotations

import numpy as np


from ._common import MAPResult, _adjacency, potentials
from ._kernels import _beliefs, _dfbb, _energy
from .lp import lp_map

__all__ = ["exact_map"]


def exact_map(unary, pairwise, edges=None, max_iter=1000, max_nodes=2_000_000):
    """Exact MAP: :func:`lp_map`, then branch and bound when the relaxation is not tight.

    The search runs in the problem reparametrised by the LP's dual messages, where a
    labeling's score is a sum of node and edge terms each at most its maximum.  A partial
    labeling is bounded by its assigned terms plus, for every free node, the best of its
    labels counting the edges to assigned neighbours, plus the maximum of every edge
    between free nodes (kept incrementally, O(degree K) per step).  Nodes are chosen by
    fewest labels that can still beat the target, so on rule-like models such as Sudoku
    the search is constraint propagation guided by the LP.

    The target deepens, as in iterative-deepening A*: the first search seeks a labeling
    within ``gap / 256`` of the dual bound (``gap`` = bound minus the LP labeling's score)
    and prunes everything that cannot reach it, and each search that finds none proves
    the MAP lies below its target and hands on a target 1.5 times further away; the LP
    labeling is the last resort.  A search that finds a labeling keeps it as incumbent and
    runs to the end, so the result is a MAP.  When the MAP is close to the bound (a model
    that has learned Sudoku's rules and a valid puzzle) the searches are tiny, where
    searching from the LP labeling's score explores every labeling that breaks a rule or
    two.  Worst case exponential; ``max_nodes`` caps the search nodes of all targets.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``: one table for every edge,
        or one per edge.
    edges : array-like of int of shape (n_edges, 2) or None, default=None
        The graph; ``None`` means the chain 0-1-...-(n_nodes - 1).
    max_iter : int, default=1000
        MPLP sweeps for the root relaxation.
    max_nodes : int, default=2000000
        Search nodes, over all targets, before giving up optimality (``info["optimal"]``
        is then False and the best labeling found is returned).

    Returns
    -------
    MAPResult
        ``certified``: the labeling is a proven MAP (the LP was tight, or a search ran to
        its end); ``nodes``: search nodes in all; ``bound``: the value when certified, the
        LP's dual bound otherwise; ``info``: ``tight_at_root`` (no search was needed),
        ``lp_calls`` (1) and ``searches`` (targets tried).

    Examples
    --------
    >>> import numpy as np
    >>> E = [[0, 1], [1, 2], [0, 2]]          # "differ" on a triangle with two labels
    >>> r = exact_map([[0.1, 0], [0, 0.05], [0, 0]], -np.eye(2), E)
    >>> r.labels.tolist(), round(r.value, 6), r.info["tight_at_root"], r.certified
    ([0, 1, 0], -0.85, False, True)
    """
    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    root = lp_map(U, P, E, max_iter=max_iter)
    if root.certified:
        return MAPResult(root.labels, root.value, root.value, True,
                         info={"lp_calls": 1, "tight_at_root": True, "searches": 0})
    msg = root.info["messages"]
    b = _beliefs(U, E, msg)
    ue = np.ascontiguousarray(P - msg[:, 0, :, None] - msg[:, 1, None, :])
    ptr, nnode, nedge, nside = _adjacency(E, n)
    out = root.labels.copy()
    inc = float(_energy(U, P, E, out))
    gap = root.bound - inc
    step = gap / 256.0
    left = int(max_nodes)
    searches = 0
    optimal = False
    while left > 0:
        target = root.bound - step
        last = target <= inc
        if last:
            target = inc
        searches += 1
        best, finished, used = _dfbb(b, ue, E, ptr, nnode, nedge, nside, target, left, out)
        left -= used
        if best > target or last or not finished:
            optimal = finished                    # a search that ran to its end with a labeling
            break
        step *= 1.5
    value = float(_energy(U, P, E, out))
    return MAPResult(out, value, value if optimal else root.bound, bool(optimal), int(max_nodes) - left,
                     info={"lp_calls": 1, "tight_at_root": False, "searches": searches})
