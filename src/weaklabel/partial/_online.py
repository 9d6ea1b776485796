"""Online learners from candidate label sets (Bhattacharjee & Manwani).

Avg/Max Perceptron and Avg/Max Pegasos learn from candidate sets; Perceptron and
Pegasos are the exact-label baselines the paper compares against.  All are thin
estimators over one numba kernel (:mod:`weaklabel.partial._kernels`).
"""

from __future__ import annotations


import numpy as np

from ..labels import candidate_set_score
from .._validation import read_only
from .._validation import check_partial_fit_classes, transactional, AT_LEAST_1, POSITIVE, ROW_SCALE, describe_rows
from ..calibration import fit_out_of_fold_temperature
from ..labels import CandidateSets, check_candidates
from .._online import EARLY_STOPPING_CONSTRAINTS, OnlineLinear, Rule, Target
from .._persist import register
from ..linear import _weights_layout
from ._kernels import RULE_AVG, RULE_MAX, RULE_MISTAKE, _candidate_epoch, _folded_squared_norm

__all__ = ["AvgPerceptron", "MaxPerceptron", "AvgPegasos", "MaxPegasos", "Perceptron", "Pegasos"]

class _OnlineCandidateLearner(OnlineLinear):
    """Shared machinery: validation, fresh/continued state, epochs over the kernel."""

    score = candidate_set_score       # the fraction of predictions inside the candidate sets

    _kind = RULE_AVG
    _pegasos = False
    _exact_labels = False

    _parameter_constraints = {"max_iter": [AT_LEAST_1], "shuffle": ["boolean"], "random_state": ["random_state"],
                              "fit_intercept": ["boolean"], **EARLY_STOPPING_CONSTRAINTS}

    @transactional
    def fit(self, X, y, sample_weight=None):
        """Learn from scratch: ``max_iter`` passes over ``(X, y)``, weights start at 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples, visited in this order unless ``shuffle=True``.
        y : CandidateSets, bool mask (n_samples, n_classes), list of label lists, or 1-D labels
            Candidate label set of each sample (1-D labels are singleton sets).
        sample_weight : array-like of shape (n_samples,), default=None
            Importance weight of each sample (>= 0): its step is multiplied by it, as in
            scikit-learn's SGD and Vowpal Wabbit; 0 makes its round a round without a step.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._online_call(X, y, None, reset=True, sample_weight=sample_weight)
        if self.probability:
            fit_out_of_fold_temperature(self, X, y, sample_weight)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over ``(X, y)``, continuing from the current weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples of this round of learning, in stream order.
        y : CandidateSets, bool mask, list of label lists, or 1-D labels
            Candidate label set of each sample (1-D labels are singleton sets).
        classes : array-like of shape (n_classes,), default=None
            Every class. Required on the first call unless ``y`` is a CandidateSets
            or a mask (whose width gives the classes ``0 .. n_classes-1``).
        sample_weight : array-like of shape (n_samples,), default=None
            Importance weight of each sample (>= 0): its step is multiplied by it, as in
            scikit-learn's SGD and Vowpal Wabbit; 0 makes its round a round without a step.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        return self._online_call(X, y, classes, reset=False, sample_weight=sample_weight)

    # ---- the engine's hooks ------------------------------------------------------------
    def _init_state(self, n_cols):
        self._scale, self._normsq = 1.0, 0.0

    def _encode_target(self, X, y, classes, first, reset):
        """Any accepted candidate-set form -> a bool mask over ``classes_``."""
        wanted = check_partial_fit_classes(self, classes, first=first,
                                           given_by_y=first and (reset or _carries_classes(y)))
        S, classes_ = check_candidates(y, X.shape[0], wanted)
        if first and classes_.size < 2:                 # as every other learner, and scikit-learn's
            raise ValueError(f"{type(self).__name__} needs at least 2 classes; got 1 class {classes_.tolist()}.")
        if self._exact_labels:
            multi = np.flatnonzero(S.sum(axis=1) > 1)
            if multi.size:
                raise ValueError(
                    f"{type(self).__name__} learns from exact labels, but y has candidate sets with more "
                    f"than one label at rows {describe_rows(multi)}; use Avg/Max{type(self).__name__} "
                    "for candidate sets."
                )
        return _Candidates(S), classes_

    def _rule_params(self):
        """The update rule as the kernel reads it, one value: ``(rule, pegasos, eta, alpha)``."""
        eta = 1.0 if self._pegasos else float(self.eta)
        alpha = float(self.alpha) * self.row_scale_ ** 2 if self._pegasos else 1.0
        return (self._kind, self._pegasos, eta, alpha)

    def _rule(self, X):
        return _PEGASOS_RULE if self._pegasos else _PERCEPTRON_RULE

    def _epoch(self, rows, order, enc, hist, sw):
        dense = rows.is_dense
        W, = _weights_layout(self, ("_W",), dense)          # class-major for dense rows: no copy a pass
        self._scale, self._normsq, t, nu = _candidate_epoch(
            (W, dense), (self._scale, self._normsq, float(self.t_)), tuple(rows), read_only(enc.S), order,
            self._rule_params(), hist["predictions"], sw)
        self.t_ = int(t)
        return nu

    def _finish_epochs(self):
        """Pegasos after the epochs: the lazy scale folded back, so ``coef_`` holds the true
        weights after every call, and their squared norm, which is finite exactly when they
        are (the projection keeps it at most 1 / alpha): the engine's check reads it instead
        of summing the weights.  (The Perceptrons keep no scale.)"""
        self._normsq = self._weights_normsq(self._scale)
        self._scale = 1.0
        return self._normsq

    def _weights_normsq(self, scale=1.0):
        """||W||^2 from the weights themselves, after ``scale`` is folded into them, which
        Pegasos keeps up to date within a pass (the Perceptrons do not read it: 0).  The state
        after a call is then a function of W alone, so a saved and loaded model continues bit
        for bit as the original does.
        """
        if not self._pegasos:
            return 0.0
        W = self._W                  # the same value whatever the layout (see _squared_norm)
        if W.flags.f_contiguous and not W.flags.c_contiguous:
            return float(_folded_squared_norm(W.T, True, scale))
        if not W.flags.c_contiguous:
            W = self._W = np.ascontiguousarray(W)
        return float(_folded_squared_norm(W, False, scale))

    def _restored(self, loaded):
        super()._restored(loaded)
        # a model file or parameter mixing hands over true weights: no lazy scale, and
        # Pegasos' squared norm from them
        self._scale = 1.0
        self._normsq = self._weights_normsq()


# _candidate_epoch reads rows.limits; Pegasos keeps the weights times a lazy scale, folded
# back after the epochs (its squared norm then proves them finite)
_PERCEPTRON_RULE = Rule(_OnlineCandidateLearner._epoch, checks_rows=True)
_PEGASOS_RULE = Rule(_OnlineCandidateLearner._epoch, checks_rows=True, finish=_OnlineCandidateLearner._finish_epochs)


class _Candidates(Target):
    """The candidate sets of a call, a bool mask over ``classes_`` (the kernel reads ``S``)."""

    __slots__ = ("S",)

    def __init__(self, S):
        self.S = S

    def class_shares(self, n, K):
        return self.S / self.S.sum(axis=1, keepdims=True)

    def accepted(self, rows, pred):
        return self.S[rows, pred]


def _carries_classes(y):
    if isinstance(y, CandidateSets):
        return True
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] > 1:
        return True
    return False


@register
class AvgPerceptron(_OnlineCandidateLearner):
    """Avg Perceptron: online learning from candidate label sets (Algorithm 1).

    With scores ``s_k = w_k . x``, candidate set ``Y`` and the rest ``Ybar``, a round
    whose average prediction hinge loss
    ``[1 - mean_{i in Y} s_i + max_{j in Ybar} s_j]_+`` is positive updates
    ``w_i += eta x / |Y|`` for every ``i`` in ``Y`` and ``w_j -= eta x`` for the best
    ``j`` in ``Ybar``.  The step is ``1/|Y|`` as in the paper's Eq. 4 and its proofs
    (Algorithm 1 prints ``1/|Ybar|``).  A set holding every class has zero loss.

    Parameters
    ----------
    eta : float, default=1.0
        Step size (> 0).
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import AvgPerceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    >>> S = [[0, 2], [1, 2], [0], [1]]
    >>> clf = AvgPerceptron(max_iter=5).fit(X, S)
    >>> clf.predict([[1.0, 0.0], [0.0, 1.0]]).tolist()
    [0, 1]
    """

    _kind = RULE_AVG
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "eta": [POSITIVE]}

    def __init__(self, *, eta=1.0, max_iter=20, shuffle=True, random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.eta = eta
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability


@register
class MaxPerceptron(_OnlineCandidateLearner):
    """Max Perceptron: online learning from candidate label sets (Algorithm 2).

    A round whose max prediction hinge loss
    ``[1 - max_{i in Y} s_i + max_{j in Ybar} s_j]_+`` is positive updates
    ``w_ibest += eta x`` and ``w_jbest -= eta x`` (the best-scoring candidate and
    the best-scoring non-candidate, ties to the lowest index).

    Parameters
    ----------
    eta : float, default=1.0
        Step size (> 0).
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import MaxPerceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> MaxPerceptron(max_iter=3).fit(X, [[0, 2], [1]]).predict(X).tolist()
    [0, 1]
    """

    _kind = RULE_MAX
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "eta": [POSITIVE]}

    def __init__(self, *, eta=1.0, max_iter=20, shuffle=True, random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.eta = eta
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability


@register
class AvgPegasos(_OnlineCandidateLearner):
    """Avg Pegasos: Pegasos on the average prediction hinge loss (Algorithm 3).

    Round ``t = 1, 2, ...`` (counted over all rounds since the weights were zero):
    ``eta_t = 1/(alpha t)``; ``W <- (1 - eta_t alpha) W - eta_t G`` with ``G`` the
    subgradient of the average prediction hinge loss (zero when the loss is zero:
    the shrink happens every round, as the regret analysis assumes); then
    ``W <- min(1, (1/sqrt(alpha)) / ||W||_F) W``.

    Parameters
    ----------
    alpha : float, default=1e-4
        The paper's lambda (> 0): L2 regularisation strength, for rows of unit norm.  The
        rounds use ``alpha * row_scale_**2`` on ``X`` as it is, which is ``alpha`` on
        ``X / row_scale_``.  The step is ``1/(alpha t)``, so a smaller ``alpha`` needs
        more rounds.
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import AvgPegasos
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 5)
    >>> AvgPegasos(alpha=0.1).fit(X, [[0, 2], [1, 2]] * 5).predict(X[:2]).tolist()
    [0, 1]
    """

    _kind = RULE_AVG
    _pegasos = True
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "alpha": [POSITIVE],
                              "row_scale": ROW_SCALE}

    def __init__(self, *, alpha=1e-4, row_scale="auto", max_iter=20, shuffle=True, random_state=None,
                 fit_intercept=False, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3,
                 verbose=0, class_weight=None, probability=False):
        self.alpha = alpha
        self.row_scale = row_scale
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability


@register
class MaxPegasos(_OnlineCandidateLearner):
    """Max Pegasos: Pegasos on the max prediction hinge loss (Algorithm 4).

    As :class:`AvgPegasos`, with the subgradient of
    ``[1 - max_{i in Y} s_i + max_{j in Ybar} s_j]_+``.

    Parameters
    ----------
    alpha : float, default=1e-4
        The paper's lambda (> 0), for rows of unit norm (see :class:`AvgPegasos`).
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import MaxPegasos
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 5)
    >>> MaxPegasos(alpha=0.1).fit(X, [[0, 2], [1, 2]] * 5).predict(X[:2]).tolist()
    [0, 1]
    """

    _kind = RULE_MAX
    _pegasos = True
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "alpha": [POSITIVE],
                              "row_scale": ROW_SCALE}

    def __init__(self, *, alpha=1e-4, row_scale="auto", max_iter=20, shuffle=True, random_state=None,
                 fit_intercept=False, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3,
                 verbose=0, class_weight=None, probability=False):
        self.alpha = alpha
        self.row_scale = row_scale
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability


@register
class Perceptron(_OnlineCandidateLearner):
    """Multiclass Perceptron on exact labels (the paper's baseline).

    Predict ``yhat = argmax_k s_k``; on a mistake (``yhat != y``):
    ``w_y += eta x`` and ``w_yhat -= eta x``.  ``y`` must be exact labels
    (singleton sets); candidate sets of more than one label are an error.

    Parameters
    ----------
    eta : float, default=1.0
        Step size (> 0); with zero initial weights it only rescales the weights.
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import Perceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> Perceptron(max_iter=2).fit(X, [0, 1]).predict(X).tolist()
    [0, 1]
    """

    _kind = RULE_MISTAKE
    _exact_labels = True
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "eta": [POSITIVE]}

    def __init__(self, *, eta=1.0, max_iter=20, shuffle=True, random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.eta = eta
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability


@register
class Pegasos(_OnlineCandidateLearner):
    """Multiclass Pegasos on exact labels (the paper's baseline).

    The same rounds as :class:`AvgPegasos` with singleton sets: the multiclass hinge
    loss ``[1 - s_y + max_{j != y} s_j]_+``.  ``y`` must be exact labels.

    Parameters
    ----------
    alpha : float, default=1e-4
        The paper's lambda (> 0), for rows of unit norm (see :class:`AvgPegasos`).
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
    max_iter : int, default=20
        Passes over the data in ``fit`` (``partial_fit`` makes one).  The paper's
        protocol is one pass in the data's order (``max_iter=1, shuffle=False``, the
        reproductions' setting; ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the samples in a new random order at every pass of ``fit``;
        ``partial_fit`` always keeps the order it is given, as an online stream.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none); its weights are ``intercept_``.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows in ``fit`` and stop the passes when the
        held-out score (the share of held-out predictions their weak labels accept) has not
        improved by ``tol`` for ``n_iter_no_change`` passes in a row.  The held-out rows are
        not learnt from; ``validation_scores_`` records the score after each pass.
        ``partial_fit`` makes one pass and ignores it.
    validation_fraction : float, default=0.1
        Share of the rows held out when ``early_stopping`` is on, in (0, 1).
    n_iter_no_change : int, default=5
        Passes without an improvement of at least ``tol`` before stopping.
    tol : float, default=1e-3
        The smallest gain of the held-out score that counts as an improvement (>= 0).
    verbose : int, default=0
        Print a line after each pass of ``fit`` (updates, and the held-out score).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying a row's step (with its ``sample_weight``): a row
        of exact label ``k`` takes ``class_weight[k]``, a candidate set the mean weight of
        its candidates.  ``"balanced"``: ``n / (K n_k)`` with ``n_k`` the rows of class
        ``k`` (a candidate set counts ``1/|S|`` for each of its candidates), computed on the
        rows of each call.  Classes absent from a dict weigh 1.  Not for a log of bandit
        feedback (its rows' classes are unknown).
    probability : bool, default=False
        Also fit a temperature ``temperature_`` so that ``predict_proba`` gives
        ``softmax(decision_function(X) / temperature_)``: after ``fit`` on every row, as
        scikit-learn's ``SVC(probability=True)`` does with Platt scaling, the temperature
        maximises the likelihood of the weak labels (the candidate set's mass, or the
        label's) of out-of-fold scores from 5 fits on four fifths of the rows each (so
        ``fit`` costs about 5 times more), rescaled by the ratio of the final model's score
        spread to theirs.  ``partial_fit``, where the learner has it, keeps the
        temperature of the last ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes.
    coef_ : ndarray of shape (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts (zeros unless ``fit_intercept=True``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    t_ : int
        The next round number (1 + rounds seen since the weights were zero).
    n_iter_ : int
        Passes made since the weights were zero.
    n_updates_ : int
        Rounds with a non-zero loss (an update) since the weights were zero.
    predictions_ : ndarray of shape (n_rounds,)
        Progressive predictions of the last ``fit``/``partial_fit`` call: the label
        predicted at each round before that round's update.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each of those rounds (the data order unless ``shuffle``).
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.partial import Pegasos
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 5)
    >>> Pegasos(alpha=0.1).fit(X, [0, 1] * 5).predict(X[:2]).tolist()
    [0, 1]
    """

    _kind = RULE_AVG
    _exact_labels = True
    _pegasos = True
    _parameter_constraints = {**_OnlineCandidateLearner._parameter_constraints, "alpha": [POSITIVE],
                              "row_scale": ROW_SCALE}

    def __init__(self, *, alpha=1e-4, row_scale="auto", max_iter=20, shuffle=True, random_state=None,
                 fit_intercept=False, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3,
                 verbose=0, class_weight=None, probability=False):
        self.alpha = alpha
        self.row_scale = row_scale
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight
        self.probability = probability
