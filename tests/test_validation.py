"""Bad input gets a clear error naming the argument, and the estimator is left as it was.
"""

import copy
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.datasets import load_digits

import weaklabel
from weaklabel import CandidateSets
from weaklabel._validation import checked_squared_norm, read_only
from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.bandit import Banditron, Confidit, SketchedConfidit
from weaklabel.bandit._kernels import RULE_BANDITRON, RULE_PASSES
from weaklabel.partial import CLPL, PRODEN, AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from weaklabel.partial._kernels import _candidate_epoch, _cc_from_exp, _clpl_loss_grad
from weaklabel.partial._proden import candidate_likelihood_loss

ALL = [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, Perceptron, Pegasos]
rng = np.random.default_rng(0)
X = rng.standard_normal((20, 4))
y = np.arange(20) % 3
S = np.eye(3, dtype=bool)[y] | (rng.random((20, 3)) < 0.3)


def _state(est):
    d = copy.deepcopy(est.__dict__)
    d.pop("_rng", None)
    return d


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert_array_equal(a[k], b[k])
        else:
            assert a[k] == b[k], k


BAD_X = [
    (np.where(np.arange(80).reshape(20, 4) == 5, np.nan, X), ValueError, r"X contains NaN \(first at row 1\)"),
    (np.where(np.arange(80).reshape(20, 4) == 9, np.inf, X), ValueError, r"X contains infinity \(first at row 2\)"),
    (np.empty((0, 4)), ValueError, "0 sample"),
    (X.astype(object), TypeError, "X must hold numbers.*dtype object"),
    (X * 1e200, ValueError, "magnitude"),
]


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("bad,exc,match", BAD_X)
def test_bad_X_rejected_before_any_change(cls, bad, exc, match):
    est = cls().partial_fit(X, y, classes=[0, 1, 2])
    before = _state(est)
    with pytest.raises(exc, match=match):
        est.partial_fit(bad, y[: len(bad)])
    _same(before, _state(est))
    with pytest.raises(exc, match=match):
        cls().fit(bad, y[: len(bad)])


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPegasos])
def test_bad_candidates_named(cls):
    est = cls().partial_fit(X, S, classes=[0, 1, 2])
    before = _state(est)
    empty = S.copy()
    empty[[3, 7]] = False
    with pytest.raises(ValueError, match=r"empty candidate sets at rows \[3, 7\]"):
        est.partial_fit(X, empty)
    with pytest.raises(ValueError, match=r"label\(s\) \[9\] that are not in classes \[0, 1, 2\]"):
        est.partial_fit(X, np.where(y == 2, 9, y))
    with pytest.raises(ValueError, match="mask with 4 columns, but there are 3 classes"):
        est.partial_fit(X, np.ones((20, 4), bool))
    with pytest.raises(ValueError, match="X has 5 features, but .* is expecting 4"):
        est.partial_fit(np.ones((20, 5)), y)
    with pytest.raises(ValueError, match="y has 19 rows but X has 20"):
        est.partial_fit(X, S[:19])
    _same(before, _state(est))


def test_classes_required_at_first_partial_fit():
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        AvgPerceptron().partial_fit(X, y)
    est = AvgPerceptron()
    with pytest.raises(ValueError, match="requires y to be passed"):
        est.fit(X, None)
    assert not hasattr(est, "classes_")
    # a CandidateSets carries its classes
    AvgPerceptron().partial_fit(X, CandidateSets(S))


def test_unseen_class_after_first_call_is_named():
    est = MaxPerceptron().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"\[7\]"):
        est.partial_fit(X[:2], [0, 7])
    with pytest.raises(ValueError, match="differs from the classes of the first partial_fit"):
        est.partial_fit(X, y, classes=[0, 1, 2, 3])


@pytest.mark.parametrize("cls,param,value,exc", [
    (AvgPerceptron, "eta", 0.0, ValueError), (MaxPerceptron, "eta", -1, ValueError),
    (Perceptron, "eta", "big", TypeError), (AvgPegasos, "alpha", 0, ValueError),
    (MaxPegasos, "alpha", float("nan"), ValueError), (Pegasos, "alpha", -1e-3, ValueError),
    (AvgPerceptron, "max_iter", 0, ValueError), (AvgPegasos, "max_iter", 1.5, TypeError),
    (MaxPerceptron, "shuffle", "yes", TypeError),
])
def test_bad_parameters_named(cls, param, value, exc):
    est = cls(**{param: value})
    with pytest.raises(exc, match=param):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


@pytest.mark.parametrize("cls", [Perceptron, Pegasos])
def test_exact_label_baselines_reject_sets(cls):
    with pytest.raises(ValueError, match="learns from exact labels.*rows"):
        cls().fit(X, S)


@pytest.mark.parametrize("cls", ALL)
def test_all_y_forms_agree(cls):
    Sy = np.eye(3, dtype=bool)[y]
    forms = [y, Sy, Sy.astype(int), [[v] for v in y], CandidateSets.from_labels(y)]
    coefs = [cls(max_iter=2, random_state=0).fit(X, f).coef_ for f in forms]
    for c in coefs[1:]:
        assert_array_equal(c, coefs[0])


def test_string_labels_and_sparse():
    labels = np.array(["cat", "dog", "eel"])[y]
    est = AvgPegasos(alpha=0.1, max_iter=3).fit(sp.csr_matrix(X), labels)
    assert set(est.predict(X)) <= {"cat", "dog", "eel"}
    assert est.coef_.shape == (3, 4)
    assert est.decision_function(X).shape == (20, 3)


def test_binary_decision_function_is_1d():
    est = MaxPerceptron().fit(X, y % 2)
    d = est.decision_function(X)
    assert d.shape == (20,)
    assert_array_equal(est.predict(X), est.classes_[(d > 0).astype(int)])


def test_fit_intercept_appends_constant_feature():
    Xs = X + 5.0
    est = AvgPerceptron(fit_intercept=True, max_iter=3, shuffle=False).fit(Xs, y)
    assert est.coef_.shape == (3, 4)
    assert est.intercept_.shape == (3,)
    assert np.any(est.intercept_ != 0)
    s = Xs @ est.coef_.T + est.intercept_
    assert_array_equal(est.predict(Xs), est.classes_[np.argmax(s, axis=1)])


def test_model_selection_on_candidate_sets():
    """GridSearchCV / cross_val_score score candidate sets (no NaN scores)."""
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from weaklabel.metrics import ambiguous_zero_one_loss

    rng = np.random.default_rng(1)
    centers = rng.standard_normal((4, 6)) * 3
    yy = rng.integers(0, 4, 120)
    XX = centers[yy] + rng.standard_normal((120, 6))
    SS = np.eye(4, dtype=bool)[yy] | (rng.random((120, 4)) < 0.3)
    pipe = make_pipeline(StandardScaler(), AvgPegasos(max_iter=5, shuffle=True, random_state=0))
    g = GridSearchCV(pipe, {"avgpegasos__alpha": [1e-3, 1e-1]}, cv=KFold(3), error_score="raise").fit(XX, SS)
    assert np.isfinite(g.cv_results_["mean_test_score"]).all()
    scores = cross_val_score(MaxPerceptron(max_iter=3), XX, CandidateSets(SS), cv=KFold(3))
    assert np.isfinite(scores).all() and scores.mean() > 0.6
    est = AvgPerceptron(max_iter=3).fit(XX, SS)
    assert est.score(XX, SS) == pytest.approx(1 - ambiguous_zero_one_loss(SS, est.predict(XX)))
    assert est.score(XX, yy) == pytest.approx(np.mean(est.predict(XX) == yy))


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPegasos])
def test_refit_with_bad_input_keeps_the_fitted_model(cls):
    est = cls(max_iter=2).fit(X, S)
    before = _state(est)
    bad_S = S.copy()
    bad_S[0] = False
    for args in [(X[:10], S), (X, bad_S), (np.full_like(X, np.nan), S)]:
        with pytest.raises(ValueError):
            est.fit(*args)
        _same(before, _state(est))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("form", ["dense", "csr"])
def test_the_one_pass_input_check_names_the_row_and_accepts_what_cannot_overflow(dtype, form):
    from weaklabel._validation import check_X_finite

    def check(Z):
        Z = np.asarray(Z, dtype=dtype)
        check_X_finite(sp.csr_matrix(Z) if form == "csr" else Z)

    Z = np.ones((6, 5))
    check(Z)
    for value, what in ((np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")):
        bad = Z.copy()
        bad[4, 2] = value
        with pytest.raises(ValueError, match=f"contains {what} \\(first at row 4\\)"):
            check(bad)
    big = Z.copy()
    big[3, 1] = 1e150
    if dtype is np.float64:                   # float32 cannot hold it (it is already inf)
        with pytest.raises(ValueError, match="magnitude up to 1e\\+150"):
            check(big)
    many = np.full((2, 400), 9e99 if dtype is np.float64 else 3e38)   # norms beyond 1e200, values in range
    check(many)
    zero_row = Z.copy()
    zero_row[2] = 0.0
    check(zero_row)                           # an all-zero row is fine
    if dtype is np.float64:
        lone = Z.copy()
        lone[1, 3] = 1e-160                   # a tiny value beside normal ones squares to nothing harmful
        check(lone)
        tiny = zero_row.copy()
        tiny[2, 1] = 1e-160                   # a row of only tiny values: its squared norm underflows
        with pytest.raises(ValueError, match="down to 1e-160 \\(row 2\\)"):
            check(tiny)


@settings(max_examples=60, deadline=None)
@given(classes=st.lists(st.integers(0, 100), min_size=1, max_size=12, unique=True),
       picks=st.lists(st.integers(0, 100), min_size=1, max_size=30), unknown=st.booleans(),
       dtype=st.sampled_from([np.int64, np.int32, np.uint8]))
def test_integer_labels_map_to_numpys_searchsorted_positions_or_are_named(classes, picks, unknown, dtype):
    """The compiled path of integer labels (a stream's every call) against numpy's."""
    from weaklabel._validation import _labels_to_index

    classes = np.array(sorted(classes), dtype=dtype)
    labels = classes[np.array(picks) % classes.size]
    if not unknown:
        np.testing.assert_array_equal(_labels_to_index(labels, classes, "y"), np.searchsorted(classes, labels))
        return
    missing = int(np.setdiff1d(np.arange(102), classes)[picks[0] % 2])
    labels = np.insert(labels, picks[0] % (labels.size + 1), missing).astype(dtype)
    with pytest.raises(ValueError, match=rf"y holds label\(s\) \[{missing}\] that are not in classes"):
        _labels_to_index(labels, classes, "y")


def test_same_labels_compares_integer_classes_by_value():
    from weaklabel._validation import same_labels

    a = np.arange(5)
    assert same_labels(a.copy(), a) and not same_labels(np.array([0, 1, 2, 3, 5]), a)
    assert not same_labels(np.arange(5, dtype=np.int32), np.arange(4, dtype=np.int32))
    assert same_labels(np.array(["a", "b"]), np.array(["a", "b"])) and not same_labels(np.array([0.0, np.nan]),
                                                                                       np.array([0.0, np.nan]))


# ---- row_scale: the warning for rows far from unit norm, and model files keep the scale. ----

@pytest.mark.parametrize("make", [lambda **k: Pegasos(max_iter=1, **k), lambda **k: Confidit(max_iter=1, **k),
                                  lambda **k: SketchedConfidit(max_iter=1, **k), lambda **k: MMS(max_iter=1, **k),
                                  lambda **k: CandidateLabelSVM(**k)])
def test_a_fixed_row_scale_warns_when_rows_are_far_from_unit_norm(make):
    X, y = load_digits(return_X_y=True)
    X, y = X[:200], y[:200]
    with pytest.warns(weaklabel.DataScaleWarning, match="root mean squared norm of 6"):
        make(row_scale=1.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", weaklabel.DataScaleWarning)
        make().fit(X, y)                                   # "auto": no warning
        make(row_scale=1.0).fit(X / 60, y)                 # about unit norm: none
        est = make(row_scale=60.0).fit(X, y)
    assert est.row_scale_ == 60.0


@pytest.mark.parametrize("cls", [AvgPegasos, Confidit, MMS, CandidateLabelSVM])
def test_model_files_keep_the_row_scale(cls, tmp_path):
    X, y = load_digits(return_X_y=True)
    est = cls(random_state=0).fit(X[:300], y[:300])
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    assert back.row_scale_ == est.row_scale_
    np.testing.assert_array_equal(back.predict(X[300:]), est.predict(X[300:]))


def test_bad_row_scale_is_refused_and_leaves_the_model_as_it_was():
    X, y = load_digits(return_X_y=True)
    est = Pegasos(max_iter=1).fit(X[:100], y[:100])
    coef = est.coef_.copy()
    for bad in (0.0, -1.0, "big", np.inf):
        with pytest.raises((ValueError, TypeError), match="row_scale"):
            est.set_params(row_scale=bad).fit(X[:100], y[:100])
        np.testing.assert_array_equal(est.coef_, coef)


# ---- Read-only inputs (a memory map, scikit-learn's parallel search, a CandidateSets mask) run
# the kernels compiled for writable ones: numba types a read-only array apart from a writable
# one, so without ``weaklabel._validation.read_only`` at the kernels' boundary each would
# compile its own (several seconds an epoch kernel), and a model's fit would depend on them
# only through that time. ----


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

    before = _counts(_candidate_epoch, RULE_PASSES[RULE_BANDITRON], _row_norms_in_range)
    # the same calls on read-only rows and sets
    Xr, Xsr = _frozen(X), sp.csr_matrix((_frozen(Xs.data), _frozen(Xs.indices), _frozen(Xs.indptr)), shape=Xs.shape)
    for rows in (Xr, _frozen(X.astype(np.float32)), Xsr):
        a = AvgPegasos(random_state=0).fit(rows, _frozen(mask))
        b = AvgPegasos(random_state=0).partial_fit(rows[:30], S[:30], classes=classes).partial_fit(rows[30:], S[30:])
        Banditron(random_state=0).fit(rows, _frozen(y)).partial_fit(rows[:20], _frozen(y[:20]))
        checked_squared_norm(rows)
        assert a.coef_.shape == b.coef_.shape
    assert _counts(_candidate_epoch, RULE_PASSES[RULE_BANDITRON], _row_norms_in_range) == before
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
