"""PL-KNN, nearest neighbours voting over candidate sets (Hüllermeier & Beringer, 2006)."""

from __future__ import annotations

from ..labels import candidate_set_score
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from .._validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, Sparse, register
from .._validation import check_partial_fit_classes, keyword_only, check_X, check_X_values, transactional
from ..labels import CandidateSets, check_candidates
from .._validation import check_rows

__all__ = ["PLKNN"]


@register
class PLKNN(SavesModel, ClassifierMixin, BaseEstimator):
    """The k nearest neighbours' vote, from candidate label sets.

    Hüllermeier & Beringer, "Learning from ambiguously labeled examples", Intelligent
    Data Analysis 10(5), 2006: a query takes the label named by most candidate sets of its
    ``k`` nearest training rows, ``argmax_a sum_{i in N_k(x)} w_i [a in S_i]``, each
    neighbour voting with weight ``w_i`` (1, or the inverse of its distance).  Ties go to
    the label with the larger vote of the nearest neighbour, then to the first class.

    Parameters
    ----------
    n_neighbors : int, default=10
        The neighbours that vote.
    weights : {"uniform", "distance"}, default="distance"
        A neighbour's vote: 1, or ``1 / distance`` (a training row at distance 0 out-votes
        the others).
    metric : str, default="minkowski"
        Any metric of :class:`sklearn.neighbors.NearestNeighbors` (``p=2``: Euclidean).
    classes : array-like, default=None
        Every class; ``None``: the labels ``fit`` sees.

    Attributes
    ----------
    classes_, n_features_in_
    n_samples_fit_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from weaklabel.simulate import make_candidate_sets
    >>> X, y = load_digits(return_X_y=True)
    >>> S = make_candidate_sets(y, 3, random_state=0)
    >>> from weaklabel.partial import PLKNN
    >>> clf = PLKNN(n_neighbors=10).fit(X[:1400], S[:1400])
    >>> round(clf.score(X[1400:], y[1400:]), 2) > 0.9
    True
    """

    score = candidate_set_score       # the fraction of predictions inside the candidate sets

    _parameter_constraints = {"n_neighbors": [Interval(Integral, 1, None, closed="left")],
                              "weights": [StrOptions({"uniform", "distance"})], "metric": [str],
                              "classes": ["array-like", None]}

    @keyword_only
    def __init__(self, *, n_neighbors=10, weights="distance", metric="minkowski", classes=None):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.classes = classes

    @transactional
    def fit(self, X, y):
        """Store the training rows and their candidate sets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
            Their candidate sets.

        Returns
        -------
        self
            The fitted estimator.
        """
        return self._store(X, y, self.classes)

    def _store(self, X, y, classes):
        from sklearn.neighbors import NearestNeighbors

        self._validate_params()
        X = check_X(self, X, reset=True)
        n = X.shape[0]
        S, classes = check_candidates(y, n, classes)           # no empty set (check_candidates)
        self._nn = NearestNeighbors(n_neighbors=min(self.n_neighbors, n), metric=self.metric).fit(X)
        self._X = X
        self._S = S.astype(np.float64)
        self.classes_ = classes
        self.n_samples_fit_ = n
        return self

    @transactional
    def partial_fit(self, X, y, classes=None):
        """Add rows and their candidate sets to the stored ones (exact: the model equals a
        ``fit`` on every row added so far, in the same order).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New training rows.
        y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
            Their candidate sets.
        classes : array-like, default=None
            Every class; required on the first call unless ``self.classes`` or ``y``
            (a CandidateSets or a mask) gives them.  Later calls may repeat them.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        from sklearn.neighbors import NearestNeighbors

        first = not hasattr(self, "classes_")
        carried = self.classes is not None or isinstance(y, CandidateSets) or (
            isinstance(y, np.ndarray) and y.dtype == bool and y.ndim == 2)
        wanted = check_partial_fit_classes(self, classes, first=first, given_by_y=carried)
        if first:
            return self._store(X, y, wanted if wanted is not None else self.classes)
        X = check_X(self, X, reset=False)
        S, _ = check_candidates(y, X.shape[0], self.classes_)
        if sp.issparse(X) != sp.issparse(self._X):
            X = sp.csr_matrix(X) if sp.issparse(self._X) else X.toarray()
        X_all = sp.vstack([self._X, X], format="csr") if sp.issparse(X) else np.vstack([self._X, X])
        n = X_all.shape[0]
        self._nn = NearestNeighbors(n_neighbors=min(self.n_neighbors, n), metric=self.metric).fit(X_all)
        self._X = X_all
        self._S = np.vstack([self._S, S.astype(np.float64)])
        self.n_samples_fit_ = n
        return self

    def _votes(self, X):
        check_is_fitted(self, "classes_")
        check_X_values(X)
        X = check_rows(self, X)
        dist, idx = self._nn.kneighbors(X)
        if self.weights == "uniform":
            w = np.ones_like(dist)
        else:
            with np.errstate(divide="ignore"):
                w = 1.0 / dist
            exact = np.isinf(w)
            rows = exact.any(axis=1)
            w[rows] = exact[rows].astype(np.float64)         # rows at distance 0 take the vote alone
        votes = np.einsum("qk,qkc->qc", w, self._S[idx])
        # ties: a tiny share of the nearest neighbour's vote, then the first class (argmax)
        return votes + 1e-9 * self._S[idx[:, 0]]

    def predict_proba(self, X):
        """Return the share of the (weighted) votes each class gets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Vote shares, columns in the order of ``classes_``.
        """
        v = self._votes(X)
        return v / v.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Return the label with the most votes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        check_is_fitted(self, "classes_")
        return self.classes_[np.argmax(self._votes(X), axis=1)]

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    # (the training rows, dense or CSR, and their candidate sets: what predict reads)
    _saved_arrays = {"X": Sparse("_X", lambda est: est.n_features_in_), "S": "_S", "classes": "classes_"}
    _saved_scalars = {"n_features_in": Scalar("n_features_in_", "int"), "n_samples_fit": Scalar("n_samples_fit_", "int")}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count, length

        n, d, K = count(state, "n_samples_fit"), count(state, "n_features_in"), length(shapes, "classes")
        spec = {"S": ("bf", (n, K), True), "classes": ("*", (K,), True)}
        if "X" in shapes:
            spec["X"] = ("f", (n, d), True)
        else:
            nnz = length(shapes, "X_indices")
            spec.update(X_data=("f", (nnz,), True), X_indices=("iu", (nnz,), True), X_indptr=("iu", (n + 1,), True))
        return spec

    def _restored(self, loaded):
        from sklearn.neighbors import NearestNeighbors

        n, S = self.n_samples_fit_, self._S.astype(bool)
        if not S.any(axis=1).all():
            raise ValueError("a PL-KNN model needs a non-empty candidate set per row")
        self._nn = NearestNeighbors(n_neighbors=min(self.n_neighbors, n), metric=self.metric).fit(self._X)
        self._S = S.astype(np.float64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
