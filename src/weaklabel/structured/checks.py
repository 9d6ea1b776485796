"""Estimator checks for the structured learners, which scikit-learn's checks cannot run
(their examples are lists of graphs, not rows of a matrix).

As river's ``checks``: :func:`yield_structured_checks` yields one check per contract, and
a test suite parametrises over them (``tests/structured/test_checks.py``).  Each check
takes a fresh unfitted estimator and a small problem ``(X, Y)`` (examples of one size as
arrays, or a list of examples of their own sizes) and raises ``AssertionError`` when the
contract is broken.

Examples
--------
>>> import numpy as np
>>> from weaklabel.structured import MILM3N
>>> from weaklabel.structured.checks import yield_structured_checks
>>> X = np.array([[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
>>> Y = np.array([[0, 1, -1, 0], [1, -1, 0, 0], [0, 0, 1, -1]])
>>> for check in yield_structured_checks():
...     check(MILM3N(alpha=0.1, random_state=0), X, Y)
"""

from __future__ import annotations

import copy
import pickle
import tempfile
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone

__all__ = ["yield_structured_checks"]

_FITTED = ("unary_", "pairwise_", "symbolic_", "n_symbols_", "n_states_", "graph_")


def _fit(est, X, Y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # ConvergenceWarning on tiny problems
        return est.fit(X, Y)


def _same_model(a, b, what):
    for name in _FITTED:
        va, vb = getattr(a, name), getattr(b, name)
        if isinstance(va, np.ndarray):
            assert np.array_equal(va, vb), f"{what}: {name} differs"
        else:
            assert va == vb, f"{what}: {name} differs ({va!r} vs {vb!r})"


def _copy(Z):
    """A deep copy of examples in either form (an array, or a list of arrays / (x, edges) pairs)."""
    return copy.deepcopy(Z) if isinstance(Z, list) else np.array(Z, copy=True)


def _equal(a, b):
    """Examples, labels or predictions in either form are equal."""
    if isinstance(a, list) or isinstance(b, list):
        return len(a) == len(b) and all(_equal(u, v) for u, v in zip(a, b))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and all(_equal(u, v) for u, v in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def _reverse(Z):
    return Z[::-1]


def _with_nan(X):
    """X with a NaN in its first example's first value."""
    if not isinstance(X, list):
        Xn = np.asarray(X, dtype=np.float64).copy()
        Xn.flat[0] = np.nan
        return Xn
    Xn = _copy(X)
    first = Xn[0]
    x = np.asarray(first[0] if isinstance(first, tuple) else first, dtype=np.float64).copy()
    x.flat[0] = np.nan
    Xn[0] = (x, first[1]) if isinstance(first, tuple) else x
    return Xn


def _bad_labels(Y):
    """Labels that are none (-2 everywhere), and labels of the wrong size."""
    if not isinstance(Y, list):
        Y = np.asarray(Y)
        return np.full(Y.shape, -2), Y[:, :-1]
    return [np.full(np.shape(y), -2) for y in Y], [np.asarray(y)[:-1] for y in Y[:-1]] + [np.asarray(Y[-1])[:0]]


def _assert_rejected(call, what):
    try:
        call()
    except (ValueError, TypeError):
        return
    raise AssertionError(f"{what} was accepted")                       # pragma: no cover


def check_clone_and_params(est, X, Y):
    """``clone`` gives an unfitted copy with the same parameters; ``set_params`` round-trips."""
    params = est.get_params(deep=False)
    c = clone(est)
    assert c.get_params(deep=False).keys() == params.keys()
    assert not hasattr(c, "pairwise_")
    c.set_params(**params)
    assert c.get_params(deep=False).keys() == params.keys()
    for k, v in params.items():
        assert c.get_params(deep=False)[k] is v or c.get_params(deep=False)[k] == v, k


def check_keyword_only_init(est, X, Y):
    """``__init__`` takes keyword arguments only (as scikit-learn asks)."""
    import inspect

    sig = inspect.signature(type(est).__init__)
    positional = [p.name for p in sig.parameters.values()
                  if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert not positional, f"{type(est).__name__} takes {positional} positionally"


def check_fit_returns_self_and_keeps_inputs(est, X, Y):
    """``fit`` returns the estimator and never modifies ``X`` or ``Y``."""
    X0, Y0 = _copy(X), _copy(Y)
    assert _fit(est, X, Y) is est
    assert _equal(X, X0) and _equal(Y, Y0), "fit modified its inputs"
    pred = est.predict(X)
    if isinstance(X, list):
        assert isinstance(pred, list) and len(pred) == len(Y)
        for p, y in zip(pred, Y):
            assert p.shape == np.shape(y)[:1] and p.dtype.kind == "i"
    else:
        assert pred.shape == np.asarray(Y).shape[:2] and pred.dtype.kind == "i"
    assert _equal(X, X0), "predict modified X"


def check_same_seed_same_model(est, X, Y):
    """Two fits with the same parameters give the same weights; a refit equals a fresh fit."""
    a = _fit(clone(est), X, Y)
    b = _fit(clone(est), X, Y)
    _same_model(a, b, "same seed")
    refit = _fit(_fit(clone(est), _reverse(X), _reverse(Y)), X, Y)
    _same_model(a, refit, "refit after another fit")


def check_pickle_and_save(est, X, Y):
    """Pickling and ``save``/``weaklabel.load`` give a model that predicts the same."""
    from .._persist import load_model                 # what weaklabel.load runs; m3n registered the kinds

    a = _fit(clone(est), X, Y)
    b = pickle.loads(pickle.dumps(a))
    assert _equal(a.predict(X), b.predict(X))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.npz"
        a.save(path)
        c = load_model(path)
    assert type(c) is type(a)
    _same_model(a, c, "save/load")
    assert _equal(a.predict(X), c.predict(X))
    assert c.get_params(deep=False).keys() == a.get_params(deep=False).keys()


def check_rejected_fit_leaves_model_unchanged(est, X, Y):
    """A fit that raises (bad Y, bad X, a bad parameter) leaves a fitted model exactly as it was."""
    a = _fit(clone(est), X, Y)
    before = copy.deepcopy({k: getattr(a, k) for k in _FITTED})
    pred = a.predict(X)
    not_labels, wrong_size = _bad_labels(Y)
    bad_calls = [
        (X, not_labels),                                               # not a label
        (X, wrong_size),                                               # wrong shape
        (_with_nan(X), Y),                                             # a NaN input
    ]
    for Xb, Yb in bad_calls:
        _assert_rejected(lambda: a.fit(Xb, Yb), "a bad fit")
        for k, v in before.items():
            now = getattr(a, k)
            assert (np.array_equal(now, v) if isinstance(v, np.ndarray) else now == v), f"{k} changed"
        assert _equal(a.predict(X), pred)
    params = a.get_params(deep=False)
    a.set_params(max_iter=0)
    _assert_rejected(lambda: a.fit(X, Y), "max_iter=0")
    a.set_params(**params)
    assert _equal(a.predict(X), pred)


def check_decode_reports(est, X, Y):
    """``decode`` is the one way predictions are made: it agrees with ``predict`` and says
    how every labeling was found; a bad method is one clear error.
    """
    a = _fit(clone(est), X, Y)
    labels, info = a.decode(X)
    assert _equal(labels, a.predict(X))
    assert info["not_proved"] == len(info["not_proved_rows"])
    for method in ("exact", "lp"):
        other, _ = a.decode(X, method=method)
        assert [np.shape(o) for o in other] == [np.shape(v) for v in labels]
    try:
        a.decode(X, method="nope")
    except ValueError as exc:
        assert "method" in str(exc)
    else:                                                              # pragma: no cover
        raise AssertionError("method='nope' was accepted")


def yield_structured_checks():
    """Yield the checks, in the order to run them.

    Yields
    ------
    callable
        ``check(estimator, X, Y)``.
    """
    yield check_keyword_only_init
    yield check_clone_and_params
    yield check_fit_returns_self_and_keeps_inputs
    yield check_same_seed_same_model
    yield check_pickle_and_save
    yield check_rejected_fit_leaves_model_unchanged
    yield check_decode_reports


