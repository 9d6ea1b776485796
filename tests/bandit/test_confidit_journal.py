"""Full-matrix Confidit's short calls journal their matrix updates (no per-call copy).

A ``partial_fit`` call of at most ``2 sqrt(n_classes * n_features)`` rows keeps each
rank-one update of ``A_c^-1`` as ``(v, g, c)`` and writes them at the end of the pass,
once the weights and the entries are known finite; its rollback therefore copies the
weights but not the matrices.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.bandit import Confidit
from weaklabel.bandit._kernels import _confidit_pass
from weaklabel.bandit._learners import _history
from weaklabel.linear import kernel_rows


def _stream(seed, n=120, d=6, K=3):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, K, n)
    X = rng.randn(n, d) + 1.5 * np.eye(K, d)[y]
    X[rng.rand(n, d) < 0.3] = 0.0
    return X, y


def _chunked(X, y, chunk, journal, monkeypatch, sample_weight=None):
    if not journal:
        monkeypatch.setattr(Confidit, "_journals", lambda self, n: False)
    est = Confidit(diagonal=False, row_scale=1.0)
    for lo in range(0, X.shape[0], chunk):
        sw = None if sample_weight is None else sample_weight[lo:lo + chunk]
        est.partial_fit(X[lo:lo + chunk], y[lo:lo + chunk], classes=np.arange(3), sample_weight=sw)
    monkeypatch.undo()
    return est


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), chunk=st.integers(1, 8), sparse=st.booleans(), weighted=st.booleans())
def test_journaled_calls_learn_what_calls_writing_at_once_learn(seed, chunk, sparse, weighted):
    X, y = _stream(seed)
    Xf = sp.csr_matrix(X) if sparse else X
    sw = np.random.RandomState(seed).choice([0.0, 0.5, 1.0, 3.0], X.shape[0]) if weighted else None
    with pytest.MonkeyPatch.context() as mp:
        a = _chunked(Xf, y, chunk, False, mp, sw)
    with pytest.MonkeyPatch.context() as mp:
        b = _chunked(Xf, y, chunk, True, mp, sw)
    assert b._journals(chunk)                 # the short calls did journal (2 sqrt(3 * 6) = 8.5 rows)
    np.testing.assert_array_equal(a.proposals_, b.proposals_)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b._A_inv, a._A_inv, rtol=1e-9, atol=1e-12)


def test_a_short_call_copies_the_weights_not_the_matrices():
    X, y = _stream(0)
    est = Confidit(diagonal=False).fit(X, y)
    limit = 2 * np.sqrt(3 * X.shape[1])
    assert "_A_inv" not in est._kept_in_place(X[: int(limit)])
    assert "_W" in est._kept_in_place(X[: int(limit)])
    assert "_A_inv" in est._kept_in_place(X)                # a long call: a copy, as before
    assert "_A_inv" in est._kept_in_place([[1.0] * 6] * 100)
    diag = Confidit(diagonal=True).fit(X, y)
    assert "_A_diag" in diag._kept_in_place(X[:3])


def test_a_failing_journaled_pass_writes_nothing_into_the_matrices():
    """Weights that are not finite at the end of the pass: the journal is not written, the
    call raises and the model is exactly as it was (its matrices never copied)."""
    X, y = _stream(1)
    est = Confidit(diagonal=False, random_state=0).fit(X, y)
    est._W[0, 0] = np.inf                       # a state no call leaves, to make the pass fail
    before = {k: pickle.dumps(v) for k, v in est.__dict__.items()}
    A_inv = est._A_inv
    with pytest.raises(FloatingPointError):
        est.partial_fit(X[:5], y[:5])
    assert est._A_inv is A_inv
    assert {k: pickle.dumps(v) for k, v in est.__dict__.items()} == before


def test_the_kernel_reports_an_unwritten_journal():
    X, y = _stream(2, n=8, d=4)
    K, d = 3, 4
    W = np.zeros((d, K))
    W[1, 2] = np.nan
    A_inv = np.repeat(np.eye(d)[None], K, axis=0)
    journal = (np.empty((8, d)), np.empty(8), np.empty(8, np.int64))
    est = Confidit(diagonal=False).fit(X, y)
    enc, _ = est._encode_target(X, _oracle(y), None, False, False)
    hist = {"predictions": np.empty(8, np.intp), "proposals": np.empty(8, np.intp),
            "correct": np.empty(8, bool), "propensities": np.empty(8)}
    _, _, written = _confidit_pass(W, (np.zeros((0, 0)), A_inv, journal), (False, 1.0, 1.0), tuple(kernel_rows(X)),
                                   np.arange(8), enc.feedback(), _history(hist), np.empty(0))
    assert not written
    np.testing.assert_array_equal(A_inv, np.repeat(np.eye(d)[None], K, axis=0))


def _oracle(y):
    from weaklabel.bandit._learners import _OracleTarget

    return _OracleTarget(y)
