"""What every inference function shares: checked potentials, the score of a labeling, and
:class:`MAPResult`, the one thing every inference function returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..._validation import read_only

from ..graphs import check_graph
from ._kernels import _energy

__all__ = ["MAPResult", "potentials", "energy"]


@dataclass
class MAPResult:
    """The result of a MAP inference: every inference function returns one.

    Parameters
    ----------
    labels : ndarray of int (n_nodes,)
        The labeling found.
    value : float
        Its score ``sum_v unary[v, y_v] + sum_e pairwise[e][y_u, y_v]``.
    bound : float
        An upper bound on the MAP score (``value`` itself when ``certified`` by an exact
        method; the LP's dual bound otherwise).
    certified : bool
        ``labels`` is proven to be a MAP labeling (Viterbi and enumeration always; the LP
        when it is tight; branch and bound and the integer program when they finished).
    nodes : int
        Search nodes used (branch and bound); 0 for the other methods.
    info : dict
        What the method adds: ``lp_map`` the ``messages`` (warm start) and ``iterations``;
        ``exact_map`` ``tight_at_root``, ``lp_calls`` and ``searches``; ``milp_map``
        HiGHS's ``status``, ``n_binary`` and ``n_edge_vars``.
    """

    labels: np.ndarray
    value: float
    bound: float
    certified: bool
    nodes: int = 0
    info: dict = field(default_factory=dict)

    @property
    def gap(self):
        """``bound - value``: 0 for a certified MAP, how far from proven otherwise."""
        return float(self.bound - self.value)


def potentials(unary, pairwise, edges=None):
    """Validate potentials as float64 and contiguous.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``: one table for every edge,
        or one per edge.
    edges : array-like of int of shape (n_edges, 2) or None, default=None
        The graph; ``None`` means the chain 0-1-...-(n_nodes - 1).

    Returns
    -------
    U : ndarray of shape (n, K)
        The node scores (C-contiguous, read-only, as ``P`` and ``edges``: views of the
        inputs when they are already float64 and contiguous).
    P : ndarray of shape (n_edges, K, K)
        One table per edge.
    edges : ndarray of shape (n_edges, 2)
        The edges.
    """
    U = np.asarray(unary, dtype=np.float64)
    if U.ndim != 2 or U.shape[0] == 0 or U.shape[1] == 0:
        raise ValueError(f"unary must be a non-empty 2-D array (n_nodes, K); got shape {U.shape}.")
    n, K = U.shape
    if edges is None:                 # the chain: valid by construction, no checks needed
        E = np.empty((max(n - 1, 0), 2), dtype=np.int64)
        E[:, 0] = np.arange(n - 1)
        E[:, 1] = E[:, 0] + 1
    else:
        n, E = check_graph(n, edges)
    P = np.asarray(pairwise, dtype=np.float64)
    if P.shape == (K, K):
        P = np.broadcast_to(P, (E.shape[0], K, K))       # made contiguous below
    elif P.shape != (E.shape[0], K, K):
        raise ValueError(f"pairwise must have shape ({K}, {K}) or ({E.shape[0]}, {K}, {K}) for {E.shape[0]} edges "
                         f"and {K} labels; got {P.shape}.")
    if not (np.all(np.isfinite(U)) and np.all(np.isfinite(P))):
        raise ValueError("unary and pairwise must be finite.")
    # read-only whatever the caller's flags: the decoders only read them, and one compiled
    # decoder then serves writable and read-only potentials alike (numba types them apart)
    return read_only(np.ascontiguousarray(U)), read_only(np.ascontiguousarray(P)), read_only(np.ascontiguousarray(E))


def energy(unary, pairwise, edges, labels):
    """Return the score of a labeling.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores.
    edges : array-like of int of shape (n_edges, 2) or None
        The graph; ``None`` means the chain.
    labels : array-like of int of shape (n,)
        The labeling.

    Returns
    -------
    float
        ``sum_v unary[v, y_v] + sum_e pairwise[e][y_u, y_v]``.
    """
    U, P, E = potentials(unary, pairwise, edges)
    y = np.asarray(labels, dtype=np.int64)
    if y.shape != (U.shape[0],) or y.min() < 0 or y.max() >= U.shape[1]:
        raise ValueError(f"labels must be {U.shape[0]} ints in 0..{U.shape[1] - 1}.")
    return float(_energy(U, P, E, y))


def _adjacency(E, n):
    ends = np.concatenate([E[:, 0], E[:, 1]])
    other = np.concatenate([E[:, 1], E[:, 0]])
    eid = np.concatenate([np.arange(E.shape[0]), np.arange(E.shape[0])])
    side = np.concatenate([np.zeros(E.shape[0], np.int64), np.ones(E.shape[0], np.int64)])
    order = np.argsort(ends, kind="stable")
    ptr = np.searchsorted(ends[order], np.arange(n + 1))
    return ptr.astype(np.int64), other[order], eid[order], side[order]
