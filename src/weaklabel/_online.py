"""The one online engine: a template ``partial_fit`` for every online linear learner.

:class:`OnlineLinear` does, once for every family (candidate sets, bandit feedback,
...):

1. on a first call, check the parameters (``_validate_params``, scikit-learn's constraints);
2. validate ``X`` (``validate_data``, finite values, the intercept column, CSR with
   sorted indices; a pass that checks dense rows as it reads them takes over the range
   check, ``Rule.checks_rows``) and let the family encode its target
   (:meth:`_encode_target`);
3. on a first call, forget the earlier fit (the engine's attributes, the declared ``_state``
   and the rule's history), then start from zero weights, the classes and a fresh generator
   (and what the family's ``_init_state`` sets);
4. run the family's pass (``Rule.epoch``), which writes the progressive history of the
   round into the buffers it is handed: ``partial_fit`` once over every row in the given
   order; ``fit`` ``max_iter`` times (:meth:`_epochs`), each in an order drawn in Python
   when ``shuffle``, with early stopping on held-out rows;
5. fold any lazy scale back into the weights and check that they are finite (and, after
   the call, the declared arrays it wrote that the weights do not prove finite);
6. commit the history (``predictions_``, ``prediction_rows_``, and the family's own).

Any exception on the way restores the estimator exactly as it was before the call
(the arrays the pass writes in place, ``Rule.kept_in_place``, are copied
first; the other attributes are replaced, never written), so a rejected call never leaves
a half-updated model.  (One exception, which no later result can tell: the uniforms an
exploring bandit learner drew ahead stay drawn, and the call's rollback rewinds its
position in them; see ``_BanditLearner._uniforms``.)  A pass that meets a dense row out of
range stops there; the estimator is restored and the call runs again with the exact
check of every row first.

A family supplies:

- ``_encode_target(X, target, classes, first, reset) -> (encoded, classes_)``, ``encoded`` a
  :class:`Target`, which knows whether its rows may be shuffled, each row's class shares
  (``class_weight``) and which predictions it accepts (early stopping);
- ``_rule(X) -> Rule``, the family's value for a call (a constant of its class, made once,
  unless the call's rows or state choose among a few): its pass over the rows
  (``epoch(est, rows, order, encoded, hist, sw) -> n_updates``, ``rows`` as
  :func:`weaklabel.linear.kernel_rows` returns them, ``hist`` mapping each name of the rule's
  ``history`` to this epoch's slice of its buffer), whether that pass checks dense rows'
  range, what it writes in place, and any lazy scale to fold in after the epochs;
- ``_state``: its fitted arrays besides the weights, declared once (:class:`Fitted`), which
  the fresh start, the rollback, parameter mixing and model files read, and
  ``_restored(loaded)`` for what derives from them; ``_init_state(n_cols)`` for scalars.

Parameter mixing (:mod:`weaklabel.distributed`) goes through the public pair
:meth:`OnlineLinear.mixing_state` / :meth:`OnlineLinear.set_mixing_state`.
"""

from __future__ import annotations

import math
from abc import ABCMeta, abstractmethod
from typing import Callable, NamedTuple

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from ._validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._validation import (ROW_LIMITS, check_finite_result, check_memory, check_sample_weight, check_X,
                          class_weighted, row_scale_of)
from ._row_kernels import _total
from ._intrinsics import aligned_class_major
from ._persist import Scalar
from .linear import LinearMulticlass, kernel_ready, kernel_rows

__all__ = ["OnlineLinear", "Fitted", "Rule", "Target"]

#: the sample weights of a call without them (all 1), as the kernels read them: empty, so
#: nothing can be written into it (left writable: a read-only array is another type to numba,
#: and every kernel would be compiled twice)
_NO_WEIGHTS = np.empty(0, dtype=np.float64)

# history buffers: name -> dtype; class indices (intp) are committed as labels, each as name + "_"
_HISTORY_DTYPES = {"predictions": np.intp, "proposals": np.intp, "correct": bool, "propensities": np.float64}


#: the early-stopping and verbosity parameters every online learner takes
EARLY_STOPPING_CONSTRAINTS = {
    "early_stopping": ["boolean"], "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")], "tol": [Interval(Real, 0, None, closed="left")],
    "verbose": ["verbose"], "class_weight": [dict, StrOptions({"balanced"}), None], "probability": ["boolean"]}


def generator_snapshot(rng):
    """A function that puts the ``RandomState`` ``rng`` back in its present state (numpy's
    ``get_state`` / ``set_state``): the rollback of a call that drew from it."""
    state = rng.get_state()
    return lambda: rng.set_state(state)


class Fitted(NamedTuple):
    """One fitted array of an online learner besides its weights, declared once in the
    learner's ``_state`` (``{attribute: Fitted}``).

    ``name`` is the array's name in a model file and in ``mixing_state``; ``dtype`` its dtype;
    ``shape(params, n_cols, n_classes)`` its shape for a learner of parameters ``params``
    (``get_params()``) whose weights have ``n_cols`` rows (the features [+1 with an intercept])
    and ``n_classes`` columns, or None when those parameters keep no such array; ``start(est,
    shape)`` its value on a fresh start (None: zeros).  A fresh start makes the declared arrays
    (after a memory estimate of them all); a pass writes them in place (so a call's rollback
    copies them); model files save them and the loader checks their shapes, dtypes and
    finiteness against this; parameter mixing averages them.
    """

    name: str
    dtype: type
    shape: Callable
    start: Callable = None


class Target:
    """A call's target as a family encodes it for its pass (see ``_encode_target``), and what
    the engine asks of it.  The defaults: rows in any order, no class shares, no judgement of
    predictions (then ``class_weight`` and ``early_stopping`` are refused).
    """

    __slots__ = ()

    #: whether ``fit`` may visit the rows in a shuffled order (a log is replayed in its own)
    in_any_order = True

    def class_shares(self, n, K):
        """Each of the ``n`` rows' share of each of the ``K`` classes ``(n, K)`` (None: unknown)."""
        return None

    def accepted(self, rows, pred):
        """Whether the weak labels of ``rows`` accept the class indices ``pred`` (None: unknown)."""
        return None


class Rule(NamedTuple):
    """A family's part of a call, one value, which its ``_rule(X)`` returns when the call starts
    (a constant of the class; the functions take the estimator first, as its methods do).

    ``epoch(est, rows, order, encoded, hist, sw) -> n_updates`` is its pass (-1: a dense row out of
    range, when ``checks_rows``); ``history``, the per-round arrays the pass writes;
    ``checks_rows``, whether the pass checks the range of dense rows as it reads them (its
    kernel reads ``rows.limits``, :func:`weaklabel._row_kernels._dense_row_in_range`);
    ``kept_in_place``, the arrays the pass writes in place, which the call's rollback copies
    (None: the weights and the declared ``_state``); ``checked_with_weights``, arrays the
    weights are computed from after the pass, so that finite weights prove them finite;
    ``finish(est)``, run after the epochs to fold a lazy scale back into the weights, returning a
    number finite exactly when the weights are (or None: the engine sums the weights).
    """

    epoch: Callable
    history: tuple = ("predictions",)
    checks_rows: bool = False
    kept_in_place: tuple | None = None
    checked_with_weights: tuple = ()
    finish: Callable | None = None


class _RowOutOfRange(Exception):
    """A pass met a dense row out of range (it stopped there and changed nothing with it)."""


def _restorer(est, saved, copies, generators):
    """The rollback of a call: ``restore()`` puts ``est`` back as ``saved`` (its attributes
    before the call) with ``copies`` (copies of the arrays the call writes in place) and the
    generators' snapshots (None: none); ``restore(again=True)`` does so and keeps fresh
    copies for a second try of the call."""
    def restore(again=False):
        est.__dict__.clear()
        est.__dict__.update(saved)
        # (class-major weights copied back on a cache-line boundary, as the passes want them)
        est.__dict__.update({k: aligned_class_major(v) if (v.ndim == 2 and v.flags.f_contiguous
                                                            and not v.flags.c_contiguous) else v
                             for k, v in copies.items()})
        for put_back in generators:
            if put_back is not None:
                put_back()
        if again:
            for k, v in list(copies.items()):
                copies[k] = v.copy(order="K")
    return restore


class OnlineLinear(LinearMulticlass, metaclass=ABCMeta):
    """Base of the online learners: the template of every ``partial_fit`` (see the module
    doc), parameter mixing and the saved state.  A batch learner with a ``partial_fit``
    (``CorrectedLogistic``) uses it too: its ``fit`` is its own, its ``partial_fit`` the
    template's.
    """

    #: fitted attributes cleared by a fresh start besides the declared ``_state`` and the
    #: rule's history (n_features_in_ is reset by validate_data)
    _fitted_attrs = ("classes_", "_W", "t_", "n_iter_", "n_updates_", "prediction_rows_", "_rng",
                     "validation_scores_", "temperature_")
    #: the fitted arrays besides the weights ``_W``, declared once (see :class:`Fitted`)
    _state = {}

    # ---- what a family supplies (the two abstract ones, and _state / _init_state) ---------
    @abstractmethod
    def _encode_target(self, X, target, classes, first, reset):
        """``(encoded, classes_)``: the target as a :class:`Target` its pass reads."""

    @abstractmethod
    def _rule(self, X):
        """The family's part of a call on ``X``, one :class:`Rule` (asked when the call starts;
        usually a constant of the class)."""

    def _init_state(self, n_cols):
        """Scalars beyond the weights and the declared arrays, made on a fresh start."""

    def _start(self, Xk, classes_, squared_norm=None):
        """A fresh start on the kernel-ready rows ``Xk``: zero weights, the counters, the
        generator, the row scale (from ``squared_norm``, the input check's sum of squared
        entries, when given) and the family's state (:meth:`_init_state`).
        """
        n_cols = Xk.shape[1] + int(bool(self.fit_intercept))      # the intercept: the weights' last row
        params = self.get_params(deep=False)
        shapes = {k: f.shape(params, n_cols, classes_.size) for k, f in self._state.items()}
        shapes = {k: tuple(shape) for k, shape in shapes.items() if shape is not None}
        check_memory(8 * (n_cols * classes_.size + sum(math.prod(shape) for shape in shapes.values())),
                     f"{type(self).__name__}'s weights{' and state' if shapes else ''} over {Xk.shape[1]:,} "
                     f"features and {classes_.size} classes",
                     " Is X as wide as it should be (a sparse matrix's shape, a hashed feature index)?")
        self._W = np.zeros((n_cols, classes_.size), dtype=np.float64)
        self.t_, self.n_updates_, self.n_iter_ = 1, 0, 0
        if "random_state" in params:
            self._rng = check_random_state(self.random_state)
        if "row_scale" in params:
            self.row_scale_ = row_scale_of(Xk, self.row_scale, squared_norm=squared_norm)
        for k, shape in shapes.items():
            f = self._state[k]
            setattr(self, k, np.zeros(shape, dtype=f.dtype) if f.start is None else f.start(self, shape))
        self._init_state(n_cols)

    def _commit(self, reset, n_epochs, updates, hist, visited):
        """After the epochs: the counters and the progressive history of the call."""
        self.n_iter_ = (0 if reset else self.n_iter_) + n_epochs
        self.n_updates_ += int(updates)
        d, classes_ = self.__dict__, self.classes_
        for h, buf in hist.items():
            d[h + "_"] = classes_[buf] if _HISTORY_DTYPES[h] is np.intp else buf
        self.prediction_rows_ = visited

    # ---- the template -----------------------------------------------------------------
    def _online_call(self, X, target, classes, reset, sample_weight=None):
        """``fit`` (``reset=True``, ``max_iter`` epochs) or one ``partial_fit`` epoch; a call
        that raises leaves the estimator as it was.

        The rollback is cheap: the attributes are kept by reference (a pass replaces them, it
        does not write into them), and only the arrays the pass writes in place (the weights
        and the declared ``_state``) are copied; a call that starts afresh copies nothing (the
        old model's arrays are not written).  A later call draws from the generator only
        for a block of uniforms ahead (the exploring learners), which its rollback leaves
        drawn, rewinding the position in it; so only a fresh ``fit`` seeded by the caller's
        own ``RandomState`` snapshots a generator.
        """
        saved = dict(self.__dict__)
        fresh = reset or "classes_" not in saved
        rule = self._rule(X)
        kept = ("_W", *self._state) if rule.kept_in_place is None else rule.kept_in_place
        copies = {}
        put_user_rng_back = None
        if not fresh:
            for k in kept:
                if k in saved:
                    copies[k] = saved[k].copy(order="K")
        elif isinstance(getattr(self, "random_state", None), np.random.RandomState):
            # a fresh fit seeded by the caller's RandomState draws from it: put it back for a second try
            put_user_rng_back = generator_snapshot(self.random_state)
        try:
            try:
                out = self._online_pass(X, target, classes, reset, sample_weight, rule, defer_range=True)
            except _RowOutOfRange:
                # a dense row the pass checked as it read it is out of range: back to the state
                # before the call, then the exact check of every row first (it names the first
                # bad row, or learns float32 rows whose squares overflow float32 in float64)
                _restorer(self, saved, copies, (put_user_rng_back,))(again=True)
                out = self._online_pass(X, target, classes, reset, sample_weight, rule, defer_range=False)
            # the arrays the call wrote (a fresh start makes the declared state; a later call
            # writes what it keeps in place, and verifies before it writes what it replaces) that
            # the weights' check at the end of every pass does not prove finite
            d = self.__dict__
            for k in (self._state if fresh else kept):
                if k != "_W" and k not in rule.checked_with_weights and k in d:
                    name = self._state[k].name if k in self._state else k.strip("_")
                    check_finite_result(self, "fit" if reset else "partial_fit", name, d[k])
            return out
        except BaseException:
            _restorer(self, saved, copies, (put_user_rng_back,))()
            raise

    def _online_pass(self, X, target, classes, reset, sample_weight, rule, defer_range=False):
        """The template's work (see :meth:`_online_call`, which makes it transactional).

        ``defer_range``: leave the range check of dense rows to the pass, which makes it as
        it reads each row (``rule.checks_rows``), where that changes nothing else: the
        pass visits every row, before any other use of them (no early stopping's held-out
        rows), no intercept column is appended and no row scale is set from them.  A pass
        that meets a row out of range raises :class:`_RowOutOfRange`.
        """
        first = reset or "classes_" not in self.__dict__
        if first:
            self._validate_params()
        defer_range = (defer_range and rule.checks_rows and not (reset and self.early_stopping)
                       and not (first and hasattr(self, "row_scale")))
        # C-contiguous dense rows or CSR with sorted indices, without an intercept column (the
        # kernels read it as an implicit constant feature, weaklabel.linear.kernel_rows)
        Xk, squared_norm = check_X(self, X, reset=first, squared_norm=True, defer_dense_range=defer_range)
        Xk = kernel_ready(Xk, False)
        deferred = defer_range and squared_norm is None and type(Xk) is np.ndarray
        encoded, classes_ = self._encode_target(Xk, target, classes, first, reset)
        sw = _NO_WEIGHTS if sample_weight is None else self._sample_weight(sample_weight, Xk.shape[0], reset)
        if self.class_weight is not None:
            sw = self._with_class_weight(sw, encoded, classes_, Xk.shape[0])
        if first:
            for name in (*self._fitted_attrs, *self._state, *(h + "_" for h in rule.history)):
                self.__dict__.pop(name, None)
            self.classes_ = classes_
            self._start(Xk, classes_, squared_norm)
        rows = kernel_rows(Xk, ROW_LIMITS if deferred else None, intercept=bool(self.fit_intercept))
        if reset:
            n_epochs, updates, hist, visited = self._epochs(Xk, rows, encoded, rule, sw)
        else:
            # partial_fit: one pass over every row, in the stream's order
            n_epochs, visited = 1, np.arange(Xk.shape[0])
            hist = {}
            for h in rule.history:
                hist[h] = np.empty(visited.size, dtype=_HISTORY_DTYPES[h])
            updates = rule.epoch(self, rows, visited, encoded, hist, sw)
            if updates < 0:
                raise _RowOutOfRange()
            if self.verbose:
                print(f"{type(self).__name__} pass 1: {updates} updates", flush=True)
        # fold any lazy scale back into the weights and check that they are finite
        proof = None if rule.finish is None else rule.finish(self)
        if proof is None:                       # one pass, no temporary
            W = self._W
            proof = _total(W) if W.flags.c_contiguous else _total(W.T) if W.flags.f_contiguous else W.sum()
        if not math.isfinite(proof):
            raise self._overflow()
        self._commit(reset, n_epochs, updates, hist, visited)
        return self

    def _epochs(self, Xk, rows, encoded, rule, sw):
        """``fit``'s ``max_iter`` passes: each in a new random order when ``shuffle`` (and the
        target allows it), over the rows early stopping does not hold out, which stops the
        passes when the held-out score stalls.  Returns ``(n_epochs, updates, hist, visited)``.
        """
        n_epochs = self.max_iter
        stopping = bool(self.early_stopping)
        if stopping:
            held, train = self._held_out_split(Xk.shape[0])
        else:
            held, train = None, np.arange(Xk.shape[0])
        n = train.size
        hist = {h: np.empty(n * n_epochs, dtype=_HISTORY_DTYPES[h]) for h in rule.history}
        shuffle = bool(self.shuffle) and encoded.in_any_order        # a log is replayed in its own order
        # one pass in the given order visits ``train`` itself (a fresh array no one else writes)
        visited = train if (n_epochs == 1 and not shuffle) else np.empty(n * n_epochs, dtype=np.intp)
        verbose = bool(self.verbose)
        updates, scores, best, stale = 0, [], -np.inf, 0
        for e in range(n_epochs):
            order = train[self._rng.permutation(n)] if shuffle else train
            sl = slice(e * n, (e + 1) * n)
            if visited is not train:
                visited[sl] = order
            nu = rule.epoch(self, rows, order, encoded, hist if n_epochs == 1 else {h: buf[sl] for h, buf in hist.items()},
                            sw)
            if nu < 0:
                raise _RowOutOfRange()
            updates += nu
            if (stopping or verbose) and rule.finish is not None:
                rule.finish(self)
            if stopping:
                score = self._held_out_score(Xk, held, encoded)
                scores.append(score)
                stale = stale + 1 if score < best + self.tol else 0
                best = max(best, score)
            if verbose:
                print(f"{type(self).__name__} pass {e + 1}: {updates} updates"
                      + (f", held-out score {scores[-1]:.4f}" if stopping else ""), flush=True)
            if stopping and stale >= self.n_iter_no_change:
                n_epochs = e + 1
                hist = {h: buf[: n * n_epochs] for h, buf in hist.items()}
                visited = visited[: n * n_epochs]
                break
        if stopping:
            self.validation_scores_ = np.asarray(scores)
        return n_epochs, updates, hist, visited

    def _overflow(self):
        """The error of a pass whose weights overflowed (the call is then undone)."""
        return FloatingPointError(f"{type(self).__name__} weights overflowed to inf/NaN; scale the rows of X "
                                  "(e.g. sklearn.preprocessing.Normalizer or StandardScaler) or use a smaller step.")

    def _with_class_weight(self, sw, encoded, classes_, n):
        """``sw`` (empty: all 1) times each row's class weight (see ``class_weight``)."""
        shares = encoded.class_shares(n, classes_.size)
        if shares is None:
            raise ValueError(f"{type(self).__name__} does not take class_weight.")
        return class_weighted(sw, shares, classes_, self.class_weight)

    def _held_out_split(self, n):
        """(held-out rows, training rows) for early stopping: ``validation_fraction`` of the
        rows, drawn with the estimator's generator, at least one of each.
        """
        n_val = int(round(self.validation_fraction * n))
        if n_val < 1 or n_val > n - 1:
            raise ValueError(f"early_stopping holds out validation_fraction={self.validation_fraction} of the "
                             f"{n} rows: {n_val} rows, but it needs at least 1 held out and 1 to train on.")
        perm = self._rng.permutation(n)
        return np.sort(perm[:n_val]), np.sort(perm[n_val:])

    def _held_out_score(self, Xk, held, encoded):
        """The share of held-out rows whose prediction the weak label accepts (their candidate
        set holds it, or it is the label).
        """
        Xh = Xk[held]
        d = Xh.shape[1]
        scores = np.asarray(Xh @ self._W[:d])
        if self._W.shape[0] > d:                         # the intercept row
            scores = scores + self._W[d]
        pred = np.argmax(scores, axis=1)
        accepted = encoded.accepted(held, pred)
        if accepted is None:
            raise ValueError(f"{type(self).__name__} cannot score held-out rows for early stopping.")
        return float(np.mean(accepted))

    def _sample_weight(self, sample_weight, n, reset):
        """Validated weights (:func:`~weaklabel._validation.check_sample_weight`, the one
        validator), float64 of shape (n,)."""
        sw = check_sample_weight(sample_weight, np.empty((n, 0)), allow_all_zero=True)
        if reset and n and not sw.any():
            raise ValueError("sample_weight is 0 for every row: fit would learn nothing (partial_fit accepts a "
                             "chunk of zero weights).")
        return np.ascontiguousarray(sw)

    def __setstate__(self, state):
        """Unpickle, with class-major weights put back on a cache line (pickle keeps their F
        order, not numpy's address: a model sent to a worker would otherwise have every pass
        work on an aligned copy; see :func:`weaklabel.linear._weights_layout`)."""
        super().__setstate__(state)
        d = self.__dict__
        for name, value in list(d.items()):
            if (type(value) is np.ndarray and value.ndim == 2 and value.dtype.kind == "f"
                    and value.flags.f_contiguous and not value.flags.c_contiguous):
                d[name] = aligned_class_major(value)

    # ---- parameter mixing ---------------------------------------------------------------
    def mixing_state(self):
        """The state that parameter mixing averages, as copies.

        Returns
        -------
        state : dict
            ``"W"``: the feature-major weights (n_features [+1], n_classes), plus any
            per-class statistics of the learner (e.g. Confidit's ``"A_diag"`` /
            ``"A_inv"``), each an ndarray to be averaged elementwise; ``"t"`` and
            ``"n_updates"``: the round and update counters (ints, not averaged).
        """
        check_is_fitted(self, "classes_")
        state = {"W": self._W.copy(), "t": int(self.t_), "n_updates": int(self.n_updates_)}
        state.update({f.name: self.__dict__[k].copy() for k, f in self._state.items() if k in self.__dict__})
        return state

    def set_mixing_state(self, state):
        """Replace the state that :meth:`mixing_state` returns (e.g. by an average).

        Parameters
        ----------
        state : dict
            The keys of :meth:`mixing_state`, with arrays of the same shapes.

        Returns
        -------
        self
            The estimator, with its new state.
        """
        check_is_fitted(self, "classes_")
        current = self.mixing_state()
        if set(state) != set(current):
            raise ValueError(f"state must have the keys {sorted(current)}; got {sorted(state)}.")
        arrays = {}
        for k, v in state.items():
            if k in ("t", "n_updates"):
                continue
            v = np.asarray(v, dtype=np.float64)
            if v.shape != current[k].shape:
                raise ValueError(f"state[{k!r}] must have shape {current[k].shape}; got {v.shape}.")
            if not np.isfinite(v).all():
                raise ValueError(f"state[{k!r}] must be finite.")
            arrays[k] = np.ascontiguousarray(v)
        self._W = arrays.pop("W")
        for k, f in self._state.items():
            if f.name in arrays:
                setattr(self, k, np.ascontiguousarray(arrays[f.name], dtype=f.dtype))
        self.t_ = int(state["t"])
        self.n_updates_ = int(state["n_updates"])
        self._restored(loaded=False)
        return self

    # ---- model files: the declared state (see weaklabel._persist.SavesModel) -----------------
    _saved_scalars = {**LinearMulticlass._saved_scalars, "t": Scalar("t_", "int"), "n_iter": Scalar("n_iter_", "int"),
                      "n_updates": Scalar("n_updates_", "int"), "row_scale": Scalar("row_scale_", "positive", True),
                      "temperature": Scalar("temperature_", "positive", True)}

    def __init_subclass__(cls, **kwargs):
        """A learner's files hold the weights, the classes and its declared ``_state`` (and
        what the class declares in its own ``_saved_arrays``)."""
        super().__init_subclass__(**kwargs)
        cls._saved_arrays = {**LinearMulticlass._saved_arrays, **{f.name: k for k, f in cls._state.items()},
                             **cls.__dict__.get("_saved_arrays", {})}

    @classmethod
    def _declared_state(cls, params, state, shapes):
        spec = super()._declared_state(params, state, shapes)
        rows, K = spec["W"][1]
        for f in cls._state.values():
            shape = f.shape(params, rows, K)
            if shape is not None:
                spec[f.name] = ("f" if np.dtype(f.dtype).kind == "f" else "iu", shape, True)
        return spec

    def _restored(self, loaded):
        """After the fitted arrays were replaced (``loaded``: from a model file, else by
        parameter mixing): on a load, the round counters as a fit leaves them, the generator
        the parameters make, the declared arrays in their dtypes; a family adds what derives
        from its arrays and what a fit guarantees of them beyond their declaration."""
        if not loaded:
            return
        super()._restored(loaded)
        if self.t_ < 1:
            raise ValueError(f"round counter t must be >= 1; got {self.t_}")
        if "row_scale" in self._get_param_names() and not hasattr(self, "row_scale_"):
            self.row_scale_ = 1.0
        self._rng = check_random_state(self.random_state)
        for k, f in self._state.items():
            if k in self.__dict__:
                setattr(self, k, np.ascontiguousarray(self.__dict__[k], dtype=f.dtype))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
