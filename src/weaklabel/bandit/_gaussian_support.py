"""Gaussian-kernel features over a support set: the CSPA paper's nonlinear model."""

from __future__ import annotations


import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, register
from .._validation import keyword_only, AT_LEAST_1, POSITIVE, check_memory, check_X, transactional

__all__ = ["GaussianSupport"]

#: kernel values below exp(-200) ~ 1e-87 are set to 0: they carry nothing and their
#: squares underflow (the learners reject such entries)
_LOG_FLOOR = -200.0


def _flushed_exp(a):
    """exp(a) in place, with entries below exp(_LOG_FLOOR) set to exactly 0."""
    small = a < _LOG_FLOOR
    np.exp(a, out=a)
    a[small] = 0.0
    return a


@register
class GaussianSupport(SavesModel, TransformerMixin, BaseEstimator):
    """Map ``x`` to ``[exp(-||x - b_j||^2 / g)]_j`` over the first ``n_support`` training rows,
    scaled to unit length.

    The CSPA paper's Section 5.2.2 model ``f(x) = argmax_i sum_j w_ij k(x, b_j)``: a linear
    learner on these features is the kernel learner restricted to the support set
    ``B``.  ``fit`` keeps the first ``n_support`` rows of ``X`` (all of them when there
    are fewer, as the paper does with Vowel's 528), so put it first in a Pipeline::

        make_pipeline(GaussianSupport(g=1.0), CSPA(beta=0.5))

    Parameters
    ----------
    n_support : int, default=700
        Size of the support set ``B``.
    g : float, default=1.0
        Kernel width (> 0): ``k(x, b) = exp(-||x - b||^2 / g)``.
    center : bool, default=False
        Subtract the mean feature vector of the support set, ``mean_{b' in B} k(b', b_j)``,
        from every output (known before the stream starts, so still online).  Not in the
        paper; on unit-norm rows it does not help (the ``cspa-kernel`` reproduction
        measures it).
    normalize : bool, default=True
        Scale every output row to unit Euclidean norm (after centring), as the paper
        normalises every feature vector it feeds the learners; CSPA's analysis assumes
        ``||x_t|| = R``.  Without it, rows far from the support set have tiny norms and
        the passive-aggressive steps are badly scaled (the bandit reproduction page shows
        the cost).  A row whose features are all zero stays zero.

    Attributes
    ----------
    support_ : ndarray of shape (n_support, n_features)
        The support set (dense).
    n_support_ : int
        Its size: ``min(n_support, n_samples)``.
    offset_ : ndarray of shape (n_support,)
        What ``transform`` subtracts: the support set's mean features if ``center``, else 0.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import GaussianSupport
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> GaussianSupport(n_support=2, g=1.0, normalize=False).fit(X).transform(X).round(3).tolist()
    [[1.0, 0.368], [0.368, 1.0], [0.018, 0.007]]
    >>> GaussianSupport(n_support=2, g=1.0).fit(X).transform(X).round(3).tolist()
    [[0.939, 0.345], [0.345, 0.939], [0.939, 0.345]]
    """

    _fitted_marker = "support_"

    _parameter_constraints = {"n_support": [AT_LEAST_1], "g": [POSITIVE], "center": ["boolean"],
                              "normalize": ["boolean"]}

    @keyword_only
    def __init__(self, *, n_support=700, g=1.0, center=False, normalize=True):
        self.n_support = n_support
        self.g = g
        self.center = center
        self.normalize = normalize

    @transactional
    def fit(self, X, y=None):
        """Keep the first ``n_support`` rows of ``X`` as the support set.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : ignored
            Not used; present for the scikit-learn API.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        X = check_X(self, X, reset=True)
        B = X[: self.n_support]
        check_memory(8 * B.shape[0] * B.shape[1], f"the support set of {B.shape[0]} rows x {B.shape[1]:,} features "
                     "(kept dense)", " Is X as wide as it should be (a sparse matrix's shape, a hashed feature index)?")
        B = B.toarray() if sp.issparse(B) else np.array(B, dtype=np.float64)
        self.support_ = np.asarray(B, dtype=np.float64)
        self.n_support_ = self.support_.shape[0]
        self._support_sq = np.einsum("ij,ij->i", self.support_, self.support_)
        self.offset_ = np.zeros(self.n_support_)
        if self.center:
            self.offset_ = self._kernel(self.support_).mean(axis=0)
        return self

    def transform(self, X):
        """Kernel features ``exp(-||x - b_j||^2 / g)`` (minus ``offset_``; unit norm rows
        if ``normalize``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        K : ndarray of shape (n_samples, n_support)
            The features.
        """
        check_is_fitted(self, "support_")
        X = check_X(self, X, reset=False)
        logk = self._log_kernel(X)
        if self.normalize and not self.center:
            # unit norm in log space: exp(a - max a) / ||exp(a - max a)|| keeps the direction
            # of rows far from every support point, whose raw features all underflow
            logk -= logk.max(axis=1, keepdims=True)
        out = _flushed_exp(logk)
        if self.center:
            out -= self.offset_
        if self.normalize:
            norms = np.sqrt(np.einsum("ij,ij->i", out, out))
            out /= np.where(norms > 0, norms, 1.0)[:, None]
        return out

    def _kernel(self, X):
        return _flushed_exp(self._log_kernel(X))

    def _log_kernel(self, X):
        if sp.issparse(X):
            x_sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
            cross = np.asarray(X @ self.support_.T)
        else:
            X = np.asarray(X, dtype=np.float64)
            x_sq = np.einsum("ij,ij->i", X, X)
            cross = X @ self.support_.T
        d2 = x_sq[:, None] + self._support_sq[None, :] - 2.0 * cross
        np.maximum(d2, 0.0, out=d2)
        d2 *= -1.0 / float(self.g)
        return d2


    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count

        return {"support": ("f", (None, count(state, "n_features_in")), True),
                "offset": ("f", (shapes.get("support", (-1,))[0],), True)}

    _saved_arrays = {"support": "support_", "offset": "offset_"}
    _saved_scalars = {"n_features_in": Scalar("n_features_in_", "int")}

    def _restored(self, loaded):
        B = self.support_
        if not 1 <= B.shape[0] <= self.n_support:
            raise ValueError(f"a support set of {B.shape[0]} points does not fit n_support={self.n_support}")
        if not self.center and self.offset_.any():
            raise ValueError("offset must be 0 without center, as fit leaves it")
        self.n_support_ = B.shape[0]
        self._support_sq = np.einsum("ij,ij->i", B, B)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
