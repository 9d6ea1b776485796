"""Loss-corrected multinomial logistic regression (Patrini et al., CVPR 2017)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.special import log_softmax
from .._validation import Interval, StrOptions
from sklearn.utils.validation import column_or_1d

from .._persist import Scalar, register
from .._validation import (check_class_labels, check_partial_fit_classes, class_weighted, keyword_only, AT_LEAST_1, NON_NEGATIVE, _classes_array, _labels_to_index, check_confusion, check_X,
                           transactional)
from .._online import Fitted, OnlineLinear, Rule, Target
from ..linear import LinearMulticlass
from .._lbfgs import lbfgs_fit
from ._kernels import _forward_corrected
from ..linear import SoftmaxProba

__all__ = ["CorrectedLogistic", "corrected_loss", "estimate_confusion_anchors"]


def corrected_loss(Z, Y, C, correction, sample_weight=None, *, trusted=None, C_T_inv=None):
    """Mean corrected log loss of class scores ``Z`` and its gradient with respect to ``Z``.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_classes)
        Scores; ``p = softmax(Z)`` estimates ``P(true label | x)``.
    Y : ndarray of shape (n_samples, n_classes)
        Noisy labels, one-hot or soft (rows sum to 1).
    C : ndarray of shape (n_classes, n_classes)
        ``C[p, q] = P(noisy = p | true = q)``.
    correction : {"forward", "backward"}
        forward: ``-sum_p Y_ip log (C p_i)_p``, the log loss of the noisy label under the
        noise model; backward: ``sum_p Y_ip (T^-1 l_i)_p`` with ``T = C^T`` and
        ``l_iq = -log p_iq``, unbiased for the clean loss (Patrini et al., Theorems 1-2).
    sample_weight : ndarray of shape (n_samples,), default=None
        The mean is weighted (divided by the sum of the weights), so an integer weight
        is the row repeated.
    trusted : ndarray of bool, shape (n_samples,), default=None
        Rows whose labels are known to be clean: their loss is the plain log loss
        ``-sum_p Y_ip log p_ip`` (no correction), as the trusted rows of Hendrycks et al.'s
        gold loss correction (NeurIPS 2018).
    C_T_inv : ndarray of shape (n_classes, n_classes), default=None
        ``inv(C.T)`` for the backward correction, when the caller has it (``fit``
        computes it once, not at every evaluation).

    Returns
    -------
    loss : float
        The mean corrected loss.
    grad : ndarray of shape (n_samples, n_classes)
        The gradient, d loss / d Z.
    """
    n = Z.shape[0]
    w = np.ones(n) if sample_weight is None else sample_weight
    if correction == "forward":
        K = Z.shape[1]
        if np.shape(Y) != Z.shape or np.shape(C) != (K, K) or np.shape(w) != (n,):
            raise ValueError(f"corrected_loss needs Y of Z's shape {Z.shape}, C of shape {(K, K)} and a weight per "
                             f"row; got Y {np.shape(Y)}, C {np.shape(C)} and weights {np.shape(w)}.")
        mask = np.zeros(0, dtype=bool) if trusted is None else _trusted_mask(trusted, n)
        loss, grad = _forward_corrected(np.ascontiguousarray(Z, dtype=np.float64),
                                        np.ascontiguousarray(Y, dtype=np.float64),
                                        np.ascontiguousarray(C, dtype=np.float64),
                                        np.ascontiguousarray(w, dtype=np.float64), mask)
    else:
        logP = log_softmax(Z, axis=1)
        P = np.exp(logP)
        V = Y @ (np.linalg.inv(C.T) if C_T_inv is None else C_T_inv)     # rows sum to 1
        if trusted is not None:
            V[trusted] = Y[trusted]
        loss = -np.sum(w[:, None] * V * logP)
        grad = w[:, None] * (P * V.sum(axis=1, keepdims=True) - V)
    total = float(w.sum())                                   # a weight of k is the row k times
    return float(loss / total), grad / total


def _trusted_mask(trusted, n):
    """``trusted`` (a bool mask or row indices, as numpy indexing reads them) as a bool mask of
    the ``n`` rows, for the loss kernel (which reads it row by row, unchecked)."""
    t = np.asarray(trusted)
    if t.dtype == bool:
        if t.shape != (n,):
            raise ValueError(f"trusted must be a bool mask of the {n} rows or row indices; got a mask of shape "
                             f"{t.shape}.")
        return np.ascontiguousarray(t)
    mask = np.zeros(n, dtype=bool)
    mask[t] = True
    return mask


@register
class CorrectedLogistic(SoftmaxProba, OnlineLinear):
    """Multinomial logistic regression on noisy labels with a known noise matrix, loss-corrected.

    Patrini, Rozza, Menon, Nock & Qu, "Making Deep Neural Networks Robust to Label Noise:
    a Loss Correction Approach", CVPR 2017.  ``p(y | x) = softmax(W x + b)`` estimates the
    *clean* label; training minimises the corrected log loss of the noisy labels (see
    :func:`corrected_loss`) plus ``alpha/2 ||W||^2`` (the intercept is not penalised) with
    scipy's L-BFGS.  ``correction="forward"`` (the default) is the log-likelihood of the
    noisy labels under the noise model, convex in ``p``'s logits only up to the mixing,
    and the more stable of the two in the paper; ``"backward"`` is an unbiased estimate
    of the clean log loss, whose negative weights make it unbounded below without
    ``alpha``.

    Parameters
    ----------
    confusion : array-like of shape (n_classes, n_classes), "identity" or "anchors"
        ``C[p, q] = P(noisy = p | true = q)``, columns summing to 1, as :class:`UMA`;
        ``"identity"`` is plain logistic regression; ``"anchors"`` estimates ``C`` inside
        ``fit`` without a clean label: plain logistic regression's out-of-fold (5 folds)
        noisy-label probabilities of every row, read at anchor points
        (:func:`estimate_confusion_anchors`, Patrini et al.'s estimator), then the
        corrected fit on every row with that ``C`` (``confusion_``).  Hard labels only.
    correction : {"forward", "backward"}, default="forward"
        The correction (see :func:`corrected_loss`).
    alpha : float, default=1e-4
        L2 penalty on the weights (``>= 0``; ``1 / (C n)`` in scikit-learn's terms).
    fit_intercept : bool, default=True
        Fit an intercept per class (not penalised).
    max_iter : int, default=500
        L-BFGS iterations.
    tol : float, default=1e-6
        L-BFGS gradient tolerance.
    classes : array-like, default=None
        Every class (the rows/columns of ``confusion``); ``None``: the labels ``fit`` sees.
    warm_start : bool, default=False
        :meth:`fit` starts L-BFGS from the current weights (when their shape fits), e.g.
        along a path of ``alpha`` or from the plain model to a corrected one.
    eta0 : float or None, default=None
        Step size of :meth:`partial_fit`'s averaged SGD; ``None`` sets it on the first
        call to ``4 / R^2``, ``R^2`` the largest squared row norm of that chunk (with 1 for
        the intercept): a constant step of the order ``1 / R^2`` with averaging converges
        for the logistic loss without a schedule (Bach & Moulines, NeurIPS 2013).  Not used
        by :meth:`fit`.
    trusted_weight : float or "balanced", default=1.0
        Multiplies the weight of the ``trusted`` rows (those passed to :meth:`fit` or
        :meth:`partial_fit`).  ``"balanced"`` gives the trusted rows as much total weight as
        the other rows of the same call.  A few clean rows among many noisy ones often earn
        a weight well above 1; choose it by cross-validation over the trusted rows
        (:class:`TrustedKFold`).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
        Applied to the given labels in :meth:`fit` and to each call's rows in
        :meth:`partial_fit`.
    verbose : int, default=0
        Print the objective after each L-BFGS iteration (as scikit-learn's
        ``LogisticRegression(verbose=1)`` reports its solver's progress) in :meth:`fit`.

    Attributes
    ----------
    classes_, coef_ (n_classes, n_features), intercept_ (n_classes,), n_features_in_
    n_iter_ : int
        L-BFGS iterations of :meth:`fit`, plus one per :meth:`partial_fit` pass.
    confusion_ : ndarray of shape (n_classes, n_classes)
        The ``C`` of the last :meth:`fit` (estimated with ``confusion="anchors"``).
    loss_ : float
        The corrected objective at the solution after :meth:`fit`; after
        :meth:`partial_fit`, the mean corrected loss of the chunk's rows, each scored
        before its own step (progressive validation).
    t_ : int
        SGD steps (rows) taken by :meth:`partial_fit` since the last :meth:`fit`.
    n_updates_ : int
        The steps among them, counted as the online learners count theirs (every row
        steps: equal to ``t_``).
    predictions_ : ndarray of shape (n_rows,)
        After :meth:`partial_fit`: the SGD iterate's prediction of each row of the call,
        made before the row's step (progressive validation, as the online learners).
    prediction_rows_ : ndarray of shape (n_rows,)
        The rows of the call in the order they were learnt.
    eta_ : float
        The SGD step size :meth:`partial_fit` uses.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.noisy import CorrectedLogistic
    >>> from weaklabel.simulate import confusion_family, noisy_labels
    >>> X, y = load_digits(return_X_y=True)
    >>> C = confusion_family(10, 4, random_state=0)
    >>> y_noisy = noisy_labels(y, C, random_state=1)
    >>> clf = CorrectedLogistic(confusion=C).fit(X[:1400] / 16, y_noisy[:1400])
    >>> clf.predict_proba(X[1400:] / 16).shape
    (397, 10)
    """

    _parameter_constraints = {"confusion": ["array-like", StrOptions({"identity", "anchors"})],
                              "correction": [StrOptions({"forward", "backward"})],
                              "alpha": [NON_NEGATIVE], "fit_intercept": ["boolean"], "max_iter": [AT_LEAST_1],
                              "tol": [Interval(Real, 0, None, closed="neither")], "classes": ["array-like", None],
                              "warm_start": ["boolean"], "eta0": [Interval(Real, 0, None, closed="neither"), None],
                              "trusted_weight": [Interval(Real, 0, None, closed="neither"), StrOptions({"balanced"})],
                              "class_weight": [dict, StrOptions({"balanced"}), None], "verbose": ["verbose"]}

    @keyword_only
    def __init__(self, *, confusion="identity", correction="forward", alpha=1e-4, fit_intercept=True, max_iter=500,
                 tol=1e-6, classes=None, warm_start=False, eta0=None, trusted_weight=1.0, class_weight=None,
                 verbose=0):
        self.confusion = confusion
        self.correction = correction
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.classes = classes
        self.warm_start = warm_start
        self.eta0 = eta0
        self.trusted_weight = trusted_weight
        self.class_weight = class_weight
        self.verbose = verbose

    @transactional
    def fit(self, X, y, sample_weight=None, trusted=None):
        """Fit on noisy labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : array-like of shape (n_samples,), or (n_samples, n_classes) soft labels
            Noisy labels, or a probability per class (rows summing to 1, columns in the
            order of ``classes``; e.g. :class:`DawidSkene`'s ``posterior_``).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; None gives every row weight 1.
        trusted : array-like of bool of shape (n_samples,), or of row indices, default=None
            Rows whose labels are known to be clean (e.g. the few rows labelled to estimate
            ``C``): they are fitted by the plain log loss, the others by the corrected one
            (the gold loss correction of Hendrycks, Mazeika, Wilson & Gimpel, "Using Trusted
            Data to Train Deep Networks on Labels Corrupted by Severe Noise", NeurIPS 2018).

        Returns
        -------
        self
            The fitted estimator.
        """
        from .._validation import check_sample_weight

        self._validate_params()
        X = check_X(self, X, reset=True)
        n, d = X.shape
        Y, classes = self._targets(y, n)
        K = classes.size
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X, dtype=np.float64,
                                                                     ensure_non_negative=True)
        if self.class_weight is not None:                  # on the given (noisy or soft) labels
            sw = class_weighted(sw, Y, classes, self.class_weight)
        if isinstance(self.confusion, str) and self.confusion == "anchors":
            C = self._anchor_confusion(X, y, classes, sw)
        else:
            C = np.eye(K) if isinstance(self.confusion, str) else check_confusion(self.confusion, K)
        mask = _check_trusted(trusted, n)
        sw = _weigh_trusted(sw, mask, self.trusted_weight, n)
        Xf = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        alpha, fi = float(self.alpha), bool(self.fit_intercept)
        C_T_inv = np.linalg.inv(C.T) if self.correction == "backward" else None
        W_old = self.__dict__.get("_W")
        warm = self.warm_start and W_old is not None and W_old.shape == (d + int(fi), K) and \
            np.array_equal(getattr(self, "classes_", None), classes)
        self._W, res = lbfgs_fit(
            Xf, K, lambda Z: corrected_loss(Z, Y, C, self.correction, sw, trusted=mask, C_T_inv=C_T_inv),
            alpha=alpha, fit_intercept=fi, max_iter=self.max_iter, tol=self.tol, W0=W_old if warm else None,
            verbose=self.verbose, name="CorrectedLogistic")
        self.classes_ = classes
        self.confusion_ = C
        self.n_iter_ = int(res.nit)
        self.loss_ = float(res.fun)
        for name in ("_W_sgd", "t_", "eta_", "n_updates_"):     # partial_fit continues from this solution afresh
            self.__dict__.pop(name, None)
        if not np.isfinite(self._W).all():
            raise FloatingPointError("CorrectedLogistic weights are not finite; raise alpha or use "
                                     "correction='forward'.")
        return self

    def _anchor_confusion(self, X, y, classes, sw):
        """``C`` by anchor points on out-of-fold noisy-label probabilities (5 stratified folds
        of plain logistic regression at this estimator's settings).
        """
        from sklearn.base import clone
        from sklearn.model_selection import StratifiedKFold

        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError("confusion='anchors' estimates C from hard noisy labels; got soft labels (2-D y).")
        t = _labels_to_index(y, classes, "y")
        counts = np.bincount(t, minlength=classes.size)
        if counts.min() < 5:
            raise ValueError(f"confusion='anchors' needs at least 5 rows of every noisy label for its 5 folds; "
                             f"class {classes[int(np.argmin(counts))]!r} has {int(counts.min())}.")
        noisy = np.zeros((y.size, classes.size))
        base = clone(self).set_params(confusion="identity", classes=classes, warm_start=False, verbose=0)
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(y.size), t):
            kw = {} if sw is None else {"sample_weight": sw[train]}
            noisy[test] = clone(base).fit(X[train], y[train], **kw).predict_proba(X[test])
        return estimate_confusion_anchors(noisy)

    def partial_fit(self, X, y, classes=None, sample_weight=None, trusted=None):
        """One pass of averaged SGD over ``(X, y)`` in the given order, continuing from the
        current weights (a stream, or data larger than memory read in chunks).

        The iterate takes one step per row on the corrected loss plus
        ``alpha/2 ||W||^2``; the model predicts with an average of the iterates that
        forgets the first ones (polynomial-decay averaging, Shamir & Zhang, ICML 2013).
        After :meth:`fit`, it continues from fit's solution.  The pass runs on the online
        learners' engine (:class:`weaklabel._online.OnlineLinear`): the same validation,
        ``class_weight`` and rollback of a failed call.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : array-like of shape (n_samples,), or (n_samples, n_classes) soft labels
            The noisy labels.
        classes : array-like, default=None
            Every class; needed on the first call (unless the ``classes`` parameter or
            soft labels give them), and if passed later, the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's step.
        trusted : array-like of bool of shape (n_samples,), or of row indices, default=None
            Rows of this chunk whose labels are clean (see :meth:`fit`).

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        return self._online_call(X, _NoisyTarget(y, trusted), classes, reset=False, sample_weight=sample_weight)

    # ---- the online engine's hooks (partial_fit; fit is the batch L-BFGS above) -----------
    #: the SGD iterate of partial_fit (``_W`` holds its average), written in place by the pass
    #: (so copied for a call's rollback) and averaged by parameter mixing as ``_W`` is
    _state = {"_W_sgd": Fitted("W_sgd", np.float64, lambda p, n, K: (n, K))}

    def _encode_target(self, Xk, target, classes, first, reset):
        """The chunk's label matrix, its correction and its trusted rows."""
        n = Xk.shape[0]
        wanted = check_partial_fit_classes(self, classes, first=first,
                                           given_by_y=self.classes is not None or _is_soft(target.y))
        Y, classes_ = self._targets(target.y, n, classes=wanted)
        K = classes_.size
        if isinstance(self.confusion, str) and self.confusion == "anchors":
            if "confusion_" not in self.__dict__:
                raise ValueError("confusion='anchors' estimates C in fit: call fit first, then partial_fit continues "
                                 "with that C (or pass the matrix as confusion).")
            C = self.confusion_
        else:
            C = np.eye(K) if isinstance(self.confusion, str) else check_confusion(self.confusion, K)
        return _NoisyChunk(Y, C, _check_trusted(target.trusted, n)), classes_

    def _rule(self, X):
        return self._RULE

    def _epoch(self, rows, order, enc, hist, sw):
        """One pass of averaged SGD (:func:`~weaklabel.noisy._kernels._corrected_sgd_epoch`)."""
        from ._kernels import _corrected_sgd_epoch

        n = enc.Y.shape[0]
        sw = _weigh_trusted(np.ones(n) if sw.size == 0 else sw, enc.trusted, self.trusted_weight, n)
        if "eta_" not in self.__dict__:             # the first pass, or the first after fit
            self._W_sgd, self.t_, self.n_updates_ = self._W.copy(), 0, 0
            self.eta_ = float(self.eta0) if self.eta0 is not None else 4.0 / max(_max_sq_norm(rows), 1e-12)
        K = self.classes_.size
        backward = self.correction == "backward"
        CinvT = np.linalg.inv(enc.C.T) if backward else np.zeros((K, K))
        mask = np.zeros(n, dtype=bool) if enc.trusted is None else enc.trusted
        n_reg = self._W.shape[0] - int(bool(self.fit_intercept))
        t, total, wsum = _corrected_sgd_epoch(self._W_sgd, self._W, int(self.t_), rows, order, enc.Y,
                                              (enc.C, CinvT, backward, mask), sw,
                                              (float(self.eta_), float(self.alpha), n_reg), hist["predictions"])
        if not (np.isfinite(self._W_sgd).all() and np.isfinite(self._W).all()):
            raise FloatingPointError("CorrectedLogistic's SGD diverged (weights not finite); pass a smaller eta0.")
        self.t_ = int(t)
        self.loss_ = float(total / wsum) if wsum > 0 else float("nan")
        return order.shape[0]

    _RULE = Rule(_epoch)       # the SGD pass writes its iterate _W_sgd and the average _W in place

    def _targets(self, y, n, classes=None):
        if classes is None:
            classes = self.classes
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None; pass the noisy labels.")
        arr = np.asarray(y)
        if _is_soft(arr):
            if arr.shape[0] != n:
                raise ValueError(f"y has {arr.shape[0]} rows but X has {n}; they must match.")
            if not np.isfinite(arr).all() or (arr < 0).any() or not np.allclose(arr.sum(axis=1), 1.0, atol=1e-6):
                raise ValueError("soft labels y must be finite, non-negative, and each row must sum to 1.")
            classes = _classes_array(np.arange(arr.shape[1]) if classes is None else classes)
            if classes.size != arr.shape[1]:
                raise ValueError(f"soft labels y have {arr.shape[1]} columns but there are {classes.size} classes.")
            return arr.astype(np.float64), classes
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = column_or_1d(arr, warn=True)
        check_class_labels(arr)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise ValueError(f"y must be 1-D noisy labels of length {n}; got shape {arr.shape}.")
        classes = _classes_array(np.unique(arr) if classes is None else classes)
        if classes.size < 2:
            raise ValueError(f"CorrectedLogistic needs at least 2 classes; got 1 class {classes.tolist()}.")
        idx = _labels_to_index(arr, classes, "y")
        return np.eye(classes.size)[idx], classes

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {"confusion": "confusion_"}      # with the weights, the classes and _state (OnlineLinear)
    _saved_scalars = {**LinearMulticlass._saved_scalars, "n_iter": Scalar("n_iter_", "int"),
                      "loss": Scalar("loss_", "float"), "t": Scalar("t_", "int", True),
                      "n_updates": Scalar("n_updates_", "int", True, 0),
                      "eta": Scalar("eta_", "positive", True)}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        spec = super()._declared_state(params, state, shapes)
        K = spec["W"][1][1]
        spec["confusion"] = ("f", (K, K), False)            # the noise model, when the fit had one
        spec["W_sgd"] = ("f", spec["W"][1], False)          # the SGD iterate of partial_fit, when there is one
        return spec

    def _restored(self, loaded):
        # a batch model: the checks of LinearMulticlass, not the online learners' round counter
        LinearMulticlass._restored(self, loaded)
        K = self.classes_.size
        if "confusion_" in self.__dict__:
            self.confusion_ = check_confusion(self.confusion_, K)
        elif not isinstance(self.confusion, str):
            self.confusion_ = check_confusion(self.confusion, K)
        elif self.confusion == "identity":
            self.confusion_ = np.eye(K)
        if ("_W_sgd" in self.__dict__) != ("t_" in self.__dict__ and "eta_" in self.__dict__):
            raise ValueError("the SGD iterate W_sgd, its round t and its step eta come together, as partial_fit "
                             "leaves them")



class _NoisyTarget:
    """What ``partial_fit`` was given: the noisy (or soft) labels and the trusted rows."""

    __slots__ = ("y", "trusted")

    def __init__(self, y, trusted):
        self.y, self.trusted = y, trusted


class _NoisyChunk(Target):
    """A chunk as the SGD pass reads it: label matrix ``Y``, confusion ``C``, trusted mask."""

    __slots__ = ("Y", "C", "trusted")

    def __init__(self, Y, C, trusted):
        self.Y, self.C, self.trusted = Y, C, trusted

    def class_shares(self, n, K):
        return self.Y


def _max_sq_norm(rows):
    """The largest squared norm of the kernel rows, the implicit intercept feature included
    (1 for no row)."""
    extra = 1.0 if rows.intercept >= 0 else 0.0
    if rows.is_dense:
        X = rows.dense
        return float(np.einsum("ij,ij->i", X, X).max()) + extra if X.shape[0] else 1.0
    n = rows.indptr.size - 1
    if n == 0:
        return 1.0
    owner = np.repeat(np.arange(n), np.diff(rows.indptr))
    return float(np.bincount(owner, weights=rows.data * rows.data, minlength=n).max()) + extra


def _is_soft(y):
    arr = np.asarray(y) if y is not None else None
    return arr is not None and arr.ndim == 2 and arr.shape[1] > 1 and arr.dtype.kind == "f"


def _weigh_trusted(sw, mask, trusted_weight, n):
    """``sw`` (or ones) with the trusted rows' weights multiplied by ``trusted_weight``."""
    if mask is None or not mask.any() or (not isinstance(trusted_weight, str) and trusted_weight == 1):
        return sw
    w = np.ones(n) if sw is None else sw.copy()
    if isinstance(trusted_weight, str):                  # "balanced"
        t, o = w[mask].sum(), w[~mask].sum()
        factor = o / t if t > 0 and o > 0 else 1.0
    else:
        factor = float(trusted_weight)
    w[mask] *= factor
    return w


def _check_trusted(trusted, n):
    """A boolean row mask from ``trusted`` (mask or indices), or None."""
    if trusted is None:
        return None
    t = np.asarray(trusted)
    if t.dtype == bool:
        if t.shape != (n,):
            raise ValueError(f"trusted must be a boolean mask of shape ({n},) or row indices; got a boolean "
                             f"array of shape {t.shape}.")
        return t.copy() if t.any() else None
    if t.ndim != 1 or (t.size and t.dtype.kind not in "iu"):
        raise ValueError(f"trusted must be a boolean mask of shape ({n},) or integer row indices; got dtype "
                         f"{t.dtype}, shape {t.shape}.")
    if t.size and (t.min() < 0 or t.max() >= n):
        raise ValueError(f"trusted row indices must lie in 0..{n - 1}; got {int(t.min())}..{int(t.max())}.")
    mask = np.zeros(n, dtype=bool)
    mask[t.astype(np.int64)] = True
    return mask if mask.any() else None


def estimate_confusion_anchors(noisy_proba, *, quantile=0.97, noise_free=None):
    """Estimate ``C[p, q] = P(noisy = p | true = q)`` without clean labels, from anchor points.

    Patrini et al. (CVPR 2017), Section 4.2: a classifier trained on the noisy labels
    estimates ``P(noisy | x) = C P(true | x)``.  At an anchor point of class ``q`` (an
    ``x`` whose true label is surely ``q``) this is column ``q`` of ``C``; the anchor is
    the row whose estimated ``P(noisy = q | x)`` is at the ``quantile`` of that column (the
    paper's 97th percentile, more robust than the maximum to over-confident outliers).

    Parameters
    ----------
    noisy_proba : array-like of shape (n_samples, n_classes)
        ``P(noisy label | x)`` of a probabilistic classifier trained on the noisy labels
        (e.g. ``CorrectedLogistic(confusion="identity").fit(X, y_noisy).predict_proba(X)``).
    quantile : float in (0, 1], default=0.97
        The quantile of each column at which its anchor is taken.
    noise_free : array-like of int, default=None
        Class indices known to be noise-free: their columns are the unit vector.

    Returns
    -------
    C : ndarray of shape (n_classes, n_classes), column-stochastic
        The estimated noise matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.noisy import estimate_confusion_anchors
    >>> C = np.array([[0.8, 0.3], [0.2, 0.7]])
    >>> true_proba = np.r_[np.eye(2), [[0.5, 0.5]]]            # two anchors and a mixed row
    >>> estimate_confusion_anchors(true_proba @ C.T, quantile=1.0).round(2).tolist()
    [[0.8, 0.3], [0.2, 0.7]]
    """
    P = np.asarray(noisy_proba, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] < 2 or P.shape[0] < 1:
        raise ValueError(f"noisy_proba must be (n_samples, n_classes >= 2) probabilities; got shape {P.shape}.")
    if not np.isfinite(P).all() or (P < 0).any() or not np.allclose(P.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("noisy_proba must be finite, non-negative, and each row must sum to 1.")
    if not (isinstance(quantile, Real) and 0 < quantile <= 1):
        raise ValueError(f"quantile must be in (0, 1]; got {quantile!r}.")
    K = P.shape[1]
    C = np.empty((K, K))
    for q in range(K):
        col = P[:, q]
        level = np.quantile(col, quantile, method="inverted_cdf")
        anchor = int(np.flatnonzero(col >= level)[np.argmin(col[col >= level])])   # the row at the quantile
        C[:, q] = P[anchor]
    if noise_free is not None:
        free = np.asarray(noise_free, dtype=np.int64).ravel()
        if free.size and (free.min() < 0 or free.max() >= K):
            raise ValueError(f"noise_free must hold class indices in 0..{K - 1}; got {free.tolist()}.")
        C[:, free] = np.eye(K)[:, free]
    return C / C.sum(axis=0, keepdims=True)
