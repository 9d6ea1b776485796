"""Exact MAP as an integer program (HiGHS through scipy), for the problems branch and bound
gives up on."""

from __future__ import annotations

import numpy as np


from ._common import MAPResult, potentials
from ._kernels import _beliefs, _energy
from .lp import lp_map

__all__ = ["milp_map"]


def milp_map(unary, pairwise, edges=None, time_limit=None):
    """Exact MAP as an integer program solved by HiGHS (``scipy.optimize.milp``).

    Binary node indicators ``x_v(y)`` with one label per node, continuous edge indicators
    ``z_e(y, y')`` tied to them by the marginalisation constraints of the local polytope
    (integral ``x`` makes ``z`` integral).  The objective is the problem reparametrised by
    the dual messages of :func:`lp_map` (same optimum, better conditioned); labels that
    cannot beat the LP's labeling by the reduced-cost test are removed first, and edges
    with a fixed end need no edge variables.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``: one table for every edge,
        or one per edge.
    edges : array-like of int of shape (n_edges, 2) or None, default=None
        The graph; ``None`` means the chain 0-1-...-(n_nodes - 1).
    time_limit : float or None, default=None
        Seconds for HiGHS; ``info["optimal"]`` is False if it stops early.

    Returns
    -------
    MAPResult
        ``certified`` when HiGHS proved optimality (or the LP was tight); ``info``:
        ``status`` (HiGHS's message), ``n_binary``, ``n_edge_vars``.

    Examples
    --------
    >>> import numpy as np
    >>> r = milp_map(np.eye(3), -2 * np.eye(3), [[0, 1], [1, 2], [0, 2]])
    >>> r.labels.tolist(), r.value, r.certified
    ([0, 1, 2], 3.0, True)
    """
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    root = lp_map(U, P, E)
    if root.certified:
        return MAPResult(root.labels, root.value, root.value, True,
                         info={"status": "LP relaxation tight", "n_binary": 0, "n_edge_vars": 0})
    msg = root.info["messages"]
    b = _beliefs(U, E, msg)
    ue = P - msg[:, 0, :, None] - msg[:, 1, None, :]
    # bound = sum_v max b_v + sum_e max ue_e; a labeling with y at v scores at most
    # bound - (max b_v - b_v(y)), so y cannot beat the incumbent when that gap exceeds the slack
    keep = (b.max(1, keepdims=True) - b) <= (root.bound - root.value) * (1 + 1e-9) + 1e-9
    idx = -np.ones((n, K), dtype=np.int64)
    nx = int(keep.sum())
    idx[keep] = np.arange(nx)
    cost = [-b[keep]]
    rows, cols, vals, lo = [], [], [], []
    r = 0
    for v in range(n):
        L = np.flatnonzero(keep[v])
        rows += [r] * L.size
        cols += idx[v, L].tolist()
        vals += [1.0] * L.size
        lo.append(1.0)
        r += 1
    nz = nx
    for e, (u, v) in enumerate(E):
        Lu, Lv = np.flatnonzero(keep[u]), np.flatnonzero(keep[v])
        if Lu.size == 1 and Lv.size == 1:            # a constant
            continue
        if Lu.size == 1 or Lv.size == 1:               # linear in the free end
            if Lu.size == 1:
                cost[0][idx[v, Lv]] -= ue[e, Lu[0], Lv]
            else:
                cost[0][idx[u, Lu]] -= ue[e, Lu, Lv[0]]
            continue
        z = nz + np.arange(Lu.size * Lv.size).reshape(Lu.size, Lv.size)
        cost.append(-ue[e][np.ix_(Lu, Lv)].ravel())
        nz += z.size
        for i, a in enumerate(Lu):                    # sum_y' z(a, y') = x_u(a)
            rows += [r] * (Lv.size + 1)
            cols += z[i].tolist() + [int(idx[u, a])]
            vals += [1.0] * Lv.size + [-1.0]
            lo.append(0.0)
            r += 1
        for j, c in enumerate(Lv):                    # sum_y z(y, c) = x_v(c)
            rows += [r] * (Lu.size + 1)
            cols += z[:, j].tolist() + [int(idx[v, c])]
            vals += [1.0] * Lu.size + [-1.0]
            lo.append(0.0)
            r += 1
    A = sp.csr_matrix((vals, (rows, cols)), shape=(r, nz))
    lo = np.asarray(lo)
    res = milp(np.concatenate(cost), constraints=LinearConstraint(A, lo, lo),
               integrality=np.r_[np.ones(nx), np.zeros(nz - nx)], bounds=Bounds(0, 1),
               options={"time_limit": float(time_limit)} if time_limit is not None else None)
    if res.x is None:
        return MAPResult(root.labels, root.value, root.bound, False,
                         info={"status": res.message, "n_binary": nx, "n_edge_vars": nz - nx})
    y = np.empty(n, dtype=np.int64)
    for v in range(n):
        L = np.flatnonzero(keep[v])
        y[v] = L[int(np.argmax(res.x[idx[v, L]]))]
    val = float(_energy(U, P, E, y))
    if val < root.value:
        y, val = root.labels.copy(), root.value
    optimal = bool(res.status == 0)
    return MAPResult(y, val, val if optimal else root.bound, optimal,
                     info={"status": res.message, "n_binary": nx, "n_edge_vars": nz - nx})
