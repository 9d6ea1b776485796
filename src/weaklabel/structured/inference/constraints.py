"""Hard constraints at decode time: allowed labels per node, forbidden label pairs per edge.

They are imposed on the potentials, so that every inference method honours them: a
disallowed node label or a forbidden pair loses ``M``, more than the whole range of scores
any labeling can span.  Then a labeling that breaks a constraint scores below every
labeling that keeps them all, and an exact method (Viterbi, branch and bound when it
finishes, the integer program, a tight LP) returns a constrained MAP labeling whenever one
exists; when none exists, the labeling it returns breaks a constraint, which
:func:`satisfies` detects.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_constraints", "constrain", "satisfies"]


def check_constraints(allowed, forbidden, n_nodes, n_edges, K):
    """Validate hard constraints.

    Parameters
    ----------
    allowed : bool array of shape (n_nodes, K) or (K,), or None
        The labels each node (or every node) may take.
    forbidden : bool array of shape (K, K) or (n_edges, K, K), or None
        Label pairs an edge (or every edge) may not take: ``forbidden[a, b]`` for the
        edge's first node labelled ``a`` and its second ``b``.
    n_nodes, n_edges, K : int
        The graph's size and the number of labels.

    Returns
    -------
    allowed : ndarray of bool of shape (n_nodes, K) or None
        Per node.
    forbidden : ndarray of bool of shape (n_edges, K, K) or None
        Per edge.

    Raises
    ------
    ValueError
        When a node allows no label, or a shape does not fit.
    """
    A = None
    if allowed is not None:
        A = np.asarray(allowed)
        if A.dtype != bool:
            raise ValueError(f"allowed must be a bool mask; got dtype {A.dtype}.")
        if A.shape == (K,):
            A = np.broadcast_to(A, (n_nodes, K))
        if A.shape != (n_nodes, K):
            raise ValueError(f"allowed must have shape ({n_nodes}, {K}) or ({K},); got {A.shape}.")
        none = ~A.any(axis=1)
        if none.any():
            raise ValueError(f"allowed leaves no label at nodes {np.flatnonzero(none)[:10].tolist()}; every node needs "
                             "at least one.")
    F = None
    if forbidden is not None:
        F = np.asarray(forbidden)
        if F.dtype != bool:
            raise ValueError(f"forbidden must be a bool mask; got dtype {F.dtype}.")
        if F.shape == (K, K):
            F = np.broadcast_to(F, (n_edges, K, K))
        if F.shape != (n_edges, K, K):
            raise ValueError(f"forbidden must have shape ({K}, {K}) or ({n_edges}, {K}, {K}); got {F.shape}.")
    return A, F


def constrain(U, P, n_edges, allowed=None, forbidden=None):
    """Impose constraints on potentials.

    Parameters
    ----------
    U : ndarray of shape (n, K)
        Node scores.
    P : ndarray of shape (K, K) or (n_edges, K, K)
        Edge scores, shared by the ``n_edges`` edges or per edge.
    n_edges : int
        The number of edges.
    allowed : ndarray of bool of shape (n, K) or None, default=None
        From :func:`check_constraints`.
    forbidden : ndarray of bool of shape (n_edges, K, K) or None, default=None
        From :func:`check_constraints`.

    Returns
    -------
    U : ndarray of shape (n, K)
        Node scores, lowered by ``M`` where a label is not allowed (see the module doc).
    P : ndarray
        Edge scores, (n_edges, K, K) lowered by ``M`` at forbidden pairs when a pair is
        forbidden, else ``P`` as given.
    """
    if allowed is None and forbidden is None:
        return U, P
    span = float(np.sum(U.max(axis=1) - U.min(axis=1)))
    if P.ndim == 3:
        span += float(np.sum(P.max(axis=(1, 2)) - P.min(axis=(1, 2))))
    else:
        span += n_edges * float(P.max() - P.min())
    M = 2.0 * span + 1.0              # more than any two labelings' scores can differ by
    if allowed is not None:
        U = np.where(allowed, U, U - M)
    if forbidden is not None:
        P3 = np.broadcast_to(P, forbidden.shape) if P.ndim == 2 else P
        P = np.where(forbidden, P3 - M, P3)
    return np.ascontiguousarray(U), np.ascontiguousarray(P)


def satisfies(labels, edges, allowed=None, forbidden=None):
    """Tell whether a labeling keeps every constraint.

    Parameters
    ----------
    labels : array-like of int of shape (n_nodes,)
        The labeling.
    edges : ndarray of int of shape (n_edges, 2)
        The edges.
    allowed : ndarray of bool of shape (n_nodes, K) or None, default=None
        The labels each node may take.
    forbidden : ndarray of bool of shape (n_edges, K, K) or None, default=None
        The pairs each edge may not take.

    Returns
    -------
    bool
        True when no constraint is broken.
    """
    y = np.asarray(labels)
    if allowed is not None and not allowed[np.arange(y.size), y].all():
        return False
    if forbidden is not None and edges.shape[0] and forbidden[np.arange(edges.shape[0]), y[edges[:, 0]],
                                                              y[edges[:, 1]]].any():
        return False
    return True
