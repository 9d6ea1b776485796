"""The range check of dense rows made by the pass itself, as it reads each row.

The Perceptrons, Pegasos (continuing calls), CSPA, SPA, BPA, Banditron and diagonal Confidit
(continuing calls) do not scan dense ``X`` before the pass: their kernels check each row's
squared norm as they compute it (``rows.limits``) and stop at a row out of range; the engine
then puts the model back and runs the exact check of every row, so the error and the
model left behind are what the check before the pass gave.
"""

import pickle

import numpy as np
import pytest

from weaklabel._row_kernels import NO_LIMITS
from weaklabel._validation import ROW_LIMITS
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit
from weaklabel.linear import kernel_rows
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron
from weaklabel.partial._kernels import RULE_AVG, _candidate_epoch

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


def _state(est):
    return {k: pickle.dumps(v) for k, v in est.__dict__.items()}


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
