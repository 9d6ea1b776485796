"""The dense row helpers shared by the online kernels, against plain numpy."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from weaklabel._row_kernels import _cm_scores, _cm_scores_pair


@settings(max_examples=60, deadline=None)
@given(n_classes=st.integers(1, 21), d=st.integers(1, 40), intercept=st.booleans(),
       dtype=st.sampled_from([np.float64, np.float32]), seed=st.integers(0, 2**31 - 1))
def test_dense_scores_one_and_two_rows_at_a_time_equal_numpy(n_classes, d, intercept, dtype, seed):
    """Every class count (four or five classes a loop, with repeated classes in the last
    block), with and without the implicit constant feature, in both precisions."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((3, d)).astype(dtype)
    Wt = rng.standard_normal((n_classes, d + int(intercept))).astype(dtype)
    Xi = np.hstack([X, np.ones((3, 1), dtype)]) if intercept else X
    want = Xi.astype(np.float64) @ Wt.T.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4 * d) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12 * d)
    one = np.empty(n_classes)
    nsq = _cm_scores(Wt, X, 2, 1.0, one)
    assert_allclose(one, want[2], **tol)
    assert_allclose(nsq, (X[2].astype(np.float64) ** 2).sum(), **tol)
    a, b = np.empty(n_classes), np.empty(n_classes)
    na, nb, ab = _cm_scores_pair(Wt, X, 2, 0, a, b)
    assert_allclose(a, want[2], **tol)
    assert_allclose(b, want[0], **tol)
    X64 = X.astype(np.float64)
    assert_allclose([na, nb, ab], [X64[2] @ X64[2], X64[0] @ X64[0], X64[2] @ X64[0]], **tol)


def test_classes_with_equal_weights_score_equal_to_the_bit_in_both_rows_of_a_pair():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2, 37))
    for n_classes in (5, 6, 7, 9, 10, 16):
        Wt = np.tile(rng.standard_normal(37), (n_classes, 1))
        a, b = np.empty(n_classes), np.empty(n_classes)
        _cm_scores_pair(Wt, X, 0, 1, a, b)
        assert len(set(a.tolist())) == 1 and len(set(b.tolist())) == 1
