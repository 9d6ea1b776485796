"""The dense row helpers shared by the online kernels, against plain numpy.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from weaklabel._row_kernels import NO_LIMITS, _cm_scores
from weaklabel._validation import ROW_LIMITS, read_only
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit
from weaklabel.linear import kernel_rows
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron
from weaklabel.partial._kernels import RULE_AVG, _candidate_epoch
from tests.test_online import _state


@settings(max_examples=60, deadline=None)
@given(n_classes=st.integers(1, 21), d=st.integers(1, 40), intercept=st.booleans(),
       dtype=st.sampled_from([np.float64, np.float32]), seed=st.integers(0, 2**31 - 1))
def test_dense_scores_equal_numpy(n_classes, d, intercept, dtype, seed):
    """Every class count (four or five classes a loop, with repeated classes in the last
    block), with and without the implicit constant feature, in both precisions."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((3, d)).astype(dtype)
    Wt = rng.standard_normal((n_classes, d + int(intercept))).astype(dtype)
    Xi = np.hstack([X, np.ones((3, 1), dtype)]) if intercept else X
    want = Xi.astype(np.float64) @ Wt.T.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4 * d) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12 * d)
    one = np.empty(n_classes)
    nsq = _cm_scores(Wt, read_only(X), 2, 1.0, one)        # read-only rows, as the passes hand them over
    assert_allclose(one, want[2], **tol)
    assert_allclose(nsq, (X[2].astype(np.float64) ** 2).sum(), **tol)


def test_classes_with_equal_weights_score_equal_to_the_bit():
    """Every class goes through the same loop (four or five classes a loop, the last block
    repeating the last class), so equal weights give equal scores and ties go to the lowest
    index."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2, 37))
    for n_classes in (5, 6, 7, 9, 10, 16):
        Wt = np.tile(rng.standard_normal(37), (n_classes, 1))
        a = np.empty(n_classes)
        _cm_scores(Wt, read_only(X), 1, 1.0, a)
        assert len(set(a.tolist())) == 1


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 300), cols=st.integers(1, 12), bad=st.sampled_from([None, np.nan, np.inf, -np.inf]),
       seed=st.integers(0, 2**31 - 1))
def test_the_weights_total_is_numpys_sum_and_meets_every_nan_and_infinity(rows, cols, bad, seed):
    """The engine's finiteness check of the weights after a call (``_total``)."""
    from weaklabel._row_kernels import _total

    rng = np.random.default_rng(seed)
    W = rng.standard_normal((rows, cols))
    if bad is None:
        assert_allclose(_total(W), W.sum(), rtol=1e-12, atol=1e-12 * W.size)
    else:
        W[rng.integers(rows), rng.integers(cols)] = bad
        assert not np.isfinite(_total(W))


def _rebuilding_probe():
    """A kernel that takes its arguments as the online passes do: ``Rows``, ``Feedback`` and
    ``History`` rebuilt from whatever tuple arrived, ``BanditRule`` unpacked."""
    from numba import njit

    from weaklabel._row_kernels import Rows
    from weaklabel.bandit._kernels import Feedback, History

    @njit
    def probe(rows, rule_params, feedback, history):
        rows, feedback, history = Rows(*rows), Feedback(*feedback), History(*history)
        rule, beta, gamma, margin1 = rule_params
        for i in range(rows.dense.shape[0]):
            history.proposals[i] = feedback.y[i] + rows.intercept
            history.propensities[i] = rows.dense[i].sum() * beta + rule
        return rows.dense.shape[1] + rows.indptr.size, feedback.logged, gamma + margin1

    return probe


@pytest.mark.slow
def test_kernels_take_their_namedtuples_or_the_same_fields_as_plain_tuples():
    """The estimators hand the kernels plain tuples (numba types them without a call into
    Python); the kernels rebuild the namedtuples (``Rows(*rows)``) or unpack them, so both
    forms give the same results.

    The passes written this way are the suite's largest kernels (5-10 s of compile a
    signature; a second, namedtuple, signature of two of them cost the suite 10 s), so the
    idiom is checked on a small kernel that uses it as they do.  Code that types with plain
    tuples (every learner's call, all through the suite) types with namedtuples too: a
    namedtuple unpacks, indexes and star-expands as the tuple of its fields does; and MMS's
    round takes ``Rows`` itself."""
    from weaklabel.bandit._kernels import RULE_CSPA, BanditRule, Feedback, History
    from weaklabel.linear import kernel_rows

    rng = np.random.default_rng(3)
    X = rng.standard_normal((9, 6))
    y = rng.integers(0, 4, 9)
    probe = _rebuilding_probe()
    outs = []
    for plain in (False, True):
        rows = kernel_rows(X, None, intercept=True)
        hist = History(np.empty(9, np.intp), np.empty(9, np.intp), np.empty(9, bool), np.empty(9))
        fb = Feedback(False, y.astype(np.intp), np.zeros(0, np.intp), np.zeros(0, bool), read_only(np.zeros((0, 0), bool)),
                      np.zeros(0))
        rule = BanditRule(RULE_CSPA, 2.0, 0.5, 1.0)
        args = (rows, rule, fb, hist)
        res = probe(*(tuple(a) for a in args) if plain else args)
        outs.append((res, hist.proposals, hist.propensities))
    assert outs[0][0] == outs[1][0] == (6 + 1, False, 1.5)
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(outs[0][1], y + 6)
    np.testing.assert_allclose(outs[0][2], X.sum(axis=1) * 2.0 + RULE_CSPA)


# ---- The range check of dense rows made by the pass itself, as it reads each row. ----
# The Perceptrons, Pegasos (continuing calls), CSPA, SPA, BPA, Banditron and diagonal Confidit
# (continuing calls) do not scan dense ``X`` before the pass: their kernels check each row's
# squared norm as they compute it (``rows.limits``) and stop at a row out of range; the engine
# then puts the model back and runs the exact check of every row, so the error and the
# model left behind are what the check before the pass gave.

#: (BPA appends an intercept column by default: its rows are checked before the pass)
LEARNERS = [AvgPerceptron(random_state=0), MaxPerceptron(random_state=0), AvgPegasos(alpha=0.01, random_state=0),
            MaxPegasos(alpha=0.01, random_state=0), CSPA(random_state=0), SPA(random_state=0),
            Banditron(random_state=0), BPA(fit_intercept=False, random_state=0),
            Confidit(diagonal=True, random_state=0)]


def _data(n=60, d=6, seed=0):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 3
    X = rng.randn(n, d) + 2.0 * np.eye(3, d)[y]
    return X, y


BAD_ROWS = [(np.float64, np.nan, r"contains NaN \(first at row 57\)"),
            (np.float64, np.inf, r"contains infinity \(first at row 57\)"),
            (np.float64, 1e150, "magnitude up to 1e\\+150"), (np.float64, 1e-150, "underflows"),
            (np.float32, np.nan, r"contains NaN \(first at row 57\)"),
            (np.float32, np.inf, r"contains infinity \(first at row 57\)")]


@pytest.mark.parametrize("est", LEARNERS, ids=repr)
@pytest.mark.parametrize("dtype, bad, message", BAD_ROWS)
def test_a_bad_row_late_in_a_partial_fit_leaves_the_model_as_it_was(est, dtype, bad, message, monkeypatch):
    """The pass has updated the weights on 57 rows when it meets row 57: the call still
    raises the check's message and leaves every attribute (the generator too) as it was,
    so the next good call gives what it gives on a model that never saw the bad one.  The
    check before the pass runs only on the second try (the pass made the first)."""
    import weaklabel._validation as validation

    checks = []
    exact = validation.checked_squared_norm
    monkeypatch.setattr(validation, "checked_squared_norm", lambda *a: checks.append(1) or exact(*a))
    X, y = _data()
    X = X.astype(dtype)
    est = est.fit(X, y)
    twin = pickle.loads(pickle.dumps(est))
    before = _state(est)
    Xbad = X.copy()
    Xbad[57] = 0.0
    Xbad[57, 2] = bad
    checks.clear()
    with pytest.raises(ValueError, match=message):
        est.partial_fit(Xbad, y)
    assert len(checks) == 1
    assert _state(est) == before
    est.partial_fit(X, y)
    twin.partial_fit(X, y)
    assert len(checks) == 1                  # the good calls: no check before the pass
    assert _state(est) == _state(twin)


@pytest.mark.parametrize("est", [AvgPerceptron(shuffle=True, random_state=0), CSPA(shuffle=True, random_state=0)],
                         ids=repr)
def test_a_shuffled_fit_names_the_first_bad_row_by_index_not_by_visit(est):
    X, y = _data()
    X[[11, 40], 1] = np.nan
    with pytest.raises(ValueError, match=r"first at row 11\)"):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


def test_float32_rows_that_overflow_float32_after_a_shuffled_fit_with_a_caller_generator():
    """Float32 rows whose squares overflow float32 stop the float32 pass; the second try (in
    float64) must shuffle exactly as a float64 fit seeded alike does: the caller's
    RandomState is put back before it."""
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((40, 4)) * 1e20).astype(np.float32)
    y = np.arange(40) % 3
    for cls in (AvgPerceptron, CSPA):
        a = cls(max_iter=3, shuffle=True, random_state=np.random.RandomState(5)).fit(X, y)
        b = cls(max_iter=3, shuffle=True, random_state=np.random.RandomState(5)).fit(X.astype(np.float64), y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.prediction_rows_, b.prediction_rows_)


@pytest.mark.parametrize("bad", [8, 9, 20])
def test_the_candidate_kernel_stops_at_the_first_row_out_of_range_and_leaves_the_weights(bad):
    """The bad row may be early (8, 9) or the last (20 of 21): the pass stops at it."""
    X, y = _data(21, 5)
    S = np.zeros((21, 3), bool)
    S[np.arange(21), y] = True
    S.flags.writeable = False         # the rows a plain tuple and S read-only, as the learners hand them
    X[bad, 0] = np.nan                # over: the kernel the learners compiled, no other
    W = np.zeros((5, 3))
    pred = np.full(21, -7, np.intp)
    out = _candidate_epoch((W, False), (1.0, 0.0, 1.0), tuple(kernel_rows(X, ROW_LIMITS)), S, np.arange(21),
                           (RULE_AVG, False, 1.0, 1.0), pred, np.empty(0))
    assert out[3] == -1
    assert not W.any()                       # a dense pass writes the weights back only at its end
    assert (pred[:bad] >= 0).all() and (pred[bad:] == -7).all()
    # rows the check has passed carry no limits: the same rows without the NaN row pass
    assert kernel_rows(X).limits == NO_LIMITS
    out = _candidate_epoch((W, False), (1.0, 0.0, 1.0), tuple(kernel_rows(np.delete(X, bad, axis=0), ROW_LIMITS)),
                           S[:20], np.arange(20), (RULE_AVG, False, 1.0, 1.0), pred, np.empty(0))
    assert out[3] > 0 and W.any()


def test_a_generator_snapshot_puts_back_the_exact_state():
    """The rollback of an exploring learner's generator: the state after putting it back is
    get_state's, a cached Gaussian and draws crossing regenerations of the words included."""
    from weaklabel import _online

    for rng in (np.random.RandomState(4), np.random.RandomState(None)):
        rng.random_sample(11)
        rng.standard_normal()                    # a cached Gaussian
        before = rng.get_state()
        put_back = _online.generator_snapshot(rng)
        drawn = rng.random_sample(1500)
        rng.standard_normal()
        put_back()
        after = rng.get_state()
        assert np.array_equal(before[1], after[1]) and before[2:] == after[2:]
        np.testing.assert_array_equal(drawn, rng.random_sample(1500))
