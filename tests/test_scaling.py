"""FeatureScaled: per-feature scaling kept inside the model (and `weaklabel fit --scale`)."""

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_digits
from sklearn.utils.estimator_checks import parametrize_with_checks

import weaklabel
from weaklabel.cli import main
from weaklabel.noisy import CorrectedLogistic
from weaklabel.partial import AvgPegasos, Perceptron
from weaklabel.scaling import FeatureScaled

_OBJECT = "X of dtype object is rejected with a TypeError by design (as every weaklabel learner)"


@parametrize_with_checks([FeatureScaled(Perceptron(random_state=0)),
                          FeatureScaled(CorrectedLogistic(confusion="identity"), scaling="std")],
                         expected_failed_checks=lambda est: {"check_dtype_object": _OBJECT})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data():
    rng = np.random.RandomState(0)
    X = rng.rand(120, 4) * np.array([1000.0, 1.0, 0.01, 50.0])
    X[:, 3] = 0.0                                              # a column zero everywhere keeps scale 1
    y = (X[:, 0] / 1000 + X[:, 1] > 1.0).astype(int) + (X[:, 2] > 0.005)
    return X, y


@pytest.mark.parametrize("scaling", ["maxabs", "std"])
def test_the_learner_sees_the_scaled_rows_dense_and_sparse_alike(scaling):
    X, y = _data()
    est = FeatureScaled(AvgPegasos(random_state=0), scaling=scaling).fit(X, y)
    expected = np.abs(X).max(axis=0) if scaling == "maxabs" else X.std(axis=0)
    expected[expected == 0] = 1.0
    np.testing.assert_allclose(est.scale_, expected, rtol=1e-12)
    inner = AvgPegasos(random_state=0).fit(X / expected, y)
    np.testing.assert_allclose(est.estimator_.coef_, inner.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(est.predict(X), inner.predict(X / expected))
    sparse = FeatureScaled(AvgPegasos(random_state=0), scaling=scaling).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.scale_, est.scale_, rtol=1e-10)
    np.testing.assert_allclose(sparse.estimator_.coef_, est.estimator_.coef_, rtol=1e-8, atol=1e-10)


def test_model_file_keeps_the_scale_and_bad_input_leaves_the_model_as_it_was(tmp_path):
    X, y = _data()
    est = FeatureScaled(CorrectedLogistic(confusion="identity"), scaling="std").fit(X, y)
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.scale_, est.scale_)
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))
    before = est.scale_.copy()
    for bad_X, bad_y in ((np.full_like(X, np.nan), y), (X * 2, y[:-1])):
        with pytest.raises(ValueError):
            est.fit(bad_X, bad_y)
        np.testing.assert_array_equal(est.scale_, before)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :3])


def test_cli_fit_scale_is_saved_with_the_model(tmp_path):
    X, y = load_digits(return_X_y=True)
    X = X * np.logspace(0, 4, 64)[np.random.RandomState(0).permutation(64)]   # columns in very different units
    dump_svmlight_file(X[:1400], y[:1400], str(tmp_path / "tr.svm"))
    dump_svmlight_file(X[1400:], y[1400:], str(tmp_path / "te.svm"))
    run = CliRunner().invoke
    accs = {}
    for scale in ("none", "maxabs"):
        r = run(main, ["fit", "--method", "avg-pegasos", "--train", str(tmp_path / "tr.svm"), "--model",
                       str(tmp_path / f"{scale}.npz"), "--scale", scale])
        assert r.exit_code == 0, r.output
        r = run(main, ["evaluate", "--model", str(tmp_path / f"{scale}.npz"), "--data", str(tmp_path / "te.svm")])
        assert r.exit_code == 0, r.output
        accs[scale] = float(r.output.split("accuracy:")[1].split()[0])
    assert accs["maxabs"] > accs["none"] + 0.03, accs
    assert isinstance(weaklabel.load(tmp_path / "maxabs.npz"), FeatureScaled)
    r = run(main, ["fit", "--method", "avg-pegasos", "--train", str(tmp_path / "tr.svm"), "--model",
                   str(tmp_path / "p.npz"), "--scale", "std", "--progress", "100"])
    assert r.exit_code != 0 and "--scale does not apply" in r.output


def test_a_subnormal_column_keeps_scale_1_and_an_overflow_names_the_feature():
    """A column of subnormal values got the scale 1e-310; a later row then overflowed and the
    learner reported "Input X contains infinity" without saying which feature or why."""
    X = np.random.RandomState(0).rand(20, 3)
    X[:, 1] = 1e-310
    y = np.arange(20) % 2
    model = FeatureScaled(estimator=Perceptron(random_state=0)).fit(X, y)
    assert model.scale_[1] == 1.0
    X[:, 2] *= 1e-300
    model = FeatureScaled(estimator=Perceptron(random_state=0)).fit(X, y)
    before = model.scale_.copy()
    X[3, 2] = 1e50
    with pytest.raises(ValueError, match="X\\[3, 2\\] = 1e\\+50 divided by feature 2's scale .* overflows"):
        model.predict(X)
    assert np.array_equal(model.scale_, before)
