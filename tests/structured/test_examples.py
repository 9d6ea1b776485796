"""Structured examples in the kernels' flat layout (structured/_examples.py): fixed-size and
own-length examples, their own graphs, labels, missing labels and candidate masks, and the
one-line errors that name the example and node."""

import numpy as np
import pytest

from weaklabel.structured import chain_graph
from weaklabel.structured._examples import check_examples, check_labels


def test_fixed_size_and_own_length_examples_share_one_flat_layout():
    ex = check_examples(np.array([[1, 2, 0], [0, 1, 2]]), None)
    assert ex.fixed and ex.chain and ex.sym and ex.m == 2 and ex.sizes.tolist() == [3, 3]
    assert ex.Xs.tolist() == [1, 2, 0, 0, 1, 2] and ex.edges_of(1).tolist() == [[0, 1], [1, 2]]
    assert ex.split(np.arange(6)).tolist() == [[0, 1, 2], [3, 4, 5]]
    own = check_examples([np.array([0, 1, 2]), np.array([1, 2])], None)
    assert not own.fixed and own.chain and own.off.tolist() == [0, 3, 5] and own.max_nodes == 3
    assert [a.tolist() for a in own.split(np.arange(5))] == [[0, 1, 2], [3, 4]]
    graphs = check_examples([(np.array([0, 1, 2]), np.array([[0, 2], [1, 2]])), (np.array([1, 0]), np.array([[0, 1]]))],
                            None)
    assert not graphs.chain and graphs.eoff.tolist() == [0, 2, 3] and graphs.edges_of(0).tolist() == [[0, 2], [1, 2]]
    features = check_examples(np.random.RandomState(0).rand(2, 3, 4), None)
    assert not features.sym and features.F.shape == (6, 4) and features.n_features == 4


def test_labels_missing_labels_and_candidate_masks_are_coded_per_node():
    ex = check_examples(np.array([[1, 2, 0], [0, 1, 2]]), chain_graph(3))
    A, C, K = check_labels(np.array([[0, 1, -1], [1, 0, 1]]), ex, None)
    assert K == 2 and A.tolist()[:3] == [0, 1, -1] and C.shape == (1, 2)
    M = np.ones((2, 3, 3), dtype=bool)
    M[0, 0] = [True, False, False]                     # one candidate: the label itself
    M[1, 1] = [True, True, False]                      # a candidate set
    A, C, K = check_labels(M, ex, None)
    assert K == 3 and A[0] == 0 and C.shape == (6, 3)
    assert C[4].tolist() == [True, True, False] and A[1] == A[5] != A[4]   # every class: missing; two: a set


@pytest.mark.parametrize("Y, match", [
    (np.array([[0, 1, -2], [1, 0, 1]]), r"Y\[0, 2\] = -2"),
    (np.array([[0, 1], [1, 0]]), "Y must have the shape of X"),
    (np.array([[0, 3, -1], [1, 0, 1]]), r"Y\[0, 1\] = 3 is not a label"),
])
def test_bad_labels_are_one_line_errors_naming_the_node(Y, match):
    ex = check_examples(np.array([[1, 2, 0], [0, 1, 2]]), None)
    with pytest.raises(ValueError, match=match):
        check_labels(Y, ex, 2)


def test_bad_examples_are_one_line_errors_naming_the_example():
    with pytest.raises(ValueError, match="X needs at least one example"):
        check_examples([], None)
    with pytest.raises(ValueError, match="mixes examples with their own graph"):
        check_examples([(np.array([0, 1]), np.array([[0, 1]])), np.array([1, 0])], None)
    with pytest.raises(ValueError, match=r"example 1's graph: edge 0 = \[0, 4\] names a node that does not exist"):
        check_examples([(np.array([0, 1]), np.array([[0, 1]])), (np.array([1, 0]), np.array([[0, 4]]))], None)
    with pytest.raises(ValueError, match=r"X\[1\] has no nodes"):
        check_examples([np.array([0, 1]), np.array([], dtype=int)], None)
