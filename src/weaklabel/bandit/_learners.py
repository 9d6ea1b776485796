"""Online multiclass learners from bandit (one-bit) feedback.

CSPA (Kaneko, Sato & Sugiyama) and the methods it is compared with: SPA (full
feedback), Banditron, BPA and Confidit.  Every learner is a thin estimator over a
numba kernel in :mod:`weaklabel.bandit._kernels`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import read_only
from .._validation import transactional, Interval, StrOptions

from .._validation import (check_class_labels, check_partial_fit_classes, AT_LEAST_1, NON_NEGATIVE, POSITIVE, ROW_SCALE, UNIT_OPEN, _classes_array,
                           _labels_to_index)
from ..calibration import fit_out_of_fold_temperature
from .._online import EARLY_STOPPING_CONSTRAINTS, Fitted, OnlineLinear, Rule, Target
from .._persist import register
from ..linear import _weights_layout, with_intercept
from ._kernels import (RULE_BANDITRON, RULE_BPA, RULE_CSPA, RULE_PASSES, RULE_SPA, BanditRule,
                       _confidit_diag_dense_pass, _confidit_pass, _sketched_confidit_pass)
from .._validation import EvenInt, check_rows

__all__ = ["CSPA", "SPA", "Banditron", "BPA", "Confidit", "SketchedConfidit"]

#: the per-round history a bandit pass writes (the engine keeps each as an attribute, name + "_")
_HISTORY = ("predictions", "proposals", "correct", "propensities")

class _BanditLearner(OnlineLinear):
    """Shared machinery: validation, fresh/continued state, oracle and logged passes."""

    #: whether the learner explores (Banditron, BPA: a draw of ``gamma``'s distribution a round)
    _explores = False
    _kind = RULE_SPA
    #: whether a log's propensities reach the kernel (Banditron's off-policy weighting)
    _reads_propensities = False
    #: whether the kernel averages the weights (Banditron with ``average=True``)
    _averages = False

    def _rule_params(self):
        """The pass rule as the kernel reads it, one value: the rule, CSPA's beta, the
        exploration rate and BPA's margin when right (each subclass sets its own).
        """
        return BanditRule(self._kind, 1.0, float(self.gamma) if self._explores else 0.0, 1.0)

    # ---- public API ---------------------------------------------------------------
    @transactional
    def fit(self, X, y, sample_weight=None):
        """Learn from scratch, with ``y`` as the oracle of the learner's own proposals.

        Each round the learner proposes a label for the row and learns only whether
        ``y`` agrees (SPA, the full-feedback baseline, learns from ``y`` itself).
        Weights start at 0; ``max_iter`` passes are made.  Given a logged
        :class:`weaklabel.BanditFeedback` (or a :class:`~weaklabel.bandit.logs.BanditLog`, read
        by :meth:`BanditLog.feedback <weaklabel.bandit.logs.BanditLog.feedback>`: its actions and
        whether each earned the larger reward) instead, the weights start at 0 and the log
        is learnt as :meth:`partial_fit_feedback` does, ``max_iter`` passes in its order;
        the classes are those proposed in the log.  A log's propensities are read by
        Banditron (see ``propensity_clip``); the other rules apply themselves to the
        logged proposals (``sample_weight`` weights the rounds).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples, visited in this order unless ``shuffle=True``.
        y : array-like of shape (n_samples,), BanditFeedback or BanditLog
            True labels, used only to answer "was the proposal right?"; or a log.
        sample_weight : array-like of shape (n_samples,), default=None
            Importance weight of each round (>= 0): its step is multiplied by it, as in
            Vowpal Wabbit; 0 is a round without a step.  Confidit's update becomes weighted
            least squares (``A += v x x^T``, the target ``v s x``).

        Returns
        -------
        self
            The fitted estimator.
        """
        from ..labels import BanditFeedback
        from .logs import BanditLog

        if self.probability and isinstance(y, (BanditLog, BanditFeedback)):
            raise ValueError("probability=True fits a temperature on labels or candidate sets; a log of bandit "
                             "feedback has neither (fit with probability=False).")
        propensities = None
        if isinstance(y, BanditLog):
            y, propensities = y.feedback(), y.propensities
        if isinstance(y, BanditFeedback):
            self._online_call(X, _LoggedTarget(y.proposed, y.correct, propensities), None, reset=True,
                              sample_weight=sample_weight)
        else:
            self._online_call(X, _OracleTarget(y), None, reset=True, sample_weight=sample_weight)
        if self.probability:
            fit_out_of_fold_temperature(self, X, y, sample_weight)
        return self

    def score(self, X, y, sample_weight=None):
        """Accuracy on labels ``y``; on candidate sets of acceptable labels, the share of
        predictions inside them; on a log, the share of rows whose prediction agrees
        with the feedback (the proposal where it was right, any other label where it was
        wrong), so model selection works on logged feedback alone.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.
        y : array-like of shape (n_samples,), or BanditFeedback
            Labels, candidate sets of acceptable labels, or a log.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; None gives every row weight 1.

        Returns
        -------
        score : float
            The (weighted) accuracy, share inside the sets, or agreement with the log.
        """
        from ..labels import BanditFeedback

        if not isinstance(y, BanditFeedback):
            from ..labels import candidate_set_score

            return candidate_set_score(self, X, y, sample_weight)
        pred = self.predict(X)
        if len(y) != pred.shape[0]:
            raise ValueError(f"y holds {len(y)} logged rounds but X has {pred.shape[0]} rows; they must match.")
        agree = (pred == y.proposed) == y.correct
        return float(np.average(agree, weights=sample_weight))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over ``(X, y)`` with ``y`` as the oracle, continuing from the current state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        y : array-like of shape (n_samples,)
            True labels, used only to answer "was the proposal right?".
        classes : array-like of shape (n_classes,), default=None
            Every class; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Importance weight of each round (>= 0): its step is multiplied by it, as in
            Vowpal Wabbit; 0 is a round without a step.  Confidit's update becomes weighted
            least squares (``A += v x x^T``, the target ``v s x``).

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        return self._online_call(X, _OracleTarget(y), classes, reset=False, sample_weight=sample_weight)

    def partial_fit_feedback(self, X, proposed, correct, classes=None, sample_weight=None, propensities=None):
        """Learn from logged one-bit feedback, continuing from the current state.

        Row ``i`` was shown ``proposed[i]`` and the answer was ``correct[i]``.  The rows
        are visited in the given order (one pass, never shuffled), and each is learnt
        as if the learner had proposed that label: CSPA, BPA and Confidit apply their
        rule to the proposed label; Banditron weighs a right answer by ``1/P`` with
        ``P`` the probability its current policy gives the proposal, or, given the logging
        policy's ``propensities``, by ``1 / max(p, propensity_clip)`` (an off-policy,
        importance-weighted update); SPA, which needs the true label, learns from the right
        answers only.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training rows.
        proposed : array-like of shape (n_samples,), or a :class:`weaklabel.BanditFeedback`
            The labels that were proposed (each must be one of ``classes``).
        correct : array-like of bool of shape (n_samples,), or None with a BanditFeedback
            Whether each proposal was right.
        classes : array-like of shape (n_classes,), default=None
            Every class; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Importance weight of each round (>= 0): its step is multiplied by it, as in
            Vowpal Wabbit; 0 is a round without a step.  Confidit's update becomes weighted
            least squares (``A += v x x^T``, the target ``v s x``).
        propensities : array-like of shape (n_samples,), default=None
            The logging policy's probability of each proposal, in (0, 1].  Banditron weighs
            a right answer by its inverse (clipped at ``propensity_clip``); the other rules
            check them and do not use them.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        from ..labels import BanditFeedback

        if isinstance(proposed, BanditFeedback):
            if correct is not None:
                raise ValueError("pass correct=None when proposed is a BanditFeedback (it holds both).")
            fb = proposed
        else:
            fb = BanditFeedback(proposed, correct)
        return self._online_call(X, _LoggedTarget(fb.proposed, fb.correct, propensities), classes, reset=False,
                                 sample_weight=sample_weight)

    def propose(self, X):
        """The labels the learner would propose now, without learning.

        Greedy learners propose ``argmax_k w_k . x``; Banditron and BPA sample from
        their exploration distribution with the estimator's own seeded generator
        (which advances); Confidit proposes by its upper confidence bound.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        proposed : ndarray of shape (n_samples,)
            One proposed label per row.
        """
        scores = self._scores_now(X)
        return self.classes_[self._propose_index(scores, X)]

    def _scores_now(self, X):
        """Scores of the weights that propose (Banditron's averaged model predicts with others)."""
        return self._scores(X)

    def _propose_index(self, scores, X):
        """The proposal of each row: its best class, or for a learner that explores
        (Banditron, BPA) a draw from ``P(k) = (1 - gamma)[k = yhat] + gamma / K`` by the
        inverse CDF, as in the kernel."""
        yhat = np.argmax(scores, axis=1)
        if not self._explores:
            return yhat
        n, k = scores.shape
        u = self._uniforms(n, False)
        cum = np.cumsum(np.full((n, k), self.gamma / k), axis=1)
        cum += (np.arange(k)[None, :] >= yhat[:, None]) * (1.0 - self.gamma)
        return np.minimum((u[:, None] >= cum).sum(axis=1), k - 1)

    #: uniforms drawn ahead at once for partial_fit's rounds (the learners that explore)
    _DRAWN_AHEAD = 4096

    def _uniforms(self, n, fit):
        """One uniform a round.  ``fit`` draws them from the generator itself, in turn with the
        engine's shuffles.  ``partial_fit`` (and :meth:`propose`) take the next ones of the same
        stream, from index ``_u_next`` on, out of the block drawn ahead (``_u_ahead``, a
        :class:`_DrawnAhead`); a block that runs out is drawn anew from the generator.  A call
        that is rolled back rewinds ``_u_next`` only: the block object and the generator stay
        as the call left them, so no later draw changes and the rollback needs no snapshot of
        the generator (its ``get_state`` / ``set_state`` cost more than a 100-row call).
        """
        if fit:
            return self._rng.random_sample(n)
        ahead = self._u_ahead
        at = self._u_next - ahead.first                  # the block's index of the next uniform
        if at + n > ahead.values.size:
            ahead.values = np.concatenate([ahead.values[at:], self._rng.random_sample(max(n, self._DRAWN_AHEAD))])
            ahead.first, at = self._u_next, 0
        self._u_next += n
        return ahead.values[at:at + n]

    # ---- what the engine reads -------------------------------------------------------------
    def _init_state(self, n_cols):
        self._u_ahead, self._u_next = _DrawnAhead(), 0     # nothing drawn ahead yet

    def _restored(self, loaded):
        super()._restored(loaded)
        if loaded:                                        # the generator the parameters make
            self._init_state(self._W.shape[0])

    def _rule(self, X):
        return self._RULE

    def _epoch(self, rows, order, enc, hist, sw):
        n = order.shape[0]
        u = self._uniforms(n, enc.fit) if (self._explores and not enc.logged) else _NO_FLOAT
        dense = rows.is_dense                # class-major weights for dense rows: no copy a pass
        params = self._rule_params()
        rule_pass = RULE_PASSES[params.kind]
        if self._averages and self.average:
            # the pass learns W_cur and acc and writes their mean, which predicts, into a new _W
            W_cur, acc = _weights_layout(self, ("_W_cur", "_acc"), dense)
            mean = np.empty_like(self._W_cur, order="K")
            nu = rule_pass((W_cur, dense), tuple(rows), order, tuple(params), enc.feedback(),
                           _history(hist), u, sw, (acc, float(self.t_), mean.T if dense else mean))
            if nu >= 0:
                self._W = mean
        else:
            W, = _weights_layout(self, ("_W",), dense)
            nu = rule_pass((W, dense), tuple(rows), order, tuple(params), enc.feedback(),
                           _history(hist), u, sw, (_NO_FLOAT2, float(self.t_), _NO_FLOAT2))
        self.t_ += n
        return nu

    _RULE = Rule(_epoch, history=_HISTORY, checks_rows=True)    # the rule's pass reads rows.limits

    _parameter_constraints = {"max_iter": [AT_LEAST_1], "shuffle": ["boolean"], "random_state": ["random_state"],
                              "fit_intercept": ["boolean"], **EARLY_STOPPING_CONSTRAINTS}

    def _encode_target(self, X, target, classes, first, reset):
        """Oracle labels or a log -> class indices (and the log's answers), marked as ``fit``'s
        (``reset``) or ``partial_fit``'s."""
        enc, classes_ = self._encode(X, target, classes, first, reset)
        enc.fit = bool(reset)
        return enc, classes_

    def _encode(self, X, target, classes, first, reset):
        n = X.shape[0]
        if not first and type(target) is _OracleTarget:
            y = target.y                  # a stream's call: integer labels of the classes' dtype, first
            if (type(y) is np.ndarray and y.ndim == 1 and y.shape[0] == n and y.dtype.kind in "iu"
                    and y.dtype == self.classes_.dtype):
                if classes is not None:
                    check_partial_fit_classes(self, classes, first=False)
                return _Encoded(False, _labels_to_index(y, self.classes_, "y"), _NO_INDEX, _NO_BOOL), self.classes_
        logged = isinstance(target, _LoggedTarget)
        if not logged:
            if target.y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
            if _is_candidate_form(target.y):
                return self._encode_candidates(target.y, n, classes, first, reset)
            name = "y"
            labels = np.asarray(target.y)
            if labels.ndim == 2 and labels.shape[1] == 1:
                labels = column_or_1d(labels, warn=True)
            check_class_labels(labels)
        else:
            name = "proposed"
            labels = np.asarray(target.proposed)
        if labels.ndim != 1 or labels.shape[0] != n:
            raise ValueError(f"{name} must be 1-D with one label per row of X ({n}); got shape {labels.shape}.")
        if first:
            wanted = check_partial_fit_classes(self, classes, first=True, given_by_y=reset,
                                               call="partial_fit_feedback" if logged else "partial_fit")
            classes_ = _classes_array(np.unique(labels), name) if wanted is None else wanted
        else:
            classes_ = self.classes_
        classes_ = self._check_classes(classes_, classes, first, name)
        idx = _labels_to_index(labels, classes_, name).astype(np.intp, copy=False)
        if logged:
            return _Encoded(True, _NO_INDEX, idx, np.ascontiguousarray(target.correct, dtype=bool),
                            logp=self._logged_propensities(target.propensities, n)), classes_
        return _Encoded(False, idx, _NO_INDEX, _NO_BOOL), classes_

    def _logged_propensities(self, p, n):
        """A log's propensities, clipped below at ``propensity_clip``: Banditron weighs a right
        answer by their inverse; the other rules do not read them (None: not given).
        """
        if p is None:
            return None
        p = np.asarray(p, dtype=np.float64)
        if p.shape != (n,) or not (np.isfinite(p).all() and (p > 0).all() and (p <= 1).all()):
            raise ValueError(f"propensities must be {n} probabilities in (0, 1], one per logged round; got "
                             f"shape {p.shape} with values in [{np.nanmin(p) if p.size else 'nan'}, "
                             f"{np.nanmax(p) if p.size else 'nan'}].")
        if not self._reads_propensities:
            return None                     # the other rules apply themselves to the logged proposal
        return np.ascontiguousarray(np.maximum(p, self.propensity_clip))

    def _check_classes(self, classes_, classes, first, name):
        """The classes of this call: at least 2 on the first, the fitted ones after."""
        if first:
            if classes_.size < 2:
                raise ValueError(f"{type(self).__name__} needs at least 2 classes; got 1 class "
                                 f"{classes_.tolist()}.")
        else:
            check_partial_fit_classes(self, classes, first=False)
        return classes_

    def _encode_candidates(self, y, n, classes, first, reset):
        """Candidate sets of acceptable labels -> a mask over ``classes_`` (rows of one label
        become the plain label path, so single-label sets learn exactly as labels do).
        """
        from ..labels import CandidateSets, check_candidates

        if first:
            check_partial_fit_classes(self, classes, first=True, given_by_y=reset or isinstance(y, (CandidateSets,
                                                                                                  np.ndarray)))
        if not first and classes is None:
            classes = self.classes_
        S, classes_ = check_candidates(y, n, classes)                   # no empty set (check_candidates)
        classes_ = self._check_classes(classes_, classes, first, "y")
        idx = S.argmax(axis=1).astype(np.intp)
        if (S.sum(axis=1) == 1).all():
            return _Encoded(False, idx, _NO_INDEX, _NO_BOOL), classes_
        return _Encoded(False, idx, _NO_INDEX, _NO_BOOL, read_only(np.ascontiguousarray(S, dtype=bool))), classes_


def _ucb_choice(scores, quad, eta, t):
    """Confidit's proposal: the projected score plus the confidence width, argmax per row."""
    ucb = np.clip(scores, -1.0, 1.0) + np.sqrt(eta * np.log(1.0 + t) * np.maximum(quad, 0))
    return np.argmax(ucb, axis=1)


def _is_candidate_form(y):
    """Candidate sets (a CandidateSets, a 2-D mask of several columns, a list of label
    lists) rather than one label per row.
    """
    if type(y) is np.ndarray:                      # the common case first: labels or a mask
        return y.ndim == 2 and y.shape[1] > 1
    from ..labels import CandidateSets

    if isinstance(y, CandidateSets):
        return True
    if isinstance(y, list):
        return any(isinstance(v, (list, tuple, set, np.ndarray)) for v in y)
    arr = np.asarray(y) if not hasattr(y, "ndim") else y
    return getattr(arr, "ndim", 1) == 2 and arr.shape[1] > 1


_NO_INDEX = np.zeros(0, dtype=np.intp)
_NO_FLOAT2 = np.zeros((0, 0), dtype=np.float64)
_NO_FLOAT = np.zeros(0, dtype=np.float64)
_NO_BOOL = np.zeros(0, dtype=bool)
#: no candidate sets: read-only, as every candidate mask the passes read (so a pass on labels
#: and one on candidate sets share one compiled kernel)
_NO_BOOL2 = read_only(np.zeros((0, 0), dtype=bool))


class _DrawnAhead:
    """The uniforms of the stream drawn ahead for ``partial_fit`` (see
    ``_BanditLearner._uniforms``): ``values`` holds the stream's uniforms from index ``first``
    on.  One object per fitted learner, changed in place, so that a rolled-back call leaves
    it (and the generator) as the call left it."""

    __slots__ = ("values", "first")

    def __init__(self):
        self.values, self.first = _NO_FLOAT, 0


class _OracleTarget:
    """``y`` answering "was the proposal right?" (fit / partial_fit)."""

    __slots__ = ("y",)

    def __init__(self, y):
        self.y = y


class _LoggedTarget:
    """Logged feedback (partial_fit_feedback), with the logging policy's propensities (or None)."""

    __slots__ = ("proposed", "correct", "propensities")

    def __init__(self, proposed, correct, propensities=None):
        self.proposed, self.correct, self.propensities = proposed, correct, propensities


class _Encoded(Target):
    """What a pass reads: oracle label indices (or candidate sets), or logged proposal
    indices and answers.
    """

    __slots__ = ("logged", "y", "proposed", "correct", "cand", "logp", "fit")

    def __init__(self, logged, y, proposed, correct, cand=None, logp=None):
        self.logged, self.y, self.proposed, self.correct = logged, y, proposed, correct
        self.cand = _NO_BOOL2 if cand is None else cand
        self.logp = _NO_FLOAT if logp is None else logp
        self.fit = False                 # set for fit's passes (see _BanditLearner._uniforms)

    @property
    def in_any_order(self):
        return not self.logged                       # a log is replayed in its order

    def class_shares(self, n, K):
        if self.logged:
            raise ValueError("class_weight needs each row's class, and a log gives only the answers to the "
                             "logger's proposals; weight its rounds with sample_weight instead.")
        if self.cand.size:
            return self.cand / self.cand.sum(axis=1, keepdims=True)
        out = np.zeros((n, K))
        out[np.arange(n), self.y] = 1.0
        return out

    def accepted(self, rows, pred):
        if self.logged:
            raise ValueError("early_stopping scores held-out rows by their labels, and a log gives only the answers "
                             "to the logger's proposals; fit on labels, or leave early_stopping off.")
        if self.cand.size:
            return self.cand[rows, pred]
        return self.y[rows] == pred

    def feedback(self):
        """The kernels' one-value form: the fields of :class:`~weaklabel.bandit._kernels.Feedback`
        as a plain tuple (numba types it without a call into Python; the kernels rebuild it)."""
        return (bool(self.logged), self.y, self.proposed, self.correct, self.cand, self.logp)


def _history(hist):
    """The history buffers of a pass as the kernels take them, one value: the fields of
    :class:`~weaklabel.bandit._kernels.History` as a plain tuple."""
    return (hist["predictions"], hist["proposals"], hist["correct"], hist["propensities"])


@register
class CSPA(_BanditLearner):
    """CSPA: complementary support-class passive-aggressive (Kaneko, Sato & Sugiyama).

    Each round proposes ``yhat = argmax_k s_k`` (``s_k = w_k . x``) and learns only
    whether it was right.  Wrong: with ``l = min_{i != yhat} (1 - s_i + s_yhat)``,
    ``w_i += (beta l / K) x / ||x||^2`` for every ``i != yhat`` and
    ``w_yhat -= ((K-1)/K) beta l x / ||x||^2`` (Eq. 19).  Right: the support-class PA
    step of :class:`SPA` with ``y = yhat``.  An all-zero row is a round without a step.

    Parameters
    ----------
    beta : "auto" or float, default="auto"
        Step of the wrong-answer update, in (0, 1]; Theorem 2 covers ``beta < 1/(K-1)``.
        ``"auto"``: ``1/(K-1)`` (``1`` for two classes), the edge of that band, far
        better than ``1`` with many classes (the bandit user guide measures it).
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none).
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import CSPA
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(600, 2) + np.repeat([[4, 0], [0, 4], [-4, 0]], 200, axis=0)
    >>> y = np.repeat([0, 1, 2], 200)
    >>> order = rng.permutation(600)
    >>> clf = CSPA(beta=0.5).fit(X[order], y[order])
    >>> float(clf.correct_.mean()) > 0.9
    True
    """

    _kind = RULE_CSPA

    def __init__(self, *, beta="auto", max_iter=20, shuffle=True, random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.beta = beta
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

    _parameter_constraints = {**_BanditLearner._parameter_constraints,
                              "beta": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="right")]}

    def _rule_params(self):
        if self.beta == "auto":
            beta = 1.0 / (self.classes_.size - 1) if self.classes_.size > 2 else 1.0
        else:
            beta = float(self.beta)
        return BanditRule(self._kind, beta, 0.0, 1.0)


@register
class SPA(_BanditLearner):
    """SPA: support-class passive-aggressive with full feedback (Matsushima et al. 2010).

    The full-information baseline: ``fit`` learns from the true label ``y`` each
    round.  With ``l_i = max(0, 1 + s_i - s_y)`` for ``i != y`` sorted descending,
    the support classes are ``S = {sigma(k) : sum_{j<k} l_sigma(j) < k l_sigma(k)}``,
    ``A = sum_{j in S} l_j / (|S| + 1)``, and the step ``w_y += A x / ||x||^2``,
    ``w_i -= (l_i - A) x / ||x||^2`` for ``i`` in ``S`` solves the PA problem exactly:
    afterwards ``l_i = 0`` for every ``i`` in ``S``.  (The CSPA paper prints the two
    signs the other way round.)  ``correct_`` records whether the argmax was right.
    With logged feedback only the right answers carry a label, so only they are learnt.

    Parameters
    ----------
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none).
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import SPA
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    >>> SPA().fit(X, [0, 1, 2]).predict(X).tolist()
    [0, 1, 2]
    """

    _kind = RULE_SPA

    def __init__(self, *, max_iter=20, shuffle=True, random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
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
class Banditron(_BanditLearner):
    """Banditron (Kakade, Shalev-Shwartz & Tewari 2008).

    Each round: ``yhat = argmax_k s_k``; propose ``ytilde`` drawn from
    ``P(r) = (1 - gamma)[r = yhat] + gamma / K``; then
    ``w_r += ([y = ytilde][r = ytilde] / P(r) - [r = yhat]) x / ||x||^2``.  The step is
    divided by ``||x||^2`` like every rule of this module; on the paper's unit-norm rows
    this is Kakade et al.'s update exactly.  The draw uses one uniform per round from
    the estimator's generator (inverse CDF over the classes in order).

    With ``average=True`` (the default) the model that predicts (``coef_``, ``predict``,
    ``decision_function``) is the mean of the weights after every round since they were 0
    (Polyak averaging, as scikit-learn's ``SGDClassifier(average=True)``); the proposals,
    and so the learning, use the current weights as the paper's algorithm does.  The last
    iterate swings with the ``1/P``-weighted updates (0.19-0.85 on digits over seeds); the
    mean does not.  ``average=False`` predicts with the last iterate (the paper's setting).

    Parameters
    ----------
    gamma : float, default=0.1
        Exploration rate, in (0, 1).  The papers tune it per dataset; the default, with
        ``average=True``, is measured against ``SGDClassifier()`` in the bandit user guide.
    average : bool, default=True
        Predict with the mean of the weights over the rounds (see above).
    propensity_clip : float, default=0.01
        Learning from a log that carries the logging policy's propensities
        (``partial_fit_feedback(..., propensities=p)`` or ``fit`` on a
        :class:`~weaklabel.bandit.logs.BanditLog`), a right answer is weighed by
        ``1 / max(p, propensity_clip)`` instead of ``1 / P`` under Banditron's own policy: the
        importance-weighted estimate of the full-information update (Kakade, Shalev-Shwartz &
        Tewari 2008, with the clipping of Strehl, Langford, Li & Kakade 2010), unbiased for
        any logger that shows every class with probability above the clip.
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none).
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import Banditron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(3000, 2) + np.repeat([[4, 0], [0, 4], [-4, 0]], 1000, axis=0)
    >>> y = np.repeat([0, 1, 2], 1000)
    >>> order = rng.permutation(3000)
    >>> clf = Banditron(gamma=0.1, random_state=0).fit(X[order], y[order])
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    _kind = RULE_BANDITRON
    _explores = True
    _reads_propensities = True
    _averages = True
    _parameter_constraints = {**_BanditLearner._parameter_constraints, "gamma": [UNIT_OPEN], "average": ["boolean"],
                              "propensity_clip": [Interval(Real, 0, 1, closed="both")]}  # 0: no clipping
    #: averaged: the current weights, which learn and explore, and acc = sum_t t * step_t
    _state = {"_W_cur": Fitted("W_cur", np.float64, lambda p, n, K: (n, K) if p["average"] else None),
              "_acc": Fitted("acc", np.float64, lambda p, n, K: (n, K) if p["average"] else None)}

    def __init__(self, *, gamma=0.1, average=True, propensity_clip=0.01, max_iter=20, shuffle=True, random_state=None,
                 fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.gamma = gamma
        self.average = average
        self.propensity_clip = propensity_clip
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

    # averaged weights: the kernel learns (and explores) with the current weights _W_cur and
    # keeps acc = sum_t t * step_t (both declared in _state); _W, which predicts, is the mean of
    # the weights after each round
    def _rule(self, X):
        return self._AVERAGED_RULE if self.average else self._RULE

    _RULE = _BanditLearner._RULE._replace(kept_in_place=("_W",))
    # averaged: the pass writes W_cur and acc, and W, replaced after it, is never written;
    # W = ((T + 1) W_cur - acc) / T (or W_cur): a NaN or an infinity in either makes W's
    _AVERAGED_RULE = _RULE._replace(kept_in_place=("_W_cur", "_acc"), checked_with_weights=("_W_cur", "_acc"))

    def _scores_now(self, X):
        """Scores of the weights that propose (the current ones, not the average)."""
        return self._scores(X, self._W_cur if self.average else None)


@register
class BPA(_BanditLearner):
    """BPA: bandit passive-aggressive (Zhong & Daucé 2015).

    Explores as :class:`Banditron`; with ``b = [ytilde = y]`` and the played row's score
    ``s = w_ytilde . x``: ``l = max(0, m_b + (1 - 2b) s)`` with ``m_0 = 1`` and
    ``m_1 = correct_margin``, and ``w_ytilde += (2b - 1) l x / ||x||^2``.  Only the
    played row changes.

    Parameters
    ----------
    gamma : float, default=0.05
        Exploration rate, in (0, 1).
    correct_margin : float, default=1.0
        The margin ``m_1`` asked of a right answer (>= 0).  The CSPA paper's BPA numbers
        come from the margin-1 form; the BPA authors' code uses 0.
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=True
        Append a constant feature.  BPA's step sends each played score to +-1 with no
        cap, so without a bias it thrashes on centred features (the user guide's table
        of defaults measures it).  The paper uses none:
        ``presets.make("bpa", paper=True)`` sets False.
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import BPA
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(3000, 2) + np.repeat([[4, 0], [0, 4], [-4, 0]], 1000, axis=0)
    >>> y = np.repeat([0, 1, 2], 1000)
    >>> order = rng.permutation(3000)
    >>> clf = BPA(gamma=0.1, random_state=0, fit_intercept=True).fit(X[order], y[order])
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    _kind = RULE_BPA
    _explores = True

    def __init__(self, *, gamma=0.05, correct_margin=1.0, max_iter=20, shuffle=True, random_state=None,
                 fit_intercept=True,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.gamma = gamma
        self.correct_margin = correct_margin
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

    _parameter_constraints = {**_BanditLearner._parameter_constraints, "gamma": [UNIT_OPEN],
                              "correct_margin": [NON_NEGATIVE]}

    def _rule_params(self):
        return BanditRule(self._kind, 1.0, float(self.gamma), float(self.correct_margin))


@register
class Confidit(_BanditLearner):

    """Confidit (Crammer & Gentile 2011): second-order bandit learning with an upper confidence bound.

    Per class ``k``: weights ``w_k`` and a matrix ``A_k = (1 + alpha)^2 I``.  Each round,
    every ``w_k`` is projected onto ``|w_k . x| <= 1`` in the ``A_k`` norm; the proposal is
    ``argmax_k w_k . x + eps_k`` with ``eps_k = sqrt(eta x^T A_k^-1 x log(1 + t))``; the
    proposed class ``c`` (``s = +1`` if right, ``-1`` if wrong) takes
    ``A_c <- A_c + x x^T`` and ``w_c <- A_c^-1 (A_c,old w_c + s x)``.

    ``diagonal=True`` keeps only ``diag(A_k)`` (O(K d) memory, the form the CSPA paper's
    numbers come from); ``False`` keeps ``A_k^-1`` in full (O(K d^2), Sherman-Morrison
    rank-one updates), much stronger where it fits.  ``predict`` is
    ``argmax_k w_k . x``; ``propose`` adds the confidence width.

    Parameters
    ----------
    eta : float, default=1.0
        Width of the confidence bound (> 0).
    alpha : float, default=1.0
        ``A_k`` starts at ``(1 + alpha)^2 row_scale_^2 I`` (alpha >= 0): ``(1 + alpha)^2 I``
        on ``X / row_scale_``.
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
    diagonal : bool or None, default=None
        Keep only the diagonal of ``A_k``; ``None`` means ``n_features > 1000``.
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none).
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    A_diag_ : ndarray of shape (n_features, n_classes)
        The diagonals of ``A_k`` (diagonal form only).
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import Confidit
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(1500, 2) + np.repeat([[4, 0], [0, 4], [-4, 0]], 500, axis=0)
    >>> y = np.repeat([0, 1, 2], 500)
    >>> order = rng.permutation(1500)
    >>> clf = Confidit(eta=0.1, fit_intercept=True).fit(X[order], y[order])
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    def __init__(self, *, eta=1.0, alpha=1.0, row_scale="auto", diagonal=None, max_iter=20, shuffle=True,
                 random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.eta = eta
        self.alpha = alpha
        self.row_scale = row_scale
        self.diagonal = diagonal
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

    _parameter_constraints = {**_BanditLearner._parameter_constraints, "eta": [POSITIVE], "alpha": [NON_NEGATIVE],
                              "row_scale": ROW_SCALE, "diagonal": ["boolean", None]}

    #: per class, the diagonal of A (diagonal form) or the inverse of the whole A (full form):
    #: one of the two is empty
    _state = {"_A_diag": Fitted("A_diag", np.float64,
                                lambda p, n, K: (n, K) if _diagonal(p["diagonal"], n) else (0, 0),
                                lambda est, shape: np.full(shape, est._a0())),
              "_A_inv": Fitted("A_inv", np.float64,
                               lambda p, n, K: (0, 0, 0) if _diagonal(p["diagonal"], n) else (K, n, n),
                               lambda est, shape: np.repeat((np.eye(shape[1]) / est._a0())[None], shape[0], axis=0))}

    def _a0(self):
        """A's start, ``(1 + alpha)^2`` times the squared row scale."""
        return (1.0 + float(self.alpha)) ** 2 * self.row_scale_ ** 2

    @property
    def A_diag_(self):
        """Diagonals of ``A_k``, shape (n_features, n_classes) (diagonal form only)."""
        check_is_fitted(self, "classes_")
        if self._A_diag.size == 0:
            raise AttributeError("A_diag_ exists only for diagonal=True.")
        return self._A_diag[: self.n_features_in_]

    def _rule(self, X):
        # the diagonal pass on dense rows reads rows.limits (a continuing call: a fresh one sets
        # the row scale from the input check's sum)
        checks = "_A_diag" in self.__dict__ and self._A_diag.size > 0
        return Rule(Confidit._epoch, history=_HISTORY, checks_rows=checks, kept_in_place=self._written_in_place(X))

    def _epoch(self, rows, order, enc, hist, sw):
        diagonal = self._A_diag.size > 0
        if diagonal and rows.is_dense:          # class-major weights and diagonals: no copy a pass
            W, A_diag = _weights_layout(self, ("_W", "_A_diag"), True)
            t, nu = _confidit_diag_dense_pass((W, A_diag, True), (float(self.eta), float(self.t_)), tuple(rows),
                                              order, enc.feedback(), _history(hist), sw)
        else:
            _weights_layout(self, ("_W", "_A_diag"), False)
            n = order.shape[0] if self._journals(order.shape[0]) else 0
            journal = (np.empty((n, self._W.shape[0])), np.empty(n), np.empty(n, dtype=np.int64))
            t, nu, written = _confidit_pass(self._W, (self._A_diag, self._A_inv, journal),
                                            (diagonal, float(self.eta), float(self.t_)), tuple(rows), order,
                                            enc.feedback(), _history(hist), sw)
            if not written:                  # the journal was not written: A_inv is as it was
                raise FloatingPointError(f"{type(self).__name__} weights or matrices overflowed to inf/NaN; scale the "
                                         "rows of X or the sample weights down.")
        self.t_ = int(t)
        return nu

    def _journals(self, n_rows):
        """Whether a pass over ``n_rows`` rows keeps its updates of the full matrices in a journal
        written at its end (see ``_confidit_pass``), so that the call's rollback need not copy
        them: when the journal's cost (about ``n_rows ** 2 * n_features`` operations a pass)
        stays below a copy's (``n_classes * n_features ** 2`` values), i.e. for calls of at most
        ``2 sqrt(n_classes * n_features)`` rows (about 100 on USPS), the short calls of a stream.
        """
        if self._A_inv.size == 0:
            return False
        K, d = self._A_inv.shape[0], self._A_inv.shape[1]
        return n_rows <= 2.0 * np.sqrt(K * d)

    def _written_in_place(self, X):
        """What a call on ``X`` writes in place: the weights and the declared state, but the
        full matrices are journaled, not written, by a short call (no copy of them)."""
        names = ("_W", *self._state)
        shape = getattr(X, "shape", None)
        try:
            n = int(shape[0]) if shape is not None and len(shape) else len(X)
        except TypeError:                            # not rows: the call will reject it, copy as ever
            return names
        if "_A_inv" in self.__dict__ and self._journals(n):
            return tuple(k for k in names if k != "_A_inv")
        return names

    def _propose_index(self, scores, X):
        X = check_rows(self, X)
        if self.fit_intercept:
            X = with_intercept(X)
        if self._A_diag.size > 0:
            X2 = X.multiply(X) if sp.issparse(X) else X * X
            quad = np.asarray(X2 @ (1.0 / self._A_diag))
        else:
            Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
            quad = np.column_stack([np.einsum("na,na->n", Xd @ Ainv, Xd) for Ainv in self._A_inv])
        return _ucb_choice(scores, quad, float(self.eta), self.t_)

    def _restored(self, loaded):
        super()._restored(loaded)
        if not loaded:
            return
        # A starts at (1 + alpha)^2 I and only grows: a fit leaves positive variances
        if self._A_diag.size and not (self._A_diag > 0).all():
            raise ValueError(f"Confidit's diagonal A must be positive, as a fit leaves it; found "
                             f"{self._A_diag.min():g}")
        if self._A_inv.size:
            if not np.allclose(self._A_inv, np.swapaxes(self._A_inv, 1, 2), rtol=1e-8, atol=1e-12):
                raise ValueError("Confidit's inverse matrices must be symmetric, as a fit leaves them")
            if not (np.linalg.eigvalsh(self._A_inv) > 0).all():
                raise ValueError("Confidit's inverse matrices must be positive definite, as a fit leaves them")


def _diagonal(diagonal, n_cols):
    """Whether Confidit keeps diagonal matrices: as asked, or by default past 1,000 columns."""
    return bool(diagonal) if diagonal is not None else n_cols > 1000


@register
class SketchedConfidit(_BanditLearner):

    """Confidit with each class's matrix kept as a Frequent Directions sketch: second-order
    bandit learning at text scale.

    Confidit (Crammer & Gentile 2011, see :class:`Confidit`) keeps per class ``k`` the
    matrix ``A_k = (1 + alpha)^2 I + sum x x^T`` over the rows class ``k`` learnt from.
    Here ``sum x x^T`` is replaced by ``B_k^T B_k``, ``B_k`` a ``sketch_size``-row
    Frequent Directions sketch of those rows (Liberty, KDD 2013; Ghashami, Liberty,
    Phillips & Woodruff, SICOMP 2016), as Luo, Agarwal, Cesa-Bianchi & Langford sketch the
    Online Newton Step (NeurIPS 2016).  Inverses come from Woodbury's identity through a
    ``sketch_size`` square matrix, and the weights are kept as a sparse part plus
    ``sketch_size`` coefficients on the sketch's rows, so a round costs at most
    O(K sketch_size (nnz + sketch_size)) time; a round computes ``B_k x`` only for the
    classes whose bounds can still win the proposal or the prediction, which leaves every
    decision as it is.  The sketches take O(K sketch_size n_features) memory.  While each class's rows span at most
    ``sketch_size / 2`` dimensions the sketch is exact and the learner is full-matrix
    Confidit (a test checks it equals ``Confidit(diagonal=False)`` then).

    Parameters
    ----------
    eta : float, default=1.0
        Width of the confidence bound (> 0).
    alpha : float, default=1.0
        ``A_k`` starts at ``(1 + alpha)^2 row_scale_^2 I`` (alpha >= 0): ``(1 + alpha)^2 I``
        on ``X / row_scale_``.
    row_scale : "auto" or float, default="auto"
        The learner acts as if ``X`` were divided by ``row_scale_``, so its defaults work
        whatever the features' common scale (pixels 0-16 or 0-1 give the same model).
        ``"auto"``: the root mean squared norm of the rows of the first fitted ``X``
        (``partial_fit``: its first chunk); a number: that scale; ``1.0`` takes ``X`` as
        it is (the papers' setting, for rows of about unit norm).  It rescales the
        regularisation, never the data, and does not make features of different scales
        alike: for that, put a ``StandardScaler`` before the learner.
    sketch_size : int, default=16
        Rows of each class's sketch (even, >= 2); the sketch keeps about
        ``sketch_size / 2`` directions exactly.
    max_iter : int, default=20
        Passes over the data in ``fit``; ``partial_fit`` and ``partial_fit_feedback``
        make one.  The paper's protocol is one pass in the data's order
        (``max_iter=1, shuffle=False``, the reproductions' setting;
        ``weaklabel.presets.make(name, paper=True)``).
    shuffle : bool, default=True
        Visit the rows in a new random order at every pass of ``fit`` with labels;
        ``partial_fit`` and a logged ``BanditFeedback`` keep the order they are given.
    random_state : int, RandomState instance or None, default=None
        Seed of the estimator's generator (shuffling and, for exploring learners, the
        proposals): a fixed seed reproduces a run exactly.
    fit_intercept : bool, default=False
        Append a constant feature (the paper uses none).
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
        Rounds that changed the weights since they were zero.
    predictions_ : ndarray of shape (n_rounds,)
        For the last call, the label ``argmax_k w_k . x`` at each round, before its update.
    proposals_ : ndarray of shape (n_rounds,)
        The label proposed at each round of the last call (the one the feedback is about).
    correct_ : ndarray of bool of shape (n_rounds,)
        Whether each proposal of the last call was right; ``correct_.mean()`` is the
        paper's "ratio of correct proposed labels".
    propensities_ : ndarray of shape (n_rounds,)
        The probability with which each proposal of the last call was drawn:
        ``1 - gamma + gamma / K`` or ``gamma / K`` for the exploring learners (Banditron,
        BPA), 1 for the others; NaN for rounds replayed from a log (the log's own
        propensities apply).  With ``proposals_`` and ``correct_`` this is a bandit log,
        for :mod:`weaklabel.bandit.evaluation`.
    prediction_rows_ : ndarray of shape (n_rounds,)
        Row of ``X`` seen at each round of the last call.
    validation_scores_ : ndarray of shape (n_passes,)
        The held-out score after each pass of the last ``fit`` with ``early_stopping``.
    temperature_ : float
        The fitted temperature (``probability=True`` only).
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit import SketchedConfidit
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(1500, 2) + np.repeat([[4, 0], [0, 4], [-4, 0]], 500, axis=0)
    >>> y = np.repeat([0, 1, 2], 500)
    >>> order = rng.permutation(1500)
    >>> clf = SketchedConfidit(eta=0.1, sketch_size=8, fit_intercept=True).fit(X[order], y[order])
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    def __init__(self, *, eta=1.0, alpha=1.0, row_scale="auto", sketch_size=16, max_iter=20, shuffle=True,
                 random_state=None, fit_intercept=False,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=5, tol=1e-3, verbose=0,
                 class_weight=None, probability=False):
        self.eta = eta
        self.alpha = alpha
        self.row_scale = row_scale
        self.sketch_size = sketch_size
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

    _parameter_constraints = {**_BanditLearner._parameter_constraints, "eta": [POSITIVE], "alpha": [NON_NEGATIVE],
                              "row_scale": ROW_SCALE, "sketch_size": [EvenInt(2)]}     # Frequent Directions empties half of the sketch

    #: per class, the Frequent Directions sketch B (feature-major), G = B B^T, the Woodbury
    #: matrix H, and the sketch's count of rows
    _state = {"_B": Fitted("B", np.float64, lambda p, n, K: (n, K, int(p["sketch_size"]))),
              "_G": Fitted("G", np.float64, lambda p, n, K: (K, int(p["sketch_size"]), int(p["sketch_size"]))),
              "_H": Fitted("H", np.float64, lambda p, n, K: (K, int(p["sketch_size"]), int(p["sketch_size"])),
                           lambda est, shape: np.repeat((np.eye(shape[1]) / est._a0())[None], shape[0], axis=0)),
              "_nrows": Fitted("nrows", np.int64, lambda p, n, K: (K,))}

    def _a0(self):
        return (1.0 + float(self.alpha)) ** 2 * self.row_scale_ ** 2

    def _rule(self, X):
        return self._RULE

    def _epoch(self, rows, order, enc, hist, sw):
        _weights_layout(self, ("_W",), False)            # the sketch pass reads W feature-major
        t, nu = _sketched_confidit_pass(self._W, (self._B, self._G, self._H, self._nrows),
                                        (self._a0(), float(self.eta), float(self.t_)), tuple(rows), order,
                                        enc.feedback(), _history(hist), sw)
        self.t_ = int(t)
        return nu

    _RULE = Rule(_epoch, history=_HISTORY)       # the sketch pass reads every row checked

    def _propose_index(self, scores, X):
        X = check_rows(self, X)
        if self.fit_intercept:
            X = with_intercept(X)
        xx = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
        quad = np.empty((X.shape[0], self.classes_.size))
        for k in range(self.classes_.size):
            Z = np.asarray(X @ self._B[:, k, :])                              # (n, ell)
            quad[:, k] = (xx - np.einsum("nm,mq,nq->n", Z, self._H[k], Z)) / self._a0()
        return _ucb_choice(scores, quad, float(self.eta), self.t_)

    def _restored(self, loaded):
        super()._restored(loaded)
        if loaded and ((self._nrows < 0).any() or (self._nrows > int(self.sketch_size)).any()):
            raise ValueError(f"a sketch holds 0 to sketch_size={self.sketch_size} rows; the file's counts run from "
                             f"{self._nrows.min()} to {self._nrows.max()}")
