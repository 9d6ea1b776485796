"""Per-source diagnostics of a vote matrix: what each source covers, where it meets and
contradicts the others, which classes it votes, and how accurate it is believed (by a
fitted label model, without true labels) or measured (with them)."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.stats import beta

from ._label_models import held_out_vote_probabilities
from ._votes import check_gold, check_votes

__all__ = ["source_summary"]

#: how far the interval reaches beyond both beliefs and their sampling error (see source_summary)
MARGIN = 0.2

#: the columns, in order, and their dtypes in the structured array
_COLUMNS = {"polarity": "U64", "n_votes": "i8", "coverage": "f8", "overlap": "f8", "conflict": "f8",
            "accuracy_model": "f8", "accuracy_held_out": "f8", "accuracy_low": "f8", "accuracy_high": "f8",
            "advice": "U5", "n_gold": "i8", "accuracy_gold": "f8"}


def source_summary(L, *, model=None, y=None, n_classes=None, warn=True, as_frame="auto", margin=MARGIN):
    """Coverage, overlap, conflict, polarity and accuracy of every source, one row each.

    With a fitted label model, each source's accuracy is believed two ways, without a true
    label: ``accuracy_model``, the mean posterior of the class it voted over its votes, and
    ``accuracy_held_out``, the same from the posterior that the row's *other* votes give
    (its own vote left out, so that a heavily weighted source cannot confirm itself). The
    interval ``[accuracy_low, accuracy_high]`` spans both, widened by a 95 % Beta interval
    for the number of votes behind them and by ``margin`` on each side, for what the model
    gets wrong; a source that never votes with another gets ``[0, 1]``: nothing but the
    model's prior speaks for it. ``advice`` is ``"drop"`` only
    where the whole interval lies below chance (``1 / n_classes``) and not above the
    median believed accuracy, ``"check"`` where it reaches below chance, else ``"keep"``.

    Parameters
    ----------
    L : array-like of int of shape (n_rows, n_sources), or sparse matrix
        Votes, as :func:`weaklabel.sources.check_votes` reads them.
    model : fitted label model, default=None
        Any label model of :mod:`weaklabel.sources` fitted on votes of the same sources.
    y : array-like of int of shape (n_rows,), default=None
        Known true classes, -1 where unknown: each source's measured accuracy.
    n_classes : int, default=None
        The number of classes (the model's when given).
    warn : bool, default=True
        Warn about one-sided sources under a model that ignores abstains (their votes then
        carry nothing), about sources advised to be dropped, and when most rows have no
        vote.
    as_frame : {"auto", True, False}, default="auto"
        Return a :class:`pandas.DataFrame` (``"auto"``: when pandas is installed), or a
        NumPy structured array with the same columns.
    margin : float, default=0.2
        Added to each side of the accuracy interval (>= 0): the beliefs are the model's,
        and a model is wrong where its posteriors are. The default is the smallest margin
        whose intervals held at least 90 % of the measured accuracies of the sources of the
        real vote matrices of ``weaklabel reproduce sources-corpus``, chosen
        leave-one-set-out (the reproduction page gives the coverage per matrix).

    Returns
    -------
    summary : pandas.DataFrame or numpy structured array
        One row per source: ``polarity`` (the classes it voted, as text), ``n_votes``,
        ``coverage``, ``overlap`` (share of its votes on rows where another source voted),
        ``conflict`` (where another voted another class); with ``model``,
        ``accuracy_model``, ``accuracy_held_out``, ``accuracy_low``, ``accuracy_high`` and
        ``advice``; with ``y``, ``n_gold`` and ``accuracy_gold`` (``nan`` where none). A
        DataFrame's ``attrs["uncovered"]`` is the share of rows without any vote.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.sources import PrecisionVote, source_summary
    >>> L = np.array([[0, 0, -1], [1, -1, 1], [1, 0, 1], [0, -1, -1]])
    >>> s = source_summary(L, model=PrecisionVote().fit(L), y=[0, 1, 1, 0], as_frame=False)
    >>> s["coverage"].tolist(), s["conflict"].tolist(), s["polarity"].tolist()
    ([1.0, 0.5, 0.5], [0.25, 0.5, 0.5], ['0 1', '0', '1'])
    >>> s["accuracy_gold"].tolist()
    [1.0, 0.5, 1.0]
    """
    if as_frame not in ("auto", True, False):
        raise ValueError(f"as_frame must be 'auto', True or False; got {as_frame!r}.")
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating)) or not 0 <= margin <= 1:
        raise ValueError(f"margin must be a number in [0, 1]; got {margin!r}.")
    if model is not None:
        n_classes = model.n_classes_
    votes, K = check_votes(L, n_classes=n_classes, n_sources=None if model is None else model.n_sources_)
    n, m = votes.n_rows, votes.n_sources
    rows = np.repeat(np.arange(n), np.diff(votes.indptr))
    per_row = np.diff(votes.indptr)
    counts = sp.csr_matrix((np.ones(rows.size), (rows, votes.cls)), shape=(n, K))
    same = np.asarray(counts[rows, votes.cls]).ravel()          # votes for the same class on the row, own included
    n_votes = np.bincount(votes.src, minlength=m)
    voted = np.zeros((m, K), dtype=bool)
    voted[votes.src, votes.cls] = True
    with np.errstate(invalid="ignore", divide="ignore"):
        cols = {"polarity": np.asarray([" ".join(str(c) for c in np.flatnonzero(v)) for v in voted]),
                "n_votes": n_votes, "coverage": n_votes / max(n, 1),
                "overlap": np.bincount(votes.src, weights=(per_row[rows] > 1).astype(float), minlength=m) / n_votes,
                "conflict": np.bincount(votes.src, weights=(per_row[rows] > same).astype(float), minlength=m) / n_votes}
        if model is not None:
            cols.update(_believed(model, votes, K, n_votes, float(margin)))
        if y is not None:
            gold = check_gold(y, n, K)
            known = gold[rows] >= 0
            hits = np.bincount(votes.src[known], weights=(votes.cls[known] == gold[rows][known]).astype(float),
                               minlength=m)
            cols["n_gold"] = np.bincount(votes.src[known], minlength=m)
            cols["accuracy_gold"] = hits / cols["n_gold"]
    uncovered = float(1.0 - votes.covered.mean())
    if warn:
        _warn(cols, model, uncovered)
    if as_frame is True or (as_frame == "auto" and importlib.util.find_spec("pandas") is not None):
        from .._extras import require

        pd = require("pandas", "source_summary(as_frame=True)")
        frame = pd.DataFrame(cols, index=pd.RangeIndex(m, name="source"))
        frame.attrs["uncovered"] = uncovered
        return frame
    out = np.zeros(m, dtype=[(k, _COLUMNS[k]) for k in _COLUMNS if k in cols])
    for k, v in cols.items():
        out[k] = v
    return out


def _believed(model, votes, K, n_votes, margin):
    """The believed accuracies, their interval and the advice (see :func:`source_summary`)."""
    m = votes.n_sources
    rows = np.repeat(np.arange(votes.n_rows), np.diff(votes.indptr))
    T = model._proba(votes, K)
    right = np.bincount(votes.src, weights=T[rows, votes.cls], minlength=m)
    own = right / n_votes
    members = model._set_shares(K) > 0
    try:
        held, prob = held_out_vote_probabilities(votes, lambda v: model._proba(v, K), members)
    except ValueError:                     # no row with two votes
        held, prob = np.zeros(0, np.int64), np.zeros(0)
    n_held = np.bincount(votes.src[held], minlength=m)
    held_out = np.bincount(votes.src[held], weights=prob, minlength=m) / n_held
    lo_p = np.fmin(own, held_out)
    hi_p = np.fmax(own, held_out)
    low = np.where(n_held > 0, beta.ppf(0.025, lo_p * n_held + 1, (1 - lo_p) * n_held + 1) - margin, 0.0)
    high = np.where(n_held > 0, beta.ppf(0.975, hi_p * n_held + 1, (1 - hi_p) * n_held + 1) + margin, 1.0)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    low, high = np.where(n_votes > 0, low, np.nan), np.where(n_votes > 0, high, np.nan)
    median = np.nanmedian(own) if np.isfinite(own).any() else np.nan
    advice = np.where((high < 1.0 / K) & ~(low > median), "drop", np.where(low < 1.0 / K, "check", "keep"))
    advice = np.where(n_votes > 0, advice, "check")
    return {"accuracy_model": own, "accuracy_held_out": held_out, "accuracy_low": low, "accuracy_high": high,
            "advice": advice}


def _warn(cols, model, uncovered):
    one_sided = int(sum(len(p.split()) == 1 for p in cols["polarity"]))
    if one_sided and model is not None and getattr(model, "abstain", None) == "ignore":
        warnings.warn(f"{one_sided} of {len(cols['polarity'])} sources are one-sided (they vote one class or "
                      "abstain); a model that ignores abstains learns nothing from them. Use "
                      "DawidSkene(abstain='evidence') or PrecisionVote.", UserWarning, stacklevel=3)
    if "advice" in cols:
        weak = np.flatnonzero(cols["advice"] == "drop")
        if weak.size:
            warnings.warn(f"the label model believes source(s) {weak.tolist()} right less often than chance, "
                          "even from the other sources' votes: check their class or drop them.", UserWarning,
                          stacklevel=3)
    if uncovered > 0.5:
        warnings.warn(f"{uncovered:.0%} of the rows have no vote: the label model gives them the class balance; "
                      "an end model trained on the covered rows (or a partial-label learner on every row) "
                      "labels them instead.", UserWarning, stacklevel=3)
