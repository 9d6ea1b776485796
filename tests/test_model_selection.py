"""scikit-learn's model selection on every family's weak-label form, with default arguments.

``cross_val_score(est, X, weak)`` and ``GridSearchCV(est, grid).fit(X, weak)`` must run as
a user writes them (default ``cv``), split the weak labels with the rows, and score with
the learner's weak-label ``score``.  Before issue 18 every call here but the 1-D ones
raised.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, StratifiedKFold, check_cv, cross_val_score
from sklearn.utils import _safe_indexing

from weaklabel import BagCandidates, BanditFeedback, CandidateSets
from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.bandit import CSPA, Confidit
from weaklabel.noisy import UMA, LabelALittle
from weaklabel.partial import AvgPegasos, MaxPerceptron
from weaklabel.simulate import (bags, bandit_feedback, confusion_family, hidden_markov_chain, make_candidate_sets,
                                missing_labels, noisy_labels)
from weaklabel.structured import MILM3N, chain_graph


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rng = np.random.RandomState(0)
    keep = rng.permutation(y.size)[:600]
    return X[keep] / 16.0, y[keep]


def _finite_scores(scores, lo=0.0):
    scores = np.asarray(scores)
    assert scores.shape == (5,)
    assert np.all(np.isfinite(scores)) and np.all(scores >= lo) and np.all(scores <= 1.0)
    return scores


# ---- the containers line up with X as y does --------------------------------------------

def test_candidate_sets_index_like_rows():
    S = CandidateSets.from_lists([[0, 2], [1], [0, 1, 2], [2]])
    assert S.shape == (4, 3) and len(S) == 4
    assert np.array_equal(np.asarray(S), S.mask)
    sub = _safe_indexing(S, np.array([3, 0]))
    assert isinstance(sub, CandidateSets) and sub.to_lists() == [[2], [0, 2]]
    assert S[[1, 2]].to_lists() == [[1], [0, 1, 2]]
    assert S[np.array([True, False, False, True])].to_lists() == [[0, 2], [2]]
    assert np.array_equal(sub.classes_, S.classes_)        # a fold keeps every class
    with pytest.raises(IndexError, match="rows only"):
        S[0, 1]


def test_default_cv_is_kfold_for_sets_and_bags_stratified_for_logs():
    S = CandidateSets.from_lists([[0, 1], [1]] * 10)
    B = BagCandidates.from_labels(np.arange(20) % 3, np.arange(20) // 2)
    fb = BanditFeedback(np.arange(20) % 2, np.arange(20) % 3 == 0)
    assert type(check_cv(None, S, classifier=True)) is KFold
    assert type(check_cv(None, B, classifier=True)) is KFold
    assert type(check_cv(None, fb, classifier=True)) is StratifiedKFold


def test_bag_rows_are_projected_and_whole_bags_kept():
    B = BagCandidates([0, 0, 1, 1, 1], [[[3, 5], [5, 3]], [[4, 4, 5], [4, 5, 5]]])
    assert len(B) == 5 and B.shape == (5, 3)
    assert B[0].tolist() == [3, 5] and B[4].tolist() == [5]
    whole = B[2:]
    assert whole.n_bags == 1 and whole.labelings(0).tolist() == [[4, 4, 5], [4, 5, 5]]
    cut = B[np.array([4, 1, 2])]                           # bag 0 keeps row 1, bag 1 rows 2 and 4
    assert cut.n_rows == 3 and cut.bag_of.tolist() == [1, 0, 1]
    assert cut.labelings(0).tolist() == [[3], [5]]
    assert cut.labelings(1).tolist() == [[5, 4]]           # new rows 0, 2 = old 4, 2; both vectors agree
    y = np.array([5, 3, 4, 4, 5])                          # one of B's labelings
    assert B.contains(y).all() and cut.contains(y[[4, 1, 2]]).all()   # the truth survives a cut
    assert np.array_equal(np.asarray(B), B.instance_candidates().mask)


def test_bandit_feedback_indexes_rows():
    fb = BanditFeedback([0, 1, 2, 1], [True, False, False, True])
    sub = fb[np.array([3, 1])]
    assert sub.proposed.tolist() == [1, 1] and sub.correct.tolist() == [True, False]
    assert fb[2] == (2, False)
    assert np.array_equal(np.asarray(fb), fb.proposed)


# ---- every family, default arguments ------------------------------------------------------

def test_partial_labels_default_cv_and_search(digits):
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    scores = _finite_scores(cross_val_score(AvgPegasos(alpha=1e-2, max_iter=5, random_state=0), X, S), lo=0.5)
    assert scores.mean() > 0.7
    search = GridSearchCV(MaxPerceptron(max_iter=2, random_state=0), {"fit_intercept": [False, True]}).fit(X, S)
    assert search.best_params_["fit_intercept"] in (False, True)
    assert np.array_equal(search.best_estimator_.classes_, np.arange(10))


@pytest.mark.slow
def test_bags_default_cv_search_and_group_split(digits):
    X, y = digits
    B = bags(y, bag_size=3, n_labelings=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scores = _finite_scores(cross_val_score(MMS(n_rounds=2, max_iter=2, random_state=0), X, B))
        search = GridSearchCV(CandidateLabelSVM(max_iter=200), {"C": [0.01, 1.0]}).fit(X, B)
    assert scores.mean() > 0.3                      # a share of bags whose predicted labeling is a candidate
    assert search.best_params_["C"] in (0.01, 1.0)
    grouped = cross_val_score(MMS(n_rounds=2, max_iter=2, random_state=0), X, B, cv=GroupKFold(3), groups=B.bag_of)
    assert grouped.shape == (3,) and np.all(np.isfinite(grouped))
    for train, test in GroupKFold(3).split(X, B, groups=B.bag_of):
        Btr = B[train]
        assert Btr.n_bags == np.unique(B.bag_of[train]).size
        assert np.array_equal(np.sort(Btr.bag_sizes), np.sort(B.bag_sizes[np.unique(B.bag_of[train])]))


def test_bag_score_is_bag_accuracy(digits):
    X, y = digits
    B = BagCandidates.from_labels(y, np.arange(y.size) // 4)
    clf = MMS(n_rounds=2, max_iter=3, random_state=0).fit(X, B)
    pred = clf.predict(X)
    assert clf.score(X, B) == pytest.approx(B.contains(pred).mean())
    assert clf.score(X, y) == pytest.approx(np.mean(pred == y))     # 1-D labels: accuracy


@pytest.mark.slow
def test_bandit_log_default_cv_and_search(digits):
    X, y = digits
    fb = bandit_feedback(y, random_state=0)
    scores = _finite_scores(cross_val_score(CSPA(beta=0.5), X, fb))
    search = GridSearchCV(Confidit(), {"eta": [0.1, 1.0]}).fit(X, fb)
    assert search.best_params_["eta"] in (0.1, 1.0)
    clf = CSPA(beta=0.5).fit(X, fb)
    pred = clf.predict(X)
    assert clf.score(X, fb) == pytest.approx(np.mean((pred == fb.proposed) == fb.correct))
    assert scores.mean() > 0.5


def test_noisy_labels_default_cv_and_search(digits):
    X, y = digits
    C = confusion_family(10, 2, random_state=0)
    y_noisy = noisy_labels(y, C, random_state=1)
    _finite_scores(cross_val_score(UMA(confusion=C, max_iter=50), X, y_noisy))
    assert GridSearchCV(UMA(confusion=C, max_iter=30), {"alpha": [0.0, 0.1]}).fit(X, y_noisy).best_params_["alpha"] in (0, 0.1)
    y_partial = np.where(np.random.default_rng(0).random(y.size) < 0.5, y, -1)
    scores = _finite_scores(cross_val_score(LabelALittle(m=3, max_iter=100, random_state=0), X, y_partial))
    clf = LabelALittle(m=3, max_iter=100, random_state=0).fit(X, y_partial)
    lab = y_partial != -1
    assert clf.score(X, y_partial) == pytest.approx(np.mean(clf.predict(X)[lab] == y[lab]))   # -1 rows not scored
    assert scores.mean() > 0.3                     # 10 classes: chance is 0.1


def test_structured_missing_labels_default_cv_and_search():
    X, Y = hidden_markov_chain(20, length=20, n_states=5, random_state=0)
    Y = missing_labels(Y, 0.3, random_state=0)
    est = MILM3N(graph=chain_graph(20), max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        _finite_scores(cross_val_score(est, X, Y))
        search = GridSearchCV(est, {"alpha": [0.1, 1.0]}).fit(X, Y)
    assert search.best_params_["alpha"] in (0.1, 1.0)
