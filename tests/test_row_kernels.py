"""The dense row helpers shared by the online kernels, against plain numpy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from weaklabel._row_kernels import _cm_scores
from weaklabel._validation import read_only


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
    ``History`` rebuilt from whatever tuple arrived, the rule's parameters unpacked."""
    from numba import njit

    from weaklabel._row_kernels import Rows
    from weaklabel.bandit._kernels import Feedback, History

    @njit
    def probe(rows, rule_params, feedback, history):
        rows, feedback, history = Rows(*rows), Feedback(*feedback), History(*history)
        beta, gamma, margin1 = rule_params
        for i in range(rows.dense.shape[0]):
            history.proposals[i] = feedback.y[i] + rows.intercept
            history.propensities[i] = rows.dense[i].sum() * beta
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
    from weaklabel.bandit._kernels import Feedback, History
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
        args = (rows, (2.0, 0.5, 1.0), fb, hist)
        res = probe(*(tuple(a) for a in args) if plain else args)
        outs.append((res, hist.proposals, hist.propensities))
    assert outs[0][0] == outs[1][0] == (6 + 1, False, 1.5)
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(outs[0][1], y + 6)
    np.testing.assert_allclose(outs[0][2], X.sum(axis=1) * 2.0)
