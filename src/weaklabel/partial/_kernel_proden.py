"""PRODEN on Nystroem RBF features whose width and penalty are chosen from candidate sets."""

from __future__ import annotations

from ..labels import candidate_set_score
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, register
from .._validation import (AT_LEAST_1, NON_NEGATIVE, Interval, StrOptions, check_X_values, keyword_only, transactional)
from ..linear import ScoredClassifier, SoftmaxProba
from ..metrics import candidate_log_loss
from ._batch import fit_inputs, held_out_split
from .._lbfgs import lbfgs_fit
from ._proden import _scores, candidate_likelihood_loss, proden_rounds
from .._validation import check_rows

__all__ = ["KernelPRODEN", "nystroem_map"]

#: the kernel widths tried with ``gamma="auto"``, as multiples of ``1 / (n_features * var(X))``
GAMMA_FACTORS = (0.1, 0.3, 1.0)
#: the penalties tried with ``alpha="auto"`` (on standardised kernel features)
ALPHAS = (1e-3, 1e-2, 1e-1)


def nystroem_map(X, landmarks, gamma):
    """The Nystroem feature map of the RBF kernel on ``landmarks``.

    Williams & Seeger, "Using the Nystroem method to speed up kernel machines", NIPS 2001:
    ``phi(x) = K(x, L) K(L, L)^{-1/2}``, so that ``phi(x) . phi(x') ~ exp(-gamma ||x - x'||^2)``
    (exact on the landmarks).  The inverse square root is taken on the eigenvalues above
    ``1e-12`` (a pseudo-inverse, as scikit-learn's ``Nystroem`` does).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The rows to map.
    landmarks : ndarray of shape (n_landmarks, n_features)
        The landmark rows ``L``.
    gamma : float
        The RBF width.

    Returns
    -------
    features : ndarray of shape (n_samples, n_landmarks)
        ``K(X, L) K(L, L)^{-1/2}``.
    normalization : ndarray of shape (n_landmarks, n_landmarks)
        ``K(L, L)^{-1/2}`` (symmetric), to map new rows with the same landmarks.
    """
    U, s, Vt = np.linalg.svd(rbf_kernel(landmarks, gamma=gamma))
    s = np.maximum(s, 1e-12)
    normalization = (U / np.sqrt(s)) @ Vt
    return rbf_kernel(X, landmarks, gamma=gamma) @ normalization.T, normalization


@register
class KernelPRODEN(ScoredClassifier, SoftmaxProba, SavesModel, ClassifierMixin, BaseEstimator):
    """PRODEN on RBF kernel features, with the kernel width and the penalty chosen from
    candidate sets alone.

    Lv, Xu, Feng, Niu, Geng & Sugiyama, "Progressive Identification of True Labels for
    Partial-Label Learning", ICML 2020, on the Nystroem features of a Gaussian kernel
    (Williams & Seeger, NIPS 2001; :func:`nystroem_map`), standardised.  The model is
    non-linear in ``X``: a softmax of ``phi(x) @ W`` with ``phi`` the map onto
    ``n_components`` landmark rows.  PRODEN's rounds seek the stationary points of the
    candidate likelihood (:func:`candidate_likelihood_loss`, the CC loss of Feng et al.,
    NeurIPS 2020); this learner goes there directly: L-BFGS on that likelihood plus
    ``alpha/2 ||W||^2``, started from PRODEN's first round (each candidate counting
    ``1/|S_i|``), which on kernel features reaches the same fixed points many times faster
    than the rounds.

    With ``gamma="auto"`` and ``alpha="auto"`` (the defaults) ``fit`` chooses both without
    a true label: it holds out ``validation_fraction`` of the rows, fits every pair of
    ``gamma`` in ``(0.1, 0.3, 1) / (n_features * var(X))`` and ``alpha`` in
    ``(1e-3, 1e-2, 1e-1)`` on the rest, keeps the pair whose held-out candidate sets are
    the most likely (:func:`~weaklabel.metrics.candidate_log_loss`, the criterion the
    pll-realworld reproduction uses for PRODEN), and refits on every row.  A number for
    either fixes it.

    Parameters
    ----------
    gamma : "auto" or float, default="auto"
        The RBF width ``exp(-gamma ||x - x'||^2)``; ``"auto"`` chooses it (above).
    alpha : "auto" or float, default="auto"
        L2 penalty on the weights of the standardised features (the intercept is not
        penalised); ``"auto"`` chooses it (above).
    n_components : int, default=500
        Landmark rows of the Nystroem map, drawn at random from the training rows (all of
        them when there are fewer).  Time and memory grow as ``n_samples * n_components``.
    validation_fraction : float, default=0.25
        Share of the rows held out to choose ``gamma`` and ``alpha`` (unused when both are
        numbers).
    max_iter : int, default=500
        L-BFGS iterations on the candidate likelihood of the final fit.
    selection_max_iter : int, default=150
        L-BFGS iterations of each fit that chooses ``gamma`` and ``alpha`` (at most
        ``max_iter``): the choice only ranks the settings by their held-out likelihood,
        which shorter fits rank nearly always as the full ones do, in a fraction of the
        time (the performance page has the measurements).
    tol : float, default=1e-5
        L-BFGS stops when the largest gradient component is below ``tol``.
    classes : array-like, default=None
        Every class; ``None``: the labels ``fit`` sees.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
    random_state : int, RandomState instance or None, default=None
        Draws the landmarks and the held-out rows.
    verbose : int, default=0
        Print each candidate pair's held-out score.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    gamma_ : float
        The kernel width used.
    alpha_ : float
        The penalty used.
    landmarks_ : ndarray of shape (n_landmarks, n_features)
        The landmark rows.
    selection_ : list of dict
        Each pair tried: ``gamma``, ``alpha`` and ``held_out_log_loss`` (empty when both
        were given).  Not saved with the model.
    n_iter_ : int
        Iterations of the final fit: PRODEN's first round, then the L-BFGS iterations.
    loss_ : float
        The candidate likelihood loss (plus penalty) at the end of the final fit.

    See Also
    --------
    PRODEN : The same loss on the features as they are (a linear model).
    PLKNN : A non-linear learner without training, the neighbours' vote.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.partial import KernelPRODEN
    >>> clf = KernelPRODEN(n_components=100, max_iter=200, random_state=0).fit(X[:600] / 16, S[:600])
    >>> round(clf.score(X[1000:] / 16, y[1000:]), 2) > 0.9
    True
    """

    score = candidate_set_score       # the fraction of predictions inside the candidate sets

    _parameter_constraints = {"gamma": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
                              "alpha": [StrOptions({"auto"}), NON_NEGATIVE],
                              "n_components": [AT_LEAST_1],
                              "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
                              "tol": [Interval(Real, 0, None, closed="left")],
                              "max_iter": [AT_LEAST_1], "selection_max_iter": [AT_LEAST_1],
                              "classes": ["array-like", None],
                              "class_weight": [dict, StrOptions({"balanced"}), None],
                              "random_state": ["random_state"], "verbose": ["verbose"]}

    @keyword_only
    def __init__(self, *, gamma="auto", alpha="auto", n_components=500, validation_fraction=0.25, max_iter=500,
                 selection_max_iter=150, tol=1e-5, classes=None, class_weight=None, random_state=None, verbose=0):
        self.gamma = gamma
        self.alpha = alpha
        self.n_components = n_components
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.selection_max_iter = selection_max_iter
        self.tol = tol
        self.classes = classes
        self.class_weight = class_weight
        self.random_state = random_state
        self.verbose = verbose

    @transactional
    def fit(self, X, y, sample_weight=None):
        """Choose the kernel width and penalty on held-out candidate sets, then fit.

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
        scale = 1.0 / (Xf.shape[1] * max(_variance(Xf), 1e-300))
        gammas = [f * scale for f in GAMMA_FACTORS] if self.gamma == "auto" else [float(self.gamma)]
        alphas = list(ALPHAS) if self.alpha == "auto" else [float(self.alpha)]
        selection = []
        if len(gammas) * len(alphas) > 1:
            held, part = held_out_split(self, n, rng, "choosing gamma/alpha",
                                        "; give gamma and alpha as numbers for so few rows")
            landmarks = _landmarks(Xf[part], self.n_components, rng)
            w_part = None if sw is None else sw[part]
            for gamma in gammas:
                F, mean, std, normalization = _features(Xf[part], landmarks, gamma)
                Fh = (rbf_kernel(Xf[held], landmarks, gamma=gamma) @ normalization.T - mean) / std
                W = None
                for alpha in sorted(alphas, reverse=True):        # warm start from the smoother fit
                    W, _ = self._solve(F, S[part], w_part, alpha, W,
                                       max_iter=min(self.selection_max_iter, self.max_iter))
                    ll = candidate_log_loss(S[held], softmax(_scores(Fh, W, Fh.shape[1]), axis=1))
                    selection.append({"gamma": gamma, "alpha": alpha, "held_out_log_loss": ll})
                    if self.verbose:
                        print(f"KernelPRODEN gamma={gamma:.4g} alpha={alpha:g}: held-out candidate log loss "
                              f"{ll:.4f}", flush=True)
            best = min(selection, key=lambda r: r["held_out_log_loss"])
            gamma, alpha = best["gamma"], best["alpha"]
        else:
            gamma, alpha = gammas[0], alphas[0]
        landmarks = _landmarks(Xf, self.n_components, rng)
        F, mean, std, normalization = _features(Xf, landmarks, gamma)
        W, res = self._solve(F, S, sw, alpha, None)
        self.classes_ = classes
        self.gamma_, self.alpha_ = float(gamma), float(alpha)
        self.landmarks_ = landmarks
        self._normalization, self._mean, self._std, self._W = normalization, mean, std, W
        self.selection_ = selection
        self.n_iter_, self.loss_ = int(res.nit) + 1, float(res.fun)
        return self

    def _solve(self, F, S, sw, alpha, W, max_iter=None):
        """L-BFGS (``max_iter`` iterations, default the parameter's) on the candidate
        likelihood of features ``F`` from ``W`` (None: from PRODEN's first round):
        ``(W, result)``."""
        if W is None:
            W, _, _, _ = proden_rounds(F, S, sw, alpha=alpha, fit_intercept=True, max_rounds=1, max_iter=50,
                                       tol=self.tol)
        W, res = lbfgs_fit(F, S.shape[1], lambda Z: candidate_likelihood_loss(Z, S, sw), alpha=alpha,
                           fit_intercept=True, max_iter=self.max_iter if max_iter is None else max_iter,
                           tol=self.tol, W0=W,
                           verbose=max(0, self.verbose - 1), name="KernelPRODEN L-BFGS")
        if not np.isfinite(W).all():
            raise FloatingPointError("KernelPRODEN weights are not finite; raise alpha.")
        return W, res

    def _scores(self, X):
        check_is_fitted(self, "_W")
        check_X_values(X)
        X = check_rows(self, X)
        F = (rbf_kernel(X, self.landmarks_, gamma=self.gamma_) @ self._normalization.T - self._mean) / self._std
        return _scores(F, self._W, F.shape[1])

    # ---- persistence ---------------------------------------------------------------------
    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {"landmarks": "landmarks_", "normalization": "_normalization", "mean": "_mean", "std": "_std",
                     "W": "_W", "classes": "classes_"}
    _saved_scalars = {"n_features_in": Scalar("n_features_in_", "int"), "gamma": Scalar("gamma_", "positive"),
                      "alpha": Scalar("alpha_", "float"), "n_iter": Scalar("n_iter_", "int"),
                      "loss": Scalar("loss_", "float")}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count, length

        m, d, K = shapes.get("landmarks", (-1,))[0], count(state, "n_features_in"), length(shapes, "classes")
        return {"landmarks": ("f", (m, d), True), "normalization": ("f", (m, m), True),
                "mean": ("f", (m,), True), "std": ("f", (m,), True), "W": ("f", (m + 1, K), True),
                "classes": ("*", (K,), True)}

    def _restored(self, loaded):
        if self.alpha_ < 0 or self.loss_ < 0:
            raise ValueError(f"alpha and loss must be >= 0, as a fit leaves them; got {self.alpha_!r}, {self.loss_!r}")
        if not (self._std >= _MIN_STD).all():
            raise ValueError(f"every feature's std must be at least {_MIN_STD:g}, as a fit leaves it")
        if self.landmarks_.shape[0] < 1:
            raise ValueError("the model holds no landmark, which no fit leaves")
        if np.unique(self.classes_).size != self.classes_.size or self.classes_.size < 2:
            raise ValueError(f"classes must be at least 2 distinct labels, as a fit leaves them; got "
                             f"{self.classes_.size}")
        self.selection_ = []

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _variance(X):
    """The mean variance of the columns of ``X`` (dense or CSR)."""
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        return float(np.mean(np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean ** 2))
    return float(np.mean(X.var(axis=0)))


def _landmarks(X, m, rng):
    """``m`` distinct random rows of ``X`` (all of them when there are fewer), dense."""
    rows = np.sort(rng.choice(X.shape[0], size=min(m, X.shape[0]), replace=False))
    L = X[rows]
    return np.ascontiguousarray(L.toarray() if sp.issparse(L) else L, dtype=np.float64)


def _features(X, landmarks, gamma):
    """Standardised Nystroem features of ``X``: ``(F, mean, std, normalization)``."""
    F, normalization = nystroem_map(X, landmarks, gamma)
    mean = F.mean(axis=0)
    std = F.std(axis=0)
    std[std < _MIN_STD] = 1.0
    return (F - mean) / std, mean, std, normalization


#: a Nystroem feature whose standard deviation is below this is left unscaled
_MIN_STD = 1e-12
