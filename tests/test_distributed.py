"""Iterative parameter mixing on a real LocalCluster, and dask-ml's Incremental."""

import numpy as np
import pytest

from weaklabel.bandit import CSPA, BPA
from weaklabel.distributed import fit_parameter_mixing
from weaklabel.partial import AvgPegasos, AvgPerceptron, Perceptron
from weaklabel.simulate import bandit_feedback, make_candidate_sets

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")


def _blobs(n=2000, K=4, d=6, seed=0):
    rng = np.random.RandomState(seed)
    centers = 4 * rng.randn(K, d)
    y = rng.randint(K, size=n)
    return centers[y] + rng.randn(n, d), y


@pytest.fixture
def client(local_cluster):
    with distributed.Client(local_cluster) as c:
        yield c


def test_one_partition_is_the_sequential_pass(client):
    X, y = _blobs()
    S = make_candidate_sets(y, 2, random_state=0)
    mixed = fit_parameter_mixing(AvgPerceptron(), [X], [S.mask], client, n_epochs=3, classes=range(4))
    seq = AvgPerceptron()
    for _ in range(3):
        seq.partial_fit(X, S, classes=range(4))
    np.testing.assert_array_equal(mixed.coef_, seq.coef_)
    assert mixed.mixing_epochs_ == 3 and mixed.n_partitions_ == 1 and mixed.t_ == seq.t_


@pytest.mark.slow
def test_mixing_over_partitions_learns_like_the_sequential_pass(client):
    X, y = _blobs(n=4000)
    S = make_candidate_sets(y, 2, random_state=1)
    parts_X = np.array_split(X, 4)
    parts_S = np.array_split(S.mask, 4)
    mixed = fit_parameter_mixing(AvgPerceptron(), parts_X, parts_S, client, n_epochs=5, classes=range(4))
    seq = AvgPerceptron(max_iter=5).fit(X, S)
    assert mixed.score(X, y) > 0.95 and abs(mixed.score(X, y) - seq.score(X, y)) < 0.03
    # a dask array split at its chunks gives the same partitions
    Xd = da.from_array(X, chunks=(1000, 6))
    Sd = da.from_array(S.mask, chunks=(1000, 4))
    mixed_d = fit_parameter_mixing(AvgPerceptron(), Xd, Sd, client, n_epochs=5)    # classes from the mask
    np.testing.assert_array_equal(mixed_d.coef_, mixed.coef_)
    assert mixed_d.classes_.tolist() == [0, 1, 2, 3]


def test_pegasos_and_bandit_logs_mix(client):
    X, y = _blobs(n=4000, seed=3)
    parts = np.array_split(np.arange(len(y)), 4)
    peg = fit_parameter_mixing(AvgPegasos(alpha=1e-3), [X[p] for p in parts], [y[p] for p in parts], client,
                               n_epochs=3)                          # classes found in the labels
    assert peg.score(X, y) > 0.9
    fb = bandit_feedback(y, random_state=5)
    logs = [(fb.proposed[p], fb.correct[p]) for p in parts]
    bpa = fit_parameter_mixing(BPA(gamma=0.2), [X[p] for p in parts], logs, client, n_epochs=3,
                               classes=range(4), method="partial_fit_feedback")
    assert bpa.score(X, y) > 0.85


@pytest.mark.slow
def test_bad_arguments_are_clear_errors(client):
    X, y = _blobs(n=100)
    with pytest.raises(ValueError, match="partitions"):
        fit_parameter_mixing(Perceptron(), [X, X], [y], client, classes=range(4))
    with pytest.raises(TypeError, match="dask array or a list"):
        fit_parameter_mixing(Perceptron(), X, y, client, classes=range(4))
    with pytest.raises(ValueError, match="n_epochs"):
        fit_parameter_mixing(Perceptron(), [X], [y], client, n_epochs=0, classes=range(4))
    with pytest.raises(ValueError, match="method"):
        fit_parameter_mixing(Perceptron(), [X], [y], client, classes=range(4), method="fit")
    bad = X[:5].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="^partition 1 of X and Y: Input X contains NaN"):
        fit_parameter_mixing(Perceptron(), [X, bad], [y, y[:5]], client, classes=range(4))


def test_dask_ml_incremental_trains_out_of_core():
    """dask-ml's Incremental feeds the blocks of a dask array to partial_fit in order."""
    Incremental = pytest.importorskip("dask_ml.wrappers").Incremental
    X, y = _blobs(n=1200)
    Xd = da.from_array(X, chunks=(300, 6))
    yd = da.from_array(y, chunks=300)
    inc = Incremental(CSPA(beta=0.3), shuffle_blocks=False).fit(Xd, yd, classes=np.arange(4))
    seq = CSPA(beta=0.3)
    for lo in range(0, 1200, 300):
        seq.partial_fit(X[lo:lo + 300], y[lo:lo + 300], classes=np.arange(4))
    np.testing.assert_allclose(inc.estimator_.coef_, seq.coef_)
    assert inc.score(Xd, yd) > 0.9
