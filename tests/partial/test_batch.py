"""The batch candidate-label learners' shared base (:mod:`weaklabel.partial._batch`)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits

from weaklabel.partial import CLPL, PRODEN, _batch
from weaklabel.partial._batch import merge_duplicate_rows
from weaklabel.simulate import make_candidate_sets

# ---- The batch partial-label learners fit repeated rows once, weighted by their count
# (``merge_duplicate_rows``): the same objective, so the same model, for less. ----


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), sparse=st.booleans(), weighted=st.booleans())
def test_merged_rows_rebuild_the_data(seed, sparse, weighted):
    rng = np.random.default_rng(seed)
    n_distinct, K = 6, 4
    base = (rng.random((n_distinct, 5)) < 0.4) * rng.integers(1, 3, (n_distinct, 5)).astype(float)
    Sb = rng.random((n_distinct, K)) < 0.5
    Sb[:, 0] = True
    take = rng.integers(0, n_distinct, 40)
    X, S = base[take], Sb[take].copy()
    S[0, 1] = not S[0, 1] if K > 1 else S[0, 1]           # the same row with another set stays apart
    sw = rng.uniform(0.0, 2.0, X.shape[0]) if weighted else None
    Xf = sp.csr_matrix(X) if sparse else X
    out = merge_duplicate_rows(Xf, S, sw)
    assert out is not None
    Xm, Sm, w, inverse = out
    Xm = Xm.toarray() if sparse else Xm
    np.testing.assert_array_equal(Xm[inverse], X)
    np.testing.assert_array_equal(Sm[inverse], S)
    pairs = {(r.tobytes(), s.tobytes()) for r, s in zip(X, S)}
    assert Xm.shape[0] == len(pairs)                      # each distinct (row, set) pair once
    np.testing.assert_allclose(w, np.bincount(inverse, weights=sw, minlength=Xm.shape[0]))
    assert np.all(np.diff([np.flatnonzero(inverse == g)[0] for g in range(Xm.shape[0])]) > 0)  # first-seen order


def test_rows_that_do_not_repeat_are_not_merged():
    X, y = load_digits(return_X_y=True)
    S = make_candidate_sets(y, 2, random_state=0)
    assert merge_duplicate_rows(X[:300] / 16, np.asarray(S[:300]), None) is None
    # fewer repeats than MERGE_AT_LEAST of the rows: not worth a merge
    Xr = np.vstack([X[:300], X[:20]]) / 16
    Sr = np.vstack([np.asarray(S[:300]), np.asarray(S[:20])])
    assert merge_duplicate_rows(Xr, Sr, None) is None


@pytest.fixture(scope="module")
def repeated():
    """Binary rows that repeat (as italian's do): 400 rows, 60 distinct patterns."""
    rng = np.random.default_rng(3)
    protos = (rng.random((60, 30)) < 0.15).astype(float)
    Wt = rng.normal(size=(30, 5))
    take = rng.integers(0, 60, 400)
    X = protos[take]
    y = np.argmax(X @ Wt + rng.normal(scale=0.3, size=(400, 5)), axis=1)
    S = make_candidate_sets(y, 2, random_state=1)
    return X, np.asarray(S)


@pytest.mark.parametrize("loss", ["squared_hinge", "logistic"])
def test_merged_rows_have_the_same_objective(repeated, loss):
    # the claim the merge rests on: at any weights, the loss on the merged rows, weighted by
    # their counts, is the loss on every row (CLPL's and PRODEN's cross-entropy)
    from weaklabel.partial import weighted_cross_entropy
    from weaklabel.partial._clpl import clpl_loss

    X, S = repeated
    sw = np.linspace(0.5, 1.5, X.shape[0])
    Xm, Sm, w, inverse = merge_duplicate_rows(X, S, sw)
    rng = np.random.default_rng(0)
    W = rng.normal(size=(X.shape[1], S.shape[1]))
    assert clpl_loss(Xm @ W, Sm, loss, w)[0] == pytest.approx(clpl_loss(X @ W, S, loss, sw)[0], rel=1e-12)
    Q = Sm / Sm.sum(axis=1, keepdims=True)
    assert (weighted_cross_entropy(Xm @ W, Q, w)[0]
            == pytest.approx(weighted_cross_entropy(X @ W, Q[inverse], sw)[0], rel=1e-12))


# L-BFGS stops where the objective's relative decrease falls under its ftol, which the order
# of the sums moves a little: the models agree to 1e-3 (coefficients of about 1)
@pytest.mark.parametrize("make", [lambda: CLPL(alpha=1e-3), lambda: CLPL(alpha=1e-3, loss="logistic"),
                                  lambda: PRODEN(alpha=1e-3), lambda: PRODEN(alpha=1e-3, init="clpl")])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_merged_fit_equals_the_fit_on_every_row(repeated, make, sparse, monkeypatch):
    X, S = repeated
    Xf = sp.csr_matrix(X) if sparse else X
    sw = np.linspace(0.5, 1.5, X.shape[0])
    merged = make().fit(Xf, S, sample_weight=sw)
    monkeypatch.setattr(_batch, "merge_duplicate_rows", lambda *a: None)
    every = make().fit(Xf, S, sample_weight=sw)
    np.testing.assert_allclose(merged.coef_, every.coef_, atol=1e-3)
    np.testing.assert_allclose(merged.intercept_, every.intercept_, atol=1e-3)
    np.testing.assert_array_equal(merged.predict(Xf), every.predict(Xf))
    assert merged.loss_ == pytest.approx(every.loss_, rel=1e-6)
    if hasattr(every, "confidence_"):                     # one row of confidences per training row
        assert merged.confidence_.shape == every.confidence_.shape == S.shape
        np.testing.assert_allclose(merged.confidence_, every.confidence_, atol=1e-3)
