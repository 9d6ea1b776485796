"""Exact MAP as an integer program (inference/milp.py) equals exhaustive search on small loopy
graphs, with one table for all edges or one per edge."""

import numpy as np
import pytest

from weaklabel.structured.graphs import grid_graph
from weaklabel.structured.inference import brute_force, energy, milp_map


@pytest.mark.parametrize("seed", range(6))
def test_milp_map_equals_brute_force_on_small_loopy_graphs(seed):
    rng = np.random.RandomState(seed)
    E = grid_graph(2, 3).edges
    U = rng.randn(6, 3)
    P = rng.randn(E.shape[0], 3, 3) * 2.0 if seed % 2 else rng.randn(3, 3) * 2.0      # frustrated couplings
    want = brute_force(U, P, E)
    got = milp_map(U, P, E)
    assert got.certified
    assert got.value == pytest.approx(want.value, abs=1e-9)
    assert energy(U, P, E, got.labels) == pytest.approx(got.value, abs=1e-9)
