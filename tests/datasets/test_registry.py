"""Loaders on the shared data folder (CI has ../shared/data beside the clone)."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from weaklabel import datasets
from weaklabel.datasets import load_mat


@pytest.mark.parametrize("name,shape,n_classes", [
    ("ecoli", (336, 7), 8), ("dermatology", (358, 34), 6), ("glass", (214, 9), 6), ("vowel", (528, 10), 11),
    ("digits", (1797, 64), 10), ("satimage", (4435, 36), 6), ("optdigits", (3823, 64), 10),
])
def test_shapes_match_manifest(name, shape, n_classes):
    d = datasets.load(name)
    assert d.X_train.shape == shape
    assert len(d.classes) == n_classes
    assert np.isfinite(d.X_train).all()
    if d.X_test is not None:
        assert d.X_test.shape[1] == shape[1]


@pytest.mark.parametrize("name,n,k,mean_size", [("lost", 1122, 16, 2.232), ("birdsong", 4998, 13, 2.175)])
def test_real_candidate_sets(name, n, k, mean_size):
    d = datasets.load(name)
    assert d.S_train.mask.shape == (n, k)
    assert d.S_train.sizes.mean() == pytest.approx(mean_size, abs=1e-3)
    assert d.S_train.contains(d.y_train).all()           # the MANIFEST: true label always in S


@pytest.mark.slow
def test_usps_and_mnist():
    u = datasets.load("usps")
    assert u.X_train.shape == (7291, 256) and u.X_test.shape == (2007, 256)
    m = datasets.load("mnist-test")
    assert m.X_train.shape == (10000, 784) and 0 <= m.X_train.min() and m.X_train.max() <= 1
    assert np.bincount(m.y_train).tolist()[:3] == [980, 1135, 1032]
    full = datasets.load("mnist")                        # the 60k training set, the test set as its test part
    assert full.X_train.shape == (60000, 784) and full.X_test.shape == (10000, 784)
    assert np.bincount(full.y_train).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    np.testing.assert_array_equal(full.X_test, m.X_train)


@pytest.mark.parametrize("name,n_train,n_test,n_features,counts", [
    ("20news", 11314, 7532, 56436, [480, 584, 591]),          # alt.atheism, comp.graphics, comp.os.ms-windows.misc
    ("reuters", 5485, 2189, 10684, [1596, 253, 2840]),        # acq, crude, earn (classes sorted by name)
])
def test_text_sets_are_tfidf_with_unit_rows(name, n_train, n_test, n_features, counts):
    d = datasets.load(name)
    assert d.X_train.shape == (n_train, n_features) and d.X_test.shape == (n_test, n_features)
    assert np.bincount(d.y_train).tolist()[:3] == counts
    norms = np.sqrt(np.asarray(d.X_train.multiply(d.X_train).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms[norms > 0], 1.0)
    assert (norms > 0).mean() > 0.99 and d.X_train.min() >= 0


def test_missing_file_names_file_and_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("WEAKLABEL_DATA", str(tmp_path))
    with pytest.raises(datasets.DataNotFoundError, match=r"uci/ecoli.data.xz.*WEAKLABEL_DATA"):
        datasets.load("ecoli")
    assert datasets.load("digits").X_train.shape == (1797, 64)      # no data folder needed


def test_checksum_mismatch_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "uci").mkdir()
    (tmp_path / "uci" / "ecoli.data.xz").write_bytes(b"not the real file")
    (tmp_path / "checksums.sha256").write_text("0" * 64 + "  ./uci/ecoli.data.xz\n")
    monkeypatch.setenv("WEAKLABEL_DATA", str(tmp_path))
    monkeypatch.setenv("WEAKLABEL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="fails its checksum"):
        datasets.load("ecoli")


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown dataset 'nope'; known: .*ecoli"):
        datasets.load("nope")


def test_sparse_svmlight_rows_have_32_bit_indices(tmp_path):
    # scikit-learn >= 1.9 reads svmlight files with 64-bit indices, which its own Perceptron
    # refuses; the loader gives the one form a set read back from the cache has
    import bz2

    from sklearn.linear_model import Perceptron

    from weaklabel.datasets._registry import _read_svmlight

    p = tmp_path / "tiny.bz2"
    p.write_bytes(bz2.compress(b"1 1:0.5 3:1\n2 2:1\n1 1:1 2:0.25\n2 3:0.5\n"))
    out = _read_svmlight([p], 3, sparse=True)
    X = out["X_train"]
    assert X.format == "csr" and X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 1], [0, 1, 0], [1, 0.25, 0], [0, 0, 0.5]])
    Perceptron(max_iter=1, tol=None).fit(X, out["y_train"])


@pytest.mark.parametrize("labels_first, sparse", [(True, True), (False, False), (True, False)])
def test_load_mat_reads_either_orientation(tmp_path, labels_first, sparse):
    rng = np.random.RandomState(0)
    X = rng.randn(7, 4)
    y = np.array([0, 1, 2, 1, 0, 2, 1])
    T = np.eye(3)[y]
    S = T.copy()
    S[:, 0] = 1
    if labels_first:
        T, S = T.T, S.T
    if sparse:
        T, S = sp.csc_matrix(T), sp.csc_matrix(S)
    path = tmp_path / "set.mat"
    scipy.io.savemat(path, {"data": X, "target": T, "partial_target": S})
    d = load_mat(path)
    np.testing.assert_allclose(d.X_train, X)
    assert d.y_train.tolist() == y.tolist() and d.S_train.mask.shape == (7, 3) and d.S_train.mask[:, 0].all()


def test_load_mat_without_target_and_bad_files(tmp_path):
    path = tmp_path / "nolabels.mat"
    scipy.io.savemat(path, {"data": np.ones((3, 2)), "partial_target": np.array([[1, 0], [1, 1], [0, 1]])})
    assert load_mat(path).y_train.tolist() == [-1, -1, -1]
    bad = tmp_path / "bad.mat"
    scipy.io.savemat(bad, {"data": np.ones((3, 2)), "partial_target": np.zeros((4, 2))})
    with pytest.raises(ValueError, match="no side of the 3 samples"):
        load_mat(bad)
    empty = tmp_path / "empty.mat"
    scipy.io.savemat(empty, {"data": np.ones((2, 2)), "partial_target": np.array([[1, 0], [0, 0]])})
    with pytest.raises(ValueError, match="sample 1 has an empty candidate set"):
        load_mat(empty)
    (tmp_path / "text.mat").write_text("not matlab")
    with pytest.raises(ValueError, match="not a MATLAB .mat file"):
        load_mat(tmp_path / "text.mat")
    with pytest.raises(FileNotFoundError, match="no candidate-label file"):
        load_mat(tmp_path / "absent.mat")
