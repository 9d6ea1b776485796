"""What every inference function checks of its inputs (weaklabel.structured.inference._common)."""

import numpy as np
import pytest

from weaklabel.structured import grid_graph
from weaklabel.structured.inference import brute_force, lp_map, viterbi


def test_inputs_are_checked():
    with pytest.raises(ValueError, match="names a node that does not exist"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 3]])
    with pytest.raises(ValueError, match="self-loop"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[1, 1]])
    with pytest.raises(ValueError, match="repeat the pair"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="pairwise must have shape"):
        lp_map(np.zeros((3, 2)), np.zeros((3, 3)), [[0, 1]])
    with pytest.raises(ValueError, match="viterbi needs the chain"):
        viterbi(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 2], [1, 2]])
    with pytest.raises(ValueError, match="finite"):
        viterbi(np.full((2, 2), np.nan), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="brute_force"):
        brute_force(np.zeros((30, 3)), np.zeros((3, 3)))
    assert grid_graph(2, 2).n_edges == 4
