"""Per-source diagnostics of a vote matrix: what each source covers, where it meets and
contradicts the others, which classes it votes, and how accurate it is believed (by a
fitted label model, without true labels) or measured (with them)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.stats import beta

from ._votes import check_gold, check_votes

__all__ = ["SourceSummary", "source_summary"]


@dataclass
class SourceSummary:
    """What :func:`source_summary` returns: one entry per source in every array.

    Parameters
    ----------
    n_votes : ndarray of int
        How many rows the source voted on.
    coverage : ndarray of float
        The share of rows it voted on.
    overlap : ndarray of float
        The share of its votes on rows where another source also voted.
    conflict : ndarray of float
        The share of its votes on rows where another source voted another class.
    polarity : list of tuple of int
        The classes it voted (one class: a one-sided source).
    uncovered : float
        The share of rows without any vote (they get the class balance).
    accuracy_model, accuracy_low, accuracy_high : ndarray of float or None
        With a fitted label model: the mean posterior of the class voted, over the source's
        votes (how often the model believes the source right), and a 95 % Beta interval for
        that rate treating the posteriors as counts. It reflects the model's belief, not a
        measurement. ``nan`` for a source without votes.
    accuracy_gold, n_gold : ndarray or None
        With known labels: the share of the source's votes on known rows that are right,
        and how many such votes there are (``nan`` where none).
    """

    n_votes: np.ndarray
    coverage: np.ndarray
    overlap: np.ndarray
    conflict: np.ndarray
    polarity: list
    uncovered: float
    accuracy_model: np.ndarray = None
    accuracy_low: np.ndarray = None
    accuracy_high: np.ndarray = None
    accuracy_gold: np.ndarray = None
    n_gold: np.ndarray = None

    def to_dict(self):
        """The per-source columns as a dict of lists (``pandas.DataFrame(summary.to_dict())``).

        Returns
        -------
        columns : dict of str to list
            One list per column, one entry per source.
        """
        cols = {"polarity": [" ".join(map(str, p)) for p in self.polarity], "n_votes": self.n_votes.tolist(),
                "coverage": self.coverage.tolist(), "overlap": self.overlap.tolist(),
                "conflict": self.conflict.tolist()}
        for k in ("accuracy_model", "accuracy_low", "accuracy_high", "accuracy_gold", "n_gold"):
            v = getattr(self, k)
            if v is not None:
                cols[k] = v.tolist()
        return cols

    def __str__(self):
        cols = self.to_dict()
        names = list(cols)
        rows = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in r] for r in zip(*cols.values())]
        widths = [max(len(n), *(len(r[i]) for r in rows)) if rows else len(n) for i, n in enumerate(names)]
        line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))   # noqa: E731
        head = ["source".rjust(6) + "  " + line(names)]
        return "\n".join(head + [f"{j:>6}  " + line(r) for j, r in enumerate(rows)]
                         + [f"rows without a vote: {self.uncovered:.3f}"])


def source_summary(L, *, model=None, y=None, n_classes=None, warn=True):
    """Coverage, overlap, conflict, polarity and accuracy of every source.

    Parameters
    ----------
    L : array-like of int of shape (n_rows, n_sources), or sparse matrix
        Votes, as :func:`weaklabel.sources.check_votes` reads them.
    model : fitted label model, default=None
        Any label model of :mod:`weaklabel.sources` fitted on votes of the same sources; its
        posteriors on ``L`` give each source's believed accuracy and interval.
    y : array-like of int of shape (n_rows,), default=None
        Known true classes, -1 where unknown: each source's measured accuracy.
    n_classes : int, default=None
        The number of classes (the model's when given).
    warn : bool, default=True
        Warn about one-sided sources under a model that ignores abstains (their votes then
        carry nothing), about sources the model believes no better than chance, and when
        most rows have no vote.

    Returns
    -------
    SourceSummary
        One entry per source in every array.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import PrecisionVote, source_summary
    >>> L = np.array([[0, 0, -1], [1, -1, 1], [1, 0, 1], [0, -1, -1]])
    >>> s = source_summary(L, model=PrecisionVote().fit(L), y=[0, 1, 1, 0])
    >>> s.coverage.tolist(), s.conflict.tolist(), s.polarity
    ([1.0, 0.5, 0.5], [0.25, 0.5, 0.5], [(0, 1), (0,), (1,)])
    >>> s.accuracy_gold.tolist()
    [1.0, 0.5, 1.0]
    """
    if model is not None:
        n_classes = model.n_classes_
    votes, K = check_votes(L, n_classes=n_classes, n_sources=None if model is None else model.n_sources_)
    n, m = votes.n_rows, votes.n_sources
    rows = np.repeat(np.arange(n), np.diff(votes.indptr))
    per_row = np.diff(votes.indptr)
    counts = sp.csr_matrix((np.ones(rows.size), (rows, votes.cls)), shape=(n, K))
    same = np.asarray(counts[rows, votes.cls]).ravel()          # votes for the same class on the row, own included
    n_votes = np.bincount(votes.src, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        overlap = np.bincount(votes.src, weights=(per_row[rows] > 1).astype(float), minlength=m) / n_votes
        conflict = np.bincount(votes.src, weights=(per_row[rows] > same).astype(float), minlength=m) / n_votes
    voted = np.zeros((m, K), dtype=bool)
    voted[votes.src, votes.cls] = True
    polarity = [tuple(int(c) for c in np.flatnonzero(v)) for v in voted]
    out = SourceSummary(n_votes=n_votes, coverage=n_votes / max(n, 1), overlap=overlap, conflict=conflict,
                        polarity=polarity, uncovered=float(1.0 - votes.covered.mean()))
    if model is not None:
        T = model.predict_proba(L)
        right = np.bincount(votes.src, weights=T[rows, votes.cls], minlength=m)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.accuracy_model = right / n_votes
        out.accuracy_low = np.where(n_votes > 0, beta.ppf(0.025, right + 1, n_votes - right + 1), np.nan)
        out.accuracy_high = np.where(n_votes > 0, beta.ppf(0.975, right + 1, n_votes - right + 1), np.nan)
    if y is not None:
        gold = check_gold(y, n, K)
        known = gold[rows] >= 0
        hits = np.bincount(votes.src[known], weights=(votes.cls[known] == gold[rows][known]).astype(float),
                           minlength=m)
        out.n_gold = np.bincount(votes.src[known], minlength=m)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.accuracy_gold = hits / out.n_gold
    if warn:
        _warn(out, model, K)
    return out


def _warn(s, model, K):
    one_sided = [j for j, p in enumerate(s.polarity) if len(p) == 1]
    if one_sided and model is not None and getattr(model, "abstain", None) == "ignore":
        warnings.warn(f"{len(one_sided)} of {len(s.polarity)} sources are one-sided (they vote one class or "
                      "abstain); a model that ignores abstains learns nothing from them. Use "
                      "DawidSkene(abstain='evidence') or PrecisionVote.", UserWarning, stacklevel=3)
    if s.accuracy_model is not None:
        weak = np.flatnonzero(s.accuracy_high < 1.0 / K)
        if weak.size:
            warnings.warn(f"the label model believes source(s) {weak.tolist()} right less often than chance "
                          f"(1/{K}): check their class or drop them.", UserWarning, stacklevel=3)
    if s.uncovered > 0.5:
        warnings.warn(f"{s.uncovered:.0%} of the rows have no vote: the label model gives them the class balance; "
                      "an end model trained on the covered rows (or a partial-label learner on every row) "
                      "labels them instead.", UserWarning, stacklevel=3)
