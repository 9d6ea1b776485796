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

__all__ = ["fit_parameter_mixing"]


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
