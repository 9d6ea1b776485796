"""predict_proba for margin learners: softmax at a temperature fitted on weak labels (issue 18)."""

import warnings

import numpy as np
import pytest
from scipy.special import log_softmax
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.frozen import FrozenEstimator

from weaklabel.calibration import SoftmaxCalibrated, fit_temperature
from weaklabel.noisy import UMA
from weaklabel.partial import AvgPegasos, MaxPerceptron
from weaklabel.simulate import confusion_family, make_candidate_sets, noisy_labels


def _nll_reference(scores, S, T, C=None):
    """Plain numpy: minus the log-likelihood of the weak labels at temperature T."""
    total = 0.0
    for i in range(scores.shape[0]):
        z = scores[i] / T
        p = np.exp(z - z.max())
        p /= p.sum()
        total -= np.log(p[S[i]].sum() if C is None else C[np.argmax(S[i])] @ p)
    return total


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("noisy", [False, True])
def test_fit_temperature_is_the_likelihood_minimum(seed, noisy):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(60, 4)) * rng.uniform(0.2, 5)
    y = np.argmax(scores + rng.normal(size=scores.shape), axis=1)
    S = np.eye(4, dtype=bool)[y]
    C = None
    if noisy:
        C = confusion_family(4, 2, random_state=seed)
    else:
        S |= rng.random(S.shape) < 0.3
    T = fit_temperature(scores, S, C)
    grid = np.exp(np.linspace(-4, 4, 801))
    best = grid[np.argmin([_nll_reference(scores, S, t, C) for t in grid])]
    assert _nll_reference(scores, S, T, C) <= _nll_reference(scores, S, best, C) + 1e-6
    assert T == pytest.approx(best, rel=0.02)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rng = np.random.RandomState(0)
    order = rng.permutation(y.size)
    return X[order] / 16.0, y[order]


def _true_nll(P, y):
    return -np.mean(np.log(np.maximum(P[np.arange(y.size), y], 1e-300)))


def test_candidate_sets_calibrate_better_than_the_raw_softmax(digits):
    X, y = digits
    S = make_candidate_sets(y[:1300], 3, random_state=0)
    clf = SoftmaxCalibrated(MaxPerceptron(random_state=0), random_state=0).fit(X[:1300], S)
    P = clf.predict_proba(X[1300:])
    assert P.shape == (497, 10) and np.allclose(P.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X[1300:]))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X[1300:])), P, rtol=1e-10)
    raw = np.exp(log_softmax(clf.decision_function(X[1300:]), axis=1))      # T = 1
    assert _true_nll(P, y[1300:]) < _true_nll(raw, y[1300:])
    assert _true_nll(P, y[1300:]) < 0.8                       # true-label log loss from candidate sets only
    assert clf.score(X[1300:], y[1300:]) == clf.estimator_.score(X[1300:], y[1300:])


def test_noisy_labels_calibrate_through_the_confusion(digits):
    X, y = digits
    C = confusion_family(10, 3, random_state=0)
    yn = noisy_labels(y[:1300], C, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        through = SoftmaxCalibrated(UMA(confusion=C, max_iter=300), confusion=C, random_state=0).fit(X[:1300], yn)
        naive = SoftmaxCalibrated(FrozenEstimator(through.estimator_)).fit(X[:1300], yn)   # as if labels were true
    assert naive.estimator_ is not None
    assert _true_nll(through.predict_proba(X[1300:]), y[1300:]) < _true_nll(naive.predict_proba(X[1300:]), y[1300:])


def test_a_frozen_model_is_not_refitted(digits):
    X, y = digits
    est = AvgPegasos(random_state=0).fit(X[:1000], y[:1000])
    coef = est.coef_.copy()
    cal = SoftmaxCalibrated(FrozenEstimator(est)).fit(X[1000:], y[1000:])
    np.testing.assert_array_equal(est.coef_, coef)
    np.testing.assert_array_equal(cal.decision_function(X[:5]), est.decision_function(X[:5]))
    assert cal.temperature_ == pytest.approx(fit_temperature(est.decision_function(X[1000:]),
                                                             np.eye(10, dtype=bool)[y[1000:]]))


def test_bad_arguments_are_clear(digits):
    X, y = digits
    with pytest.raises(ValueError, match="holdout"):
        SoftmaxCalibrated(AvgPegasos(), holdout=1.5).fit(X, y)
    with pytest.raises(TypeError, match="estimator.*decision_function"):
        SoftmaxCalibrated(object()).fit(X, y)
    with pytest.raises(ValueError, match="confusion must have shape"):
        SoftmaxCalibrated(AvgPegasos(), confusion=np.eye(3)).fit(X, y)


def test_every_sparse_format_and_mismatched_lengths(digits):
    """COO, BSR and DIA (the docs name COO) give the model CSR gives; a y longer or shorter
    than X is one ValueError naming both counts (it once fitted silently, or raised
    scikit-learn's IndexError)."""
    import scipy.sparse as sp

    X, y = digits
    X, y = X[:400], y[:400]
    S = make_candidate_sets(y, 2, random_state=0)
    ref = SoftmaxCalibrated(AvgPegasos(random_state=0), random_state=0).fit(sp.csr_matrix(X), S)
    for fmt in ("coo", "bsr", "dia", "csc"):
        est = SoftmaxCalibrated(AvgPegasos(random_state=0), random_state=0).fit(sp.csr_matrix(X).asformat(fmt), S)
        assert est.temperature_ == pytest.approx(ref.temperature_), fmt
    for bad in (np.r_[y, y[:2]], y[:-2]):
        with pytest.raises(ValueError, match=f"y has {bad.size} rows but X has 400"):
            SoftmaxCalibrated(AvgPegasos(random_state=0)).fit(X, bad)
