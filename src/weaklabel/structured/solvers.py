"""Solvers of the structured learners: they take the model's oracle and return weights.

- :func:`bcfw`: block-coordinate Frank-Wolfe on the dual of (17), one loss-augmented
  inference per step (Lacoste-Julien et al. 2013); the default of MILM3N.
- :func:`bmrm`: the paper's bundle method (Teo et al. 2010), with a proximal stabiliser.
- :func:`lp_adam`: Adam on the LP-relaxed objective (24), ``w`` and every example's dual
  messages jointly (LPMILM3N).

Each returns the weights as the parts of ``shapes`` (unary, pairwise) and a history.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ._kernels import _bcfw_block_step, _lp_epoch, _simplex_fista, flat_layout

__all__ = ["bcfw", "bmrm", "lp_adam", "flat_parts"]


def flat_parts(shapes):
    """Lay arrays of the given shapes out in one flat vector.

    Parameters
    ----------
    shapes : list of tuple
        The arrays' shapes.

    Returns
    -------
    dim : int
        The flat vector's length.
    split : callable
        ``split(v)``: the list of views of ``v`` in those shapes.
    """
    sizes = [int(np.prod(s)) for s in shapes]

    def split(v):
        out, o = [], 0
        for s, k in zip(shapes, sizes):
            out.append(v[o:o + k].reshape(s))
            o += k
        return out

    return sum(sizes), split


def bmrm(risk, shapes, lam, max_iter, tol, report):
    """Minimise ``J(w) = lam/2 ||w||^2 + R(w)`` by a bundle method (BMRM, Teo et al. 2010, proximal).

    Each call of ``risk`` adds a cutting plane of the convex risk ``R``.  Plain BMRM jumps
    to the minimiser of the cutting-plane model, which on M3N problems (large subgradients,
    small ``lam``) overshoots for hundreds of iterations; here the next point minimises the
    model plus ``mu/2 ||w - c||^2`` around the best point ``c`` so far (proximal bundle),
    with ``mu`` halved after each step that decreases ``J`` and doubled after a null step
    (which also adds its cutting plane).  The reported lower bound is the minimum of the
    unstabilised model (a valid lower bound on ``min J``).

    Parameters
    ----------
    risk : callable
        ``risk(parts) -> (R, subgradient parts)``.
    shapes : list of tuple
        The shapes of ``w``'s parts.
    lam : float
        The regularisation.
    max_iter : int
        Most iterations.
    tol : float
        Stop when ``best J - lower bound`` is below ``tol`` times ``|best J|``.
    report : callable or None
        Called with each iteration's history row.

    Returns
    -------
    parts : list of ndarray
        The best iterate.
    history : ndarray of shape (n_iter, 4)
        ``(J, best J, lower bound, gap)`` per iteration.
    """
    dim, split = flat_parts(shapes)
    w = np.zeros(dim)
    A, b = [], []
    best = (np.inf, w.copy())
    hist = []
    beta_p = np.zeros(0)
    beta_l = np.zeros(0)
    mu = None
    lower = -np.inf
    for t in range(max_iter):
        R, g = risk(split(w.copy()))
        g = np.concatenate([x.ravel() for x in g])
        J = 0.5 * lam * w @ w + R
        if mu is None:
            mu = max(float(np.linalg.norm(g)), lam)
        if J < best[0]:
            if t > 0:
                mu = max(mu * 0.5, 1e-8)
            best = (J, w.copy())
        elif t > 0:
            mu = min(mu * 2.0, 1e12)
        A.append(g)
        b.append(R - g @ w)
        Am = np.asarray(A)
        bv = np.asarray(b)
        AAt = Am @ Am.T
        # lower bound: minimum of the plain cutting-plane model
        beta_l = np.append(beta_l, 0.0)
        if t == 0:
            beta_l[:] = 1.0
        beta_l = _simplex_qp(AAt / lam, bv, beta_l)
        lower = max(lower, float(bv @ beta_l - 0.5 * beta_l @ (AAt / lam) @ beta_l))
        gap = best[0] - lower
        hist.append((float(J), float(best[0]), lower, float(gap)))
        if report is not None:
            report(t, J, best[0], lower)
        if gap <= tol * max(abs(best[0]), 1e-12):
            break
        # next point: model + proximal term around the best point
        c = best[1]
        lm = lam + mu
        beta_p = np.append(beta_p, 0.0)
        if t == 0:
            beta_p[:] = 1.0
        beta_p = _simplex_qp(AAt / lm, bv + (mu / lm) * (Am @ c), beta_p)
        w = (mu * c - Am.T @ beta_p) / lm
    return split(best[1]), hist


def bcfw(oracle, m, shapes, lam, max_iter, tol, random_state):
    """Minimise ``J(w) = lam/2 ||w||^2 + 1/m sum_i Delta_i(w)`` by block-coordinate Frank-Wolfe.

    Lacoste-Julien et al. (2013): the dual of (17) one example at a time, with the exact
    line search.  Each step calls ``oracle`` once (one loss-augmented inference), so a pass
    costs what one BMRM iteration costs, but ``w`` moves after every example.  The dual
    value ``D = -lam/2 ||w||^2 + l`` is a valid lower bound at every step; the sum of the
    block gaps over a pass estimates ``J - D``.  When that estimate falls below
    ``tol * |J|`` (or after ``max_iter`` passes) an exact batch pass measures ``J`` and the
    gap.  Each block starts at the corner of its first oracle call (``psi^p`` is not the
    feature vector of any labeling, so ``w_i = 0`` is not dual feasible).

    Parameters
    ----------
    oracle : callable
        As :func:`~weaklabel.structured.model.loss_augmented_oracle` returns it.
    m : int
        The number of examples.
    shapes : list of tuple
        The shapes of ``w``'s parts.
    lam : float
        The regularisation.
    max_iter : int
        Most passes.
    tol : float
        The relative gap to stop at.
    random_state : int, RandomState instance or None
        Order of the passes.

    Returns
    -------
    parts : list of ndarray
        ``w``.
    history : ndarray of shape (n_passes, 4)
        ``(J, J, D, gap)`` per pass (``J`` is the pass's running estimate, exact in the
        last row).
    """
    dim, split = flat_parts(shapes)
    rng = check_random_state(random_state)
    w = np.zeros(dim)
    W = split(w)                       # views into w, updated in place
    g = np.zeros(dim)
    G = split(g)
    Wi = np.zeros((m, dim))
    li = np.zeros(m)
    ell = 0.0
    hist = []

    def primal(v):
        V = split(v)
        R = sum(oracle(i, V[0], V[1], G[0], G[1], 0.0)[0] for i in range(m)) / m
        return 0.5 * lam * (v @ v) + R

    wbar = np.zeros(dim)               # weighted average of the iterates (BCFW-wavg)
    k = 0

    for t in range(max_iter):
        gap_sum, Jest = 0.0, 0.0
        for i in rng.permutation(m):
            val, loss = oracle(i, W[0], W[1], G[0], G[1], 1.0)       # g is zero here
            k += 1
            # the block's gap, the exact line search and the moves of w, its block, l and the
            # average, in one kernel (which zeroes g again); on the first pass each block starts
            # at its first corner: w_i = 0, l_i = 0 is not a dual point here (psi^p is no
            # labeling's feature vector)
            gi, dl = _bcfw_block_step(g, Wi, li, w, wbar, (int(i), float(lam), float(m), float(loss), float(k)),
                                      t == 0)
            gap_sum += gi
            Jest += val / m
            ell += dl
        D = -0.5 * lam * (w @ w) + ell
        Jest += 0.5 * lam * (w @ w)
        hist.append([Jest, Jest, D, gap_sum])
        if gap_sum <= tol * max(abs(Jest), 1e-12) or t == max_iter - 1:
            Jw, Ja = primal(w), primal(wbar)
            best = w if Jw <= Ja else wbar
            J = min(Jw, Ja)
            hist[-1] = [J, J, D, J - D]
            if J - D <= tol * max(abs(J), 1e-12):
                break
    return [x.copy() for x in split(best.copy())], hist


def _simplex_qp(G, b, beta0, iters=500):
    """max_{beta in simplex} b.beta - 1/2 beta' G beta (FISTA on the negation; the steps are
    :func:`~weaklabel.structured._kernels._simplex_fista`)."""
    G = np.ascontiguousarray(G, dtype=np.float64)
    L = max(float(np.linalg.eigvalsh(G)[-1]) if G.shape[0] > 1 else float(G[0, 0]), 1e-12)
    return _simplex_fista(G, np.ascontiguousarray(b, dtype=np.float64), np.ascontiguousarray(beta0, dtype=np.float64),
                          L, int(iters))


def lp_adam(ex, A, C, pu, shapes, alpha, learning_rate, batch_size, max_iter, random_state):
    """Minimise problem (24) by Adam over ``w`` and every example's messages.

    ``alpha/2 ||w||^2 + 1/m sum_i (u(x_i, a_i, phi^i, w) - <w, psi^p(x_i, a_i)>)`` over
    ``w`` and the messages ``phi^i`` (two of ``K`` values per edge); a pass visits the
    examples in random order, ``w`` stepping once per mini-batch.

    Parameters
    ----------
    ex : Examples
        The flat examples (any sizes and graphs).
    A, C, pu : ndarray
        The flat annotations and annotation probabilities (as in
        :func:`~weaklabel.structured.model.loss_augmented_oracle`).
    shapes : list of tuple
        The shapes of ``(Wu, Wp)``.
    alpha : float
        The regularisation.
    learning_rate : float
        Adam's step.
    batch_size : int
        Examples per step of ``w``.
    max_iter : int
        Passes.
    random_state : int, RandomState instance or None
        Order of the passes.

    Returns
    -------
    parts : list of ndarray
        ``[Wu, Wp]``.
    objectives : list of float
        The objective after each pass.
    """
    rng = check_random_state(random_state)
    Wu, Wp = np.zeros(shapes[0]), np.zeros(shapes[1])
    m = ex.m
    K = Wp.shape[0]
    phi = np.zeros((ex.E.shape[0], 2, K))
    phi_m, phi_v = np.zeros_like(phi), np.zeros_like(phi)
    phi_t = np.zeros(m, dtype=np.int64)
    mu = (np.zeros_like(Wu), np.zeros_like(Wp))
    nu = (np.zeros_like(Wu), np.zeros_like(Wp))
    t = 0
    objs = []
    for _ in range(max_iter):
        order = rng.permutation(m).astype(np.int64)
        val, t = _lp_epoch((Wu, Wp), flat_layout(ex, A, C, pu), phi, order,
                           (float(alpha), float(learning_rate), int(batch_size)), (mu, nu, t), (phi_m, phi_v, phi_t))
        objs.append(val + 0.5 * alpha * (np.sum(Wu ** 2) + np.sum(Wp ** 2)))
    return [Wu, Wp], objs
