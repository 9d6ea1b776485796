"""MMS against the plain-numpy reference, and its behaviour as a learner."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.svm import LinearSVC

import weaklabel
from weaklabel import BagCandidates
from weaklabel.bags import MMS
from weaklabel.simulate import bags as simulate_bags


def tiny_problem(seed, n_bags=6, M=(1, 3), C=3, L=(1, 4), d=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(M[0], M[1] + 1, size=n_bags)
    bag_of = np.repeat(np.arange(n_bags), sizes)
    rng.shuffle(bag_of)
    X = rng.normal(size=(bag_of.size, d))
    labs = []
    for i in range(n_bags):
        m = int(sizes[i])
        nl = int(rng.integers(L[0], L[1] + 1))
        labs.append(rng.integers(0, C, size=(nl, m)))
    labs[0][0, 0] = C - 1          # every class occurs
    labs[-1][0, 0] = 0
    return X, BagCandidates(bag_of, labs, classes=np.arange(C))


def test_mms_missing_class_in_a_bag_search_and_alpha():
    X, B = tiny_problem(0)
    est = MMS(alpha=0.5, n_rounds=1, max_iter=2, random_state=0, row_scale=1.0).fit(X, B)
    assert est.alpha_ == 0.5
    # the projection keeps ||w|| <= sqrt(2 B / alpha)
    W = np.vstack([est.coef_.T, est.intercept_])
    assert np.linalg.norm(W) <= np.sqrt(2 * B.bag_sizes.max() / 0.5) + 1e-9


def digits_bags(n_labelings, seed=0, bag_size=4):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.default_rng(seed)
    perm = rng.permutation(y.size)
    tr, te = perm[:1200], perm[1200:]
    B = simulate_bags(y[tr], bag_size=bag_size, n_labelings=n_labelings, p_correlated=0.25, p_ambiguous=0.25,
                      random_state=seed)
    return X[tr], y[tr], B, X[te], y[te]


def test_objective_decreases_over_cccp_rounds():
    Xtr, ytr, B, Xte, yte = digits_bags(8)
    est = MMS(n_rounds=5, max_iter=30, batch_size=1, tol=0.0, random_state=0, row_scale=1.0).fit(Xtr, B)
    obj = est.objective_
    assert obj.size >= 3
    assert obj[0] == pytest.approx(B.bag_sizes.mean())       # at w = 0 every loss is the bag size
    assert obj[1] < 0.6 * obj[0]
    assert obj[2] < 0.5 * obj[1]          # round 2 picks one candidate per bag: a big drop
    # later rounds move little (Pegasos solves each round to about 10 %)
    assert np.all(np.diff(obj[2:]) <= 0.1 * obj[2]), obj
    # the kept weights are the best round's
    assert est.objective(Xtr, B) == pytest.approx(obj.min(), rel=1e-9)
    # the first round averages over all candidates; later rounds pick one: better accuracy
    one = MMS(n_rounds=1, max_iter=30, random_state=0).fit(Xtr, B)
    assert est.score(Xte, yte) > one.score(Xte, yte) + 0.02, (est.score(Xte, yte), one.score(Xte, yte))
    assert est.n_tied_[0] == pytest.approx(B.n_labelings.mean())
    assert est.n_tied_[-1] < 1.5


def test_one_labeling_per_bag_is_a_crammer_singer_svm():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.default_rng(0)
    perm = rng.permutation(y.size)
    tr, te = perm[:1200], perm[1200:]
    mms = MMS(n_rounds=1, max_iter=40, random_state=0).fit(X[tr], y[tr])   # bags of one, one labeling
    C = 1.0 / (tr.size * mms.alpha_ * 1.0)                                 # same objective scaling
    cs = LinearSVC(multi_class="crammer_singer", C=C, max_iter=20000).fit(X[tr], y[tr])
    acc_mms, acc_cs = mms.score(X[te], y[te]), cs.score(X[te], y[te])
    assert acc_mms > 0.9
    assert abs(acc_mms - acc_cs) < 0.03, (acc_mms, acc_cs)
    # with one labeling per bag the CCCP has nothing to choose: one round suffices
    assert MMS(n_rounds=5, max_iter=5, random_state=0).fit(X[tr], y[tr]).n_rounds_ == 1


def test_mms_beats_candidate_baseline_on_ambiguous_bags():
    from weaklabel.bags import CandidateLabelSVM

    Xtr, ytr, B, Xte, yte = digits_bags(10, seed=1)
    mms = MMS(max_iter=20, random_state=0).fit(Xtr, B)
    cl = CandidateLabelSVM(C=1.0).fit(Xtr, B)
    assert mms.score(Xte, yte) > 0.85
    assert mms.score(Xte, yte) > cl.score(Xte, yte) + 0.03


def test_fit_is_deterministic_and_round_one_is_a_prefix():
    Xtr, ytr, B, Xte, yte = digits_bags(5)
    a = MMS(n_rounds=3, max_iter=3, random_state=7).fit(Xtr, B)
    b = MMS(n_rounds=3, max_iter=3, random_state=7).fit(Xtr, B)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    one = MMS(n_rounds=1, max_iter=3, random_state=7).fit(Xtr, B)
    assert one.objective_[1] == a.objective_[1]


def test_objective_method_matches_fit_record(tmp_path):
    Xtr, ytr, B, Xte, yte = digits_bags(4)
    est = MMS(n_rounds=2, max_iter=3, random_state=0).fit(Xtr, B)
    assert est.objective(Xtr, B) == pytest.approx(est.objective_[-1], rel=1e-12)
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.predict(Xte), est.predict(Xte))
    np.testing.assert_array_equal(back.objective_, est.objective_)


def test_string_labels_and_bad_input():
    X = np.array([[1., 0.], [0., 1.], [1., .1], [.1, 1.]])
    B = BagCandidates([0, 0, 1, 1], [[["cat", "dog"], ["dog", "cat"]], [["cat", "dog"]]])
    est = MMS(random_state=0).fit(X, B)
    assert est.predict(X).tolist() == ["cat", "dog", "cat", "dog"]
    with pytest.raises(ValueError, match="bags describes 4 rows but X has 3"):
        MMS().fit(X[:3], B)
    with pytest.raises(ValueError, match="n_rounds"):
        MMS(n_rounds=0).fit(X, B)
    with pytest.raises(ValueError, match="alpha"):
        MMS(alpha=-1.0).fit(X, B)
    with pytest.raises(ValueError, match="batch_size"):
        MMS(batch_size=0).fit(X, B)
    with pytest.raises(ValueError, match="tol"):
        MMS(tol=-1).fit(X, B)
    # a failed fit leaves a fitted model untouched
    W = est.coef_.copy()
    with pytest.raises(ValueError):
        est.fit(X[:3], B)
    np.testing.assert_array_equal(est.coef_, W)


def test_cccp_rounds_decrease_the_objective():
    # issue 17: with a fixed 10 Pegasos passes a round, CCCP's objective rose (4.0 -> 6.43
    # here, 4.997 -> 6.833 on usps); Pegasos now runs on until the round's objective is
    # below its start (at most max_passes), which CCCP's descent argument needs
    X, y, B, Xt, yt = digits_bags(4, seed=0)
    fixed = MMS(max_iter=10, max_passes=10, random_state=0).fit(X, B)
    assert np.any(np.diff(fixed.objective_) > 0) and np.all(fixed.n_passes_ == 10)
    est = MMS(max_iter=10, random_state=0).fit(X, B)
    assert np.all(np.diff(est.objective_) < 0)
    assert est.n_passes_.max() > 10 and np.all(est.n_passes_ <= 50) and np.all(est.n_passes_ % 10 == 0)
    assert est.best_round_ == est.n_rounds_
    assert est.n_iter_ == est.n_passes_.sum() * B.n_bags      # batch_size 1: one step per bag a pass
    with pytest.raises(ValueError, match="max_passes must be at least max_iter"):
        MMS(max_iter=10, max_passes=5).fit(X, B)


def test_cl_svm_sample_weight_scales_the_instances_cost():
    """CL-SVM passes instance weights to LIBLINEAR: integer weights equal repeated rows (the
    dual problem is the same), a zero weight equals dropping the row, bad weights are refused."""
    import numpy as np
    import pytest

    from weaklabel import BagCandidates
    from weaklabel.bags import CandidateLabelSVM

    rng = np.random.RandomState(0)
    X = rng.randn(60, 3) + np.repeat(np.eye(3) * 3, 20, axis=0)
    y = np.repeat([0, 1, 2], 20)
    B = BagCandidates.from_labels(y, np.arange(60) // 2)
    w = rng.randint(0, 3, 60).astype(float)
    w[::2] = np.maximum(w[::2], 1)                                  # every bag keeps a row
    kw = dict(C=0.5, max_iter=20000, tol=1e-10, random_state=0, row_scale=1.0)
    weighted = CandidateLabelSVM(**kw).fit(X, B, sample_weight=w)
    rows = np.repeat(np.arange(60), w.astype(int))
    repeated = CandidateLabelSVM(**kw).fit(X[rows], y[rows])
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-4)
    before = weighted.coef_.copy()
    with pytest.raises(ValueError, match="[Nn]egative"):
        weighted.fit(X, B, sample_weight=-np.ones(60))
    np.testing.assert_array_equal(weighted.coef_, before)


def test_a_fit_that_overflows_raises_and_leaves_the_model_as_it_was(tmp_path):
    """sample_weight of 1e200 on every row once made fit return with ``_W = None``: predict
    raised TypeError, a refit destroyed a good model and save wrote a file load rejected."""
    X, B = tiny_problem(0)
    est = MMS(random_state=0).fit(X, B)
    pred, W = est.predict(X), est.coef_.copy()
    with pytest.raises(ValueError, match="no finite objective|non-finite"):
        est.fit(X, B, sample_weight=np.full(X.shape[0], 1e200))
    np.testing.assert_array_equal(est.coef_, W)
    np.testing.assert_array_equal(est.predict(X), pred)
    est.save(tmp_path / "m.npz")
    np.testing.assert_array_equal(weaklabel.load(tmp_path / "m.npz").predict(X), pred)
    with pytest.raises(ValueError, match="no finite objective|non-finite"):
        MMS(random_state=0).fit(X, B, sample_weight=np.full(X.shape[0], 1e200))


def test_transactional_refuses_non_finite_state():
    """The shared guard: any fit or partial_fit that leaves non-finite numbers in the state a
    model file holds raises, and the estimator is restored."""
    from weaklabel._validation import transactional

    class Toy:
        def __init__(self):
            self.w_ = np.zeros(2)

        def _state_arrays(self):
            return {"w_": self.w_}

        @transactional
        def fit(self, value):
            self.w_ = np.array([1.0, value])
            return self

    t = Toy().fit(2.0)
    with pytest.raises(ValueError, match="Toy.fit produced non-finite values in w_"):
        t.fit(np.inf)
    np.testing.assert_array_equal(t.w_, [1.0, 2.0])
