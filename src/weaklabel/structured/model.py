"""The MIL-M3N model (Franc & Yermakov, ACML 2022): what a labeling scores and costs.

The model is pystruct's first part.  It knows

- the joint features: one-hot unary features in (symbol, label) for symbolic inputs or
  ``w_y . phi(x_v)`` for node features, and one pairwise table shared by every edge
  (:func:`unary_scores`);
- the partial loss ``l^p`` (normalised Hamming on annotated nodes; a label outside a
  node's candidate set counts as wrong) and the weighted joint features ``psi^p`` (15) of
  the annotation process (:func:`estimate_missingness`, :func:`sudoku_label_prob`);
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

__all__ = ["estimate_missingness", "sudoku_label_prob", "unary_scores", "loss_augmented_oracle"]


def estimate_missingness(Y):
    """Estimate the homogeneous annotation rate ``theta`` by ML (20): the share of labelled nodes.

    Under (19) ``p(z_v = 1) = theta`` and ``p(z_v = 1, z_v' = 1) = theta^2``.

    Parameters
    ----------
    Y : labels or masks, in any form the structured learners take
        Each node's annotation: a label, -1 (missing), or a candidate mask.

    Returns
    -------
    float
        ``theta``.
    """
    Y = np.asarray(Y)
    if Y.size == 0:
        raise ValueError("Y is empty.")
    return float(np.mean(Y >= 0))


def sudoku_label_prob(X, tau):
    """Return the Sudoku annotation process of Section 4.2.

    ``p(z_v = 1 | x) = 1`` for a given cell (``x_v > 0``) and ``1 - tau`` for an empty one.

    Parameters
    ----------
    X : ndarray of int of shape (n_puzzles, 81)
        The puzzles, 0 for a blank.
    tau : float
        The share of empty cells left unlabelled.

    Returns
    -------
    ndarray of shape (n_puzzles, 81)
        ``p(z_v = 1 | x)`` per cell.
    """
    X = np.asarray(X)
    if not 0 <= tau < 1:
        raise ValueError(f"tau must be in [0, 1); got {tau!r}.")
    return np.where(X > 0, 1.0, 1.0 - tau)


def unary_scores(Wu, ex, i, scores):
    """Write example ``i``'s unary scores (n_i, K) into ``scores[:n_i]``.

    ``Wu[x_v]`` for symbols, ``phi(x_v) @ Wu`` for node features.

    Parameters
    ----------
    Wu : ndarray of shape (n_symbols or n_features, K)
        The unary weights.
    ex : Examples
        The flat examples (:mod:`weaklabel.structured._examples`).
    i : int
        The example.
    scores : ndarray of shape (at least n_i, K)
        The buffer written.
    """
    a = ex.off[i]
    _unary(Wu, ex.sym, ex.Xs, ex.F, a, ex.off[i + 1] - a, scores)


def loss_augmented_oracle(ex, A, C, pu, yref, chain):
    """Return the loss-augmented inference of (14) for the solvers.

    ``oracle(i, Wu, Wp, Gu, Gp, c)`` adds ``c * (psi(x_i, yhat) - psi_ref_i)`` to
    ``(Gu, Gp)`` and returns ``(Delta_i, l^p(a_i, yhat))`` for the loss-augmented labeling
    ``yhat`` (Viterbi on chains, :func:`exact_map` elsewhere); ``psi_ref`` is ``psi^p``
    (15), or ``psi(x_i, yref_i)`` for the CCCP-linearised ramp loss.

    Parameters
    ----------
    ex : Examples
        The flat examples, of any sizes and graphs.
    A : ndarray of int
        Flat annotations: per node a label, -1 missing or -2 a candidate set.
    C : ndarray of bool of shape (n_nodes_total, K)
        The candidate sets of the nodes whose ``A`` is -2.
    pu : ndarray of float
        Flat annotation probabilities.
    yref : ndarray of int or None
        Flat reference labeling of the ramp loss (None: the partial loss (14)).
    chain : bool
        The examples are chains (Viterbi kernels).

    Returns
    -------
    risk : callable
        ``risk([Wu, Wp]) -> (mean Delta_i, [Gu, Gp])``, the risk and its subgradient.
    oracle : callable
        The per-example oracle above.
    """
    from ._kernels import (_add_psi_p, _add_unary, _augment, _chain_buffers, _chain_oracle, _outside, _psi_p_score,
                           flat_layout)

    m = ex.m
    sym, Xs, F, off, E, eoff = ex.sym, ex.Xs, ex.F, ex.off, ex.E, ex.eoff
    fl = flat_layout(ex, A, C, pu)
    ramp = yref is not None
    yr = np.ascontiguousarray(yref, dtype=np.int64) if ramp else np.zeros(1, np.int64)

    if chain:
        buf = {}
        max_nodes = ex.max_nodes

        def oracle(i, Wu, Wp, Gu, Gp, c):
            # the buffers once, and the pairwise weights' view (it follows Wp, no copy) once per
            # array the solver hands over: a solver calls this once per example and round, and
            # making them at each call took more time than the chain's own Viterbi
            if buf.get("Wp") is not Wp:
                if "scores" not in buf:
                    buf["scores"], _, buf["yhat"] = _chain_buffers(Wp, max_nodes)
                buf["P"] = np.broadcast_to(Wp, (max(max_nodes - 1, 1),) + Wp.shape)
                buf["Wp"] = Wp
            return _chain_oracle((Wu, Wp), fl, ramp, yr, i, (buf["scores"], buf["P"], buf["yhat"]), (Gu, Gp), c)

        def risk(parts):
            Wu, Wp = parts
            Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
            return _chain_risk((Wu, Wp), fl, ramp, yr, (Gu, Gp)), [Gu, Gp]

        return risk, oracle

    def oracle(i, Wu, Wp, Gu, Gp, c):
        K = Wp.shape[0]
        a, b = off[i], off[i + 1]
        n = b - a
        ea, eb = eoff[i], eoff[i + 1]
        Ei = E[ea:eb]
        scores = np.empty((n, K))
        _unary(Wu, sym, Xs, F, a, n, scores)
        if ramp:
            y = yr[a:b]
            base = scores[np.arange(n), y].sum() + Wp[y[Ei[:, 0]], y[Ei[:, 1]]].sum()
        else:
            base = _psi_p_score(Wp, fl, (a, n, ea, eb), scores)
        _augment(scores, A, C, a, n)
        r = exact_map(scores, Wp, Ei)
        yhat, top = r.labels, r.value
        for v in range(n):
            _add_unary(Gu, sym, Xs, F, a + v, yhat[v], c)
        np.add.at(Gp, (yhat[Ei[:, 0]], yhat[Ei[:, 1]]), c)
        if ramp:
            for v in range(n):
                _add_unary(Gu, sym, Xs, F, a + v, y[v], -c)
            np.add.at(Gp, (y[Ei[:, 0]], y[Ei[:, 1]]), -c)
        else:
            _add_psi_p((Gu, Gp), fl, (a, n, ea, eb), -c)
        loss = sum(1.0 for v in range(n) if _outside(A, C, a + v, yhat[v])) / n
        return top - base, loss

    def risk(parts):
        Wu, Wp = parts
        Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
        R = sum(oracle(i, Wu, Wp, Gu, Gp, 1.0 / m)[0] for i in range(m)) / m
        return R, [Gu, Gp]

    return risk, oracle
