"""The intercept of the online learners is an implicit constant feature: no copy of ``X``.

With ``fit_intercept=True`` the kernels read each row as if a column of ones were appended
(``Rows.intercept``), so ``fit`` and ``partial_fit`` no longer build that copy.  What they
learn must be what they learn on ``X`` with the column appended and ``fit_intercept=False``.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import weaklabel.linear as linear
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from weaklabel.noisy import CorrectedLogistic
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron

LEARNERS = [
    lambda **k: AvgPerceptron(**k), lambda **k: MaxPerceptron(**k),
    lambda **k: AvgPegasos(alpha=0.01, row_scale=1.0, **k), lambda **k: MaxPegasos(alpha=0.01, row_scale=1.0, **k),
    lambda **k: CSPA(**k), lambda **k: SPA(**k), lambda **k: Banditron(**k), lambda **k: BPA(**k),
    lambda **k: Confidit(diagonal=True, row_scale=1.0, **k), lambda **k: Confidit(diagonal=False, row_scale=1.0, **k),
    lambda **k: SketchedConfidit(sketch_size=4, row_scale=1.0, **k),
]
NAMES = ["AvgPerceptron", "MaxPerceptron", "AvgPegasos", "MaxPegasos", "CSPA", "SPA", "Banditron", "BPA",
         "Confidit-diag", "Confidit-full", "SketchedConfidit"]


def _data(n=80, d=5, seed=0):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 3
    X = rng.randn(n, d) + 1.5 * np.eye(3, d)[y] + 0.7
    X[rng.rand(n, d) < 0.3] = 0.0
    return X, y


@pytest.mark.parametrize("make", LEARNERS, ids=NAMES)
@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_an_implicit_intercept_learns_what_an_appended_column_does(make, form, monkeypatch):
    X, y = _data()
    ones = np.hstack([X, np.ones((X.shape[0], 1))])
    Xf, onesf = (sp.csr_matrix(X), sp.csr_matrix(ones)) if form == "sparse" else (X, ones)
    ref = make(max_iter=2, shuffle=True, random_state=0, fit_intercept=False).fit(onesf, y)
    ref.partial_fit(onesf[:30], y[:30])

    def no_copy(X):
        raise AssertionError("the intercept column was appended to X")

    monkeypatch.setattr(linear, "with_intercept", no_copy)      # fit and partial_fit never append it
    est = make(max_iter=2, shuffle=True, random_state=0, fit_intercept=True).fit(Xf, y)
    est.partial_fit(Xf[:30], y[:30])
    monkeypatch.undo()
    np.testing.assert_array_equal(est.predictions_, ref.predictions_)
    np.testing.assert_allclose(est.coef_, ref.coef_[:, :-1], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(est.intercept_, ref.coef_[:, -1], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(est.predict(Xf), ref.predict(onesf))


@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_corrected_logistic_partial_fit_reads_the_intercept_implicitly(form, monkeypatch):
    """CorrectedLogistic's SGD never decays its intercept, while an appended column's weights
    decay like any feature's: the two agree at alpha = 0."""
    X, y = _data(seed=1)
    ones = np.hstack([X, np.ones((X.shape[0], 1))])
    Xf, onesf = (sp.csr_matrix(X), sp.csr_matrix(ones)) if form == "sparse" else (X, ones)
    ref = CorrectedLogistic(fit_intercept=False, eta0=0.1, alpha=0.0)
    for lo in range(0, 80, 20):
        ref.partial_fit(onesf[lo:lo + 20], y[lo:lo + 20], classes=np.arange(3))

    def no_copy(X):
        raise AssertionError("the intercept column was appended to X")

    monkeypatch.setattr(linear, "with_intercept", no_copy)
    est = CorrectedLogistic(fit_intercept=True, eta0=0.1, alpha=0.0)
    for lo in range(0, 80, 20):
        est.partial_fit(Xf[lo:lo + 20], y[lo:lo + 20], classes=np.arange(3))
    monkeypatch.undo()
    np.testing.assert_array_equal(est.predictions_, ref.predictions_)
    np.testing.assert_allclose(est.coef_, ref.coef_[:, :-1], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(est.intercept_, ref.coef_[:, -1], rtol=1e-9, atol=1e-9)
