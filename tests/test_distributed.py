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


# ---- label models on partitioned votes -------------------------------------------------------

def _votes(n, m=6, K=3, seed=0):
    """Votes of ``m`` sources of accuracy 0.55-0.9 and coverage 0.2-0.7 over ``K`` classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    L = -np.ones((n, m), dtype=np.int64)
    for j, (acc, cov) in enumerate(zip(rng.uniform(0.55, 0.9, m), rng.uniform(0.2, 0.7, m))):
        on = rng.random(n) < cov
        L[on, j] = np.where(rng.random(on.sum()) < acc, y[on], rng.integers(0, K, on.sum()))
    return L


def _blocks(L, parts=4):
    import scipy.sparse as sp

    S = sp.csr_matrix(L + 1)
    step = -(-L.shape[0] // parts)
    return S, [S[i:i + step] for i in range(0, L.shape[0], step)]


def _fitted_arrays(model):
    return {k: v for k, v in vars(model).items() if k.endswith("_") and isinstance(v, np.ndarray)}


@pytest.mark.slow
@pytest.mark.parametrize("n", [3_000, 45_000])          # fitted where the client is; EM over the partitions
@pytest.mark.parametrize("name", ["MajorityVote", "PrecisionVote", "DawidSkene", "MatrixCompletion"])
def test_a_label_model_fitted_on_partitions_equals_the_one_fitted_in_memory(client, name, n):
    from weaklabel import sources
    from weaklabel.distributed import fit_label_model

    S, blocks = _blocks(_votes(n))
    here = getattr(sources, name)().fit(S)
    there = fit_label_model(getattr(sources, name)(), blocks, client)
    assert there.n_partitions_ == 4
    for key, value in _fitted_arrays(here).items():
        np.testing.assert_allclose(getattr(there, key), value, rtol=0, atol=1e-9, err_msg=key)
    for key in ("n_iter_", "start_", "converged_", "collapsed_"):
        assert getattr(there, key, None) == getattr(here, key, None), key
    np.testing.assert_allclose(there.predict_proba(S), here.predict_proba(S), rtol=0, atol=1e-9)


@pytest.mark.slow
def test_the_client_receives_statistics_and_sampled_rows_never_a_partitions_votes(client):
    from weaklabel.distributed import PartitionedVotes
    from weaklabel.sources import DawidSkene
    from weaklabel.sources._votes import check_votes

    S, blocks = _blocks(_votes(60_000, m=20), parts=3)
    votes = PartitionedVotes(blocks, client)
    DawidSkene().fit(votes)
    smallest = min(_nbytes(check_votes(b)[0]) for b in blocks)
    assert 0 < votes.largest_transfer < smallest / 2


def _nbytes(v):
    return v.indptr.nbytes + v.src.nbytes + v.cls.nbytes


@pytest.mark.slow
def test_labeling_functions_on_a_dask_frame_feed_a_label_model_without_gathering(client):
    import pandas as pd
    dd = pytest.importorskip("dask.dataframe")

    from weaklabel.distributed import fit_label_model, predict_partitions, predict_proba_partitions
    from weaklabel.sources import DawidSkene, apply_lfs, keyword

    texts = pd.DataFrame({"text": ["subscribe now", "love this song", "meh", "subscribe, love it", "great song"] * 40})
    lfs = [keyword("subscribe", 1, field="text"), keyword(["love", "great"], 0, field="text"),
           keyword("song", 0, field="text")]
    L = apply_lfs(lfs, dd.from_pandas(texts, npartitions=3))
    assert isinstance(L, da.Array) and L.numblocks == (3, 1)
    here = DawidSkene().fit(apply_lfs(lfs, texts))
    there = fit_label_model(DawidSkene(), L, client)
    np.testing.assert_allclose(there.confusions_, here.confusions_, atol=1e-9)
    P = predict_proba_partitions(there, L).compute()
    np.testing.assert_allclose(P, here.predict_proba(apply_lfs(lfs, texts)), atol=1e-9)
    np.testing.assert_array_equal(predict_partitions(there, L).compute(), here.predict(apply_lfs(lfs, texts)))


@pytest.mark.slow
def test_partitioned_votes_refuse_what_they_cannot_fit(client):
    from weaklabel.distributed import fit_label_model
    from weaklabel.sources import DawidSkene

    L = _votes(400)
    S, blocks = _blocks(L)
    bad = blocks[:2] + [blocks[2].multiply(9).tocsr()] + blocks[3:]
    with pytest.raises(ValueError, match="^partition 2 of L holds class"):
        fit_label_model(DawidSkene(), bad, client, n_classes=3)
    with pytest.raises(TypeError, match="fit_label_model fits"):
        fit_label_model(object(), blocks, client)
    with pytest.raises(ValueError, match="different numbers of sources"):
        fit_label_model(DawidSkene(), [blocks[0], blocks[1][:, :3]], client)
    model = DawidSkene()
    with pytest.raises(ValueError, match="y .known labels. is not taken"):
        from weaklabel.distributed import PartitionedVotes

        model.fit(PartitionedVotes(blocks, client), np.zeros(400, int))
    assert not hasattr(model, "n_classes_")


def _seeded_block(i, n=15_000):
    import scipy.sparse as sp

    return sp.csr_matrix(_votes(n, seed=i) + 1)


@pytest.mark.slow
def test_a_partition_lost_with_its_worker_mid_fit_is_recomputed_and_the_fit_unchanged(client):
    import os
    import signal

    import dask
    import scipy.sparse as sp

    from weaklabel.distributed import PartitionedVotes
    from weaklabel.sources import DawidSkene

    blocks = [da.from_delayed(dask.delayed(_seeded_block)(i), shape=(np.nan, 6), dtype=np.int64,
                              meta=sp.csr_matrix((0, 6), dtype=np.int64)) for i in range(4)]
    L = da.concatenate(blocks, axis=0)                 # built on the workers: lineage to recompute from
    here = DawidSkene().fit(sp.vstack([_seeded_block(i) for i in range(4)]).tocsr())

    class KillOnce(PartitionedVotes):
        calls = 0

        def map_sum(self, fn):
            KillOnce.calls += 1
            if KillOnce.calls == 3:                     # after the first EM steps: a worker dies
                os.kill(sorted(self.client.run(os.getpid).values())[0], signal.SIGKILL)
            return super().map_sum(fn)

    there = DawidSkene().fit(KillOnce(L, client))
    assert KillOnce.calls > 3
    np.testing.assert_allclose(there.confusions_, here.confusions_, rtol=0, atol=1e-9)
    assert there.n_iter_ == here.n_iter_
    client.wait_for_workers(2, timeout=60)              # its nanny restarted it


@pytest.mark.slow
def test_the_end_model_trains_partition_by_partition_as_it_would_in_memory(client):
    import pandas as pd
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.linear_model import SGDClassifier

    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")

    from weaklabel.distributed import _weighted_rows, fit_end_model, fit_label_model
    from weaklabel.sources import PrecisionVote, apply_lfs, keyword

    rng = np.random.default_rng(0)
    words = np.array(["subscribe", "love", "song", "great", "meh", "now", "video", "check"])
    texts = pd.DataFrame({"text": [" ".join(rng.choice(words, 4)) for _ in range(600)]})
    lfs = [keyword("subscribe", 1, field="text"), keyword(["love", "great"], 0, field="text"),
           keyword("check", 1, field="text")]
    frame = dd.from_pandas(texts, npartitions=3)
    L = apply_lfs(lfs, frame)
    vectorizer = HashingVectorizer(n_features=2**10)
    X = [dask.delayed(vectorizer.transform)(part.text) for part in frame.to_delayed()]   # features per partition
    label_model = fit_label_model(PrecisionVote(), L, client, n_classes=2)
    sgd = SGDClassifier(loss="log_loss", shuffle=False, random_state=0)
    there = fit_end_model(sgd, label_model, X, L, client, n_epochs=2)

    here = SGDClassifier(loss="log_loss", shuffle=False, random_state=0)
    parts = [part.compute() for part in frame.partitions]
    blocks = [(vectorizer.transform(part.text), apply_lfs(lfs, part)) for part in parts]
    for _ in range(2):
        for Xb, Lb in blocks:
            Xw, c, w = _weighted_rows(label_model, Xb, Lb)
            here.partial_fit(Xw, c, classes=np.arange(2), sample_weight=w)
    np.testing.assert_array_equal(there.coef_, here.coef_)
    votes = apply_lfs(lfs, texts)
    covered = votes.getnnz(axis=1) > 0                  # the end model learns the label model there
    target = label_model.predict(votes)[covered]
    agree = there.predict(vectorizer.transform(texts.text))[covered] == target
    assert agree.mean() > np.bincount(target).max() / target.size + 0.1     # well above a constant class
