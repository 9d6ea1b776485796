"""CL-SVM: the paper's naive baseline for candidate labeling sets."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from .._validation import StrOptions

from .._validation import class_weighted, keyword_only, AT_LEAST_1, POSITIVE, ROW_SCALE, row_scale_of, transactional
from .._persist import Scalar, register
from ..linear import LinearMulticlass
from ._mms import BagScoring, fit_bag_temperature, validated_input

__all__ = ["CandidateLabelSVM"]


@register
class CandidateLabelSVM(BagScoring, LinearMulticlass):
    """Candidate Labeling SVM (CL-SVM): every label any candidate gives an instance is a positive.

    The baseline of Luo & Orabona (2010), Section 4: the bags are dropped, each instance
    is a positive for every label that some candidate labeling vector assigns to it and
    a negative for the others, and one linear SVM per class is trained one-vs-rest
    (scikit-learn's :class:`~sklearn.svm.LinearSVC`, hinge = L1 loss, as the paper's
    LIBLINEAR runs).  Prediction is ``argmax_y w_y . x + b_y``.

    Parameters
    ----------
    C : float, default=1.0
        SVM cost, for rows of unit norm: LIBLINEAR gets ``C / row_scale_**2`` and an
        intercept feature of ``row_scale_`` (the fit on ``X / row_scale_``).
    loss : {"hinge", "squared_hinge"}, default="hinge"
        SVM loss; the paper's "L1-loss" is the hinge.
    fit_intercept : bool, default=True
        Learn a bias per class.
    max_iter : int, default=1000
        LIBLINEAR iterations per class.
    tol : float, default=1e-4
        LIBLINEAR's stopping tolerance.
    random_state : int, RandomState instance or None, default=None
        Seeds LIBLINEAR's coordinate order.
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
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
        For CL-SVM, an instance's weight is that of its candidate labels.

    Attributes
    ----------
    classes_, coef_ (n_classes, n_features), intercept_ (n_classes,), n_features_in_
    n_iter_ : int
        Most LIBLINEAR iterations any class took.
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel import BagCandidates
    >>> from weaklabel.bags import CandidateLabelSVM
    >>> X = np.array([[1., 0.], [0., 1.], [1., .1], [.1, 1.]])
    >>> B = BagCandidates([0, 0, 1, 2], [[[0, 1], [1, 0]], [[0]], [[1]]])
    >>> CandidateLabelSVM().fit(X, B).predict(X).tolist()
    [0, 1, 0, 1]
    """

    _parameter_constraints = {"C": [POSITIVE], "loss": [StrOptions({"hinge", "squared_hinge"})],
                              "fit_intercept": ["boolean"], "max_iter": [AT_LEAST_1], "tol": [POSITIVE],
                              "random_state": ["random_state"], "row_scale": ROW_SCALE, "probability": ["boolean"],
                              "class_weight": [dict, StrOptions({"balanced"}), None]}

    @keyword_only
    def __init__(self, *, C=1.0, loss="hinge", fit_intercept=True, max_iter=1000, tol=1e-4, random_state=None,
                 row_scale="auto", probability=False, class_weight=None):
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.row_scale = row_scale
        self.probability = probability
        self.class_weight = class_weight

    @transactional
    def fit(self, X, bags, sample_weight=None):
        """Train one SVM per class on the instances' candidate labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
            Every instance of every bag.
        bags : BagCandidates, or CandidateSets / bool mask / label lists / 1-D labels
            Bag of each row and the bags' candidate labeling vectors.
        sample_weight : array-like of shape (n_rows,), default=None
            Weight of each instance (>= 0), passed to every class's LIBLINEAR fit (it
            scales the instance's cost ``C``).

        Returns
        -------
        self
            The fitted estimator.
        """
        from .._validation import check_sample_weight

        self._validate_params()
        X, B = validated_input(self, X, bags)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        mask = B.instance_candidates().mask
        if self.class_weight is not None:                  # each instance's candidate labels
            sample_weight = class_weighted(sample_weight, mask / mask.sum(axis=1, keepdims=True), B.classes_,
                                           self.class_weight)
        scale = row_scale_of(X, self.row_scale)
        d = X.shape[1]
        W = np.zeros((d + int(self.fit_intercept), B.n_classes))
        n_iter = 0
        for k in range(B.n_classes):
            yk = mask[:, k]
            if yk.all() or not yk.any():
                if self.fit_intercept:
                    W[d, k] = 1.0 if yk.all() else -1.0
                continue
            svm = LinearSVC(C=self.C / scale ** 2, loss=self.loss, fit_intercept=self.fit_intercept,
                            intercept_scaling=scale, max_iter=self.max_iter, tol=self.tol, dual=True,
                            random_state=self.random_state)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                svm.fit(X, yk.astype(np.int8), sample_weight=sample_weight)
            n_iter = max(n_iter, int(svm.n_iter_))
            W[:d, k] = svm.coef_[0]
            if self.fit_intercept:
                W[d, k] = svm.intercept_[0]
        self._W = W
        self.classes_ = B.classes_
        self.n_iter_ = n_iter
        self.row_scale_ = scale
        self.__dict__.pop("temperature_", None)
        if self.probability:
            fit_bag_temperature(self, X, bags, sample_weight)
        return self

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_scalars = {**LinearMulticlass._saved_scalars, "n_iter": Scalar("n_iter_", "int"),
                      "row_scale": Scalar("row_scale_", "positive", True, 1.0), "temperature": Scalar("temperature_", "positive", True)}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
