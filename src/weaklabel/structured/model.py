"""The MIL-M3N model (Franc & Yermakov, ACML 2022): what a labeling scores and costs.

The model is pystruct's first part.  It knows

- the joint features: one-hot unary features in (symbol, label) for symbolic inputs or
  ``w_y . phi(x_v)`` for node features, and one pairwise table shared by every edge
  (:func:`unary_scores`);
- the partial loss ``l^p`` (normalised Hamming on annotated nodes) and the weighted
  joint features ``psi^p`` (15) of the annotation process (:func:`check_label_prob`,
  :func:`estimate_missingness`, :func:`sudoku_label_prob`);
- the loss-augmented inference of the partial margin-rescaling loss (14), for the
  solvers (:func:`loss_augmented_oracle`).

The solvers (:mod:`weaklabel.structured.solvers`) take an oracle and return weights;
the estimators (:mod:`weaklabel.structured.m3n`) validate, call a solver and predict.
Inference (:mod:`weaklabel.structured.inference`) is pure functions and imports none of
these.
"""

from __future__ import annotations

import numpy as np

from ._kernels import _chain_risk, _unary
from .inference import exact_map

__all__ = ["estimate_missingness", "sudoku_label_prob", "check_label_prob", "unary_scores",
           "loss_augmented_oracle"]


def estimate_missingness(Y):
    """ML estimate (20) of the homogeneous annotation rate ``theta``: the share of labelled
    nodes.  Under (19) ``p(z_v = 1) = theta`` and ``p(z_v = 1, z_v' = 1) = theta^2``."""
    Y = np.asarray(Y)
    if Y.size == 0:
        raise ValueError("Y is empty.")
    return float(np.mean(Y >= 0))


def sudoku_label_prob(X, tau):
    """The Sudoku annotation process of Section 4.2: ``p(z_v = 1 | x) = 1`` for a given cell
    (``x_v > 0``) and ``1 - tau`` for an empty one."""
    X = np.asarray(X)
    if not 0 <= tau < 1:
        raise ValueError(f"tau must be in [0, 1); got {tau!r}.")
    return np.where(X > 0, 1.0, 1.0 - tau)


def check_label_prob(label_prob, Y):
    """``p(z_v = 1 | x)`` per node as an array of Y's shape: ``None`` estimates the homogeneous
    rate (20); a number, a row (n_nodes,) or a full array are checked to lie in (0, 1]."""
    if label_prob is None:
        theta = estimate_missingness(Y)
        if theta == 0:
            raise ValueError("every label is missing; nothing to learn from.")
        return np.full(Y.shape, theta)
    p = np.asarray(label_prob, dtype=np.float64)
    if p.ndim == 0:
        p = np.full(Y.shape, float(p))
    elif p.shape == (Y.shape[1],):
        p = np.broadcast_to(p, Y.shape).copy()
    if p.shape != Y.shape:
        raise ValueError(f"label_prob must be a number, shape ({Y.shape[1]},) or {Y.shape}; got {p.shape}.")
    if not np.all((p > 0) & (p <= 1)):
        raise ValueError("label_prob must lie in (0, 1]: every node must have a chance to be labelled.")
    return np.ascontiguousarray(p)


def unary_scores(Wu, X, sym, i, scores):
    """Write example ``i``'s unary scores (n_nodes, K) into ``scores``: ``Wu[x_v]`` for symbols,
    ``phi(x_v) @ Wu`` for node features."""
    F = X if not sym else np.zeros((1, 1, 1))
    Xs = X if sym else np.zeros((1, 1), np.int64)
    _unary(Wu, sym, Xs, F, i, scores)


def loss_augmented_oracle(X, sym, Y, pu, g, yref, chain):
    """The loss-augmented inference of (14) for the solvers.

    Returns ``(risk, oracle)``.  ``oracle(i, Wu, Wp, Gu, Gp, c)`` adds
    ``c * (psi(x_i, yhat) - psi_ref_i)`` to ``(Gu, Gp)`` and returns ``(Delta_i, l^p(a_i, yhat))``
    for the loss-augmented labeling ``yhat`` (Viterbi on chains, :func:`exact_map`
    elsewhere); ``psi_ref`` is ``psi^p`` (15), or ``psi(x_i, yref_i)`` for the CCCP-linearised
    ramp loss.  ``risk([Wu, Wp])`` is ``(mean Delta_i, [Gu, Gp])``, its subgradient.
    """
    from ._kernels import _add_psi_p, _add_unary, _chain_buffers, _chain_oracle, _psi_p_score

    m, n = Y.shape
    Xs = X if sym else np.zeros((1, 1), np.int64)
    F = X if not sym else np.zeros((1, 1, 1))
    ramp = yref is not None
    yr = np.ascontiguousarray(yref) if ramp else np.zeros((1, 1), np.int64)

    if chain:
        buf = {}

        def oracle(i, Wu, Wp, Gu, Gp, c):
            if "scores" not in buf:
                buf["scores"], _, buf["edges"], buf["yhat"] = _chain_buffers(Wp, n)
            P = np.broadcast_to(Wp, (max(n - 1, 1),) + Wp.shape)     # a view: follows Wp
            return _chain_oracle(Wu, Wp, sym, Xs, F, Y, pu, ramp, yr, i, buf["scores"], P, buf["edges"], buf["yhat"],
                                 Gu, Gp, c)

        def risk(parts):
            Wu, Wp = parts
            Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
            return _chain_risk(Wu, Wp, sym, Xs, F, Y, pu, ramp, yr, Gu, Gp), [Gu, Gp]

        return risk, oracle

    E = g.edges

    def oracle(i, Wu, Wp, Gu, Gp, c):
        K = Wp.shape[0]
        scores = np.empty((n, K))
        _unary(Wu, sym, Xs, F, i, scores)
        if ramp:
            base = scores[np.arange(n), yr[i]].sum() + Wp[yr[i][E[:, 0]], yr[i][E[:, 1]]].sum()
        else:
            base = _psi_p_score(Wu, Wp, sym, Xs, F, Y, pu, E, i, scores)
        lab = Y[i] >= 0
        scores[lab] += 1.0 / n
        scores[np.flatnonzero(lab), Y[i][lab]] -= 1.0 / n
        r = exact_map(scores, Wp, E)
        yhat, top = r.labels, r.value
        for v in range(n):
            _add_unary(Gu, sym, Xs, F, i, v, yhat[v], c)
        np.add.at(Gp, (yhat[E[:, 0]], yhat[E[:, 1]]), c)
        if ramp:
            for v in range(n):
                _add_unary(Gu, sym, Xs, F, i, v, yr[i, v], -c)
            np.add.at(Gp, (yr[i][E[:, 0]], yr[i][E[:, 1]]), -c)
        else:
            _add_psi_p(Gu, Gp, sym, Xs, F, Y, pu, E, i, -c)
        return top - base, float(np.sum(lab & (yhat != Y[i]))) / n

    def risk(parts):
        Wu, Wp = parts
        Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
        R = sum(oracle(i, Wu, Wp, Gu, Gp, 1.0 / m)[0] for i in range(m)) / m
        return R, [Gu, Gp]

    return risk, oracle
