"""Read-only inputs (a memory map, scikit-learn's parallel search, a CandidateSets mask) run
the kernels compiled for writable ones: numba types a read-only array apart from a writable
one, so without ``weaklabel._validation.read_only`` at the kernels' boundary each would
compile its own (several seconds an epoch kernel), and a model's fit would depend on them
only through that time.
"""

import numpy as np
import scipy.sparse as sp

from weaklabel import CandidateSets
from weaklabel._validation import checked_squared_norm, read_only
from weaklabel.bandit import Banditron
from weaklabel.bandit._kernels import banditron_pass
from weaklabel.partial import CLPL, PRODEN, AvgPegasos
from weaklabel.partial._kernels import _candidate_epoch, _cc_from_exp, _clpl_loss_grad
from weaklabel.partial._proden import candidate_likelihood_loss


def _frozen(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _problem(seed=0, n=60, d=6, K=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, K, n)
    mask = np.zeros((n, K), dtype=bool)
    mask[np.arange(n), y] = True
    mask[rng.random((n, K)) < 0.3] = True
    return X, y, mask


def _counts(*kernels):
    return [len(k.signatures) for k in kernels]


def test_read_only_is_a_view_that_keeps_the_values():
    a = np.arange(6.0).reshape(2, 3)
    v = read_only(a)
    assert not v.flags.writeable and a.flags.writeable and np.shares_memory(v, a)
    assert read_only(v) is v                       # already read-only: itself
    np.testing.assert_array_equal(v, a)


def test_online_learners_compile_nothing_new_for_read_only_rows_and_sets():
    X, y, mask = _problem()
    S = CandidateSets.from_mask(mask)
    Xs = sp.csr_matrix(X)
    classes = np.arange(mask.shape[1])
    # writable arrays first, in every form a pass takes (dense float64 and float32, CSR; a
    # fresh fit and a stream's later call)
    for rows in (X, X.astype(np.float32), Xs):
        AvgPegasos(random_state=0).fit(rows, mask.copy())
        AvgPegasos(random_state=0).partial_fit(rows[:30], S[:30], classes=classes).partial_fit(rows[30:], S[30:])
        Banditron(random_state=0).fit(rows, y).partial_fit(rows[:20], y[:20])
        checked_squared_norm(rows)
    from weaklabel._validation import _row_norms_in_range

    before = _counts(_candidate_epoch, banditron_pass, _row_norms_in_range)
    # the same calls on read-only rows and sets
    Xr, Xsr = _frozen(X), sp.csr_matrix((_frozen(Xs.data), _frozen(Xs.indices), _frozen(Xs.indptr)), shape=Xs.shape)
    for rows in (Xr, _frozen(X.astype(np.float32)), Xsr):
        a = AvgPegasos(random_state=0).fit(rows, _frozen(mask))
        b = AvgPegasos(random_state=0).partial_fit(rows[:30], S[:30], classes=classes).partial_fit(rows[30:], S[30:])
        Banditron(random_state=0).fit(rows, _frozen(y)).partial_fit(rows[:20], _frozen(y[:20]))
        checked_squared_norm(rows)
        assert a.coef_.shape == b.coef_.shape
    assert _counts(_candidate_epoch, banditron_pass, _row_norms_in_range) == before
    # and the read-only rows learn what the writable ones do
    np.testing.assert_array_equal(AvgPegasos(random_state=0).fit(Xr, _frozen(mask)).coef_,
                                  AvgPegasos(random_state=0).fit(X, mask.copy()).coef_)


def test_batch_losses_compile_nothing_new_for_read_only_sets():
    X, _, mask = _problem(1)
    Z = np.random.default_rng(2).standard_normal(mask.shape)
    PRODEN(max_rounds=2).fit(X, mask.copy())
    CLPL().fit(X, mask.copy())
    loss = candidate_likelihood_loss(Z, mask.copy())
    before = _counts(_cc_from_exp, _clpl_loss_grad)
    assert min(before) >= 1
    assert candidate_likelihood_loss(Z, CandidateSets.from_mask(mask).mask)[0] == loss[0]
    p = PRODEN(max_rounds=2).fit(_frozen(X), CandidateSets.from_mask(mask))       # its mask is read-only
    c = CLPL().fit(_frozen(X), _frozen(mask))
    assert _counts(_cc_from_exp, _clpl_loss_grad) == before
    np.testing.assert_array_equal(p.coef_, PRODEN(max_rounds=2).fit(X, mask.copy()).coef_)
    np.testing.assert_array_equal(c.coef_, CLPL().fit(X, mask.copy()).coef_)
