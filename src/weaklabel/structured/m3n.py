"""Max-margin Markov networks from examples with missing labels (Franc & Yermakov, ACML 2022).

- :class:`MILM3N`: the convex partial margin-rescaling loss (14) with exact
  loss-augmented inference (Viterbi on chains, branch and bound elsewhere), problem (17)
  solved by block-coordinate Frank-Wolfe (default) or BMRM (Teo et al. 2010, the
  paper's solver), both with a duality-gap report.
- :class:`LPMILM3N`: its LP relaxation (24), ``w`` and every example's dual variables
  ``phi^i`` optimised jointly by Adam, for arbitrary graphs; predictions by
  :func:`~weaklabel.structured.inference.lp_map` and exact decoding when not tight.
- :class:`RampCCCPM3N`: the non-convex ramp-loss baseline (11)-(12) by CCCP, on chains.

Data: ``X`` is an int array (n_examples, n_nodes) of symbols (unary features one-hot in
(symbol, label)) or a float array (n_examples, n_nodes, n_features) of node features
(unary score ``w_y . phi(x_v)``); ``Y`` is an int array (n_examples, n_nodes) of labels
``0 .. K-1`` with ``-1`` for a missing label.  One pairwise table ``(K, K)`` is shared by
every edge.  The target loss is the Hamming loss divided by ``n_nodes``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from .._validation import check_int_at_least
from .graphs import Graph, chain_graph
from .inference import exact_map, lp_map
from .inference._kernels import _viterbi
from ._kernels import _chain_risk, _lp_epoch, _unary

__all__ = ["MILM3N", "LPMILM3N", "RampCCCPM3N", "estimate_missingness", "sudoku_label_prob"]


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


class _M3NBase(BaseEstimator):
    """Validation, features, scores and prediction shared by the three learners."""

    # ---- validation ---------------------------------------------------------------------
    def _graph_for(self, n_nodes):
        g = self.graph
        if g is None:
            return chain_graph(n_nodes)
        if not isinstance(g, Graph):
            if isinstance(g, tuple) and len(g) == 2:
                g = Graph(*g)
            else:
                raise TypeError("graph must be a weaklabel.structured.Graph (chain_graph, grid_graph, "
                                f"sudoku_graph, or Graph(n_nodes, edges)) or None; got {type(g).__name__}.")
        if g.n_nodes != n_nodes:
            raise ValueError(f"X has {n_nodes} nodes per example but the graph has {g.n_nodes}.")
        return g

    def _check_X(self, X, fitting):
        X = np.asarray(X)
        if X.dtype.kind in "iu" and X.ndim == 2:
            sym = True
        elif X.dtype.kind == "f" and X.ndim == 3:
            sym = False
        elif X.dtype.kind == "f" and X.ndim == 2 and X.size and np.all(X == np.round(X)):
            X = X.astype(np.int64)
            sym = True
        else:
            raise ValueError("X must be an int array (n_examples, n_nodes) of symbols or a float array "
                             f"(n_examples, n_nodes, n_features) of node features; got dtype {X.dtype}, shape "
                             f"{X.shape}.")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X needs at least one example and one node; got shape {X.shape}.")
        if sym:
            if X.min() < 0:
                raise ValueError(f"X holds symbol {int(X.min())}; symbols are 0 .. n_symbols-1.")
            if not fitting and X.max() >= self.n_symbols_:
                bad = np.unique(X[X >= self.n_symbols_])
                raise ValueError(f"X holds symbols {bad[:10].tolist()} outside the alphabet 0..{self.n_symbols_ - 1} "
                                 "the model was fitted with.")
            X = np.ascontiguousarray(X, dtype=np.int64)
        else:
            if not np.all(np.isfinite(X)):
                raise ValueError("X holds NaN or infinite features.")
            if not fitting and X.shape[2] != self.unary_.shape[0]:
                raise ValueError(f"X has {X.shape[2]} features per node; the model was fitted with "
                                 f"{self.unary_.shape[0]}.")
            X = np.ascontiguousarray(X, dtype=np.float64)
        if not fitting:
            if sym != self.symbolic_:
                raise ValueError("X is " + ("symbolic" if sym else "real-valued") + " but the model was fitted on "
                                 + ("symbols." if self.symbolic_ else "node features."))
            self._graph_for(X.shape[1])
        return X, sym

    def _check_fit(self, X, Y, label_prob):
        X, sym = self._check_X(X, True)
        Y = np.asarray(Y)
        if Y.shape != X.shape[:2]:
            raise ValueError(f"Y must have the shape of X's (n_examples, n_nodes) = {X.shape[:2]}; got {Y.shape}.")
        if Y.dtype.kind not in "iu":
            if Y.dtype.kind == "f" and np.all(np.isfinite(Y)) and np.all(Y == np.round(Y)):
                Y = Y.astype(np.int64)
            else:
                raise TypeError(f"Y must hold integer labels (-1 = missing); got dtype {Y.dtype}.")
        K = self.n_states if self.n_states is not None else int(Y.max()) + 1
        if K < 2:
            raise ValueError(f"need at least 2 labels; got n_states={K} (Y's largest label {int(Y.max())}).")
        bad = (Y < -1) | (Y >= K)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"Y[{r}, {c}] = {int(Y[r, c])} is not a label: labels are 0..{K - 1}, and -1 marks a "
                             "missing one.")
        g = self._graph_for(X.shape[1])
        n_sym = None
        if sym:
            n_sym = self.n_symbols if self.n_symbols is not None else int(X.max()) + 1
            if X.max() >= n_sym:
                raise ValueError(f"X holds symbol {int(X.max())} outside the alphabet 0..{n_sym - 1} (n_symbols).")
        pu = self._label_prob(label_prob, Y)
        return X, sym, np.ascontiguousarray(Y, dtype=np.int64), K, g, n_sym, pu

    @staticmethod
    def _label_prob(label_prob, Y):
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

    # ---- scores -------------------------------------------------------------------------
    def _zero_weights(self, sym, n_sym, X, K):
        rows = n_sym if sym else X.shape[2]
        return np.zeros((rows, K)), np.zeros((K, K))

    def _scores(self, X, sym, i, S):
        F = X if not sym else np.zeros((1, 1, 1))
        Xs = X if sym else np.zeros((1, 1), np.int64)
        _unary(self.unary_, sym, Xs, F, i, S)

    def _decode_all(self, X, sym, exact=True, scale=1.0):
        g = self.graph_
        K = self.pairwise_.shape[0]
        Wp = self.pairwise_ if scale == 1.0 else scale * self.pairwise_
        n = X.shape[1]
        out = np.empty(X.shape[:2], dtype=np.int64)
        S = np.empty((n, K))
        info = {"tight": 0, "branch_and_bound": 0, "not_proved": 0, "lp_calls": 0}
        if g.kind == "chain":
            P = np.ascontiguousarray(np.broadcast_to(Wp, (max(n - 1, 1), K, K)))
            for i in range(X.shape[0]):
                self._scores(X, sym, i, S)
                if n == 1:
                    out[i, 0] = int(np.argmax(S[0]))
                else:
                    _viterbi(S, P, out[i])
            info["tight"] = X.shape[0]
            return out, info
        for i in range(X.shape[0]):
            self._scores(X, sym, i, S)
            if exact:
                y, _, inf = exact_map(S, Wp, g.edges)
                info["tight"] += inf["tight_at_root"]
                info["branch_and_bound"] += not inf["tight_at_root"]
                info["not_proved"] += not inf["optimal"]
                info["lp_calls"] += inf["lp_calls"]
            else:
                r = lp_map(S, Wp, g.edges)
                y = r.labels
                info["tight"] += r.tight
                info["not_proved"] += not r.tight
                info["lp_calls"] += 1
            out[i] = y
        return out, info

    def predict(self, X):
        """MAP labeling of each example, an int array (n_examples, n_nodes) of labels 0..K-1."""
        return self.decode(X)[0]

    def decode(self, X):
        """``(labels, info)``: the predictions and how they were found (``tight``: examples
        whose LP relaxation was tight or whose graph is a chain; ``branch_and_bound``:
        examples that needed exact search; ``not_proved``: examples whose search ran out
        of its node budget, so their labeling may not be a MAP; ``lp_calls``)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "pairwise_")
        scale = _check_pairwise_scale(getattr(self, "pairwise_scale", 1.0))
        X, sym = self._check_X(X, False)
        return self._decode_all(X, sym, exact=True, scale=scale)

    def score(self, X, Y):
        """Share of the annotated nodes (``Y >= 0``) predicted right."""
        Y = np.asarray(Y)
        pred = self.predict(X)
        if Y.shape != pred.shape:
            raise ValueError(f"Y must have shape {pred.shape}; got {Y.shape}.")
        lab = Y >= 0
        return float(np.mean(pred[lab] == Y[lab])) if lab.any() else float("nan")

    def _finish(self, Wu, Wp, sym, n_sym, K, g):
        self.unary_ = Wu
        self.pairwise_ = Wp
        self.symbolic_ = sym
        self.n_symbols_ = n_sym
        self.n_states_ = K
        self.graph_ = g


def _check_pairwise_scale(scale):
    """``scale`` as a float, or a ValueError naming ``pairwise_scale``."""
    if not (isinstance(scale, (int, float, np.floating, np.integer)) and np.isfinite(scale) and scale > 0):
        raise ValueError(f"pairwise_scale must be a finite number > 0; got {scale!r}.")
    return float(scale)


def _flat_parts(shapes):
    """``(dim, split)``: the length of the flat vector holding arrays of ``shapes``, and
    ``split(v)``, the list of views of ``v`` in those shapes."""
    sizes = [int(np.prod(s)) for s in shapes]

    def split(v):
        out, o = [], 0
        for s, k in zip(shapes, sizes):
            out.append(v[o:o + k].reshape(s))
            o += k
        return out

    return sum(sizes), split


def _bmrm(risk, shapes, lam, max_iter, tol, report):
    """Bundle method for ``min J(w) = lam/2 ||w||^2 + R(w)`` (BMRM, Teo et al. 2010, with a
    proximal stabiliser).

    Each call of ``risk`` adds a cutting plane of the convex risk ``R``.  Plain BMRM
    jumps to the minimiser of the cutting-plane model, which on M3N problems (large
    subgradients, small ``lam``) overshoots for hundreds of iterations; here the next
    point minimises the model plus ``mu/2 ||w - c||^2`` around the best point ``c`` so
    far (proximal bundle), with ``mu`` halved after each step that decreases ``J`` and
    doubled after a null step (which also adds its cutting plane).  The lower bound of the report is the minimum of
    the unstabilised model (a valid lower bound on ``min J``); stops when the gap
    ``best J - lower bound`` is below ``tol`` times ``|best J|``.
    Returns the best iterate (as parts of ``shapes``) and the history
    ``(J, best J, lower bound, gap)`` per iteration.
    """
    dim, split = _flat_parts(shapes)
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


def _bcfw(oracle, m, shapes, lam, max_iter, tol, random_state):
    """Block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013) for
    ``min J(w) = lam/2 ||w||^2 + 1/m sum_i Delta_i(w)``, the dual of (17) one example at a
    time, with the exact line search.

    Each step calls ``oracle`` once (one loss-augmented inference), so a pass costs what one
    BMRM iteration costs, but ``w`` moves after every example.  The dual value
    ``D = -lam/2 ||w||^2 + l`` is a valid lower bound at every step; the sum of the block
    gaps over a pass estimates ``J - D``.  When that estimate falls below
    ``tol * |J|`` (or after ``max_iter`` passes) an exact batch pass measures ``J`` and the
    gap.  Each block starts at the corner of its first oracle call (``psi^p`` is not the
    feature vector of any labeling, so ``w_i = 0`` is not dual feasible).  Returns the parts
    of ``w`` and the history ``(J, J, D, gap)`` per pass (``J`` is
    the pass's running estimate, exact in the last row).
    """
    dim, split = _flat_parts(shapes)
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
            g[:] = 0.0
            val, loss = oracle(i, W[0], W[1], G[0], G[1], 1.0)
            ws = g * (-1.0 / (lam * m))
            ls = loss / m
            d = Wi[i] - ws
            gi = lam * (d @ w) - li[i] + ls
            den = lam * (d @ d)
            if t == 0:
                # w_i = 0, l_i = 0 is not a dual point here (psi^p is no labeling's feature
                # vector), so each block starts at its first corner
                gamma = 1.0
            else:
                gamma = min(max(gi / den, 0.0), 1.0) if den > 0 else 0.0
            gap_sum += gi
            Jest += val / m
            k += 1
            if gamma > 0:
                step = gamma * (ws - Wi[i])
                w += step
                Wi[i] += step
                dl = gamma * (ls - li[i])
                li[i] += dl
                ell += dl
            wbar *= k / (k + 2.0)
            wbar += (2.0 / (k + 2.0)) * w
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


def _project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    cond = u - css / k > 0
    r = k[cond][-1]
    return np.maximum(v - css[r - 1] / r, 0.0)


def _simplex_qp(G, b, beta0, iters=500):
    """max_{beta in simplex} b.beta - 1/2 beta' G beta (FISTA on the negation)."""
    L = max(float(np.linalg.eigvalsh(G)[-1]) if G.shape[0] > 1 else float(G[0, 0]), 1e-12)
    x = _project_simplex(beta0)
    y, tk = x.copy(), 1.0
    for _ in range(iters):
        grad = G @ y - b
        xn = _project_simplex(y - grad / L)
        tn = 0.5 * (1 + np.sqrt(1 + 4 * tk * tk))
        y = xn + (tk - 1) / tn * (xn - x)
        if np.max(np.abs(xn - x)) < 1e-12:
            x = xn
            break
        x, tk = xn, tn
    return x


class MILM3N(_M3NBase):
    """MIL-M3N: a Markov network learned from partially annotated examples (problem (17)).

    Minimises ``alpha/2 ||w||^2 + 1/m sum_i Delta^p(x_i, a_i, w)`` with the partial
    margin-rescaling loss (14)

        Delta^p = max_y [l^p(a, y) + <w, psi(x, y)>] - <w, psi^p(x, a)>,

    where ``l^p`` counts (normalised Hamming) errors on annotated nodes only, so every
    label of a missing node has loss 0, and ``psi^p`` (15) weighs each annotated unary
    term by ``1/p(z_v = 1)`` and each annotated edge by ``1/p(z_v = 1, z_v' = 1)``.
    The loss-augmented inference is exact: Viterbi on chains (``inference="viterbi"``)
    or :func:`~weaklabel.structured.inference.exact_map` (``inference="exact"``, small
    graphs).  The convex problem is solved until the duality gap is below ``tol``
    (relative) by

    - ``solver="bcfw"``: block-coordinate Frank-Wolfe on the dual (Lacoste-Julien et al.
      2013), one example per step with the exact line search; its lower bound is the dual
      value, and the weights returned are the better of the last and the averaged iterate.
    - ``solver="bmrm"``: the paper's bundle method (BMRM, Teo et al. 2010) with a
      proximal stabiliser; its lower bound is the cutting-plane model's minimum.

    Both need one loss-augmented inference per example per iteration.  At ``w = 0`` every
    labeling of maximal loss ties, so every BMRM cutting plane there is a poor model
    and BMRM can stay at ``w = 0`` for many iterations; BCFW moves after each example,
    which is why it is the default.

    Parameters
    ----------
    graph : Graph or None, default=None
        ``None`` means the chain over the examples' nodes.
    inference : {"viterbi", "exact"}, default="viterbi"
        Loss-augmented inference: Viterbi (chains) or exact branch and bound.
    alpha : float, default=1.0
        ``lambda`` of (17) (> 0: both solvers need a strongly convex objective).
    solver : {"bcfw", "bmrm"}, default="bcfw"
        The convex solver (see above).
    max_iter : int, default=300
        Most iterations: BCFW passes over the examples or BMRM iterations.
    tol : float, default=1e-3
        Stop when the duality gap is below ``tol`` times the objective.
    n_states : int or None, default=None
        Labels ``K``; ``None`` reads it off the training labels.
    n_symbols : int or None, default=None
        Input symbols (symbolic ``X``); ``None`` reads it off the training inputs.
    random_state : int, RandomState or None, default=None
        Order of the BCFW passes (and the CCCP baseline's first imputation).

    Attributes
    ----------
    unary_ : ndarray (n_symbols or n_features, K)
    pairwise_ : ndarray (K, K)
    objective_, lower_bound_ : ndarray (n_iter_,)
        Objective and lower bound per iteration (the convergence report; for BCFW the
        objective is the pass's running estimate except in the last row, which is exact).
    converged_ : bool
    graph_, n_states_, n_symbols_, symbolic_

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.structured import MILM3N
    >>> X = np.array([[0, 1, 1, 0], [1, 1, 0, 0]])
    >>> Y = np.array([[0, 1, -1, 0], [1, -1, 0, 0]])
    >>> MILM3N(alpha=0.1).fit(X, Y).predict(X).tolist()
    [[0, 1, 1, 0], [1, 1, 0, 0]]
    """

    def __init__(self, graph=None, inference="viterbi", alpha=1.0, solver="bcfw", max_iter=300, tol=1e-3,
                 n_states=None, n_symbols=None, random_state=None):
        self.graph = graph
        self.inference = inference
        self.alpha = alpha
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.n_states = n_states
        self.n_symbols = n_symbols
        self.random_state = random_state

    _ramp = False

    def _check_params(self):
        if self.inference not in ("viterbi", "exact"):
            raise ValueError(f"inference must be 'viterbi' or 'exact'; got {self.inference!r}.")
        if self.solver not in ("bcfw", "bmrm"):
            raise ValueError(f"solver must be 'bcfw' or 'bmrm'; got {self.solver!r}.")
        if not (isinstance(self.alpha, (int, float, np.floating, np.integer)) and self.alpha > 0):
            raise ValueError(f"alpha must be a number > 0; got {self.alpha!r}.")
        check_int_at_least(self.max_iter, "max_iter", 1)
        if not (isinstance(self.tol, (int, float, np.floating)) and self.tol > 0):
            raise ValueError(f"tol must be a number > 0; got {self.tol!r}.")

    def _risk_fn(self, X, sym, Y, pu, g, yref=None):
        """``(risk, oracle)``: the mean loss with its subgradient (for BMRM) and the
        per-example loss-augmented inference (for BCFW); see :func:`_make_oracle`."""
        if g.kind != "chain" and self.inference == "viterbi":
            raise ValueError(f"inference='viterbi' needs a chain graph; this one is {g!r}. Use inference='exact' "
                             "(small graphs) or LPMILM3N.")
        return _make_oracle(X, sym, Y, pu, g, yref, self.inference == "viterbi")

    def fit(self, X, Y, label_prob=None):
        """Learn from partially annotated examples.

        Parameters
        ----------
        X : int array (n_examples, n_nodes) of symbols, or float array (n_examples, n_nodes, n_features)
        Y : int array (n_examples, n_nodes)
            Labels 0..K-1, -1 for a missing label (an example may have none).
        label_prob : None, float, array (n_nodes,) or (n_examples, n_nodes)
            ``p(z_v = 1 | x)`` of the annotation process; edges use the product (independent
            annotation).  ``None`` estimates the homogeneous rate (20).

        Returns
        -------
        self
        """
        self._check_params()
        X, sym, Y, K, g, n_sym, pu = self._check_fit(X, Y, label_prob)
        Wu, Wp = self._zero_weights(sym, n_sym, X, K)
        (Wu, Wp), hist = self._solve(self._risk_fn(X, sym, Y, pu, g), Y.shape[0], [Wu.shape, Wp.shape])
        self._finish(Wu, Wp, sym, n_sym, K, g)
        self._set_history(hist)
        return self

    def _solve(self, fns, m, shapes):
        risk, oracle = fns
        if self.solver == "bmrm":
            return _bmrm(risk, shapes, float(self.alpha), self.max_iter, self.tol, None)
        return _bcfw(oracle, m, shapes, float(self.alpha), self.max_iter, self.tol, self.random_state)

    def _set_history(self, hist):
        h = np.asarray(hist)
        self.objective_ = h[:, 1]
        self.lower_bound_ = h[:, 2]
        self.n_iter_ = h.shape[0]
        self.converged_ = bool(h[-1, 3] <= self.tol * max(abs(h[-1, 1]), 1e-12))

    def partial_error(self, X, Y):
        """Mean partial loss l^p (normalised Hamming on annotated nodes) of the predictions."""
        Y = np.asarray(Y)
        pred = self.predict(X)
        return float(np.mean(np.sum((Y >= 0) & (pred != Y), axis=1) / Y.shape[1]))


def _make_oracle(X, sym, Y, pu, g, yref, chain):
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
            if "S" not in buf:
                buf["S"], _, buf["edges"], buf["yhat"] = _chain_buffers(Wp, n)
            P = np.broadcast_to(Wp, (max(n - 1, 1),) + Wp.shape)     # a view: follows Wp
            return _chain_oracle(Wu, Wp, sym, Xs, F, Y, pu, ramp, yr, i, buf["S"], P, buf["edges"], buf["yhat"],
                                 Gu, Gp, c)

        def risk(parts):
            Wu, Wp = parts
            Gu, Gp = np.zeros_like(Wu), np.zeros_like(Wp)
            return _chain_risk(Wu, Wp, sym, Xs, F, Y, pu, ramp, yr, Gu, Gp), [Gu, Gp]

        return risk, oracle

    E = g.edges

    def oracle(i, Wu, Wp, Gu, Gp, c):
        K = Wp.shape[0]
        S = np.empty((n, K))
        _unary(Wu, sym, Xs, F, i, S)
        if ramp:
            base = S[np.arange(n), yr[i]].sum() + Wp[yr[i][E[:, 0]], yr[i][E[:, 1]]].sum()
        else:
            base = _psi_p_score(Wu, Wp, sym, Xs, F, Y, pu, E, i, S)
        lab = Y[i] >= 0
        S[lab] += 1.0 / n
        S[np.flatnonzero(lab), Y[i][lab]] -= 1.0 / n
        yhat, top, _ = exact_map(S, Wp, E)
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


class RampCCCPM3N(MILM3N):
    """The ramp-loss baseline (11)-(12) with ``U^P = U^R = Y^V``, minimised by CCCP.

    ``Delta = max_y [l^p(a, y) + <w, psi(x, y)>] - max_y <w, psi(x, y)>`` is non-convex;
    CCCP (Yuille & Rangarajan 2003) replaces the concave part by its linearisation at the
    current ``w`` (the current MAP labeling of each example) and solves the convex
    problem with the ``solver`` of :class:`MILM3N`, until the objective stops decreasing.
    Starts at ``w = 0``, where every labeling is a MAP labeling; the first linearisation
    takes the one that agrees with the annotations, with labels drawn uniformly at random
    (``random_state``) at missing nodes.

    Parameters
    ----------
    graph, inference, alpha, max_iter, tol, n_states, n_symbols
        As :class:`MILM3N`; ``max_iter`` bounds each round's BMRM.
    n_rounds : int, default=10
        Most CCCP rounds.

    Attributes
    ----------
    ramp_objective_ : ndarray (n_rounds_ + 1,)
        Objective (12) at the start and after each round.
    n_rounds_ : int
    """

    def __init__(self, graph=None, inference="viterbi", alpha=1.0, solver="bcfw", max_iter=300, tol=1e-3,
                 n_states=None, n_symbols=None, random_state=None, n_rounds=10):
        super().__init__(graph=graph, inference=inference, alpha=alpha, solver=solver, max_iter=max_iter, tol=tol,
                         n_states=n_states, n_symbols=n_symbols, random_state=random_state)
        self.n_rounds = n_rounds

    def fit(self, X, Y, label_prob=None):
        """Learn by CCCP rounds (``label_prob`` is accepted for a uniform interface and unused:
        the ramp loss needs no annotation marginals)."""
        self._check_params()
        check_int_at_least(self.n_rounds, "n_rounds", 1)
        X, sym, Y, K, g, n_sym, pu = self._check_fit(X, Y, label_prob)
        Wu, Wp = self._zero_weights(sym, n_sym, X, K)
        self._finish(Wu, Wp, sym, n_sym, K, g)
        objs = [self._ramp_objective(X, sym, Y)]
        rounds = 0
        hist = []
        for k in range(self.n_rounds):
            if k == 0:
                # at w = 0 every labeling maximises the concave part; the supergradient taken is
                # the one that agrees with the annotations, with random labels at missing nodes
                rng = check_random_state(self.random_state)
                yref = np.where(Y >= 0, Y, rng.randint(0, K, size=Y.shape))
            else:
                yref, _ = self._decode_all(X, sym)
            fns = self._risk_fn(X, sym, Y, pu, g, yref=np.ascontiguousarray(yref))
            (Wu2, Wp2), h = self._solve(fns, Y.shape[0], [Wu.shape, Wp.shape])
            old = (self.unary_, self.pairwise_)
            self.unary_, self.pairwise_ = Wu2, Wp2
            obj = self._ramp_objective(X, sym, Y)
            rounds += 1
            hist += h
            if obj >= objs[-1] - 1e-9 * max(1.0, abs(objs[-1])):
                if obj > objs[-1]:
                    self.unary_, self.pairwise_ = old
                else:
                    objs.append(obj)
                break
            objs.append(obj)
        self.ramp_objective_ = np.asarray(objs)
        self.n_rounds_ = rounds
        self._set_history(hist)
        return self

    def _ramp_objective(self, X, sym, Y):
        m, n = Y.shape
        yref, _ = self._decode_all(X, sym)
        risk, _ = self._risk_fn(X, sym, Y, np.ones(Y.shape), self.graph_, yref=np.ascontiguousarray(yref))
        R, _ = risk([self.unary_, self.pairwise_])
        return float(0.5 * self.alpha * (np.sum(self.unary_ ** 2) + np.sum(self.pairwise_ ** 2)) + R)


class LPMILM3N(_M3NBase):
    """LP-MIL-M3N: problem (24), the LP-relaxed partial margin-rescaling loss, any graph.

    ``w`` and each example's dual variables ``phi^i`` (two messages of ``K`` values per
    edge) are optimised jointly by Adam (Kingma & Ba 2015) on
    ``alpha/2 ||w||^2 + 1/m sum_i (u(x_i, a_i, phi^i, w) - <w, psi^p(x_i, a_i)>)``, where
    ``u`` is the reparametrised LP upper bound (23) of the loss-augmented max-sum problem.
    A pass visits the examples in random order, in mini-batches of ``batch_size``.
    Prediction: :func:`~weaklabel.structured.inference.lp_map` on the learned scores,
    with exact branch and bound when the relaxation is not tight (``decode`` reports how
    often).

    (The paper prints ``d Q_i / d phi_vv'(y) = [ybar_v = y] - [ybar_v' = y]``; the
    derivative of (23) is ``[the edge's maximiser has y at v] - [ybar_v = y]``, which is
    what is used.)

    Parameters
    ----------
    graph : Graph or None, default=None
        The Markov network; ``None`` means a chain.
    alpha : float, default=0.0
        ``lambda`` (the paper uses 0 for Sudoku).
    max_iter : int, default=30
        Passes over the examples.
    learning_rate : float, default=0.05
        Adam's step size.
    batch_size : int, default=10
        Examples per Adam step of ``w`` (each example's ``phi`` steps on its own).
    n_states : int or None, default=None
        Labels ``K``; ``None`` reads it off the training labels.
    n_symbols : int or None, default=None
        Input symbols; ``None`` reads it off the training inputs.
    random_state : int, RandomState or None, default=None
        Seeds the order of the examples.
    pairwise_scale : float, default=1.0
        Multiplies the learned pairwise scores when predicting; training ignores it, so
        it can be changed on a fitted model (``set_params``) and chosen on held-out
        examples.  1 is the paper's classifier.  When the unary scores come from features
        fitted to the training images (visual Sudoku), they are surer of themselves on
        new images than they should be, and a larger weight on the rules lets them
        overrule a misread digit.

    Attributes
    ----------
    unary_, pairwise_, objective_ (mean Q_i per pass), n_iter_, graph_, n_states_, n_symbols_

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.structured import LPMILM3N, chain_graph
    >>> X = np.array([[0, 1, 1, 0], [1, 1, 0, 0]])
    >>> Y = np.array([[0, 1, -1, 0], [1, -1, 0, 0]])
    >>> LPMILM3N(graph=chain_graph(4), random_state=0).fit(X, Y).predict(X).tolist()
    [[0, 1, 1, 0], [1, 1, 0, 0]]
    """

    def __init__(self, graph=None, alpha=0.0, max_iter=30, learning_rate=0.05, batch_size=10, n_states=None,
                 n_symbols=None, random_state=None, pairwise_scale=1.0):
        self.graph = graph
        self.alpha = alpha
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_states = n_states
        self.n_symbols = n_symbols
        self.random_state = random_state
        self.pairwise_scale = pairwise_scale

    def fit(self, X, Y, label_prob=None):
        """Learn from partially annotated examples; see :meth:`MILM3N.fit` for the arguments."""
        if not (isinstance(self.alpha, (int, float, np.floating, np.integer)) and self.alpha >= 0):
            raise ValueError(f"alpha must be a number >= 0; got {self.alpha!r}.")
        if not (isinstance(self.learning_rate, (int, float, np.floating)) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be a number > 0; got {self.learning_rate!r}.")
        check_int_at_least(self.max_iter, "max_iter", 1)
        check_int_at_least(self.batch_size, "batch_size", 1)
        _check_pairwise_scale(self.pairwise_scale)
        rng = check_random_state(self.random_state)
        X, sym, Y, K, g, n_sym, pu = self._check_fit(X, Y, label_prob)
        Wu, Wp = self._zero_weights(sym, n_sym, X, K)
        m = Y.shape[0]
        E = g.edges
        phi = np.zeros((m, E.shape[0], 2, K))
        phi_m, phi_v = np.zeros_like(phi), np.zeros_like(phi)
        phi_t = np.zeros(m, dtype=np.int64)
        mu = (np.zeros_like(Wu), np.zeros_like(Wp))
        nu = (np.zeros_like(Wu), np.zeros_like(Wp))
        Xs = X if sym else np.zeros((1, 1), np.int64)
        F = X if not sym else np.zeros((1, 1, 1))
        t = 0
        objs = []
        for _ in range(self.max_iter):
            order = rng.permutation(m).astype(np.int64)
            val, t = _lp_epoch(Wu, Wp, sym, Xs, F, Y, pu, np.ascontiguousarray(E), phi, order, float(self.alpha),
                               float(self.learning_rate), mu, nu, t, phi_m, phi_v, phi_t, int(self.batch_size))
            objs.append(val + 0.5 * self.alpha * (np.sum(Wu ** 2) + np.sum(Wp ** 2)))
        self._finish(Wu, Wp, sym, n_sym, K, g)
        self.objective_ = np.asarray(objs)
        self.n_iter_ = len(objs)
        return self
