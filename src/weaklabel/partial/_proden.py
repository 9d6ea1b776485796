"""PRODEN, progressive identification of the true label (Lv et al., ICML 2020), as a batch
linear learner."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from .._validation import read_only
from .._validation import Interval, StrOptions

from .._persist import register
from .._validation import keyword_only, AT_LEAST_1, NON_NEGATIVE
from .._lbfgs import lbfgs_fit
from ..linear import SoftmaxProba
from ._batch import BatchPartialLinear

__all__ = ["PRODEN", "candidate_likelihood_loss", "weighted_cross_entropy"]

#: rows per block of the loss: about 256 KB of scores, so that the max, numpy's (SIMD)
#: exponential and the gradient pass find a block in cache
_BLOCK_VALUES = 32768


def weighted_cross_entropy(Z, Q, sample_weight=None):
    """Mean of ``-sum_a Q_ia log softmax(Z_i)_a`` and its gradient in ``Z``.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_classes)
        Scores.
    Q : ndarray of shape (n_samples, n_classes)
        Per-row label weights (rows summing to 1; zero outside the candidate set).
    sample_weight : ndarray of shape (n_samples,), default=None
        The mean is weighted.

    Returns
    -------
    loss : float
        The mean weighted cross-entropy.
    grad : ndarray of shape (n_samples, n_classes)
        Its gradient in ``Z``.
    """
    from ._kernels import _weighted_cross_entropy

    Z = np.ascontiguousarray(Z, dtype=np.float64)
    Q = np.ascontiguousarray(Q, dtype=np.float64)
    w = np.ones(Z.shape[0]) if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    M, G = np.empty(Z.shape[0]), np.empty_like(Z)
    scale = 1.0 / w.sum()
    value = 0.0
    for b, e in _exp_blocks(Z, M, G):
        value += _weighted_cross_entropy(Z[b:e], M[b:e], Q[b:e], w[b:e], scale, G[b:e])
    return float(value), G


def _exp_blocks(Z, M, G):
    """Blocks ``(b, e)`` of the rows of ``Z`` (C-contiguous, n x K), each yielded once its
    rows' maxima are in ``M[b:e]`` and ``exp(Z - M)`` in ``G[b:e]``: the blocks stay in
    cache between the shift, the exponential and the caller's pass over them.
    """
    from .._fastexp import exp_nonpositive
    from ._kernels import _shift_by_row_max

    n = Z.shape[0]
    step = max(1, _BLOCK_VALUES // max(Z.shape[1], 1))
    for b in range(0, n, step):
        e = min(n, b + step)
        _shift_by_row_max(Z[b:e], M[b:e], G[b:e])
        flat = G[b:e].reshape(-1)                # a view: the block's rows are contiguous
        exp_nonpositive(flat, flat)
        yield b, e


@register
class PRODEN(SoftmaxProba, BatchPartialLinear):
    """Multinomial logistic regression from candidate label sets by progressive
    identification of the true label.

    Lv, Xu, Feng, Niu, Geng & Sugiyama, "Progressive Identification of True Labels for
    Partial-Label Learning", ICML 2020.  Each row ``i`` carries weights ``q_i`` over its
    candidate set ``S_i``, uniform at first.  Training alternates (i) minimising the
    weighted cross-entropy ``-sum_i sum_{a in S_i} q_ia log p_a(x_i)`` plus
    ``alpha/2 ||W||^2`` (scipy's L-BFGS, warm-started from the last round) and (ii)
    re-estimating ``q_ia = p_a(x_i) / sum_{b in S_i} p_b(x_i)``, the model's posterior
    restricted to the candidate set.  The paper makes step (ii) once per epoch of SGD on
    a deep network; here each round is ``max_iter`` L-BFGS iterations on a convex
    problem, and the rounds stop when no weight moves by more than ``tol`` and the last
    round's L-BFGS converged (with singleton sets the weights never move, and the rounds
    go on until the logistic regression is solved).  Its fixed points are the
    stationary points of the candidate likelihood ``-sum_i log sum_{a in S_i} p_a(x_i)``
    (the "CC" loss of Feng et al., NeurIPS 2020), of which the rounds are an EM.

    ``init="clpl"`` starts the weights from the candidate-restricted softmax of the convex
    CLPL fit (Cour, Sapp & Taskar, JMLR 2011; :class:`CLPL`, same ``alpha``) instead of
    uniform: the EM starts from a convex solution, for one CLPL fit more (the partial-label
    user guide reports what it gains on pll-realworld).

    ``update="hard"`` replaces step (ii) by a hard assignment: each row's weight goes
    wholly to the candidate the model scores highest (the lowest index on ties), and step
    (i) is then a plain multinomial logistic regression on those labels.  That is the
    alternating scheme of Nguyen & Caruana's PL-SVM ("Classification with Partial Labels",
    KDD 2008) with the logistic loss, i.e. classification EM: it commits to one label per
    row where the soft weights keep the ambiguity.  With ``init="clpl"`` the first labels
    are CLPL's best candidates; ``init_alpha`` lets that start be more regularised than the
    rounds (a smooth first disambiguation, then a sharp fit of it).

    For a non-linear model, put a feature map before it, e.g.
    ``make_pipeline(Nystroem(gamma, n_components=1000), PRODEN())``.

    Parameters
    ----------
    alpha : float, default=1e-4
        L2 penalty on the weights (``>= 0``; the intercept is not penalised).
    max_rounds : int, default=50
        Re-estimations of the weights (1: logistic regression on the uniform weights,
        i.e. each candidate label counts ``1/|S_i|``, if ``max_iter`` lets it converge).
    tol : float, default=1e-3
        Stop when the largest change of a weight ``q_ia`` in a round is below ``tol`` (and
        that round's L-BFGS converged).
    max_iter : int, default=10
        L-BFGS iterations per round, each round starting from the last one's weights: a
        few iterations per round, as the paper's one epoch per re-estimation, reach the
        accuracy of full minimisations in a fraction of the time (measured in the
        partial-label user guide).
    fit_intercept : bool, default=True
        Fit an intercept per class (not penalised).
    classes : array-like, default=None
        Every class; ``None``: the labels ``fit`` sees.
    init : {"uniform", "clpl"}, default="uniform"
        The first weights ``q``: uniform over each set (the paper), or the restricted
        softmax of a :class:`CLPL` fit with the same intercept and sample weights and the
        penalty ``init_alpha``.
    update : {"soft", "hard"}, default="soft"
        Step (ii): the model's posterior restricted to the set (the paper), or all the
        weight on the candidate it scores highest (see above; with ``init="clpl"`` the
        first weights are made hard too).
    init_alpha : float, list of floats or None, default=None
        The penalty of the :class:`CLPL` start (``>= 0``); None: ``alpha``.  A list makes
        one start per penalty, each followed by its rounds, and keeps the run whose final
        loss (``loss_``: the same objective, so comparable between runs) is lowest, as
        k-means keeps the best of its ``n_init`` starts; no label is needed to choose.
        Read only with ``init="clpl"``.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
    verbose : int, default=0
        Print each round's loss and the largest change of the weights ``q``.

    Attributes
    ----------
    classes_, coef_ (n_classes, n_features), intercept_ (n_classes,), n_features_in_
    confidence_ : ndarray of shape (n_samples, n_classes)
        The training rows' final weights ``q``: the disambiguated labels (argmax per
        row).  Not saved with the model.
    n_iter_ : int
        Rounds made.
    loss_ : float
        The weighted cross-entropy (plus penalty) at the end of the last round.
    init_alpha_ : float or None
        The penalty of the kept run's CLPL start (None with ``init="uniform"``).  Not saved
        with the model.
    restarts_ : list of dict
        One per start, in the order of ``init_alpha``: its penalty ``"init_alpha"`` and its
        final ``"loss"``.  Not saved with the model.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.partial import PRODEN
    >>> clf = PRODEN(alpha=1e-3).fit(X[:1400] / 16, S[:1400])
    >>> round(clf.score(X[1400:] / 16, y[1400:]), 2) > 0.85
    True
    """

    _parameter_constraints = {"alpha": [NON_NEGATIVE], "max_rounds": [AT_LEAST_1],
                              "tol": [Interval(Real, 0, None, closed="left")], "max_iter": [AT_LEAST_1],
                              "fit_intercept": ["boolean"], "classes": ["array-like", None],
                              "init": [StrOptions({"uniform", "clpl"})], "update": [StrOptions({"soft", "hard"})],
                              "init_alpha": [NON_NEGATIVE, "array-like", None],
                              "class_weight": [dict, StrOptions({"balanced"}), None], "verbose": ["verbose"]}

    @keyword_only
    def __init__(self, *, alpha=1e-4, max_rounds=50, tol=1e-3, max_iter=10, fit_intercept=True, classes=None,
                 init="uniform", update="soft", init_alpha=None, class_weight=None, verbose=0):
        self.alpha = alpha
        self.max_rounds = max_rounds
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.init = init
        self.update = update
        self.init_alpha = init_alpha
        self.class_weight = class_weight
        self.verbose = verbose

    def _fit_validated(self, Xf, S, classes, sw):
        starts = _start_penalties(self.init_alpha, self.alpha) if self.init == "clpl" else [None]
        runs, best = [], None
        for start in starts:
            W, Q, rounds, loss = self._run_from(Xf, S, classes, sw, start)
            runs.append({"init_alpha": start, "loss": loss})
            if best is None or loss < best[3]:
                best = (W, Q, rounds, loss, start)
        self._W, self.confidence_, self.n_iter_, self.loss_, self.init_alpha_ = best
        self.restarts_ = runs

    def _run_from(self, Xf, S, classes, sw, start):
        """One start (the CLPL start's penalty ``start``; None: uniform) and its rounds."""
        hard = self.update == "hard"
        Q = None
        if start is not None:
            from ._clpl import clpl_loss

            W0, _ = lbfgs_fit(Xf, classes.size, lambda Z: clpl_loss(Z, S, "squared_hinge", sw), alpha=start,
                              fit_intercept=self.fit_intercept, max_iter=500, tol=1e-6)
            Q = _restricted_posterior(_scores(Xf, W0, Xf.shape[1]), S)
            if hard:
                Q = _best_candidate(Q)
        return proden_rounds(Xf, S, sw, alpha=self.alpha, fit_intercept=self.fit_intercept,
                             max_rounds=self.max_rounds, max_iter=self.max_iter, tol=self.tol, Q=Q,
                             verbose=self.verbose, hard=hard)

    def _expand_rows(self, inverse):
        self.confidence_ = self.confidence_[inverse]


def candidate_likelihood_loss(Z, S, sample_weight=None):
    """Mean of ``-log sum_{a in S_i} softmax(Z_i)_a`` and its gradient in ``Z``.

    The negative log-likelihood of the candidate sets (the "CC" loss of Feng, Lv, Han, Xu,
    Niu, Geng, An & Sugiyama, "Provably consistent partial-label learning", NeurIPS 2020),
    whose stationary points are PRODEN's fixed points.  Its gradient is
    ``softmax(Z_i) - q_i``, with ``q_i`` the softmax restricted to the set.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_classes)
        Scores.
    S : ndarray of bool of shape (n_samples, n_classes)
        The candidate sets (none empty).
    sample_weight : ndarray of shape (n_samples,), default=None
        The mean is weighted.

    Returns
    -------
    loss : float
        The mean negative log-likelihood of the sets.
    grad : ndarray of shape (n_samples, n_classes)
        Its gradient in ``Z``.
    """
    from ._kernels import _cc_from_exp

    Z = np.ascontiguousarray(Z, dtype=np.float64)
    S = read_only(np.ascontiguousarray(S, dtype=bool))
    w = np.ones(Z.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    w = np.ascontiguousarray(w / w.sum())
    M, G = np.empty(Z.shape[0]), np.empty_like(Z)
    value = 0.0
    for b, e in _exp_blocks(Z, M, G):
        value += _cc_from_exp(Z[b:e], M[b:e], S[b:e], w[b:e], G[b:e])
    return float(value), G


def proden_rounds(Xf, S, sw, *, alpha, fit_intercept, max_rounds, max_iter, tol, Q=None, W=None, verbose=0,
                  hard=False):
    """PRODEN's rounds on validated rows: ``(W, Q, rounds, loss)``.

    Each round is ``max_iter`` L-BFGS iterations on the ``Q``-weighted cross-entropy plus
    ``alpha/2 ||W||^2`` (warm-started from the last round's ``W``), then ``Q`` becomes the
    model's posterior restricted to the candidate sets (``hard``: its one-hot argmax); the
    rounds stop when no weight moves by more than ``tol`` and the last L-BFGS converged.
    ``Q=None`` starts uniform over each set; ``W`` is a warm start.  (The rounds of
    :class:`PRODEN`, shared with :class:`KernelPRODEN`, which runs them on its kernel
    features.)
    """
    K = S.shape[1]
    if Q is None:
        Sf = S.astype(np.float64)
        Q = Sf / Sf.sum(axis=1, keepdims=True)
    rounds = 0
    for rounds in range(1, max_rounds + 1):
        W, res = lbfgs_fit(Xf, K, lambda Z, Q=Q: weighted_cross_entropy(Z, Q, sw), alpha=alpha,
                           fit_intercept=fit_intercept, max_iter=max_iter, tol=1e-6, W0=W)
        Q_new = _restricted_posterior(_scores(Xf, W, Xf.shape[1]), S)
        if hard:
            Q_new = _best_candidate(Q_new)
        change = float(np.abs(Q_new - Q).max())
        Q = Q_new
        if verbose:
            print(f"PRODEN round {rounds}: loss {res.fun:.6g}, largest change of a weight q {change:.3g}",
                  flush=True)
        if change < tol and res.nit < max_iter:     # weights settled and the last solve converged
            break
    if not np.isfinite(W).all():
        raise FloatingPointError("PRODEN weights are not finite; raise alpha.")
    return W, Q, rounds, float(res.fun)


def _start_penalties(init_alpha, alpha):
    """The CLPL starts' penalties: ``init_alpha`` as a list (one, or several restarts), None
    meaning ``alpha``."""
    if init_alpha is None:
        return [float(alpha)]
    if np.ndim(init_alpha) == 0:
        return [float(init_alpha)]
    try:
        starts = np.asarray(init_alpha, dtype=np.float64)
    except (TypeError, ValueError):
        starts = np.array([np.nan])
    starts = [float(a) for a in starts.ravel()] if starts.ndim == 1 else [np.nan]
    if not starts or not all(np.isfinite(a) and a >= 0 for a in starts):
        raise ValueError(f"init_alpha must be None, a float >= 0 or a non-empty list of floats >= 0; "
                         f"got {init_alpha!r}.")
    return starts


def _scores(X, W, d):
    Z = X @ W[:d]
    Z = np.asarray(Z.toarray() if sp.issparse(Z) else Z, dtype=np.float64)
    return Z + W[d] if W.shape[0] > d else Z


def _restricted_posterior(Z, Sf):
    """``softmax(Z)`` restricted to the candidate sets and renormalised per row."""
    from ._kernels import _candidate_softmax

    Q = np.empty(Z.shape)
    _candidate_softmax(np.ascontiguousarray(Z, dtype=np.float64), np.ascontiguousarray(Sf > 0), Q)
    return Q


def _best_candidate(Q):
    """One-hot rows: all the weight on each row's largest ``Q`` (the lowest index on ties)."""
    H = np.zeros_like(Q)
    H[np.arange(Q.shape[0]), Q.argmax(axis=1)] = 1.0
    return H
