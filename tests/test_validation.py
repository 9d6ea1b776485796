"""Bad input gets a clear error naming the argument, and the estimator is left as it was."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from weaklabel import CandidateSets
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

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
