import io

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from weaklabel import BagCandidates, BanditFeedback, CandidateSets, dump_candidate_svmlight, load_candidate_svmlight
from weaklabel.simulate import make_candidate_sets


def test_constructors_agree():
    m = np.array([[1, 0, 1], [0, 1, 0]], bool)
    a = CandidateSets.from_mask(m, classes=[10, 20, 30])
    b = CandidateSets.from_lists([[10, 30], [20]], classes=[10, 20, 30])
    assert a == b
    assert a.sizes.tolist() == [2, 1]
    assert len(a) == 2 and a.n_classes == 3
    assert a[0].tolist() == [10, 30]
    assert a[1:].to_lists() == [[20]]
    assert a[np.array([True, False])].to_lists() == [[10, 30]]
    assert a.contains([30, 10]).tolist() == [True, False]


def test_from_labels_complementary_bandit():
    s = CandidateSets.from_labels(["b", "a", "b"])
    assert s.classes_.tolist() == ["a", "b"] and s.sizes.tolist() == [1, 1, 1]
    c = CandidateSets.from_complementary([0, 2], classes=[0, 1, 2])
    assert c.to_lists() == [[1, 2], [0, 1]]
    f = CandidateSets.from_bandit([1, 2, 0], [True, False, False], classes=[0, 1, 2])
    assert f.to_lists() == [[1], [0, 1], [1, 2]]
    fb = BanditFeedback([1, 2], [1, 0])
    assert fb.correct.dtype == bool and len(fb) == 2


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"empty candidate sets at rows \[1\]"):
        CandidateSets.from_mask([[1, 0], [0, 0]])
    with pytest.raises(ValueError, match=r"label\(s\) \[5\]"):
        CandidateSets.from_lists([[1], [5]], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="mask with 2 columns, but there are 3 classes"):
        CandidateSets.from_mask([[1, 0]], classes=[0, 1, 2])
    with pytest.raises(TypeError, match="list of label lists"):
        CandidateSets.from_lists([1, 2])
    with pytest.raises(ValueError, match="only 0/1"):
        CandidateSets.from_mask([[2, 0]])
    with pytest.raises(ValueError, match="correct must have the shape"):
        BanditFeedback([1, 2], [True])


def test_mask_is_read_only():
    s = CandidateSets.from_lists([[0], [1]])
    with pytest.raises(ValueError):
        s.mask[0, 0] = False


def test_svmlight_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(30, 7, density=0.4, random_state=0, format="csr")
    S = make_candidate_sets(rng.integers(0, 5, 30), 3, classes=range(5), random_state=1)
    path = tmp_path / "cands.svm"
    dump_candidate_svmlight(X, S, path)
    first = path.read_text().splitlines()[0]
    assert first.split()[0].count(",") == 2
    X2, S2 = load_candidate_svmlight(path, n_features=7, classes=range(5))
    assert_array_equal(X2.toarray(), X.toarray())
    assert S2 == S


def test_svmlight_parses_the_documented_form():
    X, S = load_candidate_svmlight(io.BytesIO(b"2,5,7 1:0.3 4:1.2\n3 2:1\n"))
    assert S.to_lists() == [[2, 5, 7], [3]]
    assert X.shape == (2, 4) and X[0, 3] == 1.2


def test_dump_writes_the_1_based_indices_its_docstring_names():
    import io

    buf = io.BytesIO()
    dump_candidate_svmlight(np.array([[1.0, 0.0, 2.0]]), [[0, 1]], buf)
    assert buf.getvalue() == b"0,1 1:1 3:2\n"
    assert "1-based feature indices" in dump_candidate_svmlight.__doc__


# ---- BagCandidates ----

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
