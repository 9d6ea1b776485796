"""BagCandidates, the bag simulator, caption labelings and the CL-SVM baseline."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from weaklabel import BagCandidates, CandidateSets
from weaklabel.bags import CandidateLabelSVM, caption_labelings
from weaklabel.simulate import bags as simulate_bags


# ---- BagCandidates -----------------------------------------------------------------------
def test_bag_candidates_layout():
    B = BagCandidates([1, 0, 1, 0, 1], [[[7, 8]], [[1, 2, 3], [3, 2, 1], [1, 2, 3]]])
    assert B.n_bags == 2 and B.n_rows == 5
    assert B.bag_sizes.tolist() == [2, 3]
    assert B.n_labelings.tolist() == [1, 2]            # repeats dropped
    assert B.bag_rows(1).tolist() == [0, 2, 4]
    assert B.classes_.tolist() == [1, 2, 3, 7, 8]
    assert sorted(map(tuple, B.labelings(1).tolist())) == [(1, 2, 3), (3, 2, 1)]
    assert B.instance_candidates().to_lists() == [[1, 3], [7], [2], [8], [1, 3]]
    assert B.contains([1, 7, 2, 8, 3]).tolist() == [True, True]
    assert B.contains([3, 7, 2, 8, 3]).tolist() == [True, False]
    sub, rows = B.subset([1])
    assert rows.tolist() == [0, 2, 4] and sub.n_bags == 1 and sub.bag_of.tolist() == [0, 0, 0]
    assert np.array_equal(sub.classes_, B.classes_)


def test_bag_candidates_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"labelings\[0\] has vectors of length 3 but bag 0 has 2 rows"):
        BagCandidates([0, 0], [[[1, 2, 3]]])
    with pytest.raises(ValueError, match=r"labelings\[1\] is empty"):
        BagCandidates([0, 1], [[[1]], np.zeros((0, 1), int)])
    with pytest.raises(ValueError, match=r"bags \[1\] have no row"):
        BagCandidates([0, 0, 2], [[[1, 2]], [[1]], [[3]]])
    with pytest.raises(ValueError, match="bag_of must hold ids in 0..0"):
        BagCandidates([0, 1], [[[1, 2]]])
    with pytest.raises(ValueError, match=r"not in classes \[0, 1\]"):
        BagCandidates([0], [[[5]]], classes=[0, 1])
    with pytest.raises(TypeError, match="integer bag ids"):
        BagCandidates(["a"], [[[1]]])
    with pytest.raises(ValueError, match="NaN"):
        BagCandidates([0], [[[np.nan]]])


def test_bag_candidates_from_labels_and_sets():
    B = BagCandidates.from_labels([5, 6, 5], [0, 0, 1])
    assert B.n_labelings.tolist() == [1, 1] and B.contains([5, 6, 5]).all()
    S = CandidateSets.from_lists([[0, 2], [1]])
    B = BagCandidates.from_candidate_sets(S)
    assert B.bag_sizes.tolist() == [1, 1] and B.n_labelings.tolist() == [2, 1]
    assert B.instance_candidates() == S


# ---- simulator -------------------------------------------------------------------------
@pytest.mark.parametrize("pc,pa", [(0.0, 0.0), (0.5, 0.5), (0.25, 0.0)])
def test_simulated_bags_follow_the_protocol(pc, pa):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, size=503)
    B = simulate_bags(y, bag_size=5, n_labelings=6, p_correlated=pc, p_ambiguous=pa, random_state=1)
    assert B.n_bags == 101 and (B.bag_sizes[:-1] == 5).all() and B.bag_sizes[-1] == 3
    assert B.contains(y).all()                     # the true labeling is always a candidate
    assert B.n_labelings.max() == 6
    assert (B.n_labelings >= 5).mean() > 0.9
    for i in range(B.n_bags):
        Z = B.labelings(i)
        true = y[B.bag_rows(i)]
        amb = set(true.tolist())
        for z in Z:
            changed = z != true
            # changed elements take labels of the ambiguous set (true labels of the bag, or
            # with pa > 0 possibly their ambiguous partners), never their own true label
            if pa == 0:
                assert set(z[changed].tolist()) <= amb
        assert np.unique(Z, axis=0).shape[0] == Z.shape[0]


def test_simulator_correlated_pairs_share_bags_more_often():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, size=4000)

    def share(pc):
        B = simulate_bags(y, bag_size=4, n_labelings=2, p_correlated=pc, random_state=3)
        # fraction of bags holding two different classes that appear together often
        counts = np.zeros((10, 10))
        for i in range(B.n_bags):
            cls = np.unique(y[B.bag_rows(i)])
            for a in cls:
                for b in cls:
                    if a != b:
                        counts[a, b] += 1
        return np.sort(counts.ravel())[-10:].mean() / counts[counts > 0].mean()

    assert share(0.5) > share(0.0) * 1.3


def test_simulator_is_seeded_and_checks_args():
    y = np.arange(20) % 4
    a = simulate_bags(y, 3, 4, 0.5, 0.5, random_state=0)
    b = simulate_bags(y, 3, 4, 0.5, 0.5, random_state=0)
    assert np.array_equal(a.bag_of, b.bag_of) and np.array_equal(a.Z, b.Z)
    with pytest.raises(ValueError, match="p_correlated must be a probability"):
        simulate_bags(y, 3, 4, p_correlated=1.5)
    with pytest.raises(ValueError, match="bag_size"):
        simulate_bags(y, 0, 4)
    with pytest.raises(ValueError, match="n_labelings"):
        simulate_bags(y, 3, 0)


# ---- captions ----------------------------------------------------------------------------
def test_caption_labelings_figure_2():
    Z = caption_labelings(2, ["na", "nb"], "o")
    figure2 = {("na", "nb"), ("na", "o"), ("o", "nb"), ("nb", "na"), ("o", "na"), ("nb", "o")}
    assert {tuple(r) for r in Z.tolist()} == figure2 and len(Z) == 6


@pytest.mark.parametrize("F,N", [(1, 1), (1, 3), (3, 2), (3, 3), (4, 2)])
def test_caption_labelings_count_and_rules(F, N):
    from math import comb, perm

    names = list(range(N))
    Z = caption_labelings(F, names, -1)
    assert len(Z) == sum(comb(F, k) * perm(N, k) for k in range(1, min(F, N) + 1))
    for r in Z:
        named = r[r != -1]
        assert named.size >= 1 and np.unique(named).size == named.size
    assert np.unique(Z, axis=0).shape[0] == len(Z)


def test_caption_labelings_errors():
    with pytest.raises(ValueError, match="names is empty"):
        caption_labelings(2, [], "o")
    with pytest.raises(ValueError, match="null_label"):
        caption_labelings(2, ["o"], "o")
    with pytest.raises(ValueError, match="n_faces"):
        caption_labelings(0, ["a"], "o")


# ---- CL-SVM ------------------------------------------------------------------------------
def test_cl_svm_is_one_vs_rest_on_candidate_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] > 0)
    B = simulate_bags(y, 3, 3, 0.0, 0.0, random_state=0)
    est = CandidateLabelSVM(C=0.5, random_state=0).fit(X, B)
    s = est.row_scale_                          # "auto": LIBLINEAR on X / s, C and the intercept rescaled
    assert s ** 2 == pytest.approx(np.mean(np.sum(X * X, axis=1)))
    mask = B.instance_candidates().mask
    for k in range(4):
        ref = LinearSVC(C=0.5 / s ** 2, loss="hinge", dual=True, max_iter=1000, tol=1e-4, intercept_scaling=s,
                        random_state=0).fit(X, mask[:, k].astype(int))
        np.testing.assert_allclose(est.coef_[k], ref.coef_[0], rtol=1e-6, atol=1e-8)
        assert est.intercept_[k] == pytest.approx(ref.intercept_[0], rel=1e-6, abs=1e-8)
    with pytest.raises(ValueError, match="The 'loss' parameter of CandidateLabelSVM must be a str among"):
        CandidateLabelSVM(loss="log").fit(X, B)


def test_cl_svm_persists(tmp_path):
    import weaklabel

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    est = CandidateLabelSVM(random_state=0).fit(X, simulate_bags(y, 2, 2, random_state=0))
    est.save(tmp_path / "cl.npz")
    back = weaklabel.load(tmp_path / "cl.npz")
    np.testing.assert_array_equal(back.coef_, est.coef_)
    assert back.n_iter_ == est.n_iter_
