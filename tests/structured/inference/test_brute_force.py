"""Exhaustive MAP (inference/brute_force.py), the tests' referee: a hand-checked problem, the
first maximiser in lexicographic order, and the refusal of large problems."""

import numpy as np
import pytest

from weaklabel.structured.inference import brute_force, energy


def test_brute_force_finds_the_hand_computed_map_and_breaks_ties_lexicographically():
    U = np.array([[1.0, 0.0], [0.0, 0.5], [0.2, 0.0]])
    P = np.array([[0.0, 0.0], [0.0, 1.0]])                         # the pair (1, 1) earns 1 on each edge
    res = brute_force(U, P)                                       # the chain 0-1-2
    # (0,1,0): 1 + .5 + .2 = 1.7; (1,1,1): 0 + .5 + 0 + 2 = 2.5; (0,1,1): 1.0 + .5 + 0 + 1 = 2.5 (first)
    assert res.labels.tolist() == [0, 1, 1] and res.value == pytest.approx(2.5) and res.certified and res.bound == res.value
    assert energy(U, P, None, res.labels) == pytest.approx(res.value)
    tie = brute_force(np.zeros((2, 3)), np.zeros((3, 3)))
    assert tie.labels.tolist() == [0, 0]


def test_brute_force_reads_a_table_per_edge_on_any_graph():
    rng = np.random.RandomState(0)
    E = np.array([[0, 1], [1, 2], [0, 2]])
    U, P = rng.randn(3, 3), rng.randn(3, 3, 3)
    res = brute_force(U, P, E)
    values = [energy(U, P, E, np.array(y)) for y in np.ndindex(3, 3, 3)]
    assert res.value == pytest.approx(max(values))


def test_brute_force_refuses_more_than_two_million_labelings():
    with pytest.raises(ValueError, match="brute_force would enumerate 3\\^30 labelings"):
        brute_force(np.zeros((30, 3)), np.zeros((3, 3)))
