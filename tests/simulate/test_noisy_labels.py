"""Simulated label noise (simulate/noisy_labels.py): confusion matrices and the labels drawn
through them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from weaklabel.simulate import confusion_family, noisy_labels, random_stochastic_matrix


@given(st.integers(2, 6), st.integers(0, 2**31 - 1), st.sampled_from([0, 1, 5, 10, 20]))
@settings(max_examples=50, deadline=None)
def test_confusion_family_is_column_stochastic(Q, seed, i):
    C = confusion_family(Q, i, random_state=seed)
    assert (C >= 0).all()
    assert_allclose(C.sum(axis=0), 1.0)
    if i == 0:
        assert_allclose(C, np.eye(Q))
    M = random_stochastic_matrix(Q, random_state=seed)
    assert_allclose(confusion_family(Q, 10, M=M), M, atol=1e-12)   # i = 10 gives M


def test_noisy_labels_follow_the_columns():
    C = confusion_family(4, 6, random_state=0)
    y = np.repeat(np.arange(4), 20000)
    yn = noisy_labels(y, C, random_state=1)
    emp = np.array([[np.mean(yn[y == q] == p) for q in range(4)] for p in range(4)])
    assert_allclose(emp, C, atol=0.015)
    assert (noisy_labels(y, C, random_state=1) == yn).all()
    with pytest.raises(ValueError, match="columns must each sum to 1"):
        noisy_labels(y, C.T * 2)
