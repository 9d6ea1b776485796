"""The exact loss-augmented search of MMS against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.bags import most_violating_labeling

from ._reference import brute_force


@st.composite
def bag(draw):
    M = draw(st.integers(1, 4))
    C = draw(st.integers(2, 5))
    L = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["gauss", "zero", "int", "scaled"]))
    if kind == "gauss":
        S = rng.normal(size=(M, C))
    elif kind == "zero":
        S = np.zeros((M, C))
    elif kind == "int":
        S = rng.integers(-2, 3, size=(M, C)).astype(float)
    else:
        S = rng.normal(scale=0.1, size=(M, C))
    # candidates: a true vector and perturbations (sometimes every labeling)
    Z = rng.integers(0, C, size=(L, M))
    if draw(st.booleans()):
        Z[1:] = Z[0]
        for l in range(1, L):
            k = rng.integers(1, M + 1)
            pos = rng.choice(M, k, replace=False)
            Z[l, pos] = rng.integers(0, C, size=k)
    return S, np.unique(Z, axis=0)


@settings(max_examples=300, deadline=None)
@given(bag())
def test_search_is_exact_and_canonical(b):
    S, Z = b
    v_ref, z_ref = brute_force(S, Z)
    v, z = most_violating_labeling(S, Z)
    if z_ref is None:
        assert v == -np.inf
        assert (z == -1).all()
        return
    assert v == pytest.approx(v_ref, abs=1e-9)
    assert np.array_equal(z, z_ref)
    # the returned labeling achieves the value and is not a candidate
    assert not any(np.array_equal(z, c) for c in Z)
    ham = min(int(np.sum(z != c)) for c in Z)
    assert S[np.arange(S.shape[0]), z].sum() + ham == pytest.approx(v, abs=1e-9)
    # the non-canonical (single-pass) search finds the same maximum
    v1, z1 = most_violating_labeling(S, Z, canonical=False)
    assert v1 == pytest.approx(v_ref, abs=1e-9)
    assert S[np.arange(S.shape[0]), z1].sum() + min(int(np.sum(z1 != c)) for c in Z) == pytest.approx(v, abs=1e-9)


@pytest.mark.slow
def test_search_on_random_larger_bags_vs_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(40):
        M, C, L = 6, 4, int(rng.integers(1, 12))
        S = rng.normal(scale=rng.choice([0.05, 0.5, 3.0]), size=(M, C))
        Z = np.unique(rng.integers(0, C, size=(L, M)), axis=0)
        v_ref, z_ref = brute_force(S, Z)
        v, z = most_violating_labeling(S, Z)
        assert v == pytest.approx(v_ref, abs=1e-9)
        assert np.array_equal(z, z_ref)


def test_every_labeling_a_candidate_gives_minus_inf():
    Z = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    v, z = most_violating_labeling(np.ones((2, 2)), Z)
    assert v == -np.inf and (z == -1).all()


def test_zero_scores_value_is_largest_min_hamming():
    # at w = 0 the violator is the labeling farthest (in min Hamming) from all candidates
    Z = np.array([[0, 1, 2], [1, 0, 2]])
    v, z = most_violating_labeling(np.zeros((3, 3)), Z)
    assert v == 3.0 and z.tolist() == [2, 2, 0]


def test_search_inputs_are_checked():
    with pytest.raises(ValueError, match="labelings must hold class indices in 0..2"):
        most_violating_labeling(np.zeros((2, 3)), [[0, 3]])
    with pytest.raises(ValueError, match="labelings must be 2-D"):
        most_violating_labeling(np.zeros((2, 3)), [[0, 1, 2]])
    with pytest.raises(ValueError, match="NaN"):
        most_violating_labeling(np.full((1, 2), np.nan), [[0]])
    with pytest.raises(TypeError, match="integers"):
        most_violating_labeling(np.zeros((1, 2)), [[0.5]])
