"""label_issues: the posterior by hand, the ranking, bad input."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import StratifiedKFold

from weaklabel.noisy import CorrectedLogistic, label_issues
from weaklabel.simulate import confusion_family, noisy_labels


@pytest.fixture(scope="module")
def noisy_digits():
    X, y = load_digits(return_X_y=True)
    X, y = X[:500] / 16.0, y[:500]
    C = confusion_family(10, 3, random_state=0)
    return X, y, noisy_labels(y, C, random_state=1), C


@pytest.mark.slow
def test_the_posterior_is_bayes_rule_on_out_of_fold_probabilities(noisy_digits):
    X, y, noisy, C = noisy_digits
    issues = label_issues(X, noisy, confusion=C, cv=3, random_state=0)
    clean = np.zeros((y.size, 10))
    t = noisy
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(np.zeros(y.size), t)
    for train, test in folds:
        clean[test] = CorrectedLogistic(confusion=C, alpha=1e-4, classes=np.arange(10)).fit(X[train], noisy[train]) \
            .predict_proba(X[test])
    for i in range(0, y.size, 97):
        post = C[noisy[i], :] * clean[i]
        post /= post.sum()
        np.testing.assert_allclose(issues.posterior[i], post, rtol=1e-9)
        assert issues.wrong[i] == pytest.approx(1 - post[noisy[i]])
    assert (np.diff(issues.wrong[issues.ranking]) <= 0).all()
    np.testing.assert_array_equal(issues.confusion, C)


def test_flips_come_first(noisy_digits):
    X, y, noisy, _ = noisy_digits
    flips = noisy != y
    issues = label_issues(X, noisy, cv=3)
    assert flips[issues.top(int(flips.sum()))].mean() > 0.75          # precision at the number of flips
    assert flips[issues.top(int(flips.sum()))].mean() > 2.5 * flips.mean()          # 0.80 against 0.29 at random
    assert np.allclose(issues.confusion.sum(axis=0), 1.0)


def test_bad_input_is_one_line(noisy_digits):
    X, y, noisy, C = noisy_digits
    with pytest.raises(ValueError, match="one label per row of X \\(500\\)"):
        label_issues(X, noisy[:10])
    with pytest.raises(ValueError, match="single class"):
        label_issues(X, np.zeros(500, dtype=int))
    with pytest.raises(ValueError, match="confusion must be \\(10, 10\\)"):
        label_issues(X, noisy, confusion=np.eye(3))
    with pytest.raises(TypeError, match="must be a CorrectedLogistic"):
        label_issues(X, noisy, estimator=object())
