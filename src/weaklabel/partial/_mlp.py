"""PRODEN on a one-hidden-layer network, trained by Adam, started from a linear disambiguation."""

from __future__ import annotations

from ..labels import candidate_set_score
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, register
from .._validation import (AT_LEAST_1, Interval, StrOptions, check_X_values, keyword_only,
                           transactional)
from ..linear import ScoredClassifier, SoftmaxProba
from ..metrics import candidate_log_loss
from ._batch import fit_inputs, held_out_split
from .._validation import check_rows

__all__ = ["MLPPRODEN", "mlp_loss"]

#: the penalties tried with ``alpha="auto"`` (on inputs scaled to unit variance)
ALPHAS = (1e-4, 1e-3, 1e-2)
#: the linear start's penalties tried with ``init_alpha="auto"``
INIT_ALPHAS = (1e-4, 1e-3, 1e-2)
#: the input noise levels tried, besides none, with ``input_noise="auto"`` (features at unit variance)
NOISES = (0.3,)


def mlp_loss(params, X, Q, sample_weight=None, alpha=0.0):
    """Return PRODEN's loss on a one-hidden-layer ReLU network, and its gradient.

    The cross-entropy of the network's softmax against the weights ``Q`` over the classes
    (Lv et al., ICML 2020: the current confidence that each candidate is the true label,
    zero outside the set), averaged over the rows (weighted by ``sample_weight``), plus
    ``alpha / 2`` times the squared norms of the two weight matrices (the biases are not
    penalised):

    ``L = sum_i w_i sum_k -Q_ik log softmax(relu(x_i W1 + b1) W2 + b2)_k / sum_i w_i
    + alpha / 2 (||W1||^2 + ||W2||^2)``.

    Parameters
    ----------
    params : tuple of 4 ndarrays
        ``(W1, b1, W2, b2)`` of shapes ``(d, h)``, ``(h,)``, ``(h, K)``, ``(K,)``.
    X : {ndarray, sparse matrix} of shape (n_samples, d)
        The (scaled) rows.
    Q : ndarray of shape (n_samples, K)
        Non-negative target weights, each row summing to 1.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Row weights; None weighs every row 1.  Rows of weight 0 add nothing (all of them 0:
        the loss is the penalty alone).
    alpha : float, default=0.0
        The L2 penalty.

    Returns
    -------
    loss : float
        ``L``.
    grads : tuple of 4 ndarrays
        The gradient of ``L`` with respect to ``(W1, b1, W2, b2)``.
    """
    return _loss_and_grads(params, X, Q, sample_weight, alpha, True)


def _loss_and_grads(params, X, Q, sample_weight, alpha, with_loss):
    """:func:`mlp_loss`'s work; without ``with_loss`` the loss is not computed (nan), which a
    training step does not read."""
    W1, b1, W2, b2 = params
    n = X.shape[0]
    A = np.asarray(X @ W1) + b1
    H = np.maximum(A, 0.0)
    Z = H @ W2 + b2
    Zs = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Zs)
    sums = E.sum(axis=1, keepdims=True)
    if sample_weight is None:
        # every row weighs 1 (n > 0: a minibatch is never empty)
        total, wcol = float(n), None
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        # rows of weight 0 add nothing; a batch of them only (a minibatch may be) leaves the penalty
        total = float(w.sum())
        wcol = (w / total if total > 0 else np.zeros_like(w))[:, None]
    loss = np.nan
    if with_loss:
        logp = Zs - np.log(sums)
        rowloss = np.einsum("ik,ik->i", Q, logp)
        loss = (-float(rowloss.sum() if sample_weight is None else np.dot(w, rowloss)) / total if total > 0
                else 0.0)
        loss += 0.5 * alpha * (float(np.sum(W1 * W1)) + float(np.sum(W2 * W2)))
    # d loss / d Z = w_i (p_i - Q_i) / total (each row of Q sums to 1)
    G = E / sums - Q
    G = G / total if wcol is None else G * wcol
    gW2 = H.T @ G + alpha * W2
    gb2 = G.sum(axis=0)
    GH = (G @ W2.T) * (A > 0)
    gW1 = np.asarray(X.T @ GH) + alpha * W1
    gb1 = GH.sum(axis=0)
    return loss, (gW1, gb1, gW2, gb2)


def _forward(params, X):
    """The class scores (logits) of the network on ``X``."""
    W1, b1, W2, b2 = params
    return np.maximum(np.asarray(X @ W1) + b1, 0.0) @ W2 + b2


def _restricted(P, S):
    """``P`` restricted to each candidate set and renormalised (PRODEN's confidence update)."""
    Q = np.where(S, P, 0.0)
    sums = Q.sum(axis=1, keepdims=True)
    # a set the network gives no mass at all (underflow): uniform over it
    empty = sums[:, 0] <= 0
    if empty.any():
        Q[empty] = S[empty]
        sums[empty] = S[empty].sum(axis=1, keepdims=True)
    return Q / sums


@register
class MLPPRODEN(ScoredClassifier, SoftmaxProba, SavesModel, ClassifierMixin, BaseEstimator):
    """PRODEN on a one-hidden-layer neural network: a non-linear learner from candidate sets.

    Lv, Xu, Feng, Niu, Geng & Sugiyama, "Progressive Identification of True Labels for
    Partial-Label Learning", ICML 2020, with the paper's model for its benchmark sets: a
    multilayer perceptron (here one hidden layer of ReLU units) trained by Adam (Kingma &
    Ba, ICLR 2015) on minibatches.  Each row's target is its confidence ``q_i`` over its
    candidate set, the network's own probabilities restricted to the set and renormalised
    (PRODEN's progressive identification; the paper renews them after
    every minibatch; here every ``renew_every`` passes); :func:`mlp_loss` is the loss and its
    gradient.

    Three choices keep the network from confirming its own early mistakes, which a network
    fitted from uniform confidences renewed after every pass does on small sets, and a
    fourth smooths the model it returns (the reproduction page has the measurements):

    - ``init="proden"`` (default) starts the confidences from a linear disambiguation, the
      restricted probabilities of :class:`PRODEN` (``init="clpl"``) fitted on the same rows;
      the network then refines them.  With ``init_alpha="auto"`` (default) the linear
      model's penalty is the one among ``(1e-4, 1e-3, 1e-2)`` whose PRODEN gives the
      held-out candidate sets (below) the highest likelihood.  ``init="uniform"`` is the
      paper's start.
    - The confidences are renewed every ``renew_every`` passes (default 10), not after every
      minibatch: the network first fits the current confidences, then moves them.
    - Early stopping on held-out candidate sets: ``validation_fraction`` of the rows are held
      out, training stops when their candidate likelihood
      (:func:`~weaklabel.metrics.candidate_log_loss`) has not improved for
      ``n_iter_no_change`` passes, and the final model is refitted on every row (its linear
      start too, at the penalty chosen) for the number of passes that scored best.  With
      ``alpha="auto"`` (default) the same held-out rows choose the network's penalty among
      ``(1e-4, 1e-3, 1e-2)``, and with ``input_noise="auto"`` (default) whether Gaussian
      noise of standard deviation 0.3 is added to the (unit-variance) features of each
      minibatch, trained at the chosen penalty (training with noise, a regulariser akin to
      a penalty on the network's sensitivity to its inputs: Bishop, Neural Computation
      1995): no true label is used to choose anything.
    - The model scored on the held-out rows and returned is an exponential moving average
      of the network's weights over the minibatch steps (Polyak averaging: Polyak &
      Juditsky, SIAM J. Control Optim. 1992), decay ``ema_decay`` a step; the confidences
      are renewed from the current network, so the averaging changes what is returned,
      not how the network learns.

    Each feature is divided by its standard deviation inside (not centred: sparse rows stay
    sparse, and every form of the same matrix gives the same model; centre dense features
    yourself, e.g. with ``StandardScaler``, if their means are far from 0).

    Parameters
    ----------
    hidden_units : int, default=256
        Units of the hidden layer.
    alpha : "auto" or float, default="auto"
        L2 penalty on the two weight matrices; ``"auto"`` chooses it (above).
    init : {{"proden", "uniform"}}, default="proden"
        The first confidences: a linear :class:`PRODEN`'s, or uniform over each set.
    init_alpha : "auto" or float, default="auto"
        The linear start's L2 penalty (``init="proden"``; ignored with ``"uniform"``);
        ``"auto"`` chooses it on the held-out candidate sets (above).
    input_noise : "auto" or float, default="auto"
        Standard deviation of the Gaussian noise added to each scaled feature of each
        minibatch row during training (0: none; sparse rows become dense minibatches);
        ``"auto"`` chooses between none and 0.3 on the held-out candidate sets (above).
    learning_rate : float, default=1e-3
        Adam's step size.
    batch_size : int, default=64
        Rows per minibatch (all of them when there are fewer).
    max_iter : int, default=200
        Passes over the rows at most.
    renew_every : int, default=10
        Passes between two renewals of the confidences (1: after every pass).
    ema_decay : float in [0, 1), default=0.99
        Decay a minibatch step of the moving average of the weights that is scored and
        returned (0: the last weights themselves).
    n_iter_no_change : int, default=30
        Passes without a better held-out candidate likelihood before training stops.
    validation_fraction : float, default=0.1
        Share of the rows held out for early stopping and the choice of ``alpha``.
    classes : array-like, default=None
        Every class; ``None``: the labels ``fit`` sees.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
    random_state : int, RandomState instance or None, default=None
        Draws the held-out rows, the first weights and the minibatches.
    verbose : int, default=0
        Print each penalty's held-out score and where it stopped.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    alpha_ : float
        The penalty used.
    init_alpha_ : float or None
        The linear start's penalty (None with ``init="uniform"``).
    input_noise_ : float
        The input noise used.
    n_iter_ : int
        Passes of the final fit.
    coefs_ : list of 2 ndarrays
        The weight matrices, ``(n_features, hidden_units)`` and ``(hidden_units, n_classes)``.
    intercepts_ : list of 2 ndarrays
        The biases of the two layers.
    selection_ : list of dict
        Each setting tried: ``alpha``, ``input_noise``, ``held_out_log_loss`` (the best of its
        passes) and ``n_iter`` (the pass that scored it).  Not saved with the model.
    init_selection_ : list of dict
        Each linear start's penalty tried (``init_alpha="auto"``): ``alpha`` and the
        ``held_out_log_loss`` of its PRODEN.  Not saved with the model.

    See Also
    --------
    PRODEN : The same loss on a linear model.
    KernelPRODEN : The same loss on RBF kernel features, fitted by L-BFGS.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.partial import MLPPRODEN
    >>> clf = MLPPRODEN(hidden_units=64, learning_rate=0.01, max_iter=30, random_state=0).fit(X[:600], S[:600])
    >>> round(clf.score(X[1000:], y[1000:]), 2) > 0.85
    True
    """

    score = candidate_set_score       # the fraction of predictions inside the candidate sets

    _parameter_constraints = {"hidden_units": [AT_LEAST_1],
                              "alpha": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
                              "init": [StrOptions({"proden", "uniform"})],
                              "init_alpha": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
                              "input_noise": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
                              "learning_rate": [Interval(Real, 0, None, closed="neither")],
                              "batch_size": [AT_LEAST_1], "max_iter": [AT_LEAST_1], "renew_every": [AT_LEAST_1],
                              "ema_decay": [Interval(Real, 0, 1, closed="left")],
                              "n_iter_no_change": [AT_LEAST_1],
                              "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
                              "classes": ["array-like", None],
                              "class_weight": [dict, StrOptions({"balanced"}), None],
                              "random_state": ["random_state"], "verbose": ["verbose"]}

    @keyword_only
    def __init__(self, *, hidden_units=256, alpha="auto", init="proden", init_alpha="auto", input_noise="auto",
                 learning_rate=1e-3, batch_size=64, max_iter=200, renew_every=10, ema_decay=0.99, n_iter_no_change=30,
                 validation_fraction=0.1, classes=None, class_weight=None, random_state=None, verbose=0):
        self.hidden_units = hidden_units
        self.alpha = alpha
        self.init = init
        self.init_alpha = init_alpha
        self.input_noise = input_noise
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.renew_every = renew_every
        self.ema_decay = ema_decay
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.classes = classes
        self.class_weight = class_weight
        self.random_state = random_state
        self.verbose = verbose

    @transactional
    def fit(self, X, y, sample_weight=None):
        """Choose the penalty and the number of passes on held-out candidate sets, then fit.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
            Candidate label set of each sample (1-D labels are singleton sets).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; None gives every row weight 1.

        Returns
        -------
        self
            The fitted estimator.
        """
        Xf, S, classes, sw = fit_inputs(self, X, y, sample_weight)
        rng = check_random_state(self.random_state)
        n = Xf.shape[0]
        scale = _column_scale(Xf)
        Z = _scaled(Xf, scale)
        held, part = held_out_split(self, n, rng, "MLPPRODEN's early stopping")
        alphas = list(ALPHAS) if self.alpha == "auto" else [float(self.alpha)]
        w_part = None if sw is None else sw[part]
        Z_part, S_part, held_rows = Z[part], S[part], (Z[held], S[held])     # sliced once
        init_alpha, init_selection, Q_part = self._init_alpha(Z_part, S_part, w_part, held_rows)
        if Q_part is None:
            Q_part = self._first_confidences(Z_part, S_part, w_part, init_alpha)
        seed = rng.randint(np.iinfo(np.int32).max)
        selection = []

        def tried(alpha, noise):
            _, best_loss, best_epoch = self._train(Z_part, S_part, Q_part, w_part, alpha, seed, held=held_rows,
                                                   noise=noise)
            selection.append({"alpha": alpha, "input_noise": noise, "held_out_log_loss": best_loss,
                              "n_iter": best_epoch})
            if self.verbose:
                print(f"MLPPRODEN alpha={alpha:g}, input noise {noise:g}: held-out candidate log loss "
                      f"{best_loss:.4f} after {best_epoch} passes", flush=True)

        # the penalty first (without noise, or at the noise given), then each noise level at it
        auto_noise = self.input_noise == "auto"
        for alpha in alphas:
            tried(alpha, 0.0 if auto_noise else float(self.input_noise))
        if auto_noise:
            at = min(selection, key=lambda r: r["held_out_log_loss"])["alpha"]
            for noise in NOISES:
                tried(at, noise)
        best = min(selection, key=lambda r: r["held_out_log_loss"])
        if best["n_iter"] < 1:
            raise FloatingPointError("MLPPRODEN: no pass gave a finite held-out candidate likelihood; lower "
                                     "learning_rate or raise alpha.")
        params, _, _ = self._train(Z, S, self._first_confidences(Z, S, sw, init_alpha), sw, best["alpha"], seed,
                                   n_epochs=best["n_iter"], noise=best["input_noise"])
        if not all(np.isfinite(p).all() for p in params):
            raise FloatingPointError("MLPPRODEN weights are not finite; lower learning_rate or raise alpha.")
        self.classes_ = classes
        self.alpha_ = float(best["alpha"])
        self.init_alpha_ = init_alpha
        self.input_noise_ = float(best["input_noise"])
        self.n_iter_ = int(best["n_iter"])
        self._scale = scale
        self.coefs_, self.intercepts_ = [params[0], params[2]], [params[1], params[3]]
        self.selection_ = selection
        self.init_selection_ = init_selection
        return self

    def _init_alpha(self, Z, S, sw, held):
        """The linear start's penalty, the scores that chose it and, when chosen, the chosen
        start's confidences on the rows ``Z`` (sets ``S``, weights ``sw``): with
        ``init_alpha="auto"`` the penalty of :data:`INIT_ALPHAS` whose PRODEN, fitted on those
        rows, gives the ``held`` ``(rows, sets)`` the highest candidate likelihood;
        ``(None, [], None)`` when uniform."""
        if self.init == "uniform":
            return None, [], None
        if self.init_alpha != "auto":
            return float(self.init_alpha), [], None
        from ._proden import PRODEN

        selection, best = [], None
        for alpha in INIT_ALPHAS:
            lin = PRODEN(init="clpl", alpha=alpha).fit(Z, S, sample_weight=sw)
            loss = candidate_log_loss(held[1], lin.predict_proba(held[0]))
            selection.append({"alpha": alpha, "held_out_log_loss": loss})
            if best is None or loss < best[0]:
                best = (loss, alpha, lin)
            if self.verbose:
                print(f"MLPPRODEN linear start alpha={alpha:g}: held-out candidate log loss {loss:.4f}", flush=True)
        return float(best[1]), selection, _restricted(best[2].predict_proba(Z), S)

    def _first_confidences(self, Z, S, sw, init_alpha):
        """The confidences PRODEN starts from: a linear PRODEN's with penalty ``init_alpha``
        (``init="proden"``) or uniform."""
        if self.init == "uniform":
            return S / S.sum(axis=1, keepdims=True)
        from ._proden import PRODEN

        lin = PRODEN(init="clpl", alpha=init_alpha).fit(Z, S, sample_weight=sw)
        return _restricted(lin.predict_proba(Z), S)

    def _train(self, Z, S, Q, sw, alpha, seed, held=None, n_epochs=None, noise=0.0):
        """Adam on PRODEN's loss from confidences ``Q``, renewed every ``renew_every`` passes from
        the current network; the weights' moving average (``ema_decay``) is what is scored and
        returned.  With ``noise > 0`` each minibatch's rows get Gaussian noise of that standard
        deviation, drawn from the same generator right after the minibatch is cut (no noise:
        nothing more is drawn).  With ``held`` ``(rows, sets)``, stop when their candidate likelihood has not
        improved for ``n_iter_no_change`` passes: ``(best averaged params, best held-out loss,
        its pass)``; else ``n_epochs`` passes: ``(averaged params, nan, n_epochs)``.
        """
        rng = np.random.RandomState(seed)
        n, d = Z.shape
        K, h = S.shape[1], int(self.hidden_units)
        params = _glorot(rng, d, h, K)
        state = _Adam(params, float(self.learning_rate))
        batch = min(int(self.batch_size), n)
        Q = Q.copy()
        decay = float(self.ema_decay)
        average = [p.copy() for p in params]
        best = (np.inf, 0, average)
        stale = 0
        for epoch in range(1, (self.max_iter if n_epochs is None else n_epochs) + 1):
            order = rng.permutation(n)
            for lo in range(0, n, batch):
                rows = order[lo:lo + batch]
                Zb = Z[rows]
                if noise > 0:
                    Zb = (Zb.toarray() if sp.issparse(Zb) else Zb) + noise * rng.standard_normal((rows.size, d))
                _, grads = _loss_and_grads(params, Zb, Q[rows], None if sw is None else sw[rows], alpha, False)
                params = state.step(params, grads)
                for a, p in zip(average, params):        # a <- decay a + (1 - decay) p, in place
                    a *= decay
                    a += (1.0 - decay) * p
            if epoch % self.renew_every == 0:
                Q = _restricted(softmax(_forward(params, Z), axis=1), S)
            if held is None:
                continue
            ll = candidate_log_loss(held[1], softmax(_forward(average, held[0]), axis=1))
            if ll < best[0] - 1e-4:
                best, stale = (ll, epoch, [a.copy() for a in average]), 0
            else:
                stale += 1
                if stale >= self.n_iter_no_change:
                    break
        if held is None:
            return average, float("nan"), n_epochs
        return best[2], float(best[0]), int(best[1])

    def _scores(self, X):
        check_is_fitted(self, "coefs_")
        check_X_values(X)
        X = check_rows(self, X)
        Z = _scaled(X, self._scale)
        return _forward((self.coefs_[0], self.intercepts_[0], self.coefs_[1], self.intercepts_[1]), Z)

    # ---- persistence ---------------------------------------------------------------------
    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {"W1": ("coefs_", 0), "b1": ("intercepts_", 0), "W2": ("coefs_", 1), "b2": ("intercepts_", 1),
                     "scale": "_scale", "classes": "classes_"}
    # init_alpha and input_noise: absent from files saved before they existed (then none)
    _saved_scalars = {"n_features_in": Scalar("n_features_in_", "int"), "alpha": Scalar("alpha_", "float"),
                      "init_alpha": Scalar("init_alpha_", "float", True),
                      "input_noise": Scalar("input_noise_", "float", True, 0.0), "n_iter": Scalar("n_iter_", "int")}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count, length

        d, h, K = count(state, "n_features_in"), shapes.get("b1", (-1,))[0], length(shapes, "classes")
        return {"W1": ("f", (d, h), True), "b1": ("f", (h,), True), "W2": ("f", (h, K), True),
                "b2": ("f", (K,), True), "scale": ("f", (d,), True),
                "classes": ("*", (K,), True)}

    def _restored(self, loaded):
        if not hasattr(self, "init_alpha_"):
            self.init_alpha_ = None
        for name in ("alpha", "init_alpha", "input_noise"):
            v = getattr(self, name + "_")
            if v is not None and v < 0:
                raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
        if not (self._scale >= _MIN_SCALE).all():
            raise ValueError(f"every column scale must be at least {_MIN_SCALE:g}, as a fit leaves it")
        if np.unique(self.classes_).size != self.classes_.size or self.classes_.size < 2:
            raise ValueError(f"classes must be at least 2 distinct labels, as a fit leaves them; got "
                             f"{self.classes_.size}")
        self.selection_, self.init_selection_ = [], []

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class _Adam:
    """Adam's update (Kingma & Ba, ICLR 2015; the defaults beta1 0.9, beta2 0.999, eps 1e-8)."""

    def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        lr = self.lr * np.sqrt(1.0 - b2 ** self.t) / (1.0 - b1 ** self.t)
        for p, g, m, v in zip(params, grads, self.m, self.v):
            # in place, the same operations in the same order: p - lr m / (sqrt(v) + eps)
            m *= b1
            m += (1.0 - b1) * g
            g *= g
            g *= 1.0 - b2
            v *= b2
            v += g
            den = np.sqrt(v)
            den += self.eps
            step = lr * m
            step /= den
            p -= step
        return params


def _glorot(rng, d, h, K):
    """Glorot-uniform first weights (as scikit-learn's MLP for ReLU), zero biases drawn after."""
    def layer(fan_in, fan_out):
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-bound, bound, (fan_in, fan_out))

    return layer(d, h), np.zeros(h), layer(h, K), np.zeros(K)


def _column_scale(X):
    """The standard deviation of each column of ``X`` (dense or CSR); 1 for a constant column."""
    if sp.issparse(X):
        m = np.asarray(X.mean(axis=0)).ravel()
        scale = np.sqrt(np.maximum(np.asarray(X.multiply(X).mean(axis=0)).ravel() - m * m, 0.0))
    else:
        scale = X.std(axis=0)
    scale[scale < _MIN_SCALE] = 1.0
    return scale


#: a column whose standard deviation is below this is left unscaled (so no fitted scale is smaller)
_MIN_SCALE = 1e-12


def _scaled(X, scale):
    """``X / scale`` column by column (CSR stays CSR)."""
    if sp.issparse(X):
        return sp.csr_matrix(X.multiply(1.0 / scale[None, :]), dtype=np.float64)
    return np.asarray(X, dtype=np.float64) / scale
