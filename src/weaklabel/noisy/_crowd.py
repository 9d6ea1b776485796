"""Several annotators: Dawid & Skene's EM for per-annotator confusion matrices."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from .._validation import Interval

from .._persist import SavesModel, Scalar, register
from .._validation import keyword_only, transactional

__all__ = ["DawidSkene"]


@register
class DawidSkene(SavesModel, BaseEstimator):
    """Dawid & Skene's EM: one confusion matrix per annotator and the posterior of each true label.

    .. deprecated:: 0.1.0
        Use :class:`weaklabel.sources.DawidSkene` with ``abstain="ignore"``: the same model
        (and the same default priors), inductive (``predict_proba(L)`` on new rows), on
        sparse votes in O(votes) memory, with ``partial_fit``. This class stores a dense
        (rows x annotators x classes) tensor; it warns when made and will be removed in a
        later release. Its saved files still load.

    A. P. Dawid and A. M. Skene, "Maximum Likelihood Estimation of Observer Error-Rates
    Using the EM Algorithm", Applied Statistics 28(1), 1979.  With ``pi`` the class prior
    and ``C_j[p, q] = P(annotator j says p | true q)`` (columns sum to 1, as
    :class:`UMA`'s ``C``), the E-step sets
    ``T[i, q] ∝ pi_q prod_j C_j[A_ij, q]`` over the annotations row ``i`` has, and the
    M-step sets ``pi_q ∝ sum_i T[i, q]`` and
    ``C_j[p, q] ∝ prior + sum_{i: A_ij = p} T[i, q]``.  EM starts from the share of
    votes of each row (soft majority vote) and stops when the log-likelihood gains less
    than ``tol`` (relative) or after ``max_iter`` rounds.

    Parameters
    ----------
    prior : float, default=0.01
        Pseudo-count added to every entry of every ``C_j`` in the M-step (a symmetric
        Dirichlet prior): an annotator never seen to say ``p`` keeps a small probability
        of it.
    prior_diagonal : float, default=0.0
        Extra pseudo-count on the diagonal: the prior belief that annotators are right.
    max_iter : int, default=100
        Most EM rounds.
    tol : float, default=1e-7
        Stop when the log-likelihood gains less than ``tol`` (relative).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class indices ``0 .. n_classes-1``.
    posterior_ : ndarray of shape (n_samples, n_classes)
        ``P(true label of row i = q | annotations)``; gold rows are one-hot.
    confusions_ : ndarray of shape (n_annotators, n_classes, n_classes)
    class_prior_ : ndarray of shape (n_classes,)
    log_likelihood_ : float
        Of the annotations (gold rows included) at the last E-step.
    n_iter_ : int
    converged_ : bool

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.noisy import DawidSkene
    >>> from weaklabel.simulate import annotators
    >>> good, poor = 0.9 * np.eye(3) + 0.1 / 3, 0.5 * np.eye(3) + 0.5 / 3
    >>> y = np.arange(600) % 3
    >>> A = annotators(y, [good, poor, poor], random_state=0)
    >>> ds = DawidSkene().fit(A)
    >>> vote = np.array([np.bincount(row, minlength=3).argmax() for row in A])
    >>> round(float((vote == y).mean()), 3), round(float((ds.predict() == y).mean()), 3)
    (0.855, 0.903)
    >>> np.round(np.diagonal(ds.confusions_, axis1=1, axis2=2).mean(axis=1), 2)   # who is good
    array([0.9 , 0.71, 0.66])
    """

    _fitted_marker = "posterior_"

    _parameter_constraints = {"prior": [Interval(Real, 0, None, closed="neither")],
                              "prior_diagonal": [Interval(Real, 0, None, closed="left")],
                              "max_iter": [Interval(Integral, 1, None, closed="left")],
                              "tol": [Interval(Real, 0, None, closed="left")]}

    @keyword_only
    def __init__(self, *, prior=0.01, prior_diagonal=0.0, max_iter=100, tol=1e-7):
        warnings.warn("weaklabel.noisy.DawidSkene is deprecated: use weaklabel.sources.DawidSkene(abstain='ignore') "
                      "(the same model, on sparse votes, with predict_proba on new rows).", FutureWarning, stacklevel=2)
        self.prior = prior
        self.prior_diagonal = prior_diagonal
        self.max_iter = max_iter
        self.tol = tol

    @transactional
    def fit(self, annotations, gold=None, n_classes=None):
        """Run EM on the annotations.

        Parameters
        ----------
        annotations : array-like of int, shape (n_samples, n_annotators)
            Class index each annotator gave each row, -1 where it gave none.  Every row
            needs at least one annotation or a gold label.
        gold : array-like of int, shape (n_samples,), default=None
            Known true labels (class indices), -1 where unknown: those rows' posteriors are
            fixed one-hot, which anchors the confusion matrices.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest index seen.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        A, G, K = _check_annotations(annotations, gold, n_classes)
        n, m = A.shape
        said = A >= 0
        # onehot[i, j, p] = [A_ij = p]
        onehot = np.zeros((n, m, K))
        ii, jj = np.nonzero(said)
        onehot[ii, jj, A[ii, jj]] = 1.0
        known = G >= 0
        T = onehot.sum(axis=1)
        T[~T.any(axis=1)] = 1.0
        T /= T.sum(axis=1, keepdims=True)
        T[known] = np.eye(K)[G[known]]
        pseudo = self.prior + self.prior_diagonal * np.eye(K)
        ll_prev = -np.inf
        converged = False
        for it in range(1, self.max_iter + 1):
            pi, Cs = _m_step(T, onehot, pseudo)
            T_new, ll = _e_step(pi, Cs, onehot)
            T_new[known] = np.eye(K)[G[known]]
            T = T_new
            if np.isfinite(ll_prev) and abs(ll - ll_prev) <= self.tol * max(abs(ll_prev), 1.0):
                converged = True
                break
            ll_prev = ll
        self.classes_ = np.arange(K)
        self.posterior_ = T
        self.confusions_ = Cs
        self.class_prior_ = pi
        self.log_likelihood_ = float(ll)
        self.n_iter_ = it
        self.converged_ = converged
        return self


    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import length

        K = length(shapes, "class_prior")
        return {"posterior": ("f", (None, K), True), "confusions": ("f", (None, K, K), True),
                "class_prior": ("f", (K,), True)}

    _saved_arrays = {"posterior": "posterior_", "confusions": "confusions_", "class_prior": "class_prior_"}
    _saved_scalars = {"log_likelihood": Scalar("log_likelihood_", "float"), "n_iter": Scalar("n_iter_", "int"),
                      "converged": Scalar("converged_", "bool")}

    def _restored(self, loaded):
        K = self.class_prior_.size
        if K < 2:
            raise ValueError(f"a crowd model needs 2 classes or more; the file has {K}")
        for name, v, axis in (("posterior", self.posterior_, 1), ("confusions", self.confusions_, 1),
                              ("class_prior", self.class_prior_, 0)):
            if (v < 0).any() or not np.allclose(v.sum(axis=axis), 1.0, atol=1e-6):
                raise ValueError(f"{name} must hold probabilities that sum to 1, as EM leaves them")
        self.classes_ = np.arange(K)

    def predict(self):
        """Return the most probable true label of each row fitted (ties to the lowest class).

        Returns
        -------
        ndarray of shape (n_rows,)
            One label per fitted row.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "posterior_")
        return self.classes_[np.argmax(self.posterior_, axis=1)]


def _m_step(T, onehot, pseudo):
    pi = T.sum(axis=0) / T.shape[0]
    counts = np.einsum("iq,ijp->jpq", T, onehot) + pseudo[None, :, :]     # (m, p said, q true)
    Cs = counts / counts.sum(axis=1, keepdims=True)
    return pi, Cs


def _e_step(pi, Cs, onehot):
    logC = np.log(Cs)                                                    # (m, p, q)
    logT = np.log(np.maximum(pi, 1e-300))[None, :] + np.einsum("ijp,jpq->iq", onehot, logC)
    norm = logsumexp(logT, axis=1, keepdims=True)
    return np.exp(logT - norm), float(norm.sum())


_MAX_BYTES = 8 << 30          # the dense EM's arrays; a bigger problem is refused before allocating


def _check_annotations(annotations, gold, n_classes):
    A = np.asarray(annotations)
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"annotations must be a non-empty 2-D array (n_samples, n_annotators); got shape {A.shape}.")
    if A.dtype.kind == "f" and not (np.all(np.isfinite(A)) and np.all(A == np.round(A))):
        raise ValueError("annotations must hold class indices (integers), -1 for none.")
    if A.dtype.kind not in "iuf":
        raise TypeError(f"annotations must hold class indices (integers); got dtype {A.dtype}.")
    A = A.astype(np.int64)
    if (A < -1).any():
        raise ValueError("annotations must hold class indices >= 0, or -1 for no annotation; found values below -1.")
    G = np.full(A.shape[0], -1, dtype=np.int64) if gold is None else np.asarray(gold)
    if G.shape != (A.shape[0],):
        raise ValueError(f"gold must have shape ({A.shape[0]},), one entry per row (-1 = unknown); got {G.shape}.")
    if G.dtype.kind not in "iu" or (G < -1).any():
        raise ValueError("gold must hold class indices, or -1 where the true label is unknown.")
    G = G.astype(np.int64)
    empty = ~(A >= 0).any(axis=1) & (G < 0)
    if empty.any():
        raise ValueError(f"rows {np.flatnonzero(empty)[:10].tolist()} have no annotation and no gold label.")
    top = int(max(A.max(), G.max()))
    if n_classes is not None and (isinstance(n_classes, bool) or not isinstance(n_classes, Integral)):
        raise ValueError(f"n_classes must be an integer (or None); got {n_classes!r}.")
    K = top + 1 if n_classes is None else int(n_classes)
    seen = np.unique(np.r_[A[A >= 0], G[G >= 0]]).size
    if n_classes is None and K > 10 * seen + 100:
        raise ValueError(f"annotations or gold hold class {top}, far beyond the {seen} distinct classes they use; "
                         "a typo? Pass n_classes if the classes are that many.")
    need = A.shape[0] * A.shape[1] * K * 8 * 2                  # the one-hot votes and their E-step
    if need > _MAX_BYTES:
        raise ValueError(f"{A.shape[0]} rows x {A.shape[1]} annotators x {K} classes need {need / 2**30:.1f} GiB "
                         f"as a dense model; at most {_MAX_BYTES / 2**30:.0f} GiB is allowed.")
    if K < 2:
        raise ValueError(f"at least 2 classes are needed; got n_classes={K}.")
    if top >= K:
        raise ValueError(f"annotations or gold hold class {top}, but n_classes={K}.")
    return A, G, K
