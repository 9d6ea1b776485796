"""Simulated candidate sets (simulate/candidate_sets.py): the true label and distractors drawn
uniformly, exact set sizes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from weaklabel.simulate import make_candidate_sets


@given(arrays(np.int64, st.integers(1, 60), elements=st.integers(0, 6)),
       st.integers(0, 2**31 - 1), st.data())
@settings(max_examples=100, deadline=None)
def test_simulated_sets_contain_truth_with_exact_sizes(y, seed, data):
    size = data.draw(st.integers(1, 7))
    S = make_candidate_sets(y, size, classes=range(7), random_state=seed)
    assert S.contains(y).all()
    assert (S.sizes == size).all()
    S2 = make_candidate_sets(y, size, classes=range(7), random_state=seed)
    assert S2 == S


def test_simulated_distractors_are_uniform():
    y = np.zeros(20000, int)
    S = make_candidate_sets(y, 3, classes=range(5), random_state=0)
    freq = S.mask[:, 1:].mean(axis=0)            # each other class: 2/4 of the time
    assert np.allclose(freq, 0.5, atol=0.02)


def test_simulator_errors():
    with pytest.raises(ValueError, match="set_size must be <= the number of classes \\(3\\)"):
        make_candidate_sets([0, 1, 2], 4)
    with pytest.raises(ValueError, match="set_size must be an integer >= 1"):
        make_candidate_sets([0, 1, 2], 0)
