"""MMS: maximum-margin set learning from bags with candidate labeling vectors (Luo & Orabona)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._validation import (check_class_labels, StrOptions, class_weighted, keyword_only, AT_LEAST_1, NON_NEGATIVE, POSITIVE, ROW_SCALE, check_X, check_X_values,
                           row_scale_of, transactional)
from ..calibration import fit_out_of_fold_temperature
from ..labels import BagCandidates, CandidateSets
from .._persist import Scalar, register
from ..linear import LinearMulticlass, kernel_ready, kernel_rows, with_intercept
from ._kernels import _bag_pass, _pegasos_round
from .._validation import check_rows

__all__ = ["MMS", "BagScoring", "as_bags", "draw_batches"]

_TIE = 1e-9


def as_bags(y, n_rows, name="bags"):
    """``y`` as :class:`BagCandidates`: bags pass through; 1-D labels become bags of one
    with that single labeling; candidate sets (a :class:`CandidateSets`, bool mask or list
    of label lists) become bags of one with one labeling per candidate label.
    """
    if y is None:
        raise ValueError(f"requires y to be passed, but the target y is None; pass {name} as a BagCandidates, "
                         "candidate sets or 1-D labels.")
    if isinstance(y, BagCandidates):
        B = y
    elif isinstance(y, CandidateSets):
        B = BagCandidates.from_candidate_sets(y)
    else:
        arr = np.asarray(y) if not isinstance(y, (list, tuple)) or _flat(y) else None
        if arr is not None and arr.ndim == 1:
            if arr.size and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} holds NaN or infinite labels.")
            check_class_labels(arr)
            B = BagCandidates.from_labels(arr, np.arange(arr.size))
        else:
            B = BagCandidates.from_candidate_sets(y)
    if B.n_rows != n_rows:
        raise ValueError(f"{name} describes {B.n_rows} rows but X has {n_rows}; they must match.")
    return B


def validated_input(est, X, bags):
    """``(X, bags as BagCandidates)`` checked (``n_features_in_`` is set; the callers' fit
    is transactional, so a rejected call leaves a fitted estimator unchanged).
    """
    X = check_X(est, X, reset=True)
    return X, as_bags(bags, X.shape[0])


def fit_bag_temperature(est, X, bags, sample_weight=None):
    """``probability=True`` for the bag learners (:func:`~weaklabel.calibration.fit_out_of_fold_temperature`):
    folds over bags, the temperature's likelihood on each instance's candidate labels (every
    label some labeling gives it)."""
    fit_out_of_fold_temperature(est, X, bags, sample_weight, targets=_bag_targets, folds=_bag_folds)


def _bag_targets(est, y, n):
    B = as_bags(y, n)
    return B.instance_candidates().mask, B.classes_, None


def _bag_folds(y, n, n_folds, seed):
    from sklearn.model_selection import KFold

    B = as_bags(y, n)
    if B.n_bags < n_folds:
        raise ValueError(f"probability=True folds over bags and needs at least {n_folds}; got {B.n_bags}.")
    for trb, teb in KFold(n_folds, shuffle=True, random_state=seed).split(np.arange(B.n_bags)):
        sub, rows = B.subset(np.sort(trb))
        yield rows, sub, B.subset(np.sort(teb))[1]


class BagScoring:
    """``score(X, bags)`` for learners trained on bags."""

    def score(self, X, y, sample_weight=None):
        """Share of bags whose predicted labeling is one of their candidates (1 - bag 0-1 loss).

        With exact labels (1-D ``y``) every row is a bag of one and this is the accuracy;
        model selection (``GridSearchCV``, ``cross_val_score``) therefore works on bags
        as they are (a split that cuts a bag keeps the rows' part of each candidate).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
            The rows to score.
        y : BagCandidates, or any form ``fit`` accepts
            The bags and their candidate labelings.
        sample_weight : array-like of shape (n_bags,), default=None
            Weight of each bag.

        Returns
        -------
        score : float
            The (weighted) share of bags whose predicted labeling is a candidate.
        """
        pred = self.predict(X)
        B = as_bags(y, pred.shape[0], name="y")
        hit = B.contains(pred).astype(np.float64)
        if sample_weight is None:
            return float(hit.mean())
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != hit.shape:
            raise ValueError(f"sample_weight must have one weight per bag, shape {hit.shape}; got {w.shape}.")
        return float(np.average(hit, weights=w))


def _flat(y):
    return all(not isinstance(v, (list, tuple, set, frozenset, np.ndarray)) for v in y)


def draw_batches(rng, n_bags, n_steps, batch_size):
    """Algorithm 2's draws: ``n_steps`` rows of ``min(batch_size, n_bags)`` distinct bags each."""
    k = min(batch_size, n_bags)
    A = rng.randint(0, n_bags, size=(n_steps, k)).astype(np.int64)
    if k > 1:
        srt = np.sort(A, axis=1)
        for t in np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1)):
            A[t] = rng.choice(n_bags, k, replace=False)
    return A


@register
class MMS(BagScoring, LinearMulticlass):
    """Maximum Margin Set learning (MMS) from bags with candidate labeling vectors.

    Luo & Orabona, "Learning from Candidate Labeling Sets", NIPS 2010.  Each training
    bag holds instances (rows of ``X``) and a set ``Z`` of candidate labeling vectors,
    one of which is correct.  With instance scores ``F(x, y) = w_y . x`` and bag scores
    ``F(X, z) = sum_m F(x_m, z_m)``, MMS minimises::

        alpha/2 ||w||^2 + 1/N sum_i | max_{zbar not in Z_i} (l_A(zbar, Z_i) + F(X_i, zbar))
                                      - max_{z in Z_i} F(X_i, z) |_+

    with ``l_A(zbar, Z) = min_{z' in Z} Hamming(zbar, z')`` (loss (3), problem (5)).
    The concave part is handled by CCCP (Algorithm 1): at round ``r`` the second max is
    replaced by the mean joint feature of the candidates tied for the max under
    ``w^(r)`` (all of them at ``w = 0``), and the convex problem (8) is solved by Pegasos
    (Algorithm 2: mini-batches of ``batch_size`` bags drawn at random, step
    ``1/(alpha t)``, projection on the ball of radius ``sqrt(2 B / alpha)`` with ``B``
    the largest bag size).

    The most violating labeling is found exactly by branch and bound (see
    :func:`most_violating_labeling`): worst case ``O(M prod_m (|U_m| + 1))`` nodes for a
    bag of ``M`` instances whose candidates give instance ``m`` the labels ``U_m``, a few
    nodes per instance in practice.  Ties between maximisers go to the lexicographically
    smallest labeling.

    Parameters
    ----------
    alpha : float or None, default=None
        Regularisation ``lambda`` of (5), for rows of unit norm; ``None`` means ``1/N``
        with ``N`` the number of bags, the paper's choice.  The fit uses
        ``alpha * row_scale_**2`` on ``X`` as it is (``alpha_``).
    n_rounds : int, default=5
        Most CCCP rounds.  Fewer are run when the tied candidate sets stop changing
        (the next convex problem would be the same) or the objective (5) decreases by
        changes by less than ``tol`` (relative) in a round.  Pegasos solves each round
        only approximately, so a round can end uphill: the fitted weights are those of
        the round with the lowest objective (``best_round_``).
    max_iter : int, default=10
        Pegasos passes per round: ``T = max_iter * ceil(N / batch_size)`` steps.  When
        the objective (5) after them is not below the one the round started from,
        Pegasos goes on (its step counter running on) ``max_iter`` passes at a time
        until it is, up to ``max_passes``: CCCP's convex problem is then solved far
        enough to decrease the objective, as CCCP's descent argument needs.
    max_passes : int, default=50
        Most Pegasos passes in one round.  With ``max_passes = max_iter`` every round
        runs exactly ``max_iter`` passes (the earlier behaviour; on usps the objective
        then rises after round 1 and oscillates).
    batch_size : int, default=1
        Bags per Pegasos step (``K`` of Algorithm 2), drawn without replacement.
    tol : float, default=1e-3
        Relative decrease of the objective below which CCCP stops.
    fit_intercept : bool, default=True
        Append a constant feature (a regularised bias, as in the paper's footnote 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the mini-batch draws.
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
        For MMS, a row's weight is that of its candidate labels (every label some labeling
        gives it), and a bag weighs the mean of its rows', as with ``sample_weight``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_rounds_ : int
        CCCP rounds run.
    n_iter_ : int
        Pegasos steps run, over all rounds.
    n_passes_ : ndarray of shape (n_rounds,)
        Pegasos passes run in each round.
    objective_ : ndarray of shape (n_rounds + 1,)
        Objective (5) at ``w = 0`` and after each round.
    best_round_ : int
        The round whose weights were kept (lowest objective), 1-based.
    n_tied_ : ndarray of shape (n_rounds,)
        Mean size of the tied candidate sets ``|C_i|`` used by each round.
    alpha_ : float
        The regularisation used, on ``X`` as it is.
    row_scale_ : float
        The scale ``X`` is treated as divided by (see ``row_scale``).
    temperature_ : float
        The fitted temperature (``probability=True`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel import BagCandidates
    >>> from weaklabel.bags import MMS
    >>> X = np.array([[1., 0.], [0., 1.], [1., .1], [.1, 1.]])
    >>> B = BagCandidates([0, 0, 1, 1], [[[0, 1], [1, 0]], [[0, 1]]])
    >>> MMS(random_state=0).fit(X, B).predict(X).tolist()
    [0, 1, 0, 1]
    """

    @keyword_only
    def __init__(self, *, alpha=None, n_rounds=5, max_iter=10, max_passes=50, batch_size=1, tol=1e-3,
                 fit_intercept=True, random_state=None, row_scale="auto", probability=False,
                 class_weight=None):
        self.alpha = alpha
        self.n_rounds = n_rounds
        self.max_iter = max_iter
        self.max_passes = max_passes
        self.batch_size = batch_size
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.row_scale = row_scale
        self.probability = probability
        self.class_weight = class_weight

    _parameter_constraints = {"alpha": [POSITIVE, None], "n_rounds": [AT_LEAST_1], "max_iter": [AT_LEAST_1],
                              "max_passes": [AT_LEAST_1], "batch_size": [AT_LEAST_1], "tol": [NON_NEGATIVE], "fit_intercept": ["boolean"],
                              "random_state": ["random_state"], "row_scale": ROW_SCALE, "probability": ["boolean"],
                              "class_weight": [dict, StrOptions({"balanced"}), None]}

    def _check_params(self):
        self._validate_params()
        if self.max_passes < self.max_iter:
            raise ValueError(f"max_passes must be at least max_iter ({self.max_iter}); got {self.max_passes}.")

    def _prepare(self, X, bags):
        self._check_params()
        X, B = validated_input(self, X, bags)
        return kernel_ready(X, self.fit_intercept), B

    @transactional
    def fit(self, X, bags, sample_weight=None):
        """Learn from bags: CCCP rounds of Pegasos, weights start at 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
            Every instance of every bag.
        bags : BagCandidates, or CandidateSets / bool mask / label lists / 1-D labels
            Bag of each row and the bags' candidate labeling vectors.  Anything but a
            :class:`BagCandidates` means bags of one instance: a candidate set gives one
            labeling per candidate label, a 1-D label a single labeling.
        sample_weight : array-like of shape (n_rows,), default=None
            Row weights (>= 0); a bag weighs the mean of its rows' weights, and the loss
            of (5) becomes ``1/N sum_i v_i loss_i`` (bag ``i``'s subgradient scaled by
            ``v_i``; the projection radius by ``sqrt(mean v)``).

        Returns
        -------
        self
            The fitted estimator.
        """
        Xk, B = self._prepare(X, bags)
        rng = check_random_state(self.random_state)
        N = B.n_bags
        C = B.n_classes
        scale = row_scale_of(Xk, self.row_scale, skip_last=bool(self.fit_intercept))
        lam = (float(self.alpha) if self.alpha is not None else 1.0 / N) * scale ** 2
        bw = np.empty(0)
        if sample_weight is not None:
            from .._validation import check_sample_weight

            sw = check_sample_weight(sample_weight, np.empty((B.n_rows, 0)), dtype=np.float64,
                                      ensure_non_negative=True)
        if self.class_weight is not None:                  # each instance's candidate labels
            inst = B.instance_candidates().mask
            sw = class_weighted(sw if sample_weight is not None else None, inst / inst.sum(axis=1, keepdims=True),
                                B.classes_, self.class_weight)
        if sample_weight is not None or self.class_weight is not None:
            bw = np.add.reduceat(sw[B.rows], B.bag_ptr[:-1]) / B.bag_sizes
        radius = float(np.sqrt(2.0 * B.bag_sizes.max() * (bw.mean() if bw.size else 1.0) / lam))
        rows = np.ascontiguousarray(B.rows, dtype=np.int64)
        bag_ptr = np.ascontiguousarray(B.bag_ptr)
        Z = np.ascontiguousarray(B.Z)
        z_ptr = np.ascontiguousarray(B.z_ptr)
        n_lab = B.n_labelings
        lab_ptr = np.concatenate([[0], np.cumsum(n_lab)]).astype(np.int64)
        args = kernel_rows(Xk)
        layout = (rows, bag_ptr, Z, z_ptr, lab_ptr)
        W = np.zeros((Xk.shape[1], C), dtype=np.float64)
        cand = np.empty(int(lab_ptr[-1]), dtype=np.float64)
        steps = self.max_iter * -(-N // self.batch_size)

        viol = _bag_pass(W, args, layout, cand)
        objectives = [_objective(W, lam, viol, cand, lab_ptr, bw)]
        tie_prev = None
        n_tied = []
        n_passes = []
        n_iter = 0
        rounds = 0
        best = (np.inf, None, 0)
        for _ in range(self.n_rounds):
            tie_w = tie_weights(cand, lab_ptr)
            if tie_prev is not None and np.array_equal(tie_w > 0, tie_prev > 0):
                break
            n_tied.append(float(np.mean(np.add.reduceat(tie_w > 0, lab_ptr[:-1]))))
            start = objectives[-1]
            t0, passes = 0, 0
            while True:
                batches = draw_batches(rng, N, steps, self.batch_size)
                lens = np.full(steps, batches.shape[1], dtype=np.int64)
                _pegasos_round(W, args, layout, tie_w, (batches, lens, t0), (lam, radius), bw)
                t0 += steps
                passes += self.max_iter
                viol = _bag_pass(W, args, layout, cand)
                now = _objective(W, lam, viol, cand, lab_ptr, bw)
                if now < start or passes + self.max_iter > self.max_passes:
                    break
            n_iter += t0
            n_passes.append(passes)
            rounds += 1
            objectives.append(now)
            if objectives[-1] < best[0]:
                best = (objectives[-1], W.copy(), rounds)
            tie_prev = tie_w
            prev, now = objectives[-2], objectives[-1]
            if rounds > 1 and abs(prev - now) < self.tol * max(abs(prev), 1e-12):
                break
        if best[1] is None or not np.isfinite(best[1]).all():
            raise ValueError(f"MMS reached no finite objective in {rounds} CCCP round(s) (objectives "
                             f"{[float(o) for o in objectives]}): an overflow; are sample_weight or the features "
                             "very large? The estimator is left as it was.")
        self._W = best[1]
        self.best_round_ = best[2]
        self.classes_ = B.classes_
        self.alpha_ = lam
        self.row_scale_ = scale
        self.n_rounds_ = rounds
        self.n_iter_ = n_iter
        self.n_passes_ = np.asarray(n_passes, dtype=np.int64)
        self.objective_ = np.asarray(objectives)
        self.n_tied_ = np.asarray(n_tied)
        self.__dict__.pop("temperature_", None)
        if self.probability:
            fit_bag_temperature(self, X, bags, sample_weight)
        return self

    def objective(self, X, bags):
        """Return objective (5) of the fitted weights on ``(X, bags)``, with the fitted ``alpha_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
            The rows.
        bags : BagCandidates, or any form :meth:`fit` accepts
            Their bags and candidate labelings (over the fitted classes).

        Returns
        -------
        float
            ``alpha_ / 2 ||W||^2`` plus the mean ambiguous hinge loss of the bags.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "classes_")
        check_X_values(X)
        X = check_rows(self, X)
        B = as_bags(bags, X.shape[0])
        if not np.array_equal(B.classes_, self.classes_) and not np.isin(B.classes_, self.classes_).all():
            raise ValueError(f"bags hold labels {np.setdiff1d(B.classes_, self.classes_)[:10].tolist()} the model "
                             "was not fitted with.")
        B = BagCandidates(B.bag_of, [B.labelings(i) for i in range(B.n_bags)], classes=self.classes_)
        Xk = with_intercept(X) if self.fit_intercept else X
        if sp.issparse(Xk):
            Xk = Xk.tocsr().sorted_indices()
        else:
            Xk = np.ascontiguousarray(Xk)
        n_lab = B.n_labelings
        lab_ptr = np.concatenate([[0], np.cumsum(n_lab)]).astype(np.int64)
        cand = np.empty(int(lab_ptr[-1]))
        viol = _bag_pass(self._W, kernel_rows(Xk), (np.ascontiguousarray(B.rows, dtype=np.int64), B.bag_ptr,
                                                    B.Z, B.z_ptr, lab_ptr), cand)
        return _objective(self._W, self.alpha_, viol, cand, lab_ptr)

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) ----------------
    _saved_arrays = {**LinearMulticlass._saved_arrays, "objective": "objective_", "n_tied": "n_tied_",
                     "n_passes": "n_passes_"}
    _saved_scalars = {**LinearMulticlass._saved_scalars, "n_rounds": Scalar("n_rounds_", "int"),
                      "n_iter": Scalar("n_iter_", "int"), "alpha": Scalar("alpha_", "positive"),
                      "best_round": Scalar("best_round_", "int"), "row_scale": Scalar("row_scale_", "positive", True, 1.0),
                      "temperature": Scalar("temperature_", "positive", True)}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count

        spec = super()._declared_state(params, state, shapes)
        rounds = count(state, "n_rounds")
        spec.update(objective=("f", (rounds + 1,), True), n_tied=("f", (rounds,), True),
                    n_passes=("iu", (rounds,), True))
        return spec

    def _restored(self, loaded):
        super()._restored(loaded)
        self.n_passes_ = self.n_passes_.astype(np.int64)
        if self.best_round_ > self.n_rounds_:
            raise ValueError(f"best_round {self.best_round_} is past the {self.n_rounds_} rounds run")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def tie_weights(cand, lab_ptr):
    """alpha_{i,l}: ``1/|C_i|`` for the candidates within 1e-9 (relative) of the bag's best."""
    starts = lab_ptr[:-1]
    best = np.maximum.reduceat(cand, starts)
    best_rep = np.repeat(best, np.diff(lab_ptr))
    tied = cand >= best_rep - _TIE * (1.0 + np.abs(best_rep))
    count = np.add.reduceat(tied.astype(np.float64), starts)
    return np.where(tied, 1.0 / np.repeat(count, np.diff(lab_ptr)), 0.0)


def _objective(W, lam, viol, cand, lab_ptr, bw=None):
    """Objective (5); an overflow gives inf or NaN (fit then refuses the round), not a warning."""
    with np.errstate(over="ignore", invalid="ignore"):
        best = np.maximum.reduceat(cand, lab_ptr[:-1])
        loss = np.maximum(viol - best, 0.0)          # viol = -inf (no labeling outside Z) -> 0
        if bw is not None and bw.size:
            loss = bw * loss
        return float(0.5 * lam * np.sum(W * W) + loss.mean())
