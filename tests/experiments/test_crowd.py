"""The crowd experiment: several simulated annotators on a slice of digits, the same code path."""

import numpy as np
import pytest

from weaklabel.experiments import crowd


@pytest.fixture
def digits_features(monkeypatch):
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import normalize

    X, y = load_digits(return_X_y=True)
    data = (normalize(X[:1300]), y[:1300], normalize(X[1300:]), y[1300:])
    monkeypatch.setattr(crowd, "_features", lambda name: data)
    monkeypatch.setitem(crowd.ALPHA, "digits", 1e-4)


@pytest.mark.slow
def test_dawid_skene_and_posteriors_beat_the_majority_vote(digits_features):
    cfg = {"dataset": "digits", "run": 0, "quality": list(crowd.QUALITY), "p_missing": 0.4, "gold_fraction": 0.01,
           "n_train": None, "alpha": 1e-4, "lbfgs_iter": 300, "methods": list(crowd.METHODS)}
    r = crowd.crowd_cell(cfg)
    acc = np.array(r["annotator_accuracy"])
    assert np.all(np.abs(acc - np.array(crowd.QUALITY)) < 0.06)        # the simulator's qualities
    assert 2.5 < r["annotations_per_row"] < 3.5                          # 5 x 0.6
    assert r["ds_accuracy"] > r["vote_accuracy"] + 0.05
    assert r["lr_posterior"] < r["lr_vote"] - 0.01                    # measured 0.107 vs 0.145
    assert r["lr_true"] <= min(r[m] for m in crowd.METHODS) + 1e-12


def test_majority_vote_breaks_ties_at_random():
    A = np.array([[0, 1, -1], [2, 2, 1], [1, -1, -1]])
    rng = np.random.RandomState(0)
    votes = np.array([crowd.majority_vote(A, 3, rng) for _ in range(200)])
    assert set(votes[:, 0]) == {0, 1}
    assert np.all(votes[:, 1] == 2) and np.all(votes[:, 2] == 1)
