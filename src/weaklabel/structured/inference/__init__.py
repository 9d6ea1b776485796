"""Max-sum (MAP) inference for Markov networks, as pure functions.

Every function takes ``unary`` of shape (n_nodes, K), ``pairwise`` of shape (K, K)
(shared by every edge) or (n_edges, K, K), and ``edges`` of shape (n_edges, 2); the
score of a labeling ``y`` is ``sum_v unary[v, y_v] + sum_e pairwise[e][y_u, y_v]`` for
``e = (u, v)``.

- :func:`viterbi`: exact on chains, O(n K^2).
- :func:`lp_map`: Schlesinger's LP relaxation by MPLP (dual block-coordinate descent);
  returns a labeling, the dual upper bound and whether the relaxation was tight.
- :func:`exact_map`: :func:`lp_map`, then branch and bound over it when not tight.
- :func:`milp_map`: the integer program of MAP solved by HiGHS (``scipy.optimize.milp``),
  exact and solver-certified; slow, for the puzzles branch and bound gives up on.
- :func:`brute_force`: enumeration of all K^n labelings (tests only).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..graphs import check_graph
from ._kernels import _beliefs, _csp_decode, _dfbb, _energy, _mplp, _viterbi

__all__ = ["viterbi", "lp_map", "exact_map", "milp_map", "brute_force", "energy", "LPResult", "potentials"]


def potentials(unary, pairwise, edges=None):
    """Validated ``(U (n, K), P (n_edges, K, K), edges (n_edges, 2))``, float64 and contiguous.

    ``edges=None`` means the chain 0-1-...-(n-1).
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
    return np.ascontiguousarray(U), np.ascontiguousarray(P), np.ascontiguousarray(E)


def energy(unary, pairwise, edges, labels):
    """Score of ``labels`` (n_nodes,)."""
    U, P, E = potentials(unary, pairwise, edges)
    y = np.asarray(labels, dtype=np.int64)
    if y.shape != (U.shape[0],) or y.min() < 0 or y.max() >= U.shape[1]:
        raise ValueError(f"labels must be {U.shape[0]} ints in 0..{U.shape[1] - 1}.")
    return float(_energy(U, P, E, y))


def viterbi(unary, pairwise, edges=None):
    """Exact MAP labeling of a chain by dynamic programming.

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_nodes - 1, K, K)
        ``pairwise[t][y_t, y_{t+1}]``.
    edges : None or array-like of shape (n_nodes - 1, 2)
        Must be the chain ``(0, 1), (1, 2), ...`` when given.

    Returns
    -------
    labels : ndarray of int (n_nodes,)
    value : float
        The maximum score.

    Examples
    --------
    >>> import numpy as np
    >>> y, v = viterbi([[1., 0.], [0., 0.2], [0., 0.]], [[0.5, 0.], [0., 0.5]])
    >>> y.tolist(), round(v, 2)
    ([0, 0, 0], 2.0)
    """
    U, P, E = potentials(unary, pairwise, edges)
    n = U.shape[0]
    if edges is not None and not np.array_equal(E, np.c_[np.arange(n - 1), np.arange(1, n)].reshape(-1, 2)):
        raise ValueError("viterbi needs the chain edges (0, 1), (1, 2), ...; use lp_map or exact_map for other graphs.")
    out = np.zeros(n, dtype=np.int64)
    if n == 1:
        out[0] = int(np.argmax(U[0]))
        return out, float(U[0, out[0]])
    v = _viterbi(U, P, out)
    return out, float(v)


@dataclass
class LPResult:
    """What :func:`lp_map` returns: ``labels``, the dual ``bound`` (>= the MAP score),
    the ``energy`` (score) of ``labels``, ``tight`` (labels reach the bound, so they are a
    MAP labeling), ``iterations`` (sweeps) and the final ``messages`` (warm start)."""

    labels: np.ndarray
    bound: float
    energy: float
    tight: bool
    iterations: int
    messages: np.ndarray

    def __iter__(self):            # labels, bound, tight = lp_map(...)
        return iter((self.labels, self.bound, self.tight))


def lp_map(unary, pairwise, edges=None, max_iter=1000, tol=1e-9, messages=None, decode_nodes=20_000):
    """MAP by Schlesinger's LP relaxation of max-sum, solved in the dual by MPLP.

    MPLP (Globerson & Jaakkola 2007) minimises the dual ``sum_v max_y b_v(y) + sum_e
    max_{y,y'} (pairwise_e - msg)`` one edge at a time in closed form, so the bound never
    increases (Werner 2007 reviews this family, max-sum diffusion and TRW-S).  The
    labeling is ``argmax_y b_v(y)`` per node.  When beliefs tie (Sudoku's symmetric
    scores, for one), a labeling is then sought among the labels and pairs that are
    maximal in the reparametrised problem (arc consistency plus backtracking, at most
    ``decode_nodes`` search nodes); any such labeling reaches the bound.  When the score
    of the labeling reaches the bound the relaxation is tight and the labeling is a MAP.
    Each sweep costs O(n_edges K^2).

    Parameters
    ----------
    unary : array-like of shape (n_nodes, K)
        Node scores.
    pairwise : array-like of shape (K, K) or (n_edges, K, K)
        Edge scores, ``pairwise[e][y_u, y_v]`` for ``e = (u, v)``.
    edges : array-like of shape (n_edges, 2) or None
        The graph; ``None`` means the chain 0-1-...-(n-1).
    max_iter : int, default=1000
        Most sweeps over the edges.
    tol : float, default=1e-9
        Stop when a sweep lowers the bound by less than ``tol * (1 + |bound|)``.
    messages : ndarray (n_edges, 2, K), optional
        Warm start (a previous result's ``messages``).
    decode_nodes : int, default=20000
        Search budget of the tie-breaking decoder (0 turns it off).

    Returns
    -------
    LPResult
        Unpacks as ``labels, bound, tight``.

    Examples
    --------
    >>> import numpy as np
    >>> labels, bound, tight = lp_map(np.eye(3), -2 * np.eye(3), [[0, 1], [1, 2], [0, 2]])
    >>> labels.tolist(), round(bound, 6), tight
    ([0, 1, 2], 3.0, True)
    """
    U, P, E = potentials(unary, pairwise, edges)
    K = U.shape[1]
    if messages is None:
        msg = np.zeros((E.shape[0], 2, K))
    else:
        msg = np.array(messages, dtype=np.float64)
        if msg.shape != (E.shape[0], 2, K):
            raise ValueError(f"messages must have shape {(E.shape[0], 2, K)}; got {msg.shape}.")
    out = np.zeros(U.shape[0], dtype=np.int64)
    if E.shape[0] == 0:
        out[:] = np.argmax(U, axis=1)
        v = float(U[np.arange(U.shape[0]), out].sum())
        return LPResult(out, v, v, True, 0, msg)
    bound, en, sweeps = _mplp(U, P, E, msg, int(max_iter), float(tol), out)
    scale = 1.0 + abs(bound)
    tight = bool(bound - en <= 1e-9 * scale)
    if not tight and decode_nodes > 0:
        y, e2 = _decode_active(U, P, E, msg, bound, decode_nodes)
        if y is not None and e2 > en:
            out, en = y, e2
            tight = bool(bound - en <= 1e-6 * scale)
    return LPResult(out, float(bound), float(en), tight, int(sweeps), msg)


def _adjacency(E, n):
    ends = np.concatenate([E[:, 0], E[:, 1]])
    other = np.concatenate([E[:, 1], E[:, 0]])
    eid = np.concatenate([np.arange(E.shape[0]), np.arange(E.shape[0])])
    side = np.concatenate([np.zeros(E.shape[0], np.int64), np.ones(E.shape[0], np.int64)])
    order = np.argsort(ends, kind="stable")
    ptr = np.searchsorted(ends[order], np.arange(n + 1))
    return ptr.astype(np.int64), other[order], eid[order], side[order]


def _decode_active(U, P, E, msg, bound, max_nodes, slacks=(1e-7, 1e-5, 1e-3, 1e-2, 1e-1, 0.3, 1.0)):
    """Complementary slackness: a labeling that uses, at every node and edge, only labels
    within a hair of the maximum of the reparametrised scores reaches the dual bound, so it
    is optimal.  Found by arc consistency and backtracking on those labels (for Sudoku with
    rule-like scores, this is constraint propagation plus search).  When none exists (the
    relaxation is not tight, or not yet converged), wider slacks give good labelings that
    do not reach the bound; the best one is returned."""
    n, K = U.shape
    b = _beliefs(U, E, msg)
    ue = P - msg[:, 0, :, None] - msg[:, 1, None, :]
    bmax = b.max(axis=1, keepdims=True)
    umax = ue.max(axis=(1, 2), keepdims=True)
    ptr, nnode, nedge, nside = _adjacency(E, n)
    scale = 1.0 + abs(bound)
    best_y, best_e = None, -np.inf
    for s in slacks:
        eps = s * scale / (n + E.shape[0])
        y = np.zeros(n, dtype=np.int64)
        found, _ = _csp_decode(b >= bmax - eps, ue >= umax - eps, E, ptr, nnode, nedge, nside, b, int(max_nodes), y)
        if found:
            e = float(_energy(U, P, E, y))
            if e > best_e:
                best_y, best_e = y, e
            if bound - best_e <= 1e-6 * scale:
                break
    return best_y, best_e


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
        Edge scores.
    edges : array-like of shape (n_edges, 2) or None
        The graph; ``None`` means a chain.
    max_iter : int, default=1000
        MPLP sweeps for the root relaxation.
    max_nodes : int, default=2000000
        Search nodes, over all targets, before giving up optimality (``info["optimal"]``
        is then False and the best labeling found is returned).

    Returns
    -------
    labels : ndarray of int (n_nodes,)
    value : float
        The score of ``labels``.
    info : dict
        ``tight_at_root`` (no search was needed), ``optimal``, ``lp_calls`` (1),
        ``searches`` (targets tried) and ``nodes`` (search nodes in all).

    Examples
    --------
    >>> import numpy as np
    >>> E = [[0, 1], [1, 2], [0, 2]]          # "differ" on a triangle with two labels
    >>> y, v, info = exact_map([[0.1, 0], [0, 0.05], [0, 0]], -np.eye(2), E)
    >>> y.tolist(), round(v, 6), info["tight_at_root"], info["optimal"]
    ([0, 1, 0], -0.85, False, True)
    """
    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    root = lp_map(U, P, E, max_iter=max_iter)
    if root.tight:
        return root.labels, root.energy, {"lp_calls": 1, "tight_at_root": True, "optimal": True, "searches": 0,
                                          "nodes": 0}
    msg = root.messages
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
    return out, float(_energy(U, P, E, out)), {"lp_calls": 1, "tight_at_root": False, "optimal": bool(optimal),
                                               "searches": searches, "nodes": int(max_nodes) - left}


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
        Edge scores.
    edges : array-like of shape (n_edges, 2) or None
        The graph; ``None`` means a chain.
    time_limit : float or None, default=None
        Seconds for HiGHS; ``info["optimal"]`` is False if it stops early.

    Returns
    -------
    labels : ndarray of int (n_nodes,)
    value : float
    info : dict
        ``optimal``, ``status`` (HiGHS's message), ``n_binary``, ``n_edge_vars``.

    Examples
    --------
    >>> import numpy as np
    >>> y, v, info = milp_map(np.eye(3), -2 * np.eye(3), [[0, 1], [1, 2], [0, 2]])
    >>> y.tolist(), v, info["optimal"]
    ([0, 1, 2], 3.0, True)
    """
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    root = lp_map(U, P, E)
    if root.tight:
        return root.labels, root.energy, {"optimal": True, "status": "LP relaxation tight", "n_binary": 0,
                                          "n_edge_vars": 0}
    msg = root.messages
    b = _beliefs(U, E, msg)
    ue = P - msg[:, 0, :, None] - msg[:, 1, None, :]
    # bound = sum_v max b_v + sum_e max ue_e; a labeling with y at v scores at most
    # bound - (max b_v - b_v(y)), so y cannot beat the incumbent when that gap exceeds the slack
    keep = (b.max(1, keepdims=True) - b) <= (root.bound - root.energy) * (1 + 1e-9) + 1e-9
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
        return root.labels, root.energy, {"optimal": False, "status": res.message, "n_binary": nx,
                                          "n_edge_vars": nz - nx}
    y = np.empty(n, dtype=np.int64)
    for v in range(n):
        L = np.flatnonzero(keep[v])
        y[v] = L[int(np.argmax(res.x[idx[v, L]]))]
    val = float(_energy(U, P, E, y))
    if val < root.energy:
        y, val = root.labels.copy(), root.energy
    return y, val, {"optimal": bool(res.status == 0), "status": res.message, "n_binary": nx, "n_edge_vars": nz - nx}


def brute_force(unary, pairwise, edges=None):
    """Exact MAP by enumerating all K^n labelings (first maximiser in lexicographic order).
    For tests: refuses more than 2 million labelings."""
    U, P, E = potentials(unary, pairwise, edges)
    n, K = U.shape
    if K ** n > 2_000_000:
        raise ValueError(f"brute_force would enumerate {K}^{n} labelings; it is meant for tiny problems.")
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        ya = np.asarray(y)
        v = U[np.arange(n), ya].sum() + (P[np.arange(E.shape[0]), ya[E[:, 0]], ya[E[:, 1]]].sum() if E.shape[0] else 0)
        if v > best + 1e-12:
            best, arg = v, ya
    return arg.astype(np.int64), float(best)
