"""Numba kernels of MMS: exact most-violating labeling search and CCCP/Pegasos rounds.

Notation (paper, Section 3): a bag has ``M`` instances and ``L`` candidate labeling
vectors ``Z`` (shape (L, M), class indices); ``scores[m, y] = w_y . x_m`` are the instance
scores; a labeling ``z`` scores ``F(z) = sum_m scores[m, z_m]``; the ambiguous loss of
``zbar`` is ``l_A(zbar) = min_l Hamming(zbar, Z[l])``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG_INF = -np.inf


@njit(cache=True)
def _search(scores, Z, canonical, zbar):
    """Exact ``max_{zbar not in Z} l_A(zbar, Z) + F(zbar)``; the maximiser goes to ``zbar``.

    Branch and bound over positions.  At position ``m`` only ``|U_m| + 1`` labels can
    be optimal: the labels ``U_m`` that some candidate gives instance ``m``, and the
    best-scoring label outside ``U_m`` (every such label adds 1 to the Hamming distance
    to every candidate, so only the best of them matters).  A partial labeling of the
    first ``j`` positions with score ``s`` and distances ``h_l`` is bounded by the
    per-candidate decomposition

        s + min_l ( h_l + sum_{m >= j} max_y (scores[m, y] + [y != Z[l, m]]) ),

    which is exact at a leaf and at the root equals ``min_l`` of the loss-augmented
    maximum against candidate ``l`` alone.  The first pass visits labels by decreasing
    score starting from the best of ``L`` greedy incumbents and prunes subtrees whose
    bound cannot beat the incumbent.  With ``canonical`` a second pass, in increasing
    label order with pruning at the optimum, returns the lexicographically smallest
    maximiser, so that ties are broken the same way as a brute-force enumeration.

    Complexity: ``O(M C + L M)`` set-up and ``O(L)`` per visited node; the worst case
    visits ``O(M prod_m (|U_m| + 1))`` nodes (``|U_m| <= L``), the bound of the paper's
    Section 3.2, but the pruning usually leaves a few nodes per position.

    Returns the maximum, or ``-inf`` (``zbar`` untouched) when every labeling of the
    bag is a candidate.
    """
    M, C = scores.shape
    L = Z.shape[0]
    stamp = np.full(C, -1, np.int64)
    nc = np.zeros(M, np.int64)
    ch = np.empty((M, L + 1), np.int64)
    chs = np.empty((M, L + 1), np.float64)
    g = np.empty((L, M), np.float64)
    top1 = np.empty(M, np.int64)
    top2 = np.empty(M, np.int64)
    for m in range(M):
        k = 0
        for l in range(L):
            y = Z[l, m]
            if stamp[y] != m:
                stamp[y] = m
                ch[m, k] = y
                k += 1
        best_out = -1
        bo = NEG_INF
        t1 = -1
        t2 = -1
        v1 = NEG_INF
        v2 = NEG_INF
        for y in range(C):
            v = scores[m, y]
            if v > v1:
                v2 = v1
                t2 = t1
                v1 = v
                t1 = y
            elif v > v2:
                v2 = v
                t2 = y
            if stamp[y] != m and v > bo:
                bo = v
                best_out = y
        if best_out >= 0:
            ch[m, k] = best_out
            k += 1
        nc[m] = k
        top1[m] = t1
        top2[m] = t2
        for l in range(L):
            y = Z[l, m]
            other = v2 if y == t1 else v1
            a = scores[m, y]
            b = other + 1.0
            g[l, m] = a if a >= b else b
    G = np.zeros((L, M + 1), np.float64)
    for l in range(L):
        acc = 0.0
        for m in range(M - 1, -1, -1):
            acc += g[l, m]
            G[l, m] = acc
    h = np.zeros((M + 1, L), np.int64)
    sp = np.zeros(M + 1, np.float64)
    ci = np.empty(M, np.int64)
    cur = np.empty(M, np.int64)
    best = NEG_INF

    # pass 1 order: decreasing score at each position
    for m in range(M):
        n = nc[m]
        for a in range(n):
            chs[m, a] = scores[m, ch[m, a]]
        for a in range(1, n):           # insertion sort, n <= L + 1
            y = ch[m, a]
            v = chs[m, a]
            b = a - 1
            while b >= 0 and chs[m, b] < v:
                ch[m, b + 1] = ch[m, b]
                chs[m, b + 1] = chs[m, b]
                b -= 1
            ch[m, b + 1] = y
            chs[m, b + 1] = v
    # incumbents: the loss-augmented maximiser against each candidate alone
    for l0 in range(L):
        s = 0.0
        for m in range(M):
            y = Z[l0, m]
            a = scores[m, y]
            by = top2[m] if top1[m] == y else top1[m]      # best label other than y
            bo = scores[m, by] if by >= 0 else NEG_INF
            if by >= 0 and bo + 1.0 > a:
                cur[m] = by
                s += bo
            else:
                cur[m] = y
                s += a
        mh = M + 1
        for l in range(L):
            d = 0
            for m in range(M):
                if Z[l, m] != cur[m]:
                    d += 1
            if d < mh:
                mh = d
        if mh >= 1 and s + mh > best:
            best = s + mh
            for m in range(M):
                zbar[m] = cur[m]

    for pas in range(2):
        if pas == 1:
            if not canonical or best == NEG_INF:
                break
            for m in range(M):           # pass 2 order: increasing label index
                n = nc[m]
                for a in range(1, n):
                    y = ch[m, a]
                    b = a - 1
                    while b >= 0 and ch[m, b] > y:
                        ch[m, b + 1] = ch[m, b]
                        b -= 1
                    ch[m, b + 1] = y
            target = best - 1e-9 * (1.0 + abs(best))
        j = 0
        ci[0] = -1
        found = False
        while j >= 0 and not found:
            ci[j] += 1
            if ci[j] >= nc[j]:
                j -= 1
                continue
            y = ch[j, ci[j]]
            cur[j] = y
            s = sp[j] + scores[j, y]
            for l in range(L):
                h[j + 1, l] = h[j, l] + (1 if Z[l, j] != y else 0)
            if j + 1 == M:
                mh = M + 1
                for l in range(L):
                    if h[M, l] < mh:
                        mh = h[M, l]
                if mh >= 1:
                    v = s + mh
                    if pas == 0:
                        if v > best:
                            best = v
                            for m in range(M):
                                zbar[m] = cur[m]
                    elif v >= target:
                        for m in range(M):
                            zbar[m] = cur[m]
                        found = True
                continue
            bmin = np.inf
            for l in range(L):
                b = h[j + 1, l] + G[l, j + 1]
                if b < bmin:
                    bmin = b
            bound = s + bmin
            if pas == 0:
                if bound <= best:
                    continue
            elif bound < target:
                continue
            sp[j + 1] = s
            j += 1
            ci[j] = -1
    return best


@njit(cache=True)
def _bag_scores(V, scale, X, rows, lo, hi, scores):
    """``scores[m] = scale * x_{rows[lo+m]} @ V`` for the rows of one bag (``X`` a
    :class:`~weaklabel._row_kernels.Rows`).
    """
    dense, is_dense, data, indices, indptr, _, _ = X
    D, C = V.shape
    for m in range(hi - lo):
        r = rows[lo + m]
        for y in range(C):
            scores[m, y] = 0.0
        if is_dense:
            for f in range(D):
                xv = dense[r, f]
                if xv != 0.0:
                    for y in range(C):
                        scores[m, y] += xv * V[f, y]
        else:
            for p in range(indptr[r], indptr[r + 1]):
                f = indices[p]
                xv = data[p]
                for y in range(C):
                    scores[m, y] += xv * V[f, y]
        for y in range(C):
            scores[m, y] *= scale


@njit(cache=True)
def _bag_pass(W, X, layout, cand_scores):
    """At ``W``: every candidate labeling's score ``F`` (into ``cand_scores``, flat over
    labelings) and every bag's ``max_{zbar not in Z} l_A + F`` (returned, ``-inf`` if none).

    ``X`` is a :class:`~weaklabel._row_kernels.Rows`; ``layout`` the bags
    ``(rows, bag_ptr, Z, z_ptr, lab_ptr)``: bag ``i``'s instances ``rows[bag_ptr[i]:bag_ptr[i + 1]]``,
    its candidate labelings flat in ``Z[z_ptr[i]:z_ptr[i + 1]]``, their scores from
    ``cand_scores[lab_ptr[i]]`` on.
    """
    rows, bag_ptr, Z, z_ptr, lab_ptr = layout
    n_bags = bag_ptr.size - 1
    C = W.shape[1]
    mmax = 0
    for i in range(n_bags):
        if bag_ptr[i + 1] - bag_ptr[i] > mmax:
            mmax = bag_ptr[i + 1] - bag_ptr[i]
    scores = np.empty((mmax, C), np.float64)
    zbar = np.empty(mmax, np.int64)
    viol = np.empty(n_bags, np.float64)
    for i in range(n_bags):
        lo = bag_ptr[i]
        M = bag_ptr[i + 1] - lo
        _bag_scores(W, 1.0, X, rows, lo, bag_ptr[i + 1], scores)
        L = (z_ptr[i + 1] - z_ptr[i]) // M
        Zb = Z[z_ptr[i]:z_ptr[i + 1]].reshape((L, M))
        for l in range(L):
            acc = 0.0
            for m in range(M):
                acc += scores[m, Zb[l, m]]
            cand_scores[lab_ptr[i] + l] = acc
        # (np.bool_: a plain bool, not a literal, so every caller shares one compiled _search)
        viol[i] = _search(scores[:M], Zb, np.bool_(False), zbar)
    return viol


@njit(cache=True)
def _pegasos_round(W, X, layout, tie_w, schedule, params, bw):
    """Algorithm 2 on the relaxed problem (8), in place on ``W`` (feature-major (D, C)).

    ``X`` and ``layout`` as in :func:`_bag_pass`; ``schedule`` is ``(batches, batch_len, t0)``,
    ``params`` ``(lam, radius)``.

    ``tie_w`` holds alpha_{i,l} = 1/|C_i| for the labelings tied at the round's start
    (0 otherwise).  Step ``t = t0 + s + 1`` uses the bags ``batches[s, :batch_len[s]]``: it finds
    each one's most violating labeling at ``w_t``, keeps those with positive relaxed loss
    (7), sets ``w <- (1 - 1/t) w + 1/(lam K t) sum_k (mean_C Phi - Phi(zbar_k))`` and
    projects onto the ball of radius ``radius``.  ``w = scale * V`` keeps the shrinking
    O(1).  The step counter starts at ``t0 + 1``: ``t0 = 0`` starts from ``w = 0``, a
    positive ``t0`` continues an earlier call on the same problem from ``W``.  Returns the
    number of bags with positive loss, summed over the steps.  ``bw`` holds bag weights
    (bag ``i``'s subgradient is multiplied by ``bw[i]``); empty: every weight 1.
    """
    dense, is_dense, data, indices, indptr, _, _ = X
    rows, bag_ptr, Z, z_ptr, lab_ptr = layout
    batches, batch_len, t0 = schedule
    lam, radius = params
    D, C = W.shape
    n_bags = bag_ptr.size - 1
    mmax = 0
    for i in range(n_bags):
        if bag_ptr[i + 1] - bag_ptr[i] > mmax:
            mmax = bag_ptr[i + 1] - bag_ptr[i]
    T, K = batches.shape
    scores = np.empty((mmax, C), np.float64)
    zb = np.empty((K, mmax), np.int64)
    active = np.empty(K, np.int64)
    V = W
    scale = 1.0
    nsq = 0.0
    for f in range(D):
        for y in range(C):
            nsq += V[f, y] * V[f, y]
    n_pos = 0
    for s in range(T):
        t = t0 + s + 1
        kb = batch_len[s]
        na = 0
        for q in range(kb):
            i = batches[s, q]
            lo = bag_ptr[i]
            M = bag_ptr[i + 1] - lo
            _bag_scores(V, scale, X, rows, lo, bag_ptr[i + 1], scores)
            L = (z_ptr[i + 1] - z_ptr[i]) // M
            Zb = Z[z_ptr[i]:z_ptr[i + 1]].reshape((L, M))
            v = _search(scores[:M], Zb, np.bool_(True), zb[na])
            if v == NEG_INF:
                continue
            sc = 0.0
            for l in range(L):
                a = tie_w[lab_ptr[i] + l]
                if a != 0.0:
                    acc = 0.0
                    for m in range(M):
                        acc += scores[m, Zb[l, m]]
                    sc += a * acc
            if v - sc > 0.0:
                active[na] = i
                na += 1
        n_pos += na
        # shrink: w <- (1 - 1/t) w
        if t == 1:
            for f in range(D):
                for y in range(C):
                    V[f, y] = 0.0
            scale = 1.0
            nsq = 0.0
        else:
            scale *= 1.0 - 1.0 / t
        if na > 0:
            eta = 1.0 / (lam * kb * t)
            step = eta / scale
            for q in range(na):
                i = active[q]
                lo = bag_ptr[i]
                M = bag_ptr[i + 1] - lo
                L = (z_ptr[i + 1] - z_ptr[i]) // M
                Zb = Z[z_ptr[i]:z_ptr[i + 1]].reshape((L, M))
                for m in range(M):
                    r = rows[lo + m]
                    # class coefficients of instance m: + alpha_l at Z[l, m], - 1 at zbar_m
                    for l in range(L + 1):
                        if l < L:
                            a = tie_w[lab_ptr[i] + l]
                            if a == 0.0:
                                continue
                            y = Zb[l, m]
                        else:
                            a = -1.0
                            y = zb[q, m]
                        c = step * a * (bw[i] if bw.shape[0] > 0 else 1.0)
                        if is_dense:
                            for f in range(D):
                                xv = dense[r, f]
                                if xv != 0.0:
                                    old = V[f, y]
                                    new = old + c * xv
                                    V[f, y] = new
                                    nsq += new * new - old * old
                        else:
                            for p in range(indptr[r], indptr[r + 1]):
                                f = indices[p]
                                old = V[f, y]
                                new = old + c * data[p]
                                V[f, y] = new
                                nsq += new * new - old * old
        if nsq < 0.0:
            nsq = 0.0
        norm = scale * np.sqrt(nsq)
        if norm > radius:
            scale *= radius / norm
        if scale < 1e-9 or s == T - 1:
            nsq = 0.0
            for f in range(D):
                for y in range(C):
                    V[f, y] *= scale
                    nsq += V[f, y] * V[f, y]
            scale = 1.0
    return n_pos
