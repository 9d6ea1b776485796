"""Early stopping and verbose output of the online learners (one engine for all twelve)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from weaklabel import BanditFeedback
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from weaklabel.simulate import make_candidate_sets

ONLINE = [Perceptron, Pegasos, AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, CSPA, SPA, BPA, Banditron,
          Confidit, SketchedConfidit]


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] / 16, y[:600]


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_early_stopping_holds_rows_out_and_stops_when_the_held_out_score_stalls(cls, digits):
    X, y = digits
    est = cls(early_stopping=True, validation_fraction=0.2, n_iter_no_change=2, tol=0.0, max_iter=200,
              random_state=0).fit(X, y)
    assert est.n_iter_ < 200
    assert est.validation_scores_.shape == (est.n_iter_,)
    scores = est.validation_scores_
    best = np.maximum.accumulate(scores)
    # it stopped at the first pass that ended n_iter_no_change passes without a gain over the best so far
    assert (scores[-2:] <= best[-3]).all()
    seen = np.unique(est.prediction_rows_)
    assert seen.size == 480                                          # the 120 held-out rows were never learnt
    held = np.setdiff1d(np.arange(600), seen)
    assert est.validation_scores_[-1] == pytest.approx(np.mean(est.predict(X[held]) == y[held]))


def test_candidate_sets_score_the_held_out_rows_by_their_sets(digits):
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = AvgPegasos(early_stopping=True, max_iter=50, random_state=0).fit(X, S)
    held = np.setdiff1d(np.arange(600), est.prediction_rows_)
    assert est.validation_scores_[-1] == pytest.approx(est.score(X[held], S[held]))


def test_without_early_stopping_nothing_is_held_out_and_verbose_prints_each_pass(digits, capsys):
    X, y = digits
    a = AvgPegasos(max_iter=3, random_state=0).fit(X, y)
    assert np.unique(a.prediction_rows_).size == 600 and not hasattr(a, "validation_scores_")
    b = CSPA(max_iter=3, random_state=0, verbose=1, early_stopping=True, validation_fraction=0.5).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[0].startswith("CSPA pass 1:") and "held-out score" in out[0]
    assert b.n_iter_ == 3


def test_bad_settings_and_logs_are_refused_and_leave_the_model_as_it_was(digits):
    X, y = digits
    est = CSPA(max_iter=2, random_state=0).fit(X, y)
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="validation_fraction"):
        est.set_params(early_stopping=True, validation_fraction=1.5).fit(X, y)
    with pytest.raises(ValueError, match="at least 1 held out"):
        est.set_params(validation_fraction=0.001).fit(X[:50], y[:50])
    with pytest.raises(ValueError, match="a log gives only the answers"):
        est.set_params(validation_fraction=0.1).fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("cls", [Perceptron, AvgPegasos, CSPA, Banditron, Confidit], ids=lambda c: c.__name__)
def test_class_weight_multiplies_each_rows_step(cls, digits):
    """class_weight equals sample_weight set to each row's class weight ("balanced" to
    n / (K n_k)), and a candidate set takes the mean weight of its candidates."""
    X, y = digits
    w = {k: 1.0 + k for k in range(10)}
    a = cls(class_weight=w, max_iter=2, random_state=0).fit(X, y)
    b = cls(max_iter=2, random_state=0).fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    counts = np.bincount(y, minlength=10)
    c = cls(class_weight="balanced", max_iter=2, random_state=0).fit(X, y)
    d = cls(max_iter=2, random_state=0).fit(X, y, sample_weight=600 / (10 * counts[y]))
    np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-12, atol=1e-12)


def test_class_weight_of_a_candidate_set_is_the_mean_of_its_candidates(digits):
    X, y = digits
    S = make_candidate_sets(y, 2, random_state=0)
    w = {k: 1.0 + k for k in range(10)}
    a = AvgPegasos(class_weight=w, max_iter=2, random_state=0).fit(X, S)
    sw = (S.mask * np.arange(1.0, 11.0)).sum(axis=1) / S.mask.sum(axis=1)     # the mean of 1 + k over the set
    b = AvgPegasos(max_iter=2, random_state=0).fit(X, S, sample_weight=sw)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12)


def test_class_weight_is_refused_for_logs_and_unknown_classes(digits):
    X, y = digits
    est = CSPA(max_iter=1, random_state=0).fit(X, y)
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="not among the classes"):
        est.set_params(class_weight={42: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight instead"):
        est.set_params(class_weight="balanced").fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_probability_gives_calibrated_predict_proba(cls, digits):
    X, y = digits
    assert not hasattr(cls(), "predict_proba")                      # only with probability=True
    est = cls(probability=True, random_state=0).fit(X[:450], y[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    acc = np.mean(est.predict(X[450:]) == y[450:])
    assert abs(P.max(axis=1).mean() - acc) < 0.1                    # confidence about the accuracy
    np.testing.assert_allclose(est.predict_log_proba(X[450:]), np.log(P), atol=1e-10)


def test_probability_model_files_partial_fit_and_refusals(digits, tmp_path):
    import weaklabel

    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = AvgPegasos(probability=True, random_state=0).fit(X, S)
    T = est.temperature_
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))
    est.partial_fit(X[:50], S[:50])
    assert est.temperature_ == T                                     # partial_fit keeps the last fit's
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="a log of bandit feedback has neither"):
        CSPA(probability=True).fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    with pytest.raises(ValueError):
        est.fit(X, S[:10])                                           # a failed fit changes nothing
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.temperature_ == T


@pytest.mark.slow
def test_clpl_probability_and_its_model_file(digits, tmp_path):
    import weaklabel
    from weaklabel.partial import CLPL

    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    assert not hasattr(CLPL(), "predict_proba")
    est = CLPL(probability=True).fit(X[:450], S[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X[450:]) == y[450:])) < 0.1
    est.save(tmp_path / "c.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "c.npz").predict_proba(X[450:]), P)
    assert not hasattr(est.set_params(probability=False).fit(X[:450], S[:450]), "temperature_")


@pytest.mark.parametrize("cls", ["MMS", "CandidateLabelSVM"])
def test_bag_learners_probability_folds_over_bags(cls, digits, tmp_path):
    import weaklabel
    from weaklabel import bags
    from weaklabel.simulate import bags as simulate_bags

    X, y = digits
    B = simulate_bags(y, 3, 2, 0.0, 0.0, random_state=0)             # bags of 3 rows, 2 labelings each
    est = getattr(bags, cls)(probability=True, random_state=0).fit(X, B)
    P = est.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X) == y)) < 0.15
    est.save(tmp_path / "b.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "b.npz").predict_proba(X), P)
    assert not hasattr(getattr(bags, cls)(), "predict_proba")


def test_uma_probability_reads_noisy_labels_through_the_confusion_matrix(digits, tmp_path):
    import warnings

    import weaklabel
    from sklearn.exceptions import ConvergenceWarning

    from weaklabel.noisy import UMA
    from weaklabel.simulate import noisy_labels

    X, y = digits
    C = np.full((10, 10), 0.2 / 9)
    np.fill_diagonal(C, 0.8)
    yn = noisy_labels(y, C, classes=np.arange(10), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = UMA(confusion=C, probability=True, random_state=0, max_iter=300).fit(X[:450], yn[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X[450:]) == y[450:])) < 0.15
    est.save(tmp_path / "u.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "u.npz").predict_proba(X[450:]), P)


@pytest.mark.parametrize("name", ["CLPL", "PRODEN", "CorrectedLogistic"])
def test_batch_learners_class_weight_is_the_sample_weight_it_stands_for(name, digits):
    from weaklabel.noisy import CorrectedLogistic
    from weaklabel.partial import CLPL, PRODEN

    make = {"CLPL": lambda **k: CLPL(**k), "PRODEN": lambda **k: PRODEN(max_rounds=3, **k),
            "CorrectedLogistic": lambda **k: CorrectedLogistic(**k)}[name]
    X, y = digits
    w = {k: 1.0 + k for k in range(10)}
    a = make(class_weight=w).fit(X, y)
    b = make().fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    if name != "CorrectedLogistic":
        S = make_candidate_sets(y, 2, random_state=0)
        c = make(class_weight=w).fit(X, S)
        d = make().fit(X, S, sample_weight=(S.mask * np.arange(1.0, 11.0)).sum(axis=1) / S.mask.sum(axis=1))
        np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="not among the classes"):
        make(class_weight={42: 1.0}).fit(X, y)


def test_batch_learners_verbose_prints_their_solver_progress(digits, capsys):
    from weaklabel.noisy import CorrectedLogistic
    from weaklabel.partial import CLPL, PRODEN

    X, y = digits
    CLPL(verbose=1, max_iter=3).fit(X, y)
    PRODEN(verbose=1, max_rounds=2).fit(X, y)
    CorrectedLogistic(verbose=1, max_iter=2, confusion="anchors").fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in out] == ["CLPL"] * 3 + ["PRODEN"] * 2 + ["CorrectedLogistic"] * 2
    CLPL(max_iter=3).fit(X, y)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", ["UMA", "MMS", "CandidateLabelSVM"])
def test_uma_and_bag_learners_class_weight_is_the_sample_weight_it_stands_for(name, digits):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from weaklabel.bags import MMS, CandidateLabelSVM
    from weaklabel.noisy import UMA

    make = {"UMA": lambda **k: UMA(confusion="identity", max_iter=100, random_state=0, **k),
            "MMS": lambda **k: MMS(max_iter=2, n_rounds=2, random_state=0, **k),
            "CandidateLabelSVM": lambda **k: CandidateLabelSVM(random_state=0, **k)}[name]
    X, y = digits
    X, y = X[:300], y[:300]
    w = {k: 1.0 + k for k in range(10)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = make(class_weight=w).fit(X, y)
        b = make().fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="not among the classes"):
        make(class_weight={42: 1.0}).fit(X, y)
