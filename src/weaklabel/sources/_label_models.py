"""Label models: from the votes of several weak sources to probabilistic labels.

:class:`MajorityVote` (optionally weighted) is the baseline; :class:`DawidSkene` is Dawid
& Skene's model, with abstains as an outcome (labeling functions) or ignored (crowds);
:class:`PrecisionVote` weighs each vote by its source's estimated precision on the class it
votes, for one-sided labeling functions.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from .._validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._persist import SavesModel, Scalar, register
from .._validation import transactional
from ._kernels import em_step, lift_pass, posterior_pass, vote_winners, weighted_votes
from ._votes import Votes, check_gold, check_memory, check_sets, check_votes, outputs_table, votes_from_long

__all__ = ["MajorityVote", "DawidSkene", "PrecisionVote", "held_out_vote_score", "LabelModelWarning"]

_NO_PARAMS = np.zeros((1, 1, 1))      # em_step's parameters when it starts from majority vote

#: a fit has collapsed when it puts at least this share of the covered rows in one class...
COLLAPSE_SHARE = 0.9
#: ...while majority vote puts at most this share of them in that class
MAJORITY_SHARE = 2 / 3
#: posterior cells (rows x classes) per chunk when a check walks the posteriors: 128 MiB
_CHUNK_CELLS = 1 << 24
#: rows of the fitted votes that score the EM starts (evenly spaced when there are more)
_SELECTION_ROWS = 20_000


class LabelModelWarning(UserWarning):
    """A label model's fit that should not be trusted as it is: its posteriors put almost
    every covered row in one class while majority vote does not (see ``on_collapse``).
    """


def _is_long(L):
    """A DataFrame of answers, one (item, worker, label) row each (crowd-kit's form)."""
    columns = {str(c).lower() for c in getattr(L, "columns", ())}
    return "worker" in columns and "label" in columns


def _chunks(n_rows, K):
    """``(start, stop)`` of row chunks whose posteriors take at most _CHUNK_CELLS cells."""
    step = max(1, min(1 << 16, _CHUNK_CELLS // max(K, 1)))
    return [(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


def _row_range(votes, a, b):
    """The votes of rows ``a:b`` as a :class:`Votes` (views, no copy)."""
    lo, hi = votes.indptr[a], votes.indptr[b]
    return Votes(b - a, votes.n_sources, votes.indptr[a:b + 1] - lo, votes.src[lo:hi], votes.cls[lo:hi])


def _winner_counts(P):
    """How many rows each class wins in ``P`` (a tie split equally among its classes)."""
    top = P >= P.max(axis=1, keepdims=True) - 1e-12
    return (top / top.sum(axis=1, keepdims=True)).sum(axis=0)


def _vote_shares(votes, members, K, weights=None):
    """Each row's (weighted) votes per class; a set vote spread over its classes."""
    P = np.zeros((votes.n_rows, K))
    w = np.ones(votes.n_sources) if weights is None else weights
    weighted_votes(votes.indptr, votes.src, votes.cls, w, members, P)
    return P


def _majority_winners(P, covered, balance, tie_break, random_state, abstain):
    """The class with the most votes in each row of ``P`` (votes per class), ties broken by
    ``tie_break`` (see :class:`MajorityVote`); a row without a vote takes ``balance``'s
    largest class (-1 with ``abstain`` or ``tie_break="abstain"``).
    """
    P = P.copy()
    P[~covered] = balance                     # a row without a vote: the balance decides
    top = P >= P.max(axis=1, keepdims=True) - 1e-9 * np.maximum(P.max(axis=1, keepdims=True), 1.0)
    if tie_break == "random":
        from sklearn.utils import check_random_state

        key = np.where(top, check_random_state(random_state).random_sample(P.shape), -1.0)
    elif tie_break == "lowest":
        key = top.astype(np.float64)
    else:
        key = np.where(top, balance[None, :], -1.0)
    pred = np.argmax(key, axis=1)
    if tie_break == "abstain":
        pred[top.sum(axis=1) > 1] = -1
    if abstain or tie_break == "abstain":
        pred[~covered] = -1
    return pred


def _collapsed(share, majority_share, majority_winners, flat):
    """A collapse: the posteriors put COLLAPSE_SHARE of the covered rows in one class, where
    majority vote puts at most MAJORITY_SHARE of them, or prefer no class on COLLAPSE_SHARE
    of them (flat)."""
    one_class = majority_winners.sum() > 0 and share >= COLLAPSE_SHARE and majority_share <= MAJORITY_SHARE
    return bool(one_class or flat >= COLLAPSE_SHARE)


def _partitioned(votes):
    """Whether ``votes`` are split over a cluster (:class:`weaklabel.distributed.PartitionedVotes`):
    a statistic is then computed on each partition where it lives (``votes.map_sum``) and
    the partitions' results are summed; the fit's own code runs unchanged around it."""
    return hasattr(votes, "map_sum")


def _gold(y, votes, K):
    """Known labels of ``votes``' rows (:func:`check_gold`); None for partitioned votes, which
    take none."""
    if _partitioned(votes):
        if y is not None:
            raise ValueError("y (known labels) is not taken with partitioned votes: fit on the labelled rows in "
                             "memory, or leave y out.")
        return None
    return check_gold(y, votes.n_rows, K)


def _n_kept(votes, gold):
    """How many rows a fit learns from: those with a vote or a known label."""
    if gold is None:
        return votes.map_sum(lambda v, g: float(v.covered.sum()))
    return float((votes.covered | (gold >= 0)).sum())


def _spread_rows(votes, n):
    """At most ``n`` rows of ``votes``, evenly spaced (all of them when there are fewer)."""
    if votes.n_rows <= n:
        return votes
    return votes.rows(np.linspace(0, votes.n_rows - 1, n).astype(np.int64))


class _LabelModel(SavesModel, BaseEstimator):
    """What the label models share: the fitted shape of the votes, prediction, scoring,
    saving.
    """

    _fitted_marker = "n_classes_"

    def _sets(self, n_classes):
        """The set votes' table (None for models without set votes, or none given)."""
        sets = getattr(self, "sets", None)
        return None if sets is None else check_sets(sets, n_classes)

    def _set_shares(self, K):
        """The set votes' shares of the classes ``(n_sets, K)`` (no row without set votes): a
        vote ``K + s`` spreads over row ``s``. A class vote needs no table (never K x K).
        """
        sets = self._sets(K)
        return np.zeros((0, K)) if sets is None or len(sets) == 0 else outputs_table(K, sets)[K:]

    def _check(self, L, *, reset, n_classes=None):
        """The votes and the class count; refuses, before anything is allocated, a fit whose
        parameters (or a prediction whose posteriors) would not fit in memory.
        """
        if reset and _partitioned(L):
            votes, K = L, L.n_classes
            check_memory(self._parameter_bytes(votes.n_sources, K),
                         f"{type(self).__name__}'s parameters over {votes.n_sources} sources and {K} classes", K)
            return votes, K
        if reset:
            votes, K = check_votes(L, n_classes=n_classes, sets=self._sets(n_classes))
            check_memory(self._parameter_bytes(votes.n_sources, K),
                         f"{type(self).__name__}'s parameters over {votes.n_sources} sources and {K} classes", K)
            return votes, K
        check_is_fitted(self, "n_classes_")
        votes, _ = check_votes(L, n_classes=self.n_classes_, n_sources=self.n_sources_,
                               sets=self._sets(self.n_classes_))
        check_memory(16 * votes.n_rows * self.n_classes_,
                     f"the posteriors of {votes.n_rows} rows over {self.n_classes_} classes", self.n_classes_)
        return votes, self.n_classes_

    def _parameter_bytes(self, m, K):
        """What a fit over ``m`` sources and ``K`` classes allocates, about (bytes)."""
        return 64 * K

    def _from_long(self, L, y, n_classes, *, reset):
        """A long table of answers (see :func:`votes_from_long`) as ``(votes, y, n_classes)``;
        anything else as it came. The fit keeps the workers and the labels (``workers_``,
        ``class_labels_``), in the columns' and classes' order; ``y`` may then map items to
        labels (a dict or a pandas Series).
        """
        if not _is_long(L):
            if reset:                       # a vote matrix now: no table's workers and labels
                self.__dict__.pop("workers_", None)
                self.__dict__.pop("class_labels_", None)
            return L, y, n_classes
        if reset:
            v = votes_from_long(L)
            self.workers_, self.class_labels_ = v.workers, v.classes
            n_classes = max(v.n_classes, 2) if n_classes is None else n_classes
        else:
            v = self._fitted_long(L)
        if y is not None:
            index = {c: k for k, c in enumerate(self.class_labels_.tolist())}
            known = dict(y.items()) if hasattr(y, "items") else None
            if known is None:
                raise ValueError("with a long table, y must map items to labels (a dict or a pandas Series).")
            y = np.asarray([index.get(known.get(i), -1) if known.get(i) is not None else -1 for i in v.items.tolist()])
        return v.L, y, n_classes

    def _fitted_long(self, L):
        """A long table's votes in the fitted workers' columns and the fitted labels' classes."""
        if not hasattr(self, "workers_"):
            raise ValueError("this model was fitted on a vote matrix, not a long table of answers: pass votes of "
                             "the same sources (or refit on the table).")
        v = votes_from_long(L, classes=self.class_labels_)
        column = {w: k for k, w in enumerate(self.workers_.tolist())}
        unknown = [w for w in v.workers.tolist() if w not in column]
        if unknown:
            raise ValueError(f"worker {unknown[0]!r} did not answer in the fit; a label model knows only the "
                             f"{len(column)} workers it was fitted on.")
        C = v.L.tocoo()
        cols = np.asarray([column[w] for w in v.workers.tolist()], dtype=np.int64)[C.col]
        return type(v)(sp.csr_matrix((C.data, (C.row, cols)), shape=(v.L.shape[0], len(column))), v.items,
                       self.workers_, self.class_labels_)

    def _votes_in(self, L):
        """``(votes, n_classes, items)`` of a vote matrix (``items`` None) or a long table."""
        items = None
        if _is_long(L):
            v = self._fitted_long(L)
            L, items = v.L, v.items
        votes, K = self._check(L, reset=False)
        return votes, K, items

    def _labelled(self, values, items, columns=None):
        """Predictions of a long table's items as pandas, indexed by item, in its labels."""
        from .._extras import require

        pd = require("pandas", "label models on a long table of answers")
        index = pd.Index(items, name="item")
        if columns is not None:
            return pd.DataFrame(values, index=index, columns=pd.Index(self.class_labels_, name="label"))
        labels = np.asarray(self.class_labels_, dtype=object)[np.maximum(values, 0)]
        labels[values < 0] = None
        return pd.Series(labels, index=index, name="label")

    def _chunk(self, L, n_classes):
        """A ``partial_fit`` chunk's votes: ``(votes, n_classes, first call?)``; the first
        call fixes the numbers of sources and classes, later ones must agree.
        """
        if not hasattr(self, "n_classes_"):
            votes, K = self._check(L, reset=True, n_classes=n_classes)
            return votes, K, True
        if n_classes is not None and n_classes != self.n_classes_:
            raise ValueError(f"n_classes={n_classes} differs from the fitted {self.n_classes_}.")
        votes, K = self._check(L, reset=False)
        return votes, K, False

    @transactional
    def partial_fit(self, L, y=None, *, n_classes=None):
        """One stepwise EM step on a chunk of rows (models fitted by EM; majority vote has
        its own).

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            A chunk of votes (the first call fixes the number of sources and classes).
        y : array-like of int of shape (n_rows,), default=None
            Known classes of the chunk's rows, -1 where unknown.
        n_classes : int, default=None
            Needed on the first call when the first chunk does not vote every class.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=not hasattr(self, "n_classes_"))
        votes, K, first = self._chunk(L, n_classes)
        gold = check_gold(y, votes.n_rows, K)
        n_rows = float((votes.covered | (gold >= 0)).sum())
        if first:
            self.n_classes_, self.n_sources_ = K, votes.n_sources
            self._n_seen, self._t = 0.0, 0
            self._init_running(votes.n_sources, K)
            self.collapsed_, self._majority_balance, self.start_ = False, np.full(K, 1.0 / K), "majority"
        stats = self._chunk_stats(votes, gold, K, first)
        if n_rows > 0:
            self._set_running(self._stepwise(self._running(), stats, n_rows))
        self._after_chunk(votes, stats)
        if votes.covered.any():
            self._guard(votes, K)
        return self

    def _stepwise(self, running, chunk, n_rows):
        """Stepwise EM (Cappe & Moulines 2009): blend a chunk's statistics, per row of its
        ``n_rows``, into the running ones with the step ``(t + 2) ** -decay`` (1 at first).
        """
        step = 1.0 if self._t == 0 else (self._t + 2.0) ** -float(self.decay)
        self._n_seen += n_rows
        self._t += 1
        return tuple((1 - step) * r + step * c / n_rows for r, c in zip(running, chunk))

    def predict(self, L, *, abstain=False):
        """The most probable class of each row (ties to the larger class balance, then the
        lower index).

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), sparse matrix, or DataFrame
            Votes, as :func:`weaklabel.sources.check_votes` reads them; or, for a model
            fitted on one, a long table of answers (then a pandas Series of labels, indexed
            by item, is returned).
        abstain : bool, default=False
            Return -1 for the rows without any vote (``False``: they get the class
            balance's most probable class; :class:`MajorityVote` breaks its ties, and
            with ``tie_break="abstain"`` abstains, as its ``tie_break`` says).

        Returns
        -------
        y : ndarray of int of shape (n_rows,)
            The predicted classes, -1 where the model abstains.
        """
        votes, K, items = self._votes_in(L)
        pred = self._predict(votes, K, abstain)
        return pred if items is None else self._labelled(pred, items)

    def _predict(self, votes, K, abstain):
        if getattr(self, "collapsed_", False) and self.on_collapse == "majority":   # as MajorityVote() predicts
            return _majority_winners(_vote_shares(votes, self._set_shares(K), K), votes.covered, self._majority_balance,
                                     "random", 0, abstain)
        pred = np.argmax(self._proba(votes, K) + 1e-9 * self.class_balance_[None, :], axis=1)
        if abstain:
            pred[~votes.covered] = -1
        return pred

    def score(self, L, y=None):
        """Accuracy of :meth:`predict` on the rows with a vote and a known label; without
        labels, :func:`held_out_vote_score` (how well the model predicts each vote from the
        others), so that ``GridSearchCV(model, grid).fit(L)`` selects without a label.

        Rows without any vote are left out: a label model knows nothing of them but the
        class balance (an end model labels them).

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes of the rows to score.
        y : array-like of int of shape (n_rows,), default=None
            True classes, -1 where unknown; ``None`` for the label-free score.

        Returns
        -------
        score : float
            Accuracy on the covered rows with a known label; without ``y``, the held-out
            vote score.
        """
        if y is None:
            return held_out_vote_score(self, L)
        votes, K = self._check(L, reset=False)
        pred = self._predict(votes, K, False)
        g = check_gold(y, pred.size, self.n_classes_)
        known = (g >= 0) & votes.covered
        if not known.any():
            raise ValueError("no row of L has both a vote and a known label in y (-1 = unknown); nothing to score.")
        return float(np.mean(pred[known] == g[known]))

    def predict_proba(self, L):
        """Return the posterior of each row's true class; the class balance for a row without a vote.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes of the rows to label, with the fitted number of sources.

        Returns
        -------
        P : ndarray of shape (n_rows, n_classes)
            One row of class probabilities per row of votes (for :class:`MajorityVote`,
            each class's share of the row's weighted votes; for a model whose fit
            collapsed, with ``on_collapse="majority"``, majority vote's shares).
        """
        votes, K, items = self._votes_in(L)
        P = self._proba(votes, K)
        return P if items is None else self._labelled(P, items, columns=True)

    # ---- the collapse guard (every label model fitted by EM or from overlaps) --------------

    def _proba(self, votes, K):
        if getattr(self, "collapsed_", False) and self.on_collapse == "majority":
            P = _vote_shares(votes, self._set_shares(K), K)
            total = P.sum(axis=1, keepdims=True)
            return np.where(total > 0, P / np.where(total > 0, total, 1.0), self._majority_balance[None, :])
        return self._model_proba(votes, K)

    def _collapse(self, votes, K, proba=None):
        """``(class, the model's share, majority vote's share, majority vote's winners, flat
        share)`` over the covered rows of ``votes``: the class the posteriors (``proba``, the
        model's own by default) put most rows in, and the share of rows whose posterior
        prefers no class at all.
        """
        own, majority, flat = self._collapse_counts(votes, K, proba)
        n = max(own.sum(), 1.0)
        c = int(np.argmax(own))
        return c, own[c] / n, majority[c] / n, majority, flat / n

    def _collapse_counts(self, votes, K, proba=None):
        """The sums behind :meth:`_collapse`: rows won per class by the posteriors and by
        majority vote, and flat rows, over the covered rows."""
        if _partitioned(votes):
            return votes.map_sum(lambda v, g: self._collapse_counts(v, K, proba))
        proba = self._model_proba if proba is None else proba
        members = self._set_shares(K)
        own, majority, flat = np.zeros(K), np.zeros(K), 0.0
        for a, b in _chunks(votes.n_rows, K):
            sub = _row_range(votes, a, b)
            cov = sub.covered
            if cov.any():
                P = proba(sub, K)[cov]
                own += _winner_counts(P)
                flat += float((P.max(axis=1) - P.min(axis=1) < 1e-6).sum())
                majority += _winner_counts(_vote_shares(sub, members, K)[cov])
        return own, majority, flat

    def _guard(self, votes, K):
        """Check the fit against majority vote; warn (and fall back, with
        ``on_collapse="majority"``) when it has collapsed onto one class.
        """
        c, share, mv_share, winners, flat = self._collapse(votes, K)
        self._majority_balance = (winners + 1.0) / (winners.sum() + K)
        self.collapsed_ = _collapsed(share, mv_share, winners, flat)
        if self.collapsed_:
            then = ("its posteriors are replaced by majority vote's (on_collapse='majority')"
                    if self.on_collapse == "majority" else "its posteriors are kept (on_collapse='warn')")
            what = (f"gave {flat:.1%} of the covered rows a flat posterior (no class preferred): the fit says "
                    "nothing" if flat >= COLLAPSE_SHARE else
                    f"put {share:.1%} of the covered rows in class {c}, where majority vote puts {mv_share:.1%}: the "
                    "fit collapsed onto one class")
            warnings.warn(f"{type(self).__name__} {what}; {then}. One-sided sources (one class or abstain) often "
                          "cause it: see the user guide on several weak sources.", LabelModelWarning, stacklevel=4)

    def _fit_from_starts(self, votes, gold, K, em):
        """EM (``em(votes, gold, start)``) from each start, the one :meth:`_select` prefers
        kept. On more than _SELECTION_ROWS rows the starts are compared on an evenly spaced
        sample of them (with the labelled rows), and only the kept start runs on every row:
        two starts cost little more than one.
        """
        starts = ("majority", "prior")
        if votes.n_rows <= _SELECTION_ROWS:
            if gold is None:                # partitioned, and few rows: fitted where the client is
                votes, gold = votes.rows(np.arange(votes.n_rows)), check_gold(None, votes.n_rows, K)
            return self._select([em(votes, gold, start) for start in starts], votes, gold, K)
        labelled = np.flatnonzero(gold >= 0)[:_SELECTION_ROWS] if gold is not None else np.zeros(0, np.int64)
        idx = np.union1d(np.linspace(0, votes.n_rows - 1, _SELECTION_ROWS).astype(np.int64), labelled)
        sample, sample_gold = votes.rows(idx), (gold[idx] if gold is not None else check_gold(None, idx.size, K))
        best = self._select([em(sample, sample_gold, start) for start in starts], sample, sample_gold, K)
        fit = em(votes, gold, best["start"])
        self._apply(fit)
        return fit

    def _select(self, fits, votes, gold, K):
        """The start to keep: the best on the known labels' accuracy where some rows are
        labelled, else on the held-out vote score (label-free), collapsed starts last.
        """
        sample = _spread_rows(votes, _SELECTION_ROWS)
        labelled = np.flatnonzero((gold >= 0) & votes.covered)
        scores = []
        for fit in fits:
            self._apply(fit)
            collapsed = _collapsed(*self._collapse(sample, K)[1:])
            try:
                vote_score = _held_out_score(sample, lambda v: self._model_proba(v, K), self._set_shares(K) > 0)
            except ValueError:              # no row with two votes: the starts tie on it
                vote_score = 0.0
            accuracy = 0.0
            if labelled.size:
                sub = votes.rows(labelled)
                accuracy = float(np.mean(np.argmax(self._model_proba(sub, K), axis=1) == gold[labelled]))
            scores.append((not collapsed, accuracy, vote_score))
        best = fits[max(range(len(fits)), key=lambda i: scores[i])]
        self._apply(best)
        return best

    # what a model file keeps of the guard (files written before it had none: not collapsed)
    #: the collapse guard's state in model files (DawidSkene, PrecisionVote)
    _GUARD_ARRAYS = {"majority_balance": "_majority_balance"}
    _GUARD_SCALARS = {"collapsed": Scalar("collapsed_", "bool", True, False),
                      "start": Scalar("start_", "str", True, "majority")}

    def _restore_guard(self, K):
        """The loaded guard as a fit leaves it (a file without majority_balance: uniform)."""
        if "_majority_balance" not in self.__dict__:
            self._majority_balance = np.full(K, 1.0 / K)
        balance = self._majority_balance
        if (balance <= 0).any() or not np.isclose(balance.sum(), 1.0, atol=1e-6):
            raise ValueError(f"majority_balance must be {K} positive shares that sum to 1, as a fit leaves them")
        if self.start_ not in ("majority", "prior"):
            raise ValueError(f"start must be 'majority' or 'prior'; the file says {self.start_!r}")


@register
class MajorityVote(_LabelModel):
    """Majority vote of the sources, optionally weighted: the label models' baseline.

    Parameters
    ----------
    weights : array-like of shape (n_sources,), default=None
        A non-negative weight per source; ``None`` weighs every source 1.
    sets : array-like of bool of shape (n_sets, n_classes), or list of lists, default=None
        Set votes: a vote ``n_classes + s`` means "one of the classes of set ``s``" and
        shares its weight equally among them (see :func:`check_sets`).
    tie_break : {"random", "abstain", "lowest", "prior"}, default="random"
        How :meth:`predict` chooses among the classes tied for the most votes:
        ``"random"`` draws one (seeded by ``random_state``, so the same votes give the same
        labels), ``"abstain"`` returns -1 (and -1 for a row without any vote, as Snorkel's
        ``MajorityLabelVoter``), ``"lowest"`` takes the lowest class index, ``"prior"`` the
        class of the largest ``class_balance_`` (then the lowest index).
    random_state : int, RandomState instance or None, default=0
        Seeds the ``"random"`` tie-break.

    Attributes
    ----------
    n_classes_ : int
    n_sources_ : int
    class_balance_ : ndarray of shape (n_classes,)
        The share of each class among the covered rows' votes' winners (smoothed by one
        count per class): the probabilities of a row without any vote, and the ``"prior"``
        tie-break.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import MajorityVote
    >>> L = np.array([[0, 0, -1], [1, -1, 1], [-1, -1, -1], [1, 0, -1]])
    >>> MajorityVote(tie_break="lowest").fit(L).predict(L).tolist()
    [0, 1, 0, 0]
    >>> MajorityVote(tie_break="abstain").fit(L).predict(L).tolist()
    [0, 1, -1, -1]
    >>> MajorityVote().fit(L).predict(L, abstain=True).tolist()[2]
    -1
    """

    _parameter_constraints = {"weights": ["array-like", None], "sets": ["array-like", None],
                              "tie_break": [StrOptions({"random", "abstain", "lowest", "prior"})],
                              "random_state": ["random_state"]}

    def __init__(self, *, weights=None, sets=None, tie_break="random", random_state=0):
        self.weights = weights
        self.sets = sets
        self.tie_break = tie_break
        self.random_state = random_state

    def _predict(self, votes, K, abstain):
        return _majority_winners(self._counts(votes, K), votes.covered, self.class_balance_, self.tie_break,
                                 self.random_state, abstain)

    def _source_weights(self, m):
        """The weights over their largest (a vote's shares do not depend on their scale, and
        sums of weights near 1e308 would overflow)."""
        if self.weights is None:
            return np.ones(m)
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (m,) or not np.isfinite(w).all() or (w < 0).any():
            raise ValueError(f"weights must be {m} finite non-negative numbers, one per source; got shape {w.shape}.")
        return w / w.max() if w.max() > 0 else w

    def _counts(self, votes, K):
        P = np.zeros((votes.n_rows, K))
        weighted_votes(votes.indptr, votes.src, votes.cls, self._source_weights(votes.n_sources), self._set_shares(K), P)
        return P

    @transactional
    def fit(self, L, y=None, *, n_classes=None):
        """Learn the number of sources and classes and the class balance.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes: class indices and -1 for an abstain, or a sparse matrix of ``class + 1``.
        y : ignored
            Accepted so that a pipeline may pass known labels to every label model.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest class voted.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=True)
        votes, K = self._check(L, reset=True, n_classes=n_classes)
        self._source_weights(votes.n_sources)
        self.n_classes_, self.n_sources_ = K, votes.n_sources
        self._winners = np.zeros(K)
        self._add(votes)
        return self

    @transactional
    def partial_fit(self, L, y=None, *, n_classes=None):
        """Add a chunk of rows to the class balance (the first call fixes the shape).

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            A chunk of votes (the first call fixes the number of sources and classes).
        y : ignored
            Accepted so that a pipeline may pass known labels to every label model.
        n_classes : int, default=None
            Needed on the first call when the first chunk does not vote every class.

        Returns
        -------
        self
            The estimator, updated by this batch.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=not hasattr(self, "n_classes_"))
        votes, K, first = self._chunk(L, n_classes)
        if first:
            self._source_weights(votes.n_sources)
            self.n_classes_, self.n_sources_ = K, votes.n_sources
            self._winners = np.zeros(K)
        self._add(votes)
        return self

    def _add(self, votes):
        if _partitioned(votes):             # each partition's rows won, summed
            self._winners = self._winners + votes.map_sum(lambda v, g: self._won(v))
        else:
            self._won(votes, self._winners)
        self.class_balance_ = (self._winners + 1.0) / (self._winners.sum() + self.n_classes_)

    def _won(self, votes, winners=None):
        """Add to ``winners`` (new zeros by default) the rows ``votes`` wins per class, a tie
        split among its classes; returns it."""
        winners = np.zeros(self.n_classes_) if winners is None else winners
        vote_winners(votes.indptr, votes.src, votes.cls, self._source_weights(votes.n_sources),
                     self._set_shares(self.n_classes_), winners)
        return winners

    def _proba(self, votes, K):
        P = self._counts(votes, K)
        total = P.sum(axis=1, keepdims=True)
        return np.where(total > 0, P / np.where(total > 0, total, 1.0), self.class_balance_[None, :])

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import count

        K = count(state, "n_classes")
        return {"winners": ("f", (K,), True), "class_balance": ("f", (K,), True)}

    _saved_arrays = {"winners": "_winners", "class_balance": "class_balance_"}
    _saved_scalars = {"n_classes": Scalar("n_classes_", "int"), "n_sources": Scalar("n_sources_", "int")}

    def _restored(self, loaded):
        K, m = self.n_classes_, self.n_sources_
        if K < 2 or m < 1 or (self._winners < 0).any():
            raise ValueError(f"a majority vote over {m} sources and {K} classes cannot hold counts "
                             f"{self._winners.shape}")
        self._source_weights(m)
        self.class_balance_ = (self._winners + 1.0) / (self._winners.sum() + K)


@register
class DawidSkene(_LabelModel):
    """Dawid & Skene's label model, with abstains as an outcome: for labeling functions
    and crowds.

    Each source ``j`` has a confusion matrix ``theta_j[p, q] = P(j outputs p | true class q)``
    over the ``K`` classes **and the abstain** (``p = K``), and the classes a balance ``pi``.
    Fitted by EM (Dawid & Skene, *Applied Statistics* 28(1), 1979) from majority vote's
    posteriors, with Dirichlet pseudo-counts on every ``theta_j[:, q]`` (``prior`` on each
    outcome, ``prior_diagonal`` more on the right class) and on ``pi`` (``prior_class``).
    Modelling the abstain is what keeps a one-sided source (it votes one class or abstains)
    from looking perfect: its abstain rate then differs between the classes and carries the
    evidence. With dozens of one-sided sources, though, the abstains can outweigh the
    votes; ``abstain_weight`` below 1 tempers them. Rows without any vote take the class
    balance and are left out of the fit.

    ``partial_fit`` is stepwise EM (Cappe & Moulines, *JRSS B* 71(3), 2009; Liang & Klein,
    NAACL 2009): each chunk's expected statistics are blended into running ones with the
    step ``(t + 2) ** -decay``, so a vote matrix larger than memory is fitted chunk by chunk
    in O(sources x classes^2) memory.

    Parameters
    ----------
    prior : float or "auto", default="auto"
        Dirichlet pseudo-count on every outcome of every source's confusion column (> 0).
        ``"auto"``: 1.0 with ``abstain="evidence"`` (labeling functions, often few votes
        each), 0.01 with ``abstain="ignore"`` (crowds: Dawid & Skene's maximum likelihood,
        smoothed only enough to keep every probability positive).
    prior_diagonal : float or "auto", default="auto"
        Extra pseudo-count on the right class (>= 0): sources believed better than chance
        before any evidence. ``"auto"``: 0.0 (the starts name the classes), the choice of
        leave-one-set-out on the sixteen real vote matrices of ``weaklabel reproduce
        sources-corpus`` with ``abstain_weight=1`` (it was 2.0 before). Chosen jointly with
        ``abstain_weight``, leave-one-set-out goes to the grid's edge (256 and 0, driven by
        trec alone) and takes away what set votes and one-sided sources tell through their
        abstains, so that choice is published, not shipped.
    prior_class : float, default=1.0
        Dirichlet pseudo-count on each class of the balance (> 0).
    max_iter : int, default=100
        Most EM iterations of ``fit``.
    tol : float, default=1e-8
        ``fit`` stops when the log-likelihood improves by less than ``tol`` relative (0: run
        ``max_iter`` iterations).
    decay : float in (0.5, 1], default=0.7
        The stepwise EM step's decay in ``partial_fit``.
    abstain : {"evidence", "ignore"}, default="evidence"
        ``"evidence"``: an abstain is an outcome whose rate may differ between the classes
        (for labeling functions, which see every row). ``"ignore"``: Dawid & Skene's
        original model, where a missing vote says nothing and each source's confusion is
        conditioned on its having voted (for crowds, where a worker is shown only some
        items). Both fit the same ``confusions_``.
    abstain_weight : float in [0, 1], default=1.0
        With ``abstain="evidence"``, the weight of the abstains' log-likelihood in a row's
        posterior (a tempered likelihood): 1 counts every abstain as full evidence, smaller
        values keep dozens of one-sided sources' abstains from outweighing the votes (on
        the corpus's keyword and rule matrices, ``abstain_weight=0`` with a strong
        ``prior_diagonal`` is far better; see ``prior_diagonal``).
    on_collapse : {"majority", "warn"}, default="majority"
        What a fit does when its posteriors put almost every covered row (90 %) in one
        class while majority vote puts at most two thirds there: both warn
        (:class:`LabelModelWarning`, naming the class and the shares); ``"majority"``
        then predicts majority vote's shares instead (``collapsed_`` says so), ``"warn"``
        keeps the collapsed posteriors.
    sets : array-like of bool of shape (n_sets, n_classes), or list of lists, default=None
        Set votes: a vote ``n_classes + s`` means "one of the classes of set ``s``" ("not
        C" is every class but C). Each set is one more outcome of every source's confusion
        matrix, its prior pseudo-count ``prior_diagonal`` on the classes it names; EM
        starts from majority vote with a set vote's weight shared among its classes.

    Attributes
    ----------
    n_classes_ : int
    n_sources_ : int
    confusions_ : ndarray of shape (n_sources, n_classes + n_sets + 1, n_classes)
        ``theta_j``: the classes, the set votes, and last the abstain.
    class_balance_ : ndarray of shape (n_classes,)
    log_likelihood_ : float
        Of the covered rows at the last E-step.
    n_iter_ : int
    converged_ : bool
    start_ : {"majority", "prior"}
        The EM start kept: majority vote's posteriors, or every source believed right 7
        times in 10 (the one with the better held-out vote score, or with known labels
        ``y`` the better accuracy on them; a collapsed start only when both collapse).
    collapsed_ : bool
        Whether the fit collapsed onto one class (see ``on_collapse``).

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import DawidSkene, MajorityVote
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 2, 500)
    >>> good = np.where(rng.rand(500) < 0.9, y, 1 - y)          # a good two-sided source
    >>> spam = np.where((y == 1) & (rng.rand(500) < 0.5), 1, -1)   # one-sided: votes 1 or abstains
    >>> L = np.c_[good, spam, np.where(rng.rand(500) < 0.7, y, 1 - y)]
    >>> model = DawidSkene().fit(L)
    >>> bool(model.score(L, y) > MajorityVote().fit(L).score(L, y))
    True
    """

    _model_kind = "sources.DawidSkene"
    _parameter_constraints = {"prior": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
                              "prior_diagonal": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
                              "prior_class": [Interval(Real, 0, None, closed="neither")],
                              "max_iter": [Interval(Integral, 1, None, closed="left")],
                              "tol": [Interval(Real, 0, None, closed="left")],
                              "decay": [Interval(Real, 0.5, 1, closed="right")],
                              "abstain": [StrOptions({"evidence", "ignore"})],
                              "abstain_weight": [Interval(Real, 0, 1, closed="both")],
                              "on_collapse": [StrOptions({"majority", "warn"})],
                              "sets": ["array-like", None]}

    def __init__(self, *, prior="auto", prior_diagonal="auto", prior_class=1.0, max_iter=100, tol=1e-8, decay=0.7,
                 abstain="evidence", abstain_weight=1.0, on_collapse="majority", sets=None):
        self.prior = prior
        self.prior_diagonal = prior_diagonal
        self.prior_class = prior_class
        self.max_iter = max_iter
        self.tol = tol
        self.decay = decay
        self.abstain = abstain
        self.abstain_weight = abstain_weight
        self.on_collapse = on_collapse
        self.sets = sets

    def _parameter_bytes(self, m, K):
        # counts, confusions, their logs and the pseudo-counts: (m, outputs + 1, K) each
        n_out = K + (0 if self.sets is None else len(self.sets)) + 1
        return 8 * 6 * m * n_out * K

    # ---- EM pieces -----------------------------------------------------------------------

    def _pseudo(self, K):
        ignore = self.abstain == "ignore"
        prior = (0.01 if ignore else 1.0) if self.prior == "auto" else float(self.prior)
        diagonal = 0.0 if self.prior_diagonal == "auto" else float(self.prior_diagonal)
        members = outputs_table(K, self._sets(K)) > 0     # the outputs (classes, then sets) naming each class
        pseudo = np.full((members.shape[0] + 1, K), prior)
        pseudo[:-1][members] += diagonal
        return pseudo

    def _log_params(self, theta):
        """``log theta``; with ``abstain="ignore"``, of the confusion given a vote, and 0 for
        the abstain (it says nothing).
        """
        log_theta = np.log(theta)
        A = theta.shape[1] - 1
        if self.abstain == "ignore":
            log_theta[:, :A, :] -= np.log(theta[:, :A, :].sum(axis=1, keepdims=True))
            log_theta[:, A, :] = 0.0
        else:
            log_theta[:, A, :] *= float(self.abstain_weight)
        return log_theta

    def _step(self, votes, gold, K, theta=None, pi=None):
        """The E-step (majority vote's shares when ``theta`` is None) fused with the
        statistics: expected counts ``(n_sources, outputs + 1, K)``, class totals and the
        log-likelihood, without storing a posterior per row.
        """
        if _partitioned(votes):
            return votes.map_sum(lambda v, g: self._step(v, g, K, theta, pi))
        members = self._set_shares(K)
        A = K + members.shape[0]                    # outputs: the classes, then the set votes; A = abstain
        counts, class_total = np.zeros((votes.n_sources, A + 1, K)), np.zeros(K)
        if theta is None:
            ll = em_step(votes.indptr, votes.src, votes.cls, gold, 0, _NO_PARAMS, np.zeros(K), members, counts,
                         class_total)
        else:
            log_theta = self._log_params(theta)
            base = np.log(pi) + log_theta[:, A, :].sum(axis=0)
            ll = em_step(votes.indptr, votes.src, votes.cls, gold, 1, log_theta, base, members, counts, class_total)
        counts[:, A, :] = np.maximum(class_total[None, :] - counts[:, :A, :].sum(axis=1), 0.0)
        return counts, class_total, ll

    def _m_step(self, counts, class_total):
        K = class_total.size
        theta = counts + self._pseudo(K)[None]
        theta /= theta.sum(axis=1, keepdims=True)
        pi = (class_total + float(self.prior_class)) / (class_total.sum() + K * float(self.prior_class))
        return theta, pi

    def _posteriors(self, votes, theta, pi):
        T = np.empty((votes.n_rows, pi.size))
        ll = posterior_pass(votes.indptr, votes.src, votes.cls, self._log_params(theta), np.log(pi), T)
        return T, ll

    # ---- the estimator -------------------------------------------------------------------

    @transactional
    def fit(self, L, y=None, *, n_classes=None):
        """Fit the model by EM.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes: class indices and -1 for an abstain, or a sparse matrix of ``class + 1``.
        y : array-like of int of shape (n_rows,), default=None
            Known true classes, -1 where unknown: those rows' posteriors are held one-hot,
            which anchors the confusion matrices.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest class voted.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=True)
        votes, K = self._check(L, reset=True, n_classes=n_classes)
        gold = _gold(y, votes, K)
        n_cov = _n_kept(votes, gold)
        if not n_cov:
            raise ValueError("L has no vote on any row (and y no known label): nothing to fit.")
        self.n_classes_, self.n_sources_ = K, votes.n_sources
        fit = self._fit_from_starts(votes, gold, K, lambda v, g, start: self._em(v, g, K, start))
        self._s_counts, self._s_class, self._n_seen, self._t = fit["counts"] / n_cov, fit["class_total"] / n_cov, \
            n_cov, 1
        self._guard(votes, K)
        return self

    def _em(self, votes, gold, K, start):
        """EM from ``start`` ("majority": majority vote's posteriors; "prior": every source
        right 7 times in 10, its abstain rate the same for every class); the fit as a dict.
        """
        if start == "majority":
            counts, class_total, _ = self._step(votes, gold, K)
            params = self._m_step(counts, class_total)
        else:
            params = self._believed(votes, K)
        ll_prev, converged, it = -np.inf, False, 0
        for it in range(1, self.max_iter + 1):
            counts, class_total, ll = self._step(votes, gold, K, *params)
            params = self._m_step(counts, class_total)
            if np.isfinite(ll_prev) and abs(ll - ll_prev) < self.tol * max(abs(ll_prev), 1.0):
                converged = True
                break
            ll_prev = ll
        return {"confusions": params[0], "class_balance": params[1], "counts": counts, "class_total": class_total,
                "log_likelihood": float(ll), "n_iter": it, "converged": converged, "start": start}

    def _believed(self, votes, K):
        """The "prior" start's parameters: each source's vote right 7 times in 10 (the rest
        spread over its other outputs), its abstain rate as observed, a uniform balance.
        """
        members = outputs_table(K, self._sets(K)) > 0
        A = members.shape[0]
        right = np.where(members, 0.7, 0.3 / max(A - 1, 1))
        right /= right.sum(axis=0, keepdims=True)
        voted = _source_votes(votes) / max(votes.n_rows, 1)
        voted = np.clip(voted, 1e-3, 1 - 1e-3)
        theta = np.empty((votes.n_sources, A + 1, K))
        theta[:, :A, :] = voted[:, None, None] * right[None]
        theta[:, A, :] = 1.0 - voted[:, None]
        return theta, np.full(K, 1.0 / K)

    def _apply(self, fit):
        self.confusions_, self.class_balance_ = fit["confusions"], fit["class_balance"]
        self.log_likelihood_, self.n_iter_, self.converged_ = fit["log_likelihood"], fit["n_iter"], fit["converged"]
        self.start_ = fit["start"]

    # ---- partial_fit: stepwise EM over (expected counts, class totals) -------------------

    def _init_running(self, m, K):
        self._s_counts, self._s_class = np.zeros((m, K + self._set_shares(K).shape[0] + 1, K)), np.zeros(K)

    def _chunk_stats(self, votes, gold, K, first):
        params = () if first else (self.confusions_, self.class_balance_)
        return self._step(votes, gold, K, *params)[:2]

    def _running(self):
        return self._s_counts, self._s_class

    def _set_running(self, running):
        self._s_counts, self._s_class = running

    def _after_chunk(self, votes, stats):
        n_eff = max(self._n_seen, 1.0)
        self.confusions_, self.class_balance_ = self._m_step(self._s_counts * n_eff, self._s_class * n_eff)
        _, ll = self._posteriors(votes, self.confusions_, self.class_balance_)
        self.log_likelihood_, self.n_iter_, self.converged_ = float(ll), self._t, False

    def _model_proba(self, votes, K):
        return self._posteriors(votes, self.confusions_, self.class_balance_)[0]

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import length

        K = length(shapes, "class_balance")
        m = shapes.get("confusions", (-1,))[0]
        n_out = K + len(params.get("sets") or ()) + 1            # classes, set votes, the abstain
        return {"confusions": ("f", (m, n_out, K), True), "class_balance": ("f", (K,), True),
                "s_counts": ("f", (m, n_out, K), True), "s_class": ("f", (K,), True),
                "majority_balance": ("f", (K,), False)}

    _saved_arrays = {"confusions": "confusions_", "class_balance": "class_balance_", "s_counts": "_s_counts",
                     "s_class": "_s_class", **_LabelModel._GUARD_ARRAYS}
    _saved_scalars = {"n_seen": Scalar("_n_seen", "float"), "t": Scalar("_t", "int"),
                      "log_likelihood": Scalar("log_likelihood_", "float"), "n_iter": Scalar("n_iter_", "int"),
                      "converged": Scalar("converged_", "bool"), **_LabelModel._GUARD_SCALARS}

    def _restored(self, loaded):
        theta, pi = self.confusions_, self.class_balance_
        K = pi.size
        if K < 2:
            raise ValueError(f"a label model needs 2 classes or more; the file has {K}")
        for name, v, axis in (("confusions", theta, 1), ("class_balance", pi, 0)):
            if (v <= 0).any() or not np.allclose(v.sum(axis=axis), 1.0, atol=1e-6):
                raise ValueError(f"{name} must hold positive probabilities that sum to 1, as EM leaves them")
        if (self._s_counts < 0).any() or (self._s_class < 0).any() or self._n_seen < 0:
            raise ValueError("the running statistics and the rows seen (n_seen) must be finite and non-negative")
        self.n_classes_, self.n_sources_ = K, theta.shape[0]
        self._restore_guard(K)


@register
class PrecisionVote(_LabelModel):
    """A vote weighted by each source's precision on the class it votes, fitted by EM: for
    labeling functions.

    Source ``j``'s vote for class ``p`` is right with probability ``a[j, p]`` (its
    precision on ``p``), and the classes have a balance ``pi``. A row's posterior is
    ``log P(q | votes) = log pi_q + sum over the row's votes (j, q) of w[j, q] + const``,
    with the weight ``w[j, p] = logit(a[j, p]) - logit(pi_p)``: the log-odds a vote adds
    over the class's base rate (its *lift*). A vote as precise as the base rate adds
    nothing, a less precise one counts against its class. Abstains carry no evidence, as
    in data programming's labeling propensity (Ratner et al., NeurIPS 2016), and a one-sided
    source (it votes one class or abstains) is weighted by how often that class is right,
    which its votes, not its abstains, tell. EM (Dawid & Skene, *Applied Statistics* 28(1),
    1979, with the vote-conditional one-vs-rest confusion above) starts from majority vote's
    shares; ``a[j, p]`` has a Beta(``prior_right``, ``prior_wrong``) prior, so that a source
    with few votes stays near the prior's precision.

    ``partial_fit`` is stepwise EM (Cappe & Moulines, *JRSS B* 71(3), 2009), as in
    :class:`DawidSkene`: O(sources x classes) memory whatever the number of rows.

    Parameters
    ----------
    prior_right : float, default=30.0
        Beta pseudo-count of right votes of every (source, class) (> 0).
    prior_wrong : float, default=10.0
        Beta pseudo-count of wrong votes (> 0): by default a vote is believed right 3 times
        in 4 before any evidence, as strongly as 40 votes. Chosen by leave-one-set-out on
        the sixteen real vote matrices of ``weaklabel reproduce sources-corpus`` (the best
        worst-case gain over majority vote), where it was the choice for 15 of the 16
        left-out matrices; the earlier prior (5, 2) fell more than a point below majority
        vote on six of them (up to 9.5 points).
    prior_class : float, default=1.0
        Dirichlet pseudo-count on each class of the balance (> 0).
    max_iter : int, default=200
        Most EM iterations of ``fit``.
    tol : float, default=1e-7
        ``fit`` stops when no precision moves by more than ``tol``.
    decay : float in (0.5, 1], default=0.7
        The stepwise EM step's decay in ``partial_fit``.
    on_collapse : {"majority", "warn"}, default="majority"
        What a fit does when its posteriors put almost every covered row (90 %) in one
        class while majority vote puts at most two thirds there: both warn
        (:class:`LabelModelWarning`, naming the class and the shares); ``"majority"``
        then predicts majority vote's shares instead (``collapsed_`` says so), ``"warn"``
        keeps the collapsed posteriors.

    Attributes
    ----------
    n_classes_ : int
    n_sources_ : int
    precision_ : ndarray of shape (n_sources, n_classes)
        ``a[j, p]``, the posterior-mean precision of source ``j``'s votes for ``p`` (the
        prior's mean where it never voted ``p``).
    weights_ : ndarray of shape (n_sources, n_classes)
        ``w[j, p]``, what a vote adds to its class's log-odds.
    class_balance_ : ndarray of shape (n_classes,)
    n_votes_ : ndarray of shape (n_sources, n_classes)
        How many votes for each class each source cast in the rows fitted.
    n_iter_ : int
    converged_ : bool
    start_ : {"majority", "prior"}
        The EM start kept: majority vote's shares, or every precision at the prior's mean
        (the one with the better held-out vote score, or with known labels ``y`` the better
        accuracy on them; a collapsed start only when both collapse).
    collapsed_ : bool
        Whether the fit collapsed onto one class (see ``on_collapse``).

    See Also
    --------
    DawidSkene : Full confusion matrices; with ``abstain="ignore"`` the model for crowds.
    MajorityVote : The baseline.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import MajorityVote, PrecisionVote
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 3, 4000)
    >>> def one_sided(c, precision, coverage):   # votes c on some rows, right `precision` of the time
    ...     fire = np.where(y == c, rng.rand(y.size) < coverage,
    ...                     rng.rand(y.size) < coverage * (1 - precision) / precision / 2)
    ...     return np.where(fire, c, -1)
    >>> L = np.column_stack([one_sided(c, p, cov) for c in range(3)
    ...                      for p, cov in ((0.95, 0.3), (0.7, 0.4), (0.5, 0.5))])
    >>> model = PrecisionVote().fit(L)
    >>> np.round(model.precision_[[0, 1, 2], 0], 2)       # truly 0.95, 0.7, 0.5: ranked, shrunk
    array([0.85, 0.55, 0.42])
    >>> bool(model.score(L, y) > MajorityVote().fit(L).score(L, y))
    True
    """

    _model_kind = "sources.PrecisionVote"
    _parameter_constraints = {"prior_right": [Interval(Real, 0, None, closed="neither")],
                              "prior_wrong": [Interval(Real, 0, None, closed="neither")],
                              "prior_class": [Interval(Real, 0, None, closed="neither")],
                              "max_iter": [Interval(Integral, 1, None, closed="left")],
                              "tol": [Interval(Real, 0, None, closed="left")],
                              "decay": [Interval(Real, 0.5, 1, closed="right")],
                              "on_collapse": [StrOptions({"majority", "warn"})]}

    def __init__(self, *, prior_right=30.0, prior_wrong=10.0, prior_class=1.0, max_iter=200, tol=1e-7, decay=0.7,
                 on_collapse="majority"):
        self.prior_right = prior_right
        self.prior_wrong = prior_wrong
        self.prior_class = prior_class
        self.max_iter = max_iter
        self.tol = tol
        self.decay = decay
        self.on_collapse = on_collapse

    def _parameter_bytes(self, m, K):
        return 8 * 10 * m * K           # precisions, weights, statistics: (m, K) each

    # ---- EM pieces -----------------------------------------------------------------------

    @staticmethod
    def _step(votes, gold, K, W=None, pi=None, total=None):
        """The E-step (majority vote's shares when ``W`` is None) fused with the statistics:
        expected right votes and numbers of votes ``(n_sources, K)`` (``total``, counted once
        by the caller), class totals.
        """
        if _partitioned(votes):
            right, _, class_total = votes.map_sum(lambda v, g: PrecisionVote._step(v, g, K, W, pi, total=0.0))
            return right, _vote_totals(votes, K) if total is None else total, class_total
        right, class_total = np.zeros((votes.n_sources, K, 1)), np.zeros(K)
        if W is None:
            em_step(votes.indptr, votes.src, votes.cls, gold, 0, _NO_PARAMS, np.zeros(K), np.zeros((0, K)), right,
                    class_total)
        else:
            em_step(votes.indptr, votes.src, votes.cls, gold, 2, W[:, :, None], np.log(pi), np.zeros((0, K)), right,
                    class_total)
        return right[:, :, 0], _vote_totals(votes, K) if total is None else total, class_total

    def _m_step(self, right, total, class_total):
        K = class_total.size
        a = (right + float(self.prior_right)) / (total + float(self.prior_right) + float(self.prior_wrong))
        pi = (class_total + float(self.prior_class)) / (class_total.sum() + K * float(self.prior_class))
        return a, pi, _lift(a, pi)

    @staticmethod
    def _posteriors(votes, W, pi):
        T = np.empty((votes.n_rows, pi.size))
        lift_pass(votes.indptr, votes.src, votes.cls, W, np.log(pi), T)
        return T

    def _publish(self, right, total, class_total):
        self.precision_, self.class_balance_, self.weights_ = self._m_step(right, total, class_total)

    # ---- the estimator -------------------------------------------------------------------

    @transactional
    def fit(self, L, y=None, *, n_classes=None):
        """Fit the precisions and the class balance by EM.

        Parameters
        ----------
        L : array-like of int of shape (n_rows, n_sources), or sparse matrix
            Votes: class indices and -1 for an abstain, or a sparse matrix of ``class + 1``.
        y : array-like of int of shape (n_rows,), default=None
            Known true classes, -1 where unknown: those rows' posteriors are held one-hot.
        n_classes : int, default=None
            The number of classes; ``None`` means one more than the largest class voted.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._validate_params()
        L, y, n_classes = self._from_long(L, y, n_classes, reset=True)
        votes, K = self._check(L, reset=True, n_classes=n_classes)
        gold = _gold(y, votes, K)
        n_cov = _n_kept(votes, gold)
        if not n_cov:
            raise ValueError("L has no vote on any row (and y no known label): nothing to fit.")
        self.n_classes_, self.n_sources_ = K, votes.n_sources
        total = _vote_totals(votes, K)
        fit = self._fit_from_starts(
            votes, gold, K, lambda v, g, start: self._em(v, g, K, total if v is votes else _vote_totals(v, K), start))
        right, class_total = fit["right"], fit["class_total"]
        self.n_votes_ = total
        self._s_right, self._s_total, self._s_class = right / n_cov, total / n_cov, class_total / n_cov
        self._n_seen, self._t = n_cov, 1
        self._publish(self._s_right * n_cov, self._s_total * n_cov, self._s_class * n_cov)   # as load does
        self._guard(votes, K)
        return self

    def _em(self, votes, gold, K, total, start):
        """EM from ``start`` ("majority": majority vote's shares; "prior": every precision
        at the prior's mean, a uniform balance); the fit as a dict.
        """
        if start == "majority":
            stats = self._step(votes, gold, K, total=total)
        else:
            a0 = float(self.prior_right) / (float(self.prior_right) + float(self.prior_wrong))
            pi0 = np.full(K, 1.0 / K)
            stats = self._step(votes, gold, K, _lift(np.full((votes.n_sources, K), a0), pi0), pi0, total=total)
        a_prev, converged, it = None, False, 0
        for it in range(1, self.max_iter + 1):
            a, pi, W = self._m_step(*stats)
            stats = self._step(votes, gold, K, W, pi, total=total)
            if a_prev is not None and np.abs(a - a_prev).max() < self.tol:
                converged = True
                break
            a_prev = a
        return {"right": stats[0], "total": total, "class_total": stats[2], "n_iter": it, "converged": converged,
                "start": start}

    def _apply(self, fit):
        self._publish(fit["right"], fit["total"], fit["class_total"])
        self.n_iter_, self.converged_, self.start_ = fit["n_iter"], fit["converged"], fit["start"]

    # ---- partial_fit: stepwise EM over (right votes, votes, class totals) ----------------

    def _init_running(self, m, K):
        self._s_right, self._s_total, self._s_class = np.zeros((m, K)), np.zeros((m, K)), np.zeros(K)
        self.n_votes_ = np.zeros((m, K))

    def _chunk_stats(self, votes, gold, K, first):
        params = () if first else (self.weights_, self.class_balance_)
        return self._step(votes, gold, K, *params)

    def _running(self):
        return self._s_right, self._s_total, self._s_class

    def _set_running(self, running):
        self._s_right, self._s_total, self._s_class = running

    def _after_chunk(self, votes, stats):
        self.n_votes_ = self.n_votes_ + stats[1]
        n_eff = max(self._n_seen, 1.0)
        self._publish(self._s_right * n_eff, self._s_total * n_eff, self._s_class * n_eff)
        self.n_iter_, self.converged_ = self._t, False

    def _model_proba(self, votes, K):
        return self._posteriors(votes, self.weights_, self.class_balance_)

    @classmethod
    def _declared_state(cls, params, state, shapes):
        from .._persist import length

        K = length(shapes, "class_balance")
        m = shapes.get("s_right", (-1,))[0]
        return {"s_right": ("f", (m, K), True), "s_total": ("f", (m, K), True), "s_class": ("f", (K,), True),
                "n_votes": ("f", (m, K), True), "class_balance": ("f", (K,), True),
                "majority_balance": ("f", (K,), False)}

    _saved_arrays = {"s_right": "_s_right", "s_total": "_s_total", "s_class": "_s_class", "n_votes": "n_votes_",
                     "class_balance": "class_balance_", **_LabelModel._GUARD_ARRAYS}
    _saved_scalars = {"n_seen": Scalar("_n_seen", "float"), "t": Scalar("_t", "int"), "n_iter": Scalar("n_iter_", "int"),
                      "converged": Scalar("converged_", "bool"), **_LabelModel._GUARD_SCALARS}

    def _restored(self, loaded):
        s_right, s_total, s_class, n_votes = self._s_right, self._s_total, self._s_class, self.n_votes_
        K = s_class.size
        if K < 2:
            raise ValueError(f"a label model needs 2 classes or more; the file has {K}")
        if (s_right < 0).any() or (s_total < 0).any() or (s_class < 0).any() or (n_votes < 0).any() \
                or (s_right > s_total + 1e-9).any() or self._n_seen < 0:
            raise ValueError("the running statistics must be non-negative, with no more right votes than votes")
        self.n_classes_, self.n_sources_ = K, s_right.shape[0]
        n_eff = max(self._n_seen, 1.0)
        self._publish(s_right * n_eff, s_total * n_eff, s_class * n_eff)
        self._restore_guard(K)


def _source_votes(votes):
    """How many votes each source cast ``(n_sources,)``."""
    if _partitioned(votes):
        return votes.map_sum(lambda v, g: _source_votes(v))
    return np.bincount(votes.src, minlength=votes.n_sources)


def _vote_totals(votes, K):
    """How many votes for each class each source cast ``(n_sources, K)``."""
    if _partitioned(votes):
        return votes.map_sum(lambda v, g: _vote_totals(v, K))
    total = np.bincount(votes.src * K + votes.cls, minlength=votes.n_sources * K)
    return total.reshape(votes.n_sources, K).astype(np.float64)


def held_out_vote_score(model, L):
    """A label-free score of a fitted label model: the mean log-probability its posterior,
    computed from the other votes of a row, gives each vote (rows with two votes or more).

    Each source's vote is held out in turn and predicted, as a label, from the rest of its
    row: a model that weighs the sources well predicts the held-out votes well. Higher is
    better. It needs only ``predict_proba``, so it compares label models and their
    hyper-parameters on held-out votes (it is what ``score(L)`` returns without labels).
    A model whose posteriors on ``L`` put almost every covered row in one class while
    majority vote does not (a collapsed fit, see ``on_collapse``) scores ``-inf``, so that
    a selection never prefers it.

    Parameters
    ----------
    model : fitted label model
        Any label model of :mod:`weaklabel.sources` with ``predict_proba``.
    L : array-like of int of shape (n_rows, n_sources), or sparse matrix
        Votes (held out from the fit, for model selection).

    Returns
    -------
    score : float
        ``mean log P(class voted | the row's other votes)``, floored at ``log 1e-12``;
        ``-inf`` for a collapsed model.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import MajorityVote, PrecisionVote, held_out_vote_score
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 3, 1000)
    >>> L = np.column_stack([np.where(rng.rand(1000) < a, y, rng.randint(0, 3, 1000)) for a in (0.9, 0.6, 0.5)])
    >>> bool(held_out_vote_score(PrecisionVote().fit(L), L) > held_out_vote_score(MajorityVote().fit(L), L))
    True
    """
    K = model.n_classes_
    if _is_long(L):
        L = model._fitted_long(L).L
    votes, _ = check_votes(L, n_classes=K, n_sources=model.n_sources_, sets=model._sets(K))
    if not isinstance(model, MajorityVote) and _collapsed(*model._collapse(votes, K, model._proba)[1:]):
        return -np.inf
    return _held_out_score(votes, lambda v: model._proba(v, K), model._set_shares(K) > 0)


def _held_out_score(votes, proba, sets):
    """``mean log P(vote | the row's other votes)`` over the votes of rows with two votes or
    more; ``proba`` maps :class:`Votes` to posteriors, ``sets[s]`` the classes set vote
    ``K + s`` names.
    """
    _, prob = held_out_vote_probabilities(votes, proba, sets)
    return float(np.mean(np.log(np.maximum(prob, 1e-12))))


def _vote_mass(P, cls, sets):
    """``P[r]``'s mass on what vote ``cls[r]`` names: its class, or its set's classes."""
    K = P.shape[1]
    mass = P[np.arange(cls.size), np.minimum(cls, K - 1)]
    is_set = cls >= K
    if is_set.any():
        mass[is_set] = (P[is_set] * sets[cls[is_set] - K]).sum(axis=1)
    return mass


def held_out_vote_probabilities(votes, proba, sets):
    """Each vote of a row with two votes or more, predicted from the row's other votes:
    ``(index of the vote in votes.src / votes.cls, P(the class it voted | the others))``;
    ``sets[s]`` the classes set vote ``K + s`` names.
    """
    counts = np.diff(votes.indptr)
    rows = np.repeat(np.arange(votes.n_rows), counts)
    held = np.flatnonzero(counts[rows] >= 2)            # the votes to predict
    if held.size == 0:
        raise ValueError("L has no row with two votes or more: no vote can be predicted from the others.")
    size = counts[rows[held]]                           # the size of each held vote's row
    first = np.cumsum(size) - size
    take = np.repeat(votes.indptr[rows[held]], size) + np.arange(size.sum()) - np.repeat(first, size)
    take = take[take != np.repeat(held, size)]          # one new row per held vote: the rest of its row
    indptr = np.concatenate([[0], np.cumsum(size - 1)]).astype(np.int64)
    rest = Votes(int(held.size), votes.n_sources, indptr, votes.src[take], votes.cls[take])
    prob = np.empty(held.size)
    for a, b in _chunks(held.size, sets.shape[1]):           # P(the class voted, or one of the set voted)
        prob[a:b] = _vote_mass(proba(_row_range(rest, a, b)), votes.cls[held[a:b]], sets)
    return held, prob


def _lift(a, pi):
    """``logit(a[j, p]) - logit(pi[p])``."""
    return np.log(a) - np.log1p(-a) - (np.log(pi) - np.log1p(-pi))[None, :]
