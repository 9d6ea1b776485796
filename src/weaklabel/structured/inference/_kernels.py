"""Numba kernels of max-sum inference: Viterbi on chains, MPLP on general graphs."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _max_arg(v):
    """``(max, argmax)`` of the 1-D ``v``; ties go to the lowest index, and ``(-inf, 0)`` when
    every entry is -inf (the one argmax of the structured kernels)."""
    best = -np.inf
    arg = 0
    for y in range(v.shape[0]):
        if v[y] > best:
            best = v[y]
            arg = y
    return best, arg


@njit(cache=True, inline="always")
def _pair_max(T, a, b, sign):
    """``(max, y, z)`` of ``T[y, z] + sign a[y] + sign b[z]`` over the label pairs, ties to the
    first pair in row order (the one max-plus over an edge of the structured kernels)."""
    best = -np.inf
    by = 0
    bz = 0
    for y in range(T.shape[0]):
        ay = sign * a[y]
        for z in range(T.shape[1]):
            t = T[y, z] + ay + sign * b[z]
            if t > best:
                best = t
                by = y
                bz = z
    return best, by, bz


@njit(cache=True)
def _viterbi(U, P, out):
    """Exact max-sum on the chain 0-1-...-(n-1); ``P[t]`` scores ``(y_t, y_{t+1})``.
    Ties go to the lowest label at each back-pointer.  One node (``P`` empty) is its
    argmax.  Returns the maximum.
    """
    n, K = U.shape
    back = np.empty((n, K), np.int64)
    delta = U[0].copy()
    new = np.empty(K)
    for t in range(1, n):
        for y in range(K):
            best = -np.inf
            arg = 0
            for yp in range(K):
                v = delta[yp] + P[t - 1, yp, y]
                if v > best:
                    best = v
                    arg = yp
            new[y] = best + U[t, y]
            back[t, y] = arg
        for y in range(K):
            delta[y] = new[y]
    best, arg = _max_arg(delta)
    out[n - 1] = arg
    for t in range(n - 1, 0, -1):
        out[t - 1] = back[t, out[t]]
    return best


@njit(cache=True)
def _energy(U, P, edges, y):
    s = 0.0
    for i in range(U.shape[0]):
        s += U[i, y[i]]
    for e in range(edges.shape[0]):
        s += P[e, y[edges[e, 0]], y[edges[e, 1]]]
    return s


@njit(cache=True)
def _bound(U, P, edges, msg, b):
    """The LP dual value sum_v max_y b_v + sum_e max_{y,y'} (P_e - msg_e,u(y) - msg_e,v(y'))."""
    n, K = U.shape
    tot = 0.0
    for i in range(n):
        tot += _max_arg(b[i])[0]
    for e in range(edges.shape[0]):
        tot += _pair_max(P[e], msg[e, 0], msg[e, 1], -1.0)[0]
    return tot


@njit(cache=True)
def _mplp(U, P, edges, msg, max_iter, tol, out, stop_below=-np.inf):
    """MPLP block-coordinate descent on the dual of Schlesinger's LP relaxation.

    ``msg[e, 0]`` is the message edge ``e`` sends to its first node, ``msg[e, 1]`` to its
    second; node beliefs are ``b_v = U_v + sum of incoming messages``.  The edge update
    (Globerson & Jaakkola 2007) is exact coordinate minimisation of the dual over the
    edge's two messages.  Stops after ``max_iter`` sweeps, when a sweep lowers the bound
    by less than ``tol * (1 + |bound|)``, or when the labeling decoded from the beliefs
    reaches the bound (the relaxation is tight and the labeling optimal).  Returns
    ``(bound, energy of out, sweeps)``; ``out`` holds ``argmax_y b_v(y)``.
    """
    n, K = U.shape
    E = edges.shape[0]
    b = U.copy()
    for e in range(E):
        for y in range(K):
            b[edges[e, 0], y] += msg[e, 0, y]
            b[edges[e, 1], y] += msg[e, 1, y]
    a = np.empty(K)
    c = np.empty(K)
    prev = np.inf
    bound = np.inf
    energy = -np.inf
    sweeps = 0
    for it in range(max_iter):
        sweeps = it + 1
        for e in range(E):
            u = edges[e, 0]
            v = edges[e, 1]
            for y in range(K):
                a[y] = b[u, y] - msg[e, 0, y]
                c[y] = b[v, y] - msg[e, 1, y]
            for y in range(K):
                m = -np.inf
                for z in range(K):
                    t = P[e, y, z] + c[z]
                    if t > m:
                        m = t
                msg[e, 0, y] = -0.5 * a[y] + 0.5 * m
            for z in range(K):
                m = -np.inf
                for y in range(K):
                    t = P[e, y, z] + a[y]
                    if t > m:
                        m = t
                msg[e, 1, z] = -0.5 * c[z] + 0.5 * m
            for y in range(K):
                b[u, y] = a[y] + msg[e, 0, y]
                b[v, y] = c[y] + msg[e, 1, y]
        bound = _bound(U, P, edges, msg, b)
        for i in range(n):
            out[i] = _max_arg(b[i])[1]
        energy = _energy(U, P, edges, out)
        scale = 1.0 + abs(bound)
        if bound - energy <= 1e-9 * scale or bound <= stop_below:
            break
        if prev - bound < tol * scale:
            break
        prev = bound
    return bound, energy, sweeps


@njit(cache=True)
def _revise(D, allowed, e, side, u, v, K):
    """Drop from D[u] every label without support in D[v] across edge e (u is edges[e, side])."""
    changed = False
    for y in range(K):
        if not D[u, y]:
            continue
        ok = False
        for z in range(K):
            if D[v, z]:
                if side == 0:
                    if allowed[e, y, z]:
                        ok = True
                        break
                else:
                    if allowed[e, z, y]:
                        ok = True
                        break
        if not ok:
            D[u, y] = False
            changed = True
    return changed


@njit(cache=True)
def _propagate(D, allowed, edges, nptr, nnode, nedge, nside, queue, inq, start_nodes):
    """Arc consistency (AC-3) from the nodes in ``start_nodes``; False on a wipe-out."""
    n, K = D.shape
    head = 0
    tail = 0
    for i in range(start_nodes.size):
        q = start_nodes[i]
        if not inq[q]:
            inq[q] = True
            queue[tail % n] = q
            tail += 1
    while head < tail:
        v = queue[head % n]
        head += 1
        inq[v] = False
        for p in range(nptr[v], nptr[v + 1]):
            u = nnode[p]
            e = nedge[p]
            side_u = 1 - nside[p]
            if _revise(D, allowed, e, side_u, u, v, K):
                cnt = 0
                for y in range(K):
                    if D[u, y]:
                        cnt += 1
                if cnt == 0:
                    for i in range(n):      # leave the queue flags clean
                        inq[i] = False
                    return False
                if not inq[u]:
                    inq[u] = True
                    queue[tail % n] = u
                    tail += 1
    return True


@njit(cache=True)
def _csp_decode(active, allowed, edges, nptr, nnode, nedge, nside, order_score, max_nodes, out):
    """A labeling using only ``active`` labels and ``allowed`` pairs, by arc consistency and
    backtracking (fewest remaining labels first; labels tried by decreasing ``order_score``).
    Returns (found, search nodes used).
    """
    n, K = active.shape
    stack = np.empty((n + 1, n, K), np.bool_)
    for i in range(n):                    # (a loop: numba's array slice assignment compiles an
        for y in range(K):                # error message's string formatting)
            stack[0, i, y] = active[i, y]
    queue = np.empty(n, np.int64)
    inq = np.zeros(n, np.bool_)
    allnodes = np.arange(n)
    if not _propagate(stack[0], allowed, edges, nptr, nnode, nedge, nside, queue, inq, allnodes):
        return False, 0
    var = np.empty(n + 1, np.int64)
    tried = np.zeros((n + 1, K), np.bool_)
    depth = 0
    nodes = 0
    var[0] = -1
    one = np.empty(1, np.int64)
    while depth >= 0:
        D = stack[depth]
        if var[depth] == -1:
            # choose the unassigned node with the fewest labels
            best = -1
            bc = K + 1
            for i in range(n):
                c = 0
                for y in range(K):
                    if D[i, y]:
                        c += 1
                if c > 1 and c < bc:
                    bc = c
                    best = i
            if best == -1:
                for i in range(n):
                    for y in range(K):
                        if D[i, y]:
                            out[i] = y
                            break
                return True, nodes
            var[depth] = best
            for y in range(K):
                tried[depth, y] = False
        v = var[depth]
        # next untried label of v, best score first
        pick = -1
        ps = -np.inf
        for y in range(K):
            if D[v, y] and not tried[depth, y] and order_score[v, y] > ps:
                ps = order_score[v, y]
                pick = y
        if pick == -1 or nodes >= max_nodes:
            if nodes >= max_nodes:
                return False, nodes
            depth -= 1
            continue
        tried[depth, pick] = True
        nodes += 1
        child = stack[depth + 1]
        for ra in range(D.shape[0]):          # (a loop: numba's array slice assignment compiles
            for ca in range(D.shape[1]):      # an error message's string formatting)
                child[ra, ca] = D[ra, ca]
        for y in range(K):
            child[v, y] = y == pick
        one[0] = v
        if _propagate(child, allowed, edges, nptr, nnode, nedge, nside, queue, inq, one):
            depth += 1
            var[depth] = -1
    return False, nodes


@njit(cache=True)
def _beliefs(U, edges, msg):
    b = U.copy()
    for e in range(edges.shape[0]):
        for y in range(U.shape[1]):
            b[edges[e, 0], y] += msg[e, 0, y]
            b[edges[e, 1], y] += msg[e, 1, y]
    return b


@njit(cache=True)
def _free_max(H, assigned):
    """Sum over the unassigned nodes of their best score in ``H``."""
    tot = 0.0
    for i in range(H.shape[0]):
        if assigned[i] < 0:
            tot += _max_arg(H[i])[0]
    return tot


@njit(cache=True)
def _dfbb(b, ue, edges, nptr, nnode, nedge, nside, best_e, max_nodes, out):
    """Depth-first branch and bound in the reparametrised problem.

    With beliefs ``b`` and reparametrised edge scores ``ue`` (any dual messages), the score
    of a labeling is ``sum_v b_v(y_v) + sum_e ue_e(y_u, y_v)`` exactly.  A partial labeling
    is bounded by its assigned part, plus for each free node the max over its labels of
    ``b_v`` plus the edges to assigned neighbours, plus the max of every edge between two
    free nodes; the bound is kept incrementally.  The next node is the free one with the
    fewest labels that can still beat the incumbent ``best_e`` (``out``).  ``best_e`` may
    also be a target with no labeling behind it: only labelings scoring above it are
    sought, and ``out`` is written only when one is found.  Returns ``(best score,
    finished, nodes)``; ``finished`` is False when ``max_nodes`` ran out.
    """
    n, K = b.shape
    E = edges.shape[0]
    emax = np.empty(E)
    free_sum0 = 0.0
    for e in range(E):
        m = -np.inf
        for y in range(K):
            for z in range(K):
                if ue[e, y, z] > m:
                    m = ue[e, y, z]
        emax[e] = m
        free_sum0 += m
    H = np.empty((n + 1, n, K))
    for i in range(n):                  # (a loop: numba's array assignment compiles an error message's formatting)
        for y in range(K):
            H[0, i, y] = b[i, y]
    part = np.zeros(n + 1)
    free_sum = np.zeros(n + 1)
    free_sum[0] = free_sum0
    assigned = np.full(n, -1, np.int64)
    var = np.full(n + 1, -1, np.int64)
    tried = np.zeros((n + 1, K), np.bool_)
    depth = 0
    nodes = 0
    tol = 1e-9 * (1.0 + abs(best_e))
    while depth >= 0:
        Hd = H[depth]
        if depth == n:
            if part[depth] > best_e + tol:
                best_e = part[depth]
                tol = 1e-9 * (1.0 + abs(best_e))
                for i in range(n):
                    out[i] = assigned[i]
            depth -= 1
            if depth >= 0:
                assigned[var[depth]] = -1
            continue
        if var[depth] == -1:
            ub = part[depth] + free_sum[depth] + _free_max(Hd, assigned)
            if ub <= best_e + tol:
                depth -= 1
                if depth >= 0:
                    assigned[var[depth]] = -1
                continue
            margin = ub - best_e - tol
            pick = -1
            pc = K + 1
            for i in range(n):
                if assigned[i] >= 0:
                    continue
                m = _max_arg(Hd[i])[0]
                c = 0
                for y in range(K):
                    if Hd[i, y] > m - margin:
                        c += 1
                if c < pc:
                    pc = c
                    pick = i
            var[depth] = pick
            for y in range(K):
                tried[depth, y] = False
        v = var[depth]
        # next label: best H first, among those that can still beat the incumbent
        m = _max_arg(Hd[v])[0]
        ub = part[depth] + free_sum[depth] + _free_max(Hd, assigned)
        pick = -1
        ps = -np.inf
        for y in range(K):
            if not tried[depth, y] and Hd[v, y] > ps and ub - m + Hd[v, y] > best_e + tol:
                ps = Hd[v, y]
                pick = y
        if pick == -1 or nodes >= max_nodes:
            if nodes >= max_nodes:
                return best_e, False, nodes
            var[depth] = -1
            depth -= 1
            if depth >= 0:
                assigned[var[depth]] = -1
            continue
        tried[depth, pick] = True
        nodes += 1
        Hn = H[depth + 1]
        for ra in range(Hd.shape[0]):
            for ca in range(Hd.shape[1]):
                Hn[ra, ca] = Hd[ra, ca]
        part[depth + 1] = part[depth] + Hd[v, pick]
        fs = free_sum[depth]
        for p in range(nptr[v], nptr[v + 1]):
            a = nnode[p]
            if assigned[a] >= 0:
                continue
            e = nedge[p]
            fs -= emax[e]
            if nside[p] == 0:
                for z in range(K):
                    Hn[a, z] += ue[e, pick, z]
            else:
                for z in range(K):
                    Hn[a, z] += ue[e, z, pick]
        free_sum[depth + 1] = fs
        assigned[v] = pick
        depth += 1
        var[depth] = -1
    return best_e, True, nodes
