"""CLPL, the convex loss for partial labels (Cour, Sapp & Taskar, JMLR 2011)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from .._validation import read_only
from .._validation import Interval, StrOptions

from .._persist import register
from .._validation import keyword_only, AT_LEAST_1, NON_NEGATIVE
from .._lbfgs import lbfgs_fit
from ..calibration import fit_out_of_fold_temperature
from ._batch import BatchPartialLinear

__all__ = ["CLPL", "clpl_loss"]


def clpl_loss(Z, S, loss="squared_hinge", sample_weight=None):
    """Mean CLPL loss of scores ``Z`` against candidate sets ``S``, and its gradient in ``Z``.

    Cour, Sapp & Taskar (2011), Section 4: for a row with candidate set ``S_i``,
    ``psi(mean_{a in S_i} z_a) + sum_{a not in S_i} psi(-z_a)``: the mean score of the
    candidates is pushed up as one, every non-candidate score down.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_classes)
    S : ndarray of bool, shape (n_samples, n_classes)
    loss : {"squared_hinge", "logistic"}
        ``psi(u) = max(0, 1 - u)^2`` (the paper's choice) or ``log(1 + exp(-u))``.
    sample_weight : ndarray of shape (n_samples,), default=None
        The mean is weighted.

    Returns
    -------
    loss : float
    grad : ndarray of shape (n_samples, n_classes)
    """
    from ._kernels import _clpl_loss_grad

    if loss not in ("squared_hinge", "logistic"):
        raise ValueError(f"loss must be 'squared_hinge' or 'logistic'; got {loss!r}.")
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    w = np.ones(Z.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    w = np.ascontiguousarray(w / w.sum())
    G = np.empty_like(Z)
    value = _clpl_loss_grad(Z, read_only(np.ascontiguousarray(S, dtype=bool)), loss == "squared_hinge", w, G)
    return float(value), G


@register
class CLPL(BatchPartialLinear):
    """Linear classifier from candidate label sets with the convex CLPL loss.

    Cour, Sapp & Taskar, "Learning from Partial Labels", JMLR 12 (2011), Section 4.  With
    scores ``g_a(x) = w_a . x + b_a``, training minimises the mean of
    ``psi(mean_{a in S} g_a(x)) + sum_{a not in S} psi(-g_a(x))`` plus
    ``alpha/2 ||W||^2`` (the intercept is not penalised) by scipy's L-BFGS.  The loss is
    convex, so the fit does not depend on a start or an order; with singleton sets it is
    a one-vs-rest squared hinge.

    Parameters
    ----------
    alpha : float, default=1e-4
        L2 penalty on the weights (``>= 0``).
    loss : {"squared_hinge", "logistic"}, default="squared_hinge"
        ``psi``: the paper's squared hinge, or the logistic loss.
    fit_intercept : bool, default=True
        Fit an intercept per class (not penalised).
    max_iter : int, default=500
        L-BFGS iterations.
    tol : float, default=1e-6
        L-BFGS gradient tolerance.
    classes : array-like, default=None
        Every class; ``None``: the labels ``fit`` sees.
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's weight (with its ``sample_weight``): a
        row of exact label ``k`` takes ``class_weight[k]``, a candidate set (or soft label)
        the mean weight of its classes.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the
        rows of class ``k`` (a candidate set counts ``1/|S|`` for each of its candidates),
        computed on the rows of each call.  Classes absent from a dict weigh 1.
    verbose : int, default=0
        Print the objective after each L-BFGS iteration (as scikit-learn's
        ``LogisticRegression(verbose=1)`` reports its solver's progress).

    Attributes
    ----------
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    classes_, coef_ (n_classes, n_features), intercept_ (n_classes,), n_features_in_
    n_iter_ : int
    loss_ : float
        The objective at the solution.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.partial import CLPL
    >>> clf = CLPL(alpha=1e-3).fit(X[:1400] / 16, S[:1400])
    >>> round(clf.score(X[1400:] / 16, y[1400:]), 2) > 0.8
    True
    """

    _parameter_constraints = {"alpha": [NON_NEGATIVE], "loss": [StrOptions({"squared_hinge", "logistic"})],
                              "fit_intercept": ["boolean"], "max_iter": [AT_LEAST_1],
                              "tol": [Interval(Real, 0, None, closed="neither")], "classes": ["array-like", None],
                              "probability": ["boolean"], "class_weight": [dict, StrOptions({"balanced"}), None],
                              "verbose": ["verbose"]}

    @keyword_only
    def __init__(self, *, alpha=1e-4, loss="squared_hinge", fit_intercept=True, max_iter=500, tol=1e-6,
                 classes=None, probability=False, class_weight=None, verbose=0):
        self.alpha = alpha
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.classes = classes
        self.probability = probability
        self.class_weight = class_weight
        self.verbose = verbose

    def _fit_validated(self, Xf, S, classes, sw):
        K = classes.size
        self._W, res = lbfgs_fit(Xf, K, lambda Z: clpl_loss(Z, S, self.loss, sw), alpha=self.alpha,
                                 verbose=self.verbose, name="CLPL",
                                 fit_intercept=self.fit_intercept, max_iter=self.max_iter, tol=self.tol)
        self.n_iter_ = int(res.nit)
        self.loss_ = float(res.fun)

    def _finish_fit(self, X, y, sample_weight):
        if self.probability:
            fit_out_of_fold_temperature(self, X, y, sample_weight)
