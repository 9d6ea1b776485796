import hashlib
import pickle
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import weaklabel
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

rng = np.random.default_rng(0)
X = rng.standard_normal((40, 5))
y = rng.integers(0, 4, 40)


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, Perceptron, Pegasos])
def test_round_trip_and_continue(cls, tmp_path):
    est = cls(max_iter=2, fit_intercept=True).fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    back = weaklabel.load(path)
    assert type(back) is cls and back.get_params() == est.get_params()
    assert_array_equal(back.coef_, est.coef_)
    assert_array_equal(back.intercept_, est.intercept_)
    assert_array_equal(back.predict(X), est.predict(X))
    assert back.t_ == est.t_
    # learning continues identically (Pegasos needs t_ for its step size)
    est.partial_fit(X, y)
    back.partial_fit(X, y)
    assert_array_equal(back.coef_, est.coef_)
    assert_array_equal(pickle.loads(pickle.dumps(est)).coef_, est.coef_)


def test_truncated_altered_and_foreign_files(tmp_path):
    est = AvgPegasos().fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    data = path.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or altered"):
        weaklabel.load(tmp_path / "trunc.npz")
    # rewrite the archive with changed weights but the old metadata
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with np.load(path) as z:
        W = z["W"].copy()
    W[0, 0] += 1.0
    import io

    buf = io.BytesIO()
    np.save(buf, W)
    members["W.npy"] = buf.getvalue()
    with zipfile.ZipFile(tmp_path / "alt.npz", "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    with pytest.raises(ValueError, match="does not match its checksum"):
        weaklabel.load(tmp_path / "alt.npz")
    np.savez(tmp_path / "other.npz", a=np.ones(3))
    with pytest.raises(ValueError, match="not a readable weaklabel model|no meta.json"):
        weaklabel.load(tmp_path / "other.npz")
    with pytest.raises(FileNotFoundError, match="model file not found"):
        weaklabel.load(tmp_path / "missing.npz")


def test_save_unfitted_raises(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        AvgPerceptron().save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_other_format_version_and_unknown_kind(tmp_path):
    est = AvgPerceptron().fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    import json

    for change, match in [({"format_version": 99}, "format version 99"), ({"kind": "Nope"}, "unknown kind 'Nope'")]:
        meta = json.loads(members["meta.json"])
        meta.update(change)
        blob = json.dumps(meta).encode()           # as another weaklabel would write it: a consistent checksum
        with zipfile.ZipFile(tmp_path / "x.npz", "w") as zf:
            for n, b in members.items():
                zf.writestr(n, blob if n == "meta.json" else hashlib.sha256(blob).hexdigest() if n == "meta.sha256"
                            else b)
        with pytest.raises(ValueError, match=match):
            weaklabel.load(tmp_path / "x.npz")


@pytest.mark.filterwarnings("ignore:weaklabel.noisy.DawidSkene is deprecated:FutureWarning")
def test_gaussian_support_and_dawid_skene_round_trip(tmp_path):
    """Every estimator saves: GaussianSupport and DawidSkene once had no save."""
    import weaklabel
    from weaklabel.bandit import GaussianSupport
    from weaklabel.noisy import DawidSkene
    from weaklabel.simulate import annotators

    rng = np.random.RandomState(0)
    X = rng.randn(50, 4)
    for center in (False, True):
        gs = GaussianSupport(n_support=20, g=2.0, center=center).fit(X)
        gs.save(tmp_path / "gs.npz")
        back = weaklabel.load(tmp_path / "gs.npz")
        np.testing.assert_array_equal(back.transform(X), gs.transform(X))
        assert back.get_params() == gs.get_params()
    y = np.arange(300) % 3
    A = annotators(y, [0.8 * np.eye(3) + 0.2 / 3] * 3, random_state=0)
    ds = DawidSkene().fit(A)
    ds.save(tmp_path / "ds.npz")
    back = weaklabel.load(tmp_path / "ds.npz")
    np.testing.assert_array_equal(back.predict(), ds.predict())
    np.testing.assert_array_equal(back.confusions_, ds.confusions_)
    assert back.n_iter_ == ds.n_iter_ and back.log_likelihood_ == ds.log_likelihood_
    with pytest.raises(Exception, match="not fitted"):
        DawidSkene().save(tmp_path / "x.npz")


def test_softmax_calibrated_saves_its_learner_inside(tmp_path):
    """SoftmaxCalibrated once had no save: its file holds the learner's own model file (checked
    as any model file is) and the temperature."""
    import weaklabel
    from weaklabel.calibration import SoftmaxCalibrated
    from weaklabel.partial import AvgPegasos
    from weaklabel.simulate import make_candidate_sets

    rng = np.random.RandomState(0)
    X = rng.randn(200, 5)
    y = rng.randint(0, 3, 200)
    est = SoftmaxCalibrated(AvgPegasos(alpha=1e-2, random_state=0), random_state=0).fit(
        X, make_candidate_sets(y, 2, random_state=0))
    est.save(tmp_path / "cal.npz")
    back = weaklabel.load(tmp_path / "cal.npz")
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.temperature_ == est.temperature_ and back.get_params()["holdout"] == est.holdout
    assert type(back.estimator).__name__ == "AvgPegasos"


def test_fortran_ordered_state_is_saved_in_c_order(tmp_path):
    """A state array that a computation left in Fortran order saves and loads."""
    import weaklabel
    from weaklabel.sources import MatrixCompletion

    L = np.array([[0, 1, 1], [1, 1, -1], [0, -1, 0], [1, 0, 1]])
    model = MatrixCompletion().fit(L)
    model.mu_ = np.asfortranarray(model.mu_)
    assert not model.mu_.flags.c_contiguous
    model.save(tmp_path / "m.npz")
    np.testing.assert_array_equal(weaklabel.load(tmp_path / "m.npz").predict_proba(L), model.predict_proba(L))


def test_loading_a_dataset_name_says_where_datasets_are():
    import weaklabel

    with pytest.raises(FileNotFoundError, match=r"model file not found: lost; .*weaklabel.datasets.load\('lost'\)"):
        weaklabel.load("lost")
