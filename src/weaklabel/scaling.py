"""Per-feature scaling kept inside a model: :class:`FeatureScaled`.

A user's files hold features in their own units.  Every linear learner here, as in
scikit-learn, lets a feature in the thousands outweigh one in [0, 1]; scikit-learn's answer
is a ``Pipeline`` with a scaler.  :class:`FeatureScaled` is that pipeline for a single
learner with a model file: the per-feature scale is fitted on the training rows, applied
before the learner at every call, and saved with the learner in one file, so
``weaklabel predict`` and :func:`weaklabel.load` apply it too.  Both scalings divide each
column by a positive number and never centre, so sparse files stay sparse.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from ._validation import HasMethods, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._persist import EmbeddedModelFile, embedded_model, register
from ._validation import check_X_values, transactional
from ._validation import check_rows

__all__ = ["FeatureScaled"]


def _inner_has(name):
    """available_if: the method exists when the (fitted, else the given) learner has it."""
    def check(self):
        return hasattr(getattr(self, "estimator_", self.estimator), name)
    return check


@register
class FeatureScaled(EmbeddedModelFile, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A learner that sees every feature divided by a scale fitted on the training rows.

    ``fit`` computes ``scale_`` (one positive number per feature) on ``X``, then fits a clone
    of ``estimator`` on ``X / scale_``; ``predict``, ``decision_function``,
    ``predict_proba`` and ``score`` divide their ``X`` the same way.  A column that is zero on
    every training row (or holds only subnormal values) keeps scale 1.  The model file holds the learner's own model file and
    ``scale_``.

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``predict``
        The learner (any weaklabel classifier that takes rows, or a scikit-learn one).
    scaling : {"maxabs", "std"}, default="maxabs"
        ``"maxabs"``: the largest absolute value of the column (as scikit-learn's
        ``MaxAbsScaler``); ``"std"``: the column's standard deviation (as ``StandardScaler(
        with_mean=False)``).  Neither centres, so sparse input stays sparse.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    scale_ : ndarray of shape (n_features,)
        The divisor of each feature.
    classes_ : ndarray of shape (n_classes,)
        The learner's classes.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    weaklabel.calibration.SoftmaxCalibrated : The other meta-estimator with a model file.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import AvgPegasos
    >>> from weaklabel.scaling import FeatureScaled
    >>> X = np.array([[1000.0, 0.0], [0.0, 1.0], [900.0, 0.1], [100.0, 1.0]] * 5)
    >>> clf = FeatureScaled(AvgPegasos(random_state=0)).fit(X, [0, 1, 0, 1] * 5)
    >>> clf.scale_.tolist()
    [1000.0, 1.0]
    >>> clf.predict(X[:2]).tolist()
    [0, 1]
    """

    _fitted_marker = "scale_"

    _parameter_constraints = {"estimator": [HasMethods(["fit", "predict"])],
                              "scaling": [StrOptions({"maxabs", "std"})]}

    def __init__(self, estimator, *, scaling="maxabs"):
        self.estimator = estimator
        self.scaling = scaling

    def _check(self, X, reset):
        check_X_values(X)
        return check_rows(self, X, reset=reset)

    def _scaled(self, X):
        with np.errstate(over="ignore"):
            out = (X @ sp.diags(1.0 / self.scale_)).tocsr() if sp.issparse(X) else X / self.scale_
        values = out.data if sp.issparse(out) else out
        if not np.isfinite(values).all():
            bad = np.isinf(out.toarray() if sp.issparse(out) else out)
            i, j = (int(v[0]) for v in np.nonzero(bad))
            raise ValueError(f"X[{i}, {j}] = {X[i, j]:g} divided by feature {j}'s scale {self.scale_[j]:g} (fitted on "
                             "the training rows) overflows; that feature is far larger here than in training.")
        return out

    @transactional
    def fit(self, X, y, **fit_params):
        """Fit the scale on ``X``, then the learner on ``X / scale_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : weak labels
            Whatever the learner's ``fit`` takes (candidate sets, bandit feedback, noisy
            labels, bags, ...).
        **fit_params : dict
            Passed to the learner's ``fit`` (e.g. ``sample_weight``).

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        X = self._check(X, reset=True)
        if sp.issparse(X):
            if self.scaling == "maxabs":
                scale = np.asarray(abs(X).max(axis=0).todense()).ravel()
            else:
                mean = np.asarray(X.mean(axis=0)).ravel()
                sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
                scale = np.sqrt(np.maximum(sq - mean * mean, 0.0))
        else:
            scale = np.abs(X).max(axis=0) if self.scaling == "maxabs" else X.std(axis=0)
        scale = np.asarray(scale, dtype=np.float64)
        scale[~(scale >= np.finfo(np.float64).tiny)] = 1.0    # zero (or subnormal: 1 / scale overflows) columns
        self.scale_ = scale
        self.estimator_ = clone(self.estimator).fit(self._scaled(X), y, **fit_params)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        """The learner's predictions on ``X / scale_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted classes.
        """
        check_is_fitted(self, "scale_")
        return self.estimator_.predict(self._scaled(self._check(X, reset=False)))

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        """The learner's class scores on ``X / scale_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes)
            The learner's ``decision_function``.
        """
        check_is_fitted(self, "scale_")
        return self.estimator_.decision_function(self._scaled(self._check(X, reset=False)))

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        """The learner's class probabilities on ``X / scale_`` (learners that have them; for
        the others, wrap the learner in :class:`~weaklabel.calibration.SoftmaxCalibrated`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The learner's ``predict_proba``.
        """
        check_is_fitted(self, "scale_")
        return self.estimator_.predict_proba(self._scaled(self._check(X, reset=False)))

    def score(self, X, y, sample_weight=None):
        """The learner's own score on ``(X / scale_, y)`` (on weak labels where it takes them).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows.
        y : labels or weak labels
            What the learner's ``score`` takes.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights.

        Returns
        -------
        score : float
            The learner's score.
        """
        check_is_fitted(self, "scale_")
        return self.estimator_.score(self._scaled(self._check(X, reset=False)), y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ---- model files (save and the estimator's round trip: EmbeddedModelFile) ----
    @classmethod
    def _declared_state(cls, params, state, shapes):
        return {"estimator_file": ("u", (None,), True), "scale": ("f", (None,), True)}

    def _state_arrays(self):
        return {"estimator_file": self._embedded_file(), "scale": self.scale_}

    def _state_meta(self):
        return {}

    def _set_state(self, arrays, meta):
        est = embedded_model(arrays)
        scale = np.ascontiguousarray(arrays["scale"], dtype=np.float64)
        if scale.ndim != 1 or not (np.isfinite(scale).all() and (scale >= np.finfo(np.float64).tiny).all()
                                   and (scale < 1e150).all()):
            raise ValueError("the feature scales must be positive finite numbers, as a fit leaves them")
        n = getattr(est, "n_features_in_", scale.size)
        if scale.size != n:
            raise ValueError(f"the model file holds {scale.size} feature scales for a learner of {n} features")
        self.estimator_, self.scale_, self.classes_ = est, scale, est.classes_
        self.n_features_in_ = int(scale.size)
