"""Plain-numpy references of the bandit rules, written from the papers / issue 3.

Weights are class-major here (``W[k]`` is ``w_k``), unlike the kernels.  Each
reference returns the weights and the per-round (prediction, proposal, correct), plus
the smallest gap between the top score and any other non-equal score met at a decision
(the tests skip streams whose decisions hinge on a near-tie).
"""

import numpy as np


class Gaps:
    """Smallest distance from a chosen argmax to the score of a class with another history.

    Classes with identical update histories have bitwise-identical weights in both
    implementations, so they tie exactly in both and both break the tie to the lowest
    index.  Any other tie or near-tie (even an exact one: two histories can cancel to the
    same value in numpy and to values 1e-15 apart in a kernel that rounds differently)
    hinges on rounding.  ``hist[k]`` lists class k's updates as (round, coefficient).
    """

    def __init__(self, n_classes, exact_ties=False):
        self.min = np.inf
        self.hist = [[] for _ in range(n_classes)]
        self.exact_ties = exact_ties              # exact ties are structural (scores that are 0 exactly)

    def argmax(self, v, zero_row=False):
        k = int(np.argmax(v))
        if zero_row:                  # every score is exactly 0 in both implementations
            return k
        for j in range(v.size):
            if j != k and self.hist[j] != self.hist[k] and not (self.exact_ties and v[j] == v[k]):
                self.min = min(self.min, abs(float(v[j] - v[k])))
        return k

    def moved(self, t, coefs):
        """Record round t's update: ``coefs[k]`` for every class that moved."""
        for k, c in coefs.items():
            self.hist[k].append((t, c))


def spa_step(W, x, y, s=None, coefs=None):
    """Matsushima et al.'s support-class PA step for label y, as the issue writes it.
    Fills ``coefs`` (class -> coefficient of x / ||x||^2) when given."""
    K = W.shape[0]
    s = W @ x if s is None else s
    loss = {i: max(0.0, 1.0 + s[i] - s[y]) for i in range(K) if i != y}
    sigma = sorted(loss, key=lambda i: -loss[i])
    S = [sigma[k] for k in range(len(sigma))
         if sum(loss[sigma[j]] for j in range(k)) < (k + 1) * loss[sigma[k]]]
    if not S:
        return S
    A = sum(loss[j] for j in S) / (len(S) + 1)
    nsq = x @ x
    W[y] += A * x / nsq
    for i in S:
        W[i] -= (loss[i] - A) * x / nsq
    if coefs is not None:
        coefs[y] = A
        coefs.update({i: -(loss[i] - A) for i in S})
    return S


def explore(yhat, gamma, u, K):
    P = np.full(K, gamma / K)
    P[yhat] += 1 - gamma
    cum = np.cumsum(P)
    k = int(np.searchsorted(cum, u, side="right"))
    return min(k, K - 1), P


def linear_pass(rule, X, K, y=None, proposed=None, correct=None, u=None, beta=1.0, gamma=0.05, margin1=1.0,
                sw=None, cand=None, logp=None):
    """CSPA / SPA / Banditron / BPA over the rows of X in order; with sample weights ``sw``
    each round's step is ``sw[t]`` times the unweighted one.  With ``cand`` (n, K) bool, the
    acceptable labels of each row: a proposal is right when it is one of them, and SPA
    learns from the acceptable label it scores highest."""
    n, d = X.shape
    W = np.zeros((K, d))
    out = []
    g = Gaps(K)
    for t in range(n):
        x = X[t]
        s = W @ x
        yhat = g.argmax(s, not x.any())
        P = None
        if proposed is not None:
            yt, b = int(proposed[t]), bool(correct[t])
            if rule in ("banditron", "bpa"):
                P = np.full(K, gamma / K)
                P[yhat] += 1 - gamma
                if logp is not None:             # off-policy: the logger's propensity of the proposal
                    P[yt] = logp[t]
        else:
            if rule in ("banditron", "bpa"):
                yt, P = explore(yhat, gamma, u[t], K)
            else:
                yt = yhat
            b = cand[t, yt] if cand is not None else y[t] == yt
        out.append((yhat, yt, b))
        nsq = x @ x
        wt = 1.0 if sw is None else float(sw[t])
        if nsq == 0 or wt == 0.0:
            continue
        before = W.copy()
        coefs = {}
        if rule == "spa":
            if proposed is None and cand is not None:
                spa_step(W, x, g.argmax(np.where(cand[t], s, -np.inf), not x.any()), s, coefs)
            elif proposed is None:
                spa_step(W, x, int(y[t]), s, coefs)
            elif b:
                spa_step(W, x, yt, s, coefs)
        elif rule == "cspa":
            if b:
                spa_step(W, x, yt, s, coefs)
            else:
                lt = min(1 - s[i] + s[yt] for i in range(K) if i != yt)
                lt = max(lt, 0.0)
                for i in range(K):
                    if i != yt:
                        W[i] += beta * lt / K * x / nsq
                W[yt] -= (K - 1) / K * beta * lt * x / nsq
                if lt > 0:
                    coefs = {i: beta * lt / K for i in range(K)}
                    coefs[yt] = -(K - 1) / K * beta * lt
        elif rule == "banditron":
            G = np.zeros(K)
            if b:
                G[yt] += 1.0 / P[yt]
            G[yhat] -= 1.0
            W += G[:, None] * x[None, :] / nsq
            coefs = {k: G[k] for k in range(K) if G[k] != 0}
        elif rule == "bpa":
            m = margin1 if b else 1.0
            lt = max(0.0, m + (1 - 2 * b) * s[yt])
            W[yt] += (2 * b - 1) * lt * x / nsq
            if lt > 0:
                coefs = {yt: (2 * b - 1) * lt}
        if wt != 1.0:
            W[:] = before + wt * (W - before)
            coefs = {k: wt * c for k, c in coefs.items()}
        g.moved(t, coefs)
    return W, out, g.min


def _project(W, x, r, g, solve):
    """Confidit's projection of each ``w_k`` onto ``|w_k . x| <= 1`` in the ``A_k`` norm;
    ``solve(k, v)`` is ``A_k^-1 v``."""
    for k in range(W.shape[0]):
        s = W[k] @ x
        if abs(s) > 1:
            g.moved(r, {k: ("projected", float(s))})
            Ainv_x = solve(k, x)
            W[k] = W[k] - (s - np.sign(s)) / (x @ Ainv_x) * Ainv_x


def _decide(g, r, t, x, s, quad, eta, out, y, proposed, correct, cand, sw):
    """Confidit's round after the projection: the prediction, the proposal (the UCB's
    argmax, or the log's) and its answer, recorded in ``out``; returns ``(c, sign, v)``
    for the step, or ``None`` when the row teaches nothing (all zero, or weight 0)."""
    yhat = g.argmax(s, not x.any())
    if proposed is not None:
        c, b = int(proposed[r]), bool(correct[r])
    else:
        c = g.argmax(s + np.sqrt(eta * quad * np.log(1 + t)), not x.any())
        b = cand[r, c] if cand is not None else y[r] == c
    out.append((yhat, c, b))
    v = 1.0 if sw is None else float(sw[r])
    if not x.any() or v == 0.0:
        return None
    sg = 1.0 if b else -1.0
    g.moved(r, {c: sg * v})
    return c, sg, v


def confidit_pass(X, K, y=None, proposed=None, correct=None, eta=1.0, alpha=1.0, diagonal=False, t0=1, sw=None,
                  cand=None):
    """Confidit with explicit matrices A_k (diagonal matrices for the diagonal form); with
    sample weights, weighted least squares: ``A += v x x^T``, target ``v s x``."""
    n, d = X.shape
    W = np.zeros((K, d))
    A = np.array([np.eye(d) * (1 + alpha) ** 2 for _ in range(K)])
    out = []
    g = Gaps(K)
    for r in range(n):
        t = t0 + r
        x = X[r]
        _project(W, x, r, g, lambda k, v: np.linalg.solve(A[k], v))
        s = W @ x
        quad = np.array([x @ np.linalg.solve(A[k], x) for k in range(K)])
        step = _decide(g, r, t, x, s, quad, eta, out, y, proposed, correct, cand, sw)
        if step is None:
            continue
        c, sg, v = step
        A_old = A[c].copy()
        xx = np.diag(x * x) if diagonal else np.outer(x, x)
        A[c] = A_old + v * xx
        W[c] = np.linalg.solve(A[c], A_old @ W[c] + v * sg * x)
    return W, out, g.min


def sketched_confidit_pass(X, K, y=None, eta=1.0, alpha=1.0, ell=4, sw=None, proposed=None, correct=None, cand=None,
                           exact_ties=False):
    """Confidit with ``A_k = a I + B_k^T B_k``, ``B_k`` an ``ell``-row Frequent Directions
    sketch of the rows class k learnt from (each ``sqrt(v) x``), written with explicit
    matrices and an SVD: when the sketch is full, its squared singular values are shrunk by
    the ``(ell/2 + 1)``-th largest and only the rows left positive are kept.  The weight step
    uses the sketch before the new row enters it.  Every class's score and ``x^T A_k^-1 x``
    are computed in full each round (the kernel computes only those that can matter).
    ``exact_ties``: exact ties do not count as near-ties (on sparse rows many classes score
    exactly 0, in both implementations)."""
    n, d = X.shape
    a = (1 + alpha) ** 2
    W = np.zeros((K, d))
    B = np.zeros((K, ell, d))
    rows = np.zeros(K, dtype=int)
    out = []
    g = Gaps(K, exact_ties)

    def solve(k, x):
        return np.linalg.solve(a * np.eye(d) + B[k].T @ B[k], x)

    for r in range(n):
        t = 1 + r
        x = X[r]
        _project(W, x, r, g, solve)
        s = W @ x
        quad = np.array([x @ solve(k, x) for k in range(K)])
        step = _decide(g, r, t, x, s, quad, eta, out, y, proposed, correct, cand, sw)
        if step is None:
            continue
        c, sg, v = step
        W[c] = W[c] + v * (sg - W[c] @ x) / (1 + v * quad[c]) * solve(c, x)
        if rows[c] == ell:                        # Frequent Directions: shrink, keep the top half
            _, sv, Vt = np.linalg.svd(B[c], full_matrices=False)
            lam = np.concatenate([sv ** 2, np.zeros(ell - sv.size)])    # descending, ell values
            delta = lam[ell // 2]
            keep = [i for i in range(ell // 2) if lam[i] > delta and lam[i] > 0]
            B[c] = 0.0
            for row, i in enumerate(keep):
                B[c, row] = np.sqrt(lam[i] - delta) * Vt[i]
            rows[c] = len(keep)
        B[c, rows[c]] = np.sqrt(v) * x
        rows[c] += 1
    return W, out, g.min


def dual_confidit_pass(Gram, K, y, eta=1.0, alpha=1.0):
    """Full-matrix Confidit written on the Gram matrix ``Gram = X X^T`` of the stream (its
    dual form), for feature spaces where ``A_k`` (n_features square) cannot be stored.

    ``w_k = sum_j beta[k, j] x_j`` over the rows seen so far, and with ``R_k`` the rows
    class ``k`` learnt from, ``A_k = a I + X_R^T X_R``, Woodbury gives
    ``A_k^-1 x = (x - X_R^T H_k X_R x) / a`` with ``H_k = (a I + X_R X_R^T)^-1`` (grown by
    one border per update).  Every step of :func:`confidit_pass` (projection, UCB,
    Sherman-Morrison weight step) is then a step on ``beta``.  Returns the proposals'
    correctness (the metric of the cspa experiments); ``beta @ X`` are the weights."""
    n = len(y)
    a = (1 + alpha) ** 2
    beta = np.zeros((K, n))
    rows = [[] for _ in range(K)]
    H = [np.zeros((0, 0)) for _ in range(K)]
    correct = np.zeros(n, dtype=bool)
    for t in range(n):
        kx = Gram[: t + 1, t]                     # x_j . x_t for the rows so far and itself
        xx = Gram[t, t]
        scores = beta[:, : t + 1] @ kx
        quad = np.empty(K)
        hz = []
        for k in range(K):
            z = Gram[rows[k], t]
            hz.append(H[k] @ z)
            quad[k] = (xx - z @ hz[k]) / a
        for k in range(K):                        # projection onto |w_k . x| <= 1 in the A_k norm
            if abs(scores[k]) > 1 and quad[k] > 0:
                coef = (scores[k] - np.sign(scores[k])) / quad[k] / a
                beta[k, t] -= coef
                beta[k, rows[k]] += coef * hz[k]
                scores[k] = np.sign(scores[k])
        c = int(np.argmax(scores + np.sqrt(eta * np.maximum(quad, 0) * np.log(1 + (t + 1)))))
        correct[t] = b = y[t] == c
        if quad[c] <= 0:
            continue
        g = ((1.0 if b else -1.0) - scores[c]) / (1 + quad[c]) / a
        beta[c, t] += g
        beta[c, rows[c]] -= g * hz[c]
        z = Gram[rows[c], t]                      # H_c gains the border of the new row
        Hz = H[c] @ z
        schur = a + xx - z @ Hz
        m = len(rows[c])
        Hn = np.empty((m + 1, m + 1))
        Hn[:m, :m] = H[c] + np.outer(Hz, Hz) / schur
        Hn[:m, m] = Hn[m, :m] = -Hz / schur
        Hn[m, m] = 1.0 / schur
        H[c] = Hn
        rows[c].append(t)
    return beta, correct
