"""Data-parallel training on a Dask cluster: iterative parameter mixing.

McDonald, Hall & Mann (2010): each worker makes one pass of the learner over its own
partition of the data, starting from the current mixed weights; the client averages the
workers' weights (uniform mixing), and the next epoch starts from that average.  Any
online linear learner of this package works: the candidate-label learners
(``partial_fit``), the bandit learners on logged feedback (``partial_fit_feedback``) and
the full-label baselines.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ._extras import require

__all__ = ["PartitionedVotes", "fit_end_model", "fit_label_model", "fit_parameter_mixing", "predict_partitions",
           "predict_proba_partitions"]


def _partitions(X, name):
    """A dask array (split along rows at its chunks) or a list/tuple of pieces -> list."""
    if isinstance(X, (list, tuple)):
        if not X:
            raise ValueError(f"{name} must hold at least one partition; got an empty {type(X).__name__}.")
        return list(X)
    da = require("dask.array", "parameter mixing on Dask")
    if isinstance(X, da.Array):
        if X.ndim == 2 and len(X.chunks[1]) != 1:
            X = X.rechunk({1: -1})
        return [b for b in X.to_delayed().ravel()]
    raise TypeError(f"{name} must be a dask array or a list of partitions; got {type(X).__name__}.")


def _one_pass(est, X, Y, classes, method, index):
    """A worker's epoch: one pass of a copy of ``est`` over its partition (number ``index``,
    named in the error a bad partition raises)."""
    import copy

    from ._validation import one_line

    est = copy.deepcopy(est)                  # the scattered model is shared by the worker's tasks
    try:
        if hasattr(X, "compute"):
            X = X.compute()
        if method == "partial_fit_feedback":
            proposed, correct = Y
            est.partial_fit_feedback(X, np.asarray(proposed), np.asarray(correct), classes=classes)
        else:
            if hasattr(Y, "compute"):
                Y = Y.compute()
            est.partial_fit(X, Y, classes=classes)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"partition {index} of X and Y: {one_line(exc)}") from None
    return est


def _infer_classes(ys, method):
    """Every label of the Y partitions (a bool mask's columns are 0 .. width-1)."""
    dask = require("dask", "parameter mixing on Dask")
    parts = [y[0] if method == "partial_fit_feedback" else y for y in ys]
    parts = [np.asarray(p) for p in dask.compute(*parts)]
    if parts[0].ndim == 2 and parts[0].dtype == bool:
        return np.arange(parts[0].shape[1])
    return np.unique(np.concatenate([p.ravel() for p in parts]))


def _mix(models, base_updates):
    """Uniform average of the workers' mixing states (weights and any per-class
    statistics, e.g. Confidit's matrices), through the estimators' public pair
    ``mixing_state`` / ``set_mixing_state``.
    """
    states = [m.mixing_state() for m in models]
    mixed = {k: np.mean([s[k] for s in states], axis=0) for k in states[0] if k not in ("t", "n_updates")}
    mixed["t"] = max(s["t"] for s in states)
    mixed["n_updates"] = int(base_updates + sum(s["n_updates"] - base_updates for s in states))
    return models[0].set_mixing_state(mixed)


def fit_parameter_mixing(estimator, X, Y, client, n_epochs=1, *, classes=None, method="partial_fit"):
    """Train an online linear learner by iterative parameter mixing on a Dask cluster.

    Parameters
    ----------
    estimator : online weaklabel learner
        Cloned; the clone is trained and returned.
    X : dask array or list of partitions
        The rows, split into partitions (a dask array is split at its row chunks).  The
        partitions are sent to the workers once and stay there across epochs.
    Y : dask array or list of partitions, one per partition of X
        What ``method`` takes per partition: labels or candidate sets (a bool mask) for
        ``partial_fit``; ``(proposed, correct)`` pairs for ``partial_fit_feedback``.
    client : distributed.Client
        The Dask client of the cluster to train on (a ``LocalCluster`` or a scheduler).
    n_epochs : int, default=1
        Mixing rounds; each is one pass over every partition.
    classes : array-like of shape (n_classes,), default=None
        Every label (the workers start from the same classes).  ``None`` infers them:
        ``0 .. width-1`` for bool masks, else the labels found in Y (or in ``proposed``).
    method : {"partial_fit", "partial_fit_feedback"}, default="partial_fit"

    Returns
    -------
    estimator : fitted clone of ``estimator``
        With ``mixing_epochs_`` and ``n_partitions_``.  With a single partition the result
        is ``n_epochs`` sequential ``method`` calls (exactly for the Perceptron-type and
        bandit learners; Pegasos recomputes ``||W||`` after each mixing, so it may differ
        by rounding).  ``t_`` is the largest worker's round counter.

    Examples
    --------
    >>> from distributed import Client, LocalCluster          # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2)) as client:      # doctest: +SKIP
    ...     clf = fit_parameter_mixing(AvgPerceptron(), parts_X, parts_S, client, 3, classes=range(10))
    """
    from ._validation import check_int_at_least

    check_int_at_least(n_epochs, "n_epochs", 1)
    if method not in ("partial_fit", "partial_fit_feedback"):
        raise ValueError(f"method must be 'partial_fit' or 'partial_fit_feedback'; got {method!r}.")
    if not hasattr(estimator, method) or not hasattr(estimator, "set_mixing_state"):
        raise TypeError(f"{type(estimator).__name__} has no {method} and mixing_state / set_mixing_state; "
                        "parameter mixing needs an online learner.")
    xs = _partitions(X, "X")
    ys = list(Y) if method == "partial_fit_feedback" and isinstance(Y, (list, tuple)) else _partitions(Y, "Y")
    if len(xs) != len(ys):
        raise ValueError(f"X has {len(xs)} partitions but Y has {len(ys)}; they must match one to one.")
    classes = _infer_classes(ys, method) if classes is None else np.asarray(list(classes))
    x_f = client.scatter(xs, hash=False) if not hasattr(xs[0], "dask") else client.compute(xs)
    y_f = client.scatter(ys, hash=False) if not hasattr(ys[0], "dask") else client.compute(ys)
    model = clone(estimator)
    for epoch in range(n_epochs):
        model_f = client.scatter(model, broadcast=True, hash=False)             # ship the weights once per worker
        futures = [client.submit(_one_pass, model_f, xf, yf, classes, method, i, pure=False)
                   for i, (xf, yf) in enumerate(zip(x_f, y_f))]
        base = getattr(model, "n_updates_", 0)
        model = _mix(client.gather(futures), base)
    model.mixing_epochs_ = n_epochs
    model.n_partitions_ = len(xs)
    model.n_iter_ = n_epochs
    return model


# ---- label models on partitioned votes -------------------------------------------------------

def _checked_part(block, n_classes, sets, index):
    """A partition's votes as :class:`~weaklabel.sources._votes.Votes` (on its worker)."""
    from ._validation import one_line
    from .sources._votes import check_votes

    try:
        return check_votes(block, n_classes=n_classes, sets=sets, name=f"partition {index} of L")
    except (ValueError, TypeError) as exc:
        raise type(exc)(one_line(exc)) from None


def _summand(part, fn, K):
    """``fn(votes, gold)`` on one partition (its rows carry no known label)."""
    from .sources._votes import check_gold

    votes = part[0]
    return fn(votes, check_gold(None, votes.n_rows, K))


def _take(part, idx):
    return part[0].rows(idx)


def _nbytes(value):
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if hasattr(value, "src"):                           # Votes
        return value.indptr.nbytes + value.src.nbytes + value.cls.nbytes
    if hasattr(value, "indices"):                       # a sparse matrix
        return value.data.nbytes + value.indices.nbytes + value.indptr.nbytes
    return np.asarray(value).nbytes


def _add(a, b):
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b))
    return a + b


class PartitionedVotes:
    """Votes that stay where they are on a Dask cluster, one block of rows per partition.

    Built once from a Dask array of vote blocks (what :func:`weaklabel.sources.apply_lfs`
    returns for a Dask DataFrame: CSR blocks of ``class + 1``, or dense blocks with -1 for an
    abstain) or a list of blocks or futures; each worker validates its blocks and keeps them.
    A label model's fit then asks for statistics, not votes: :meth:`map_sum` runs a function
    on every partition where it lives and returns the sum of the results (posterior-weighted
    counts, class totals, log-likelihoods), and :meth:`rows` brings back a few rows (the
    sample that scores the EM starts). The client never holds more than those.

    Parameters
    ----------
    L : dask array or list of blocks
        The votes, split along rows.
    client : distributed.Client
        The cluster's client.
    n_classes : int, default=None
        The number of classes; ``None`` means one more than the largest class voted.
    sets : ndarray of bool, default=None
        A label model's set-vote table (see :func:`weaklabel.sources.check_sets`).

    Attributes
    ----------
    n_rows, n_sources, n_classes : int
        The votes' shape and class count.
    row_offsets : ndarray of int of shape (n_partitions + 1,)
        Where each partition's rows start.
    largest_transfer : int
        The most bytes one partition has sent to the client so far (statistics or sampled
        rows, never its votes).
    """

    def __init__(self, L, client, *, n_classes=None, sets=None):
        blocks = _partitions(L, "L")
        futures = client.compute(blocks) if hasattr(blocks[0], "dask") else client.scatter(blocks, hash=False)
        parts = [client.submit(_checked_part, f, n_classes, sets, i, pure=False) for i, f in enumerate(futures)]
        meta = client.gather([client.submit(lambda p: (p[0].n_rows, p[0].n_sources, p[1]), p) for p in parts])
        sources = {m for _, m, _ in meta}
        if len(sources) > 1:
            raise ValueError(f"the partitions of L have different numbers of sources (columns): {sorted(sources)}.")
        self.client, self._parts = client, parts
        self.row_offsets = np.concatenate([[0], np.cumsum([n for n, _, _ in meta])]).astype(np.int64)
        self.n_rows, self.n_sources = int(self.row_offsets[-1]), sources.pop()
        self.n_classes = int(n_classes) if n_classes is not None else max(k for _, _, k in meta)
        self.largest_transfer = 0

    @property
    def n_partitions(self):
        """The number of partitions, an int."""
        return len(self._parts)

    def _gather(self, futures):
        out = self.client.gather(futures)
        self.largest_transfer = max([self.largest_transfer] + [_nbytes(v) for v in out])
        return out

    def map_sum(self, fn):
        """Return the sum over the partitions of ``fn(votes, gold)``, each computed where its
        partition is (``gold``: no known label); tuples are summed entry by entry.

        Parameters
        ----------
        fn : callable
            ``fn(votes, gold) -> array, number or tuple of them``.

        Returns
        -------
        array, number or tuple
            The sum, in partition order.
        """
        results = self._gather([self.client.submit(_summand, p, fn, self.n_classes, pure=False)
                                for p in self._parts])
        total = results[0]
        for r in results[1:]:
            total = _add(total, r)
        return total

    def rows(self, idx):
        """Return the votes of some rows (global indices, increasing), brought to the client.

        Parameters
        ----------
        idx : ndarray of int
            The rows.

        Returns
        -------
        Votes
            Their votes, in memory.
        """
        from .sources._votes import Votes

        idx = np.asarray(idx, dtype=np.int64)
        owner = np.searchsorted(self.row_offsets, idx, side="right") - 1
        pieces = self._gather([self.client.submit(_take, p, idx[owner == i] - self.row_offsets[i], pure=False)
                               for i, p in enumerate(self._parts)])
        indptr, src, cls, n = [np.zeros(1, np.int64)], [], [], 0
        for v in pieces:
            indptr.append(v.indptr[1:] + indptr[-1][-1])
            src.append(v.src)
            cls.append(v.cls)
            n += v.n_rows
        return Votes(n, self.n_sources, np.concatenate(indptr), np.concatenate(src or [np.zeros(0, np.int64)]),
                     np.concatenate(cls or [np.zeros(0, np.int64)]))


def fit_label_model(model, L, client, *, n_classes=None):
    """Fit a label model on votes that stay on a Dask cluster: exact distributed EM.

    Each EM iteration asks every worker for its partition's sufficient statistics
    (posterior-weighted counts, class totals, the log-likelihood), sums them on the client
    and updates the parameters, which go out with the next iteration's request;
    MatrixCompletion's one statistic, the sources' overlap matrix, is summed the same way. The fit's
    own code runs unchanged around those sums (the same starts, the same iterations, the same
    collapse guard), so the model equals the one fitted in memory on the same votes up to
    the order of floating-point sums. The EM starts are scored on an evenly spaced sample of
    at most 20,000 rows, brought to the client, as the in-memory fit scores them.

    Parameters
    ----------
    model : MajorityVote, PrecisionVote, DawidSkene or MatrixCompletion
        Cloned; the clone is fitted and returned. Known labels (``y``) and set votes are
        not taken here.
    L : dask array or list of blocks
        The votes, split along rows (see :class:`PartitionedVotes`), e.g. what
        :func:`weaklabel.sources.apply_lfs` returns for a Dask DataFrame.
    client : distributed.Client
        The cluster's client.
    n_classes : int, default=None
        The number of classes; ``None`` means one more than the largest class voted.

    Returns
    -------
    model : fitted clone of ``model``
        With ``n_partitions_``.

    Examples
    --------
    >>> from distributed import Client, LocalCluster              # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2)) as client:          # doctest: +SKIP
    ...     L = apply_lfs(lfs, dask_frame)                         # one block per partition
    ...     ds = fit_label_model(DawidSkene(), L, client)
    """
    from .sources import DawidSkene, MajorityVote, MatrixCompletion, PrecisionVote

    if not isinstance(model, (MajorityVote, PrecisionVote, DawidSkene, MatrixCompletion)):
        raise TypeError(f"fit_label_model fits MajorityVote, PrecisionVote, DawidSkene and MatrixCompletion; got "
                        f"{type(model).__name__}.")
    if getattr(model, "sets", None) is not None:
        raise ValueError("set votes are not taken by fit_label_model: fit with sets=None, or in memory.")
    votes = PartitionedVotes(L, client, n_classes=n_classes)
    model = clone(model).fit(votes, n_classes=n_classes)
    model.n_partitions_ = votes.n_partitions
    return model


def predict_proba_partitions(model, L):
    """Each partition's posteriors under a fitted label model, as a Dask array (lazy).

    Parameters
    ----------
    model : fitted label model
        From :func:`fit_label_model` or fitted in memory.
    L : dask array
        Votes split along rows, as :func:`fit_label_model` takes them.

    Returns
    -------
    dask array of shape (n_rows, n_classes)
        One block per block of ``L``.
    """
    return L.map_blocks(model.predict_proba, chunks=(L.chunks[0], (model.n_classes_,)), dtype=np.float64,
                        meta=np.zeros((0, model.n_classes_)))


def predict_partitions(model, L):
    """Each partition's labels under a fitted label model (its ``predict``), as a Dask array
    (lazy).

    Parameters
    ----------
    model : fitted label model
        From :func:`fit_label_model` or fitted in memory.
    L : dask array
        Votes split along rows, as :func:`fit_label_model` takes them.

    Returns
    -------
    dask array of shape (n_rows,)
        One block per block of ``L``.
    """
    return L.map_blocks(model.predict, chunks=(L.chunks[0],), drop_axis=1, dtype=np.int64,
                        meta=np.zeros(0, np.int64))


# ---- an end model trained over partitions ----------------------------------------------------

def _weighted_rows(model, X, L):
    """A partition's training rows for the end model: each covered row once per class of
    positive posterior, weighted by it (EndModel's ``target="weighted"``)."""
    from .sources._votes import check_votes

    votes, _ = check_votes(L, n_classes=model.n_classes_)
    idx = np.flatnonzero(votes.covered)
    T = model.predict_proba(L)[idx]
    r, c = np.nonzero(T > 0)
    rows = idx[r]
    return (X[rows] if hasattr(X, "tocsr") else np.asarray(X)[rows]), c, T[r, c]


def _partial_fit_on(estimator, model, X, L, classes, index):
    """The end model's pass over one partition, where it lives: ``partial_fit`` on its rows
    weighted by the label model's posteriors."""
    import copy

    from ._validation import one_line

    estimator = copy.deepcopy(estimator)
    try:
        Xw, c, w = _weighted_rows(model, X, L)
        if c.size:
            estimator.partial_fit(Xw, c, classes=classes, sample_weight=w)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"partition {index} of X and L: {one_line(exc)}") from None
    return estimator


def fit_end_model(estimator, label_model, X, L, client, *, n_epochs=1):
    """Train an end model on a cluster from a fitted label model's posteriors: a streaming
    ``partial_fit`` over the partitions, each pass made where its partition lives.

    Each covered row counts once per class of positive posterior, weighted by it (the
    expected log loss, :class:`~weaklabel.sources.EndModel`'s ``target="weighted"``). The
    estimator travels from partition to partition in order (its weights, not the data), so
    the result is the same ``partial_fit`` sequence as in memory over the same blocks.

    Parameters
    ----------
    estimator : classifier with partial_fit and sample_weight
        Cloned, e.g. scikit-learn's ``SGDClassifier(loss="log_loss")`` on the output of a
        stateless ``HashingVectorizer`` applied per partition.
    label_model : fitted label model
        From :func:`fit_label_model` or fitted in memory.
    X : dask array or list of blocks
        The features, split along rows as ``L`` is.
    L : dask array or list of blocks
        The votes of the same rows.
    client : distributed.Client
        The cluster's client.
    n_epochs : int, default=1
        Passes over the partitions.

    Returns
    -------
    estimator : fitted clone of ``estimator``
        Trained over every partition ``n_epochs`` times, in partition order.
    """
    from ._validation import check_int_at_least

    check_int_at_least(n_epochs, "n_epochs", 1)
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(f"{type(estimator).__name__} has no partial_fit: the end model on a cluster is trained "
                        "partition by partition.")
    xs, ls = _partitions(X, "X"), _partitions(L, "L")
    if len(xs) != len(ls):
        raise ValueError(f"X has {len(xs)} partitions but L has {len(ls)}; they must match one to one.")
    x_f = client.compute(xs) if hasattr(xs[0], "dask") else client.scatter(xs, hash=False)
    l_f = client.compute(ls) if hasattr(ls[0], "dask") else client.scatter(ls, hash=False)
    model = clone(estimator)
    classes = np.arange(label_model.n_classes_)
    for _ in range(n_epochs):
        for i, (xf, lf) in enumerate(zip(x_f, l_f)):
            model = client.submit(_partial_fit_on, model, label_model, xf, lf, classes, i, pure=False)
    return model.result() if hasattr(model, "result") else model
