"""An end model trained on a label model's output: features and votes in, a classifier out."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from .._validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._validation import transactional
from ..labels import CandidateSets
from ._label_models import PrecisionVote
from ._votes import check_memory, check_votes

__all__ = ["EndModel"]


class EndModel(ClassifierMixin, BaseEstimator):
    """Fit a label model on the votes, then a classifier on the features with its output.

    The usual last step of programmatic weak supervision (Ratner et al., *Data programming*,
    NeurIPS 2016): the label model turns the sources' votes into probabilistic labels, and
    an end model learns from the features to generalise beyond the rows the sources cover.

    Parameters
    ----------
    label_model : label model, default=None
        Any label model of :mod:`weaklabel.sources` (cloned); ``None`` means
        :class:`PrecisionVote`.
    estimator : classifier, default=None
        The end model (cloned); ``None`` means scikit-learn's
        ``LogisticRegression(max_iter=1000)``.
    target : {"weighted", "proba", "label", "candidates", "noise-aware"}, default="weighted"
        What the end model learns from:

        - ``"weighted"``: each row once per class of positive posterior, weighted by it
          (the expected log loss; any estimator whose ``fit`` takes ``sample_weight``);
        - ``"proba"``: the posteriors as soft labels (estimators whose ``fit`` takes an
          (n_samples, n_classes) ``y``, e.g. :class:`weaklabel.noisy.CorrectedLogistic`);
        - ``"label"``: the label model's most probable class;
        - ``"candidates"``: every row, with the classes its votes name as candidate set
          (every class for a row without a vote; no label model is used), for the
          partial-label learners of :mod:`weaklabel.partial`;
        - ``"noise-aware"``: the most probable class, with the end model's ``confusion``
          set to the label model's expected confusion of those labels,
          ``C[p, q] = sum_i [label_i = p] T[i, q] / sum_i T[i, q]`` (for
          :class:`weaklabel.noisy.CorrectedLogistic`'s forward correction).
    rows : {"covered", "all"}, default="covered"
        Train on the rows with at least one vote, or on all (rows without a vote then carry
        the class balance). ``"candidates"`` always uses every row.

    Attributes
    ----------
    label_model_ : fitted label model
    estimator_ : fitted end model
    classes_ : ndarray of shape (n_classes,)
        ``0 .. n_classes - 1``.
    confusion_ : ndarray of shape (n_classes, n_classes)
        With ``target="noise-aware"``: the confusion given to the end model.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import EndModel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(600, 5)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> votes = [np.where(rng.rand(600) < 0.5, np.where(rng.rand(600) < acc, y, 1 - y), -1)
    ...          for acc in (0.9, 0.8, 0.7, 0.65)]
    >>> L = np.column_stack(votes)
    >>> model = EndModel().fit(X, L)
    >>> bool(model.score(X, L) > 0.7), bool(np.mean(model.predict(X) == y) > 0.85)   # 0.77, 0.88
    (True, True)
    """

    _parameter_constraints = {
        "label_model": [HasMethods(["fit", "predict_proba"]), None],
        "estimator": [HasMethods(["fit", "predict"]), None],
        "target": [StrOptions({"weighted", "proba", "label", "candidates", "noise-aware"})],
        "rows": [StrOptions({"covered", "all"})],
    }

    def __init__(self, *, label_model=None, estimator=None, target="weighted", rows="covered"):
        self.label_model = label_model
        self.estimator = estimator
        self.target = target
        self.rows = rows

    @transactional
    def fit(self, X, y, *, n_classes=None):
        """Fit the label model on the votes ``y``, then the end model on ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : array-like of int of shape (n_samples, n_sources), or sparse matrix
            The votes (named ``y`` so that scikit-learn's model selection splits them with
            ``X``): class indices and -1 for an abstain, or a sparse matrix of ``class + 1``.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest class voted.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        votes, K = check_votes(y, n_classes=n_classes, name="y (the votes)")
        n = votes.n_rows
        if _n_rows(X) != n:
            raise ValueError(f"X has {_n_rows(X)} rows but the votes y have {n}.")
        if not votes.covered.any():
            raise ValueError("the votes y cover no row: nothing to train the end model on.")
        estimator = clone(self.estimator) if self.estimator is not None else _default_estimator()
        label_model = clone(self.label_model) if self.label_model is not None else PrecisionVote()
        label_model.fit(y, n_classes=K)
        rows = votes.covered if self.rows == "covered" else np.ones(n, dtype=bool)
        confusion = None
        if self.target == "candidates":
            check_memory(16 * n * K, f"the end model's candidate sets over {n} rows and {K} classes", K)
            S = np.zeros((n, K), dtype=bool)
            rr = np.repeat(np.arange(n), np.diff(votes.indptr))
            S[rr, votes.cls] = True
            S[~S.any(axis=1)] = True
            estimator.fit(X, CandidateSets(S, np.arange(K)))
        else:
            idx = np.flatnonzero(rows)
            T = label_model.predict_proba(y)[idx]
            Xr = _take(X, idx)
            if self.target == "weighted":
                r, c = np.nonzero(T > 0)
                # the end model scores each weighted row against every class
                check_memory(16 * r.size * K, f"the end model's fit on {r.size} weighted rows over {K} classes", K)
                estimator.fit(_take(Xr, r), c, sample_weight=T[r, c])
            elif self.target == "proba":
                estimator.fit(Xr, T)
            else:
                labels = np.argmax(T, axis=1)
                if self.target == "noise-aware":
                    hard = np.zeros((labels.size, K))
                    hard[np.arange(labels.size), labels] = 1.0
                    mass = np.maximum(T.sum(axis=0), 1e-12)
                    C = (hard.T @ T) / mass[None, :]
                    C = (C + 1e-6) / (C + 1e-6).sum(axis=0, keepdims=True)
                    if "confusion" not in estimator.get_params():
                        raise ValueError("target='noise-aware' needs an end model with a `confusion` parameter "
                                         "(weaklabel.noisy.CorrectedLogistic).")
                    estimator.set_params(confusion=C)
                    confusion = C
                estimator.fit(Xr, labels)
        self.label_model_, self.estimator_ = label_model, estimator
        if confusion is not None:
            self.confusion_ = confusion
        self.classes_ = np.arange(K)
        return self

    def predict(self, X):
        """The end model's classes for ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            The predicted classes.
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        """The end model's class probabilities for ``X``, one column per class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        P : ndarray of shape (n_samples, n_classes)
            Class probabilities.
        """
        check_is_fitted(self, "estimator_")
        P = self.estimator_.predict_proba(X)
        seen = np.asarray(getattr(self.estimator_, "classes_", self.classes_))
        if seen.size == self.classes_.size:
            return P
        out = np.zeros((P.shape[0], self.classes_.size))
        out[:, seen.astype(int)] = P
        return out

    def score(self, X, y):
        """Accuracy on true labels, as scikit-learn's classifiers score; or, given held-out
        votes instead, the end model's agreement with the fitted label model (no true label).

        With true labels ``y`` (1-D), the share of rows whose prediction is right. With votes
        (2-D, as :meth:`fit` takes them), the share of the covered rows where the end model
        predicts the label model's class: with
        :class:`~sklearn.model_selection.GridSearchCV` it selects the end model's
        hyper-parameters for a given label model without a label. Do not use the agreement
        to compare label models: a label model that always says one class would agree with
        an end model that learnt to say it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y : array-like of int of shape (n_samples,), or votes of shape (n_samples, n_sources)
            True classes, or held-out votes of the same sources (dense or sparse).

        Returns
        -------
        score : float
            Accuracy on ``y``, or the agreement on the covered rows of the votes.
        """
        check_is_fitted(self, "estimator_")
        if not sp.issparse(y) and np.ndim(y) == 1:
            return super().score(X, y)
        votes, _ = check_votes(y, n_classes=self.classes_.size, n_sources=self.label_model_.n_sources_,
                               name="y (the votes)")
        cov = votes.covered
        if not cov.any():
            raise ValueError("the held-out votes cover no row: nothing to score.")
        idx = np.flatnonzero(cov)
        reference = self.label_model_.predict(y)[idx]
        return float(np.mean(self.predict(_take(X, idx)) == reference))


def _default_estimator():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=1000)


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _take(X, idx):
    if sp.issparse(X):
        return X.tocsr()[idx]
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return np.asarray(X)[idx]
