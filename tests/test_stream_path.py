"""The engine's lean path for a stream of ``partial_fit`` calls (``OnlineEngine._stream_call``,
which the candidate-label learners override with a leaner one still).

A later call without sample weights on plain float rows of the fitted width skips the
template's branches that cannot apply to it.  It must leave exactly the model the full
template leaves: every attribute, the generator's state, and the history of the call.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from weaklabel._online import OnlineEngine
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from weaklabel.simulate import make_candidate_sets

LEARNERS = [AvgPerceptron(random_state=0), MaxPerceptron(fit_intercept=True, random_state=0),
            AvgPegasos(alpha=0.01, random_state=0), MaxPegasos(alpha=0.01, random_state=0), Perceptron(),
            Pegasos(alpha=0.01), CSPA(random_state=0), SPA(random_state=0), Banditron(random_state=0),
            Banditron(average=False, gamma=0.3, random_state=0), BPA(random_state=0),
            Confidit(diagonal=True, random_state=0), Confidit(diagonal=False, random_state=0)]


def _stream(est, dtype, seed=0, n=90, d=7, chunk=13):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 4
    X = (rng.randn(n, d) + 2.0 * np.eye(4, d)[y]).astype(dtype)
    exact = isinstance(est, (Perceptron, Pegasos))
    target = y if exact or est.__module__.startswith("weaklabel.bandit") else make_candidate_sets(y, 2,
                                                                                                   random_state=seed)
    return [(X[lo:lo + chunk], target[lo:lo + chunk]) for lo in range(0, n, chunk)]


def _count_lean_calls(monkeypatch, est, taken):
    """Record in ``taken`` every call of ``est``'s lean path (its class's ``_stream_call``)."""
    lean = type(est)._stream_call
    monkeypatch.setattr(type(est), "_stream_call", lambda self, *a: taken.append(1) or lean(self, *a))


def _state(est):
    out = {k: pickle.dumps(v) for k, v in est.__dict__.items() if k != "_rng"}
    rng = est.__dict__.get("_rng")
    out["_rng"] = pickle.dumps(rng.get_state()) if rng is not None else None
    return out


@pytest.mark.parametrize("est", LEARNERS, ids=repr)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_stream_of_calls_leaves_the_model_the_full_template_leaves(est, dtype, monkeypatch):
    chunks = _stream(est, dtype)
    classes = np.arange(4)
    taken = []
    _count_lean_calls(monkeypatch, est, taken)
    fast = pickle.loads(pickle.dumps(est))
    for X, t in chunks:
        fast.partial_fit(X, t, classes=classes)
    # every call but the first (which starts the model); full-matrix Confidit's pass does not
    # check dense rows as it reads them, so its calls take the full way
    expected = len(chunks) - 1 if fast._pass_checks_rows() else 0
    assert len(taken) == expected
    monkeypatch.setattr(OnlineEngine, "_streams", lambda self, X: False)
    full = pickle.loads(pickle.dumps(est))
    for X, t in chunks:
        full.partial_fit(X, t, classes=classes)
    assert len(taken) == expected                   # the full template only
    assert _state(fast) == _state(full)


def test_the_lean_path_is_taken_only_where_nothing_else_applies(monkeypatch):
    """Sample weights, sparse rows, a data frame's feature names, class weights, verbose
    output, a non-contiguous view and another width go the full way (which names what is
    wrong with an input)."""
    taken = []
    _count_lean_calls(monkeypatch, CSPA(), taken)
    rng = np.random.RandomState(0)
    X, y = rng.randn(40, 5), np.arange(40) % 3
    est = CSPA(random_state=0).fit(X, y)
    est.partial_fit(X, y)
    assert len(taken) == 1
    est.partial_fit(X, y, sample_weight=np.ones(40))
    est.partial_fit(sp.csr_matrix(X), y)
    est.partial_fit(np.asfortranarray(X), y)
    est.partial_fit(X[:, :5:1][::2], y[::2])             # a strided view of rows
    with pytest.raises(ValueError, match="has 4 features"):
        est.partial_fit(X[:, :4].copy(), y)
    CSPA(class_weight="balanced").fit(X, y).partial_fit(X, y)
    CSPA(verbose=1).fit(X, y).partial_fit(X, y)
    frame = pd.DataFrame(X, columns=list("abcde"))
    with pytest.warns(UserWarning, match="feature names"):
        CSPA().fit(frame, y).partial_fit(X, y)
    assert len(taken) == 1


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_the_check_after_a_stream_call_covers_every_saved_array_the_call_changed(est, monkeypatch):
    """A stream's call checks only the arrays it can have made non-finite (``_stream_checked``;
    the weights the pass checks itself, and what they prove finite): every array a model
    file holds that the call wrote in place or replaced is among them."""
    chunks = _stream(est, np.float64)
    fitted = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    before = dict(fitted.__dict__)
    kept = fitted._kept_in_place(chunks[1][0])
    covered = set(("_W",) + fitted._checked_with_weights()) | set(fitted._stream_checked(kept))
    taken = []
    _count_lean_calls(monkeypatch, est, taken)
    fitted.partial_fit(*chunks[1])
    assert taken
    by_identity = {id(v): k for k, v in fitted.__dict__.items()}
    for name, value in fitted._state_arrays().items():
        attr = by_identity.get(id(value))
        if attr is None or not (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
            continue
        if before.get(attr) is not value or attr in kept:
            assert attr in covered, f"{type(est).__name__}: {attr} changed by a stream call but not checked"


def test_a_stream_call_that_leaves_a_matrix_non_finite_raises_and_leaves_the_model(monkeypatch):
    """Diagonal Confidit's variances are written in place and not covered by the weights'
    check: the check after a stream's call reads them."""
    import weaklabel.bandit._learners as learners

    chunks = _stream(Confidit(diagonal=True), np.float64)
    est = Confidit(diagonal=True, random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    est.partial_fit(*chunks[1])
    before = _state(est)
    real = learners._confidit_diag_dense_pass

    def poisoned(state, *args):
        out = real(state, *args)
        state[1][0, 0] = np.inf                  # the diagonals (class-major view)
        return out

    monkeypatch.setattr(learners, "_confidit_diag_dense_pass", poisoned)
    with pytest.raises(ValueError, match="non-finite values in A_diag"):
        est.partial_fit(*chunks[2])
    assert _state(est) == before


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_dense_passes_keep_the_weights_class_major_on_a_cache_line_and_learn_the_same_off_it(est):
    """For dense rows the weights are kept in F order (a pass updates their class-major view in
    place) starting on a 64-byte boundary; weights off the boundary (as a pickle or a user
    may leave them) are learnt on an aligned copy, to the same numbers."""
    from weaklabel._row_kernels import ALIGN, _address

    chunks = _stream(est, np.float64)
    a = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    names = [k for k in ("_W", "_W_cur", "_acc", "_A_diag") if k in a.__dict__ and a.__dict__[k].size
             and not (k == "_W" and "_W_cur" in a.__dict__)]
    for k in names:
        assert a.__dict__[k].flags.f_contiguous and _address(a.__dict__[k]) % ALIGN == 0, k
    b = pickle.loads(pickle.dumps(a))
    for k in names:                          # the same values, 16 bytes off the boundary
        v = b.__dict__[k]
        buf = np.empty(v.size + ALIGN // 8)
        skip = (-_address(buf) % ALIGN) // 8 + 2
        off = buf[skip:skip + v.size].reshape(v.shape[1], v.shape[0]).T
        off[...] = v
        b.__dict__[k] = off
        assert _address(off) % ALIGN == 16
    for X, t in chunks[1:]:
        a.partial_fit(X, t)
        b.partial_fit(X, t)
    assert _state(a) == _state(b)


@pytest.mark.parametrize("shape", [(1, 2), (7, 3), (257, 10), (40, 13)])
def test_pegasos_squared_norm_is_the_same_number_in_either_layout(shape):
    """Pegasos keeps ``||W||^2`` from the weights after every call; a saved model comes back
    feature-major while the original is class-major, so the sum must not depend on the
    layout (each class's sum in order, then the classes in order): equal to the bit."""
    from weaklabel.partial._kernels import _squared_norm

    rng = np.random.default_rng(sum(shape))
    W = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    F = np.asfortranarray(W)
    assert _squared_norm(W, False) == _squared_norm(F.T, True)
    np.testing.assert_allclose(_squared_norm(W, False), np.sum(W * W), rtol=1e-12)


def test_streams_in_threads_keep_their_own_labels_and_generators():
    """The stream path remembers the last classes and generator it saw (module-level, read as
    one tuple): models streaming in threads at once (Dask's threaded scheduler) still map
    their own predictions to their own labels, and each exploring model's generator is its
    own (the same proposals as the same stream run alone)."""
    import threading

    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y = np.arange(60) % 3
    labels = {"positions": y, "shifted": y + 10, "words": np.array(["a", "b", "c"])[y]}
    alone = {}
    for name, t in labels.items():
        est = Banditron(random_state=1).partial_fit(X[:3], t[:3], classes=np.unique(t))
        alone[name] = [est.partial_fit(X[i:i + 3], t[i:i + 3]).proposals_.copy() for i in range(3, 60, 3)]
    errors = []

    def stream(name, t):
        try:
            for _ in range(20):
                est = Banditron(random_state=1).partial_fit(X[:3], t[:3], classes=np.unique(t))
                for k, i in enumerate(range(3, 60, 3)):
                    est.partial_fit(X[i:i + 3], t[i:i + 3])
                    assert set(est.predictions_) <= set(np.unique(t))
                    np.testing.assert_array_equal(est.proposals_, alone[name][k])
        except Exception as e:                      # reported below, in the main thread
            errors.append((name, e))

    threads = [threading.Thread(target=stream, args=item) for item in labels.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_a_stream_switching_between_dense_and_sparse_rows_learns_what_either_form_learns(est):
    """Dense rows keep the weights class-major, sparse rows feature-major: a stream that
    alternates the forms converts them at each switch and learns what a stream of one form
    learns (the two forms' passes sum in different orders: equal to 1e-9)."""
    chunks = _stream(est, np.float64)
    classes = np.arange(4)
    mixed = pickle.loads(pickle.dumps(est))
    sparse = pickle.loads(pickle.dumps(est))
    for k, (X, t) in enumerate(chunks):
        mixed.partial_fit(X if k % 2 else sp.csr_matrix(X), t, classes=classes)
        sparse.partial_fit(sp.csr_matrix(X), t, classes=classes)
        assert mixed._W.flags.f_contiguous == bool(k % 2) or mixed._W.shape[1] == 1
    np.testing.assert_allclose(mixed.coef_, sparse.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(mixed.predictions_, sparse.predictions_)


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_an_unpickled_model_has_its_class_major_weights_on_a_cache_line(est):
    """pickle keeps the F order, not the address: unpickling puts the class-major arrays back
    on a 64-byte boundary, with the same values (a model sent to a Dask worker streams at
    full speed)."""
    from weaklabel._row_kernels import ALIGN, _address

    a = pickle.loads(pickle.dumps(est)).partial_fit(*_stream(est, np.float64)[0], classes=np.arange(4))
    for _ in range(3):                          # any of numpy's addresses on the way back
        b = pickle.loads(pickle.dumps(a))
        for k, v in b.__dict__.items():
            if isinstance(v, np.ndarray) and v.ndim == 2 and v.flags.f_contiguous and not v.flags.c_contiguous:
                assert _address(v) % ALIGN == 0, k
                np.testing.assert_array_equal(v, a.__dict__[k])
    assert _state(b) == _state(a)


CANDIDATE_LEARNERS = [AvgPerceptron(random_state=0), MaxPerceptron(fit_intercept=True, random_state=0),
                      AvgPegasos(alpha=0.01, random_state=0), MaxPegasos(alpha=0.01, random_state=0)]


@pytest.mark.parametrize("est", CANDIDATE_LEARNERS, ids=repr)
@pytest.mark.parametrize("dtype, bad, message", [(np.float64, np.nan, r"contains NaN \(first at row 11\)"),
                                                 (np.float64, 1e-150, "underflows"),
                                                 (np.float32, np.inf, r"contains infinity \(first at row 11\)")])
def test_the_candidate_learners_lean_call_undoes_a_pass_that_meets_a_bad_row(est, dtype, bad, message, monkeypatch):
    """The candidate-label learners' own lean call (CandidateSets of the fitted classes): a
    row out of range late in the chunk gives the exact check's message and leaves the model
    as it was; the next good call continues as on a model that never saw the bad one."""
    chunks = _stream(est, dtype)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    twin = pickle.loads(pickle.dumps(est))
    taken = []
    _count_lean_calls(monkeypatch, est, taken)
    X, S = chunks[1]
    Xbad = X.copy()
    Xbad[11] = 0.0
    Xbad[11, 3] = bad
    before = _state(est)
    with pytest.raises(ValueError, match=message):
        est.partial_fit(Xbad, S, classes=np.arange(4))
    assert taken and _state(est) == before
    est.partial_fit(X, S)
    twin.partial_fit(X, S)
    assert _state(est) == _state(twin)


@pytest.mark.parametrize("est", CANDIDATE_LEARNERS, ids=repr)
def test_the_candidate_learners_lean_call_undoes_an_overflow(est, monkeypatch):
    """Weights made non-finite by the pass: the lean call raises the engine's overflow error
    and puts the weights back (they are written in place)."""
    import weaklabel.partial._online as online

    chunks = _stream(est, np.float64)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    real = online._candidate_epoch

    def poisoned(weights, *args):
        out = real(weights, *args)
        weights[0][1, 2] = np.inf
        return out

    monkeypatch.setattr(online, "_candidate_epoch", poisoned)
    with pytest.raises(FloatingPointError, match="overflowed"):
        est.partial_fit(*chunks[1])
    assert _state(est) == before


def test_the_candidate_learners_lean_call_takes_the_engines_way_for_other_targets(monkeypatch):
    """Other classes than the fitted ones are refused with the engine's message (model
    unchanged); labels, masks and CandidateSets of other classes take the engine's path
    and give what the lean call gives on the same sets."""
    from weaklabel import CandidateSets

    chunks = _stream(AvgPerceptron(), np.float64)
    est = AvgPerceptron(random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    with pytest.raises(ValueError, match="differs from the classes"):
        est.partial_fit(*chunks[1], classes=np.arange(5))
    assert _state(est) == before
    X, S = chunks[1]
    as_mask, as_lists = pickle.loads(pickle.dumps(est)), pickle.loads(pickle.dumps(est))
    as_mask.partial_fit(X, np.asarray(S.mask))
    as_lists.partial_fit(X, [list(np.flatnonzero(r)) for r in S.mask])
    est.partial_fit(X, S)
    assert _state(est) == _state(as_mask) == _state(as_lists)
    wider = CandidateSets(np.hstack([S.mask, np.zeros((X.shape[0], 1), bool)]), classes=np.arange(5))
    with pytest.raises(ValueError):
        pickle.loads(pickle.dumps(est)).partial_fit(X, wider)


BANDIT_LEARNERS = [CSPA(random_state=0), SPA(random_state=0), Banditron(random_state=0),
                   Banditron(average=False, gamma=0.3, random_state=0), BPA(random_state=0)]


@pytest.mark.parametrize("est", BANDIT_LEARNERS, ids=repr)
def test_the_bandit_learners_lean_call_undoes_an_overflow_and_its_draws(est, monkeypatch):
    """The bandit learners' own lean call (integer labels as the oracle): weights made
    non-finite by the pass raise the engine's overflow error, and the weights, the averaging
    sums and the generator are put back; the next call gives what the untouched twin gives."""

    chunks = _stream(est, np.float64)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    twin = pickle.loads(pickle.dumps(est))
    before = _state(est)
    taken = []
    _count_lean_calls(monkeypatch, est, taken)
    real = type(est)._pass

    def poisoned(weights, *args):
        out = real(weights, *args)
        mean = args[-1][2]                 # averaged: the mean the pass wrote, which predicts
        (mean if mean.size else weights[0])[1, 2] = np.inf
        return out

    monkeypatch.setattr(type(est), "_pass", staticmethod(poisoned))
    with pytest.raises(FloatingPointError, match="overflowed"):
        est.partial_fit(*chunks[1], classes=np.arange(4))
    assert taken and _state(est) == before
    monkeypatch.setattr(type(est), "_pass", staticmethod(real))
    est.partial_fit(*chunks[1])
    twin.partial_fit(*chunks[1])
    assert _state(est) == _state(twin)


def test_the_bandit_learners_lean_call_names_an_unknown_label_and_keeps_the_model():
    chunks = _stream(Banditron(), np.float64)
    est = Banditron(random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    X, y = chunks[1]
    with pytest.raises(ValueError, match=r"label\(s\) \[7\] that are not in classes"):
        est.partial_fit(X, np.where(np.arange(y.size) == 3, 7, y))
    assert _state(est) == before
