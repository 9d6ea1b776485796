"""Plain-numpy references of MMS (Luo & Orabona 2010): brute-force loss-augmented search
and CCCP + Pegasos written straight from Algorithms 1 and 2, one explicit weight matrix."""

from __future__ import annotations

import itertools

import numpy as np

TIE = 1e-9


def brute_force(S, Z):
    """``max_{zbar not in Z} min_l Hamming(zbar, Z_l) + sum_m S[m, zbar_m]`` by enumerating all
    C^M labelings in lexicographic order; the first labeling within 1e-9 of the max wins."""
    M, C = S.shape
    Zs = {tuple(int(v) for v in z) for z in Z}
    vals = []
    for zbar in itertools.product(range(C), repeat=M):
        if zbar in Zs:
            continue
        ham = min(sum(a != b for a, b in zip(zbar, z)) for z in Zs)
        vals.append((S[np.arange(M), zbar].sum() + ham, zbar))
    if not vals:
        return -np.inf, None
    best = max(v for v, _ in vals)
    for v, z in vals:
        if v >= best - TIE * (1 + abs(best)):
            return best, np.array(z)


def bags_of(B):
    """[(rows, Z (L, M) class indices)] per bag of a BagCandidates."""
    out = []
    for i in range(B.n_bags):
        rows = B.bag_rows(i)
        Z = np.searchsorted(B.classes_, B.labelings(i))
        out.append((rows, Z))
    return out


def joint(X, rows, z, C):
    """Phi(X_bag, z): a (D, C) matrix, column y = sum of the rows labelled y."""
    P = np.zeros((X.shape[1], C))
    for r, y in zip(rows, z):
        P[:, y] += X[r]
    return P


def reference_mms(X, B, lam, n_rounds, max_iter, batch_size, tol, rng, draw_batches, max_passes=None, bw=None):
    """MMS on dense ``X`` (intercept column already appended).  Returns W (D, C) and the
    objectives.  ``draw_batches(rng, N, T, K)`` is the sampler the estimator uses.  Each
    round runs Pegasos ``max_iter`` passes at a time, its step counter running on, until
    the objective is below the round's start or ``max_passes`` passes are run."""
    max_passes = max_iter if max_passes is None else max_passes
    bags = bags_of(B)
    N, C, D = len(bags), B.n_classes, X.shape[1]
    bw = np.ones(N) if bw is None else np.asarray(bw, dtype=float)      # bag weights: loss_i times bw[i]
    radius = np.sqrt(2 * max(len(r) for r, _ in bags) * bw.mean() / lam)
    T = max_iter * -(-N // batch_size)

    def scores(W, rows):
        return X[rows] @ W

    def objective(W):
        tot = 0.0
        for i, (rows, Z) in enumerate(bags):
            S = scores(W, rows)
            v, _ = brute_force(S, Z)
            best = max(S[np.arange(len(rows)), z].sum() for z in Z)
            tot += bw[i] * max(v - best, 0.0)
        return 0.5 * lam * np.sum(W * W) + tot / N

    def ties(W):
        out = []
        for rows, Z in bags:
            S = scores(W, rows)
            F = np.array([S[np.arange(len(rows)), z].sum() for z in Z])
            tied = F >= F.max() - TIE * (1 + abs(F.max()))
            out.append(tied)
        return out

    W = np.zeros((D, C))
    objs = [objective(W)]
    prev_ties = None
    best = (np.inf, None)
    for r in range(n_rounds):
        tie = ties(W)
        if prev_ties is not None and all(np.array_equal(a, b) for a, b in zip(tie, prev_ties)):
            break
        start, t0, passes = objs[-1], 0, 0
        while True:
            A = draw_batches(rng, N, T, batch_size)
            for s_ in range(T):
                t = t0 + s_ + 1
                K = A.shape[1]
                grad = np.zeros((D, C))
                for k in A[s_]:
                    rows, Z = bags[k]
                    S = scores(W, rows)
                    v, zhat = brute_force(S, Z)
                    if zhat is None:
                        continue
                    Cz = Z[tie[k]]
                    meanphi = sum(joint(X, rows, z, C) for z in Cz) / len(Cz)
                    if v - np.sum(W * meanphi) > 0:
                        grad += bw[k] * (meanphi - joint(X, rows, zhat, C))
                W = (1 - 1 / t) * W + grad / (lam * K * t)
                nrm = np.linalg.norm(W)
                if nrm > radius:
                    W = W * (radius / nrm)
            t0 += T
            passes += max_iter
            if objective(W) < start or passes + max_iter > max_passes:
                break
        objs.append(objective(W))
        if objs[-1] < best[0]:
            best = (objs[-1], W.copy())
        prev_ties = tie
        if r > 0 and abs(objs[-2] - objs[-1]) < tol * max(abs(objs[-2]), 1e-12):
            break
    W = best[1]
    return W, np.array(objs)
