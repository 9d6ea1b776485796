"""Simulated bandit feedback (simulate/bandit.py): one-bit answers to proposals, and sets of
acceptable labels with a fixed partner per class."""

import numpy as np
import pytest

from weaklabel.simulate import acceptable_labels, bandit_feedback


def test_feedback_says_whether_each_proposal_is_the_label():
    y = np.array(["a", "b", "c", "b", "a"])
    fb = bandit_feedback(y, proposed=["a", "c", "c", "a", "b"])
    assert fb.proposed.tolist() == ["a", "c", "c", "a", "b"]
    assert fb.correct.tolist() == [True, False, True, False, False]


def test_uniform_proposals_are_seeded_and_cover_every_class_evenly():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 4, 20_000)
    fb = bandit_feedback(y, classes=np.arange(5), random_state=1)      # a class absent from y is proposed too
    np.testing.assert_array_equal(fb.proposed, bandit_feedback(y, classes=np.arange(5), random_state=1).proposed)
    shares = np.bincount(fb.proposed, minlength=5) / y.size
    np.testing.assert_allclose(shares, 0.2, atol=0.01)
    np.testing.assert_array_equal(fb.correct, fb.proposed == y)
    assert fb.correct.mean() == pytest.approx(0.2, abs=0.01)


def test_a_proposal_is_right_when_its_row_accepts_it():
    S = [[0, 1], [1], [1, 2], [0]]
    assert bandit_feedback(S, proposed=[1, 2, 2, 0]).correct.tolist() == [True, False, True, True]
    mask = np.array([[True, True, False], [False, True, False]])
    assert bandit_feedback(mask, proposed=[0, 0]).correct.tolist() == [True, False]


def test_bad_inputs_are_one_line_errors_naming_the_argument():
    with pytest.raises(ValueError, match="proposed must have one label per row"):
        bandit_feedback([0, 1, 2], proposed=[0, 1])
    with pytest.raises(ValueError, match="y must be 1-D labels or candidate sets"):
        bandit_feedback(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="proposed"):
        bandit_feedback([0, 1, 2], proposed=[0, 1, 7])                  # not a class


def test_acceptable_sets_hold_the_label_and_with_probability_p_its_fixed_partner():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 6, 30_000)
    S = acceptable_labels(y, p=0.3, random_state=2).mask
    assert S[np.arange(y.size), y].all()
    sizes = S.sum(axis=1)
    assert set(np.unique(sizes)) == {1, 2}
    assert (sizes == 2).mean() == pytest.approx(0.3, abs=0.01)
    partners = {k: set(np.flatnonzero(S[(y == k) & (sizes == 2)].any(axis=0))) - {k} for k in range(6)}
    assert all(len(v) == 1 for v in partners.values())                 # one partner a class, never itself
    again = acceptable_labels(y, p=0.3, random_state=3).mask            # other draws, the same pairing
    assert {k: set(np.flatnonzero(again[(y == k)].any(axis=0))) - {k} for k in range(6)} == partners
    assert acceptable_labels(y[:10], p=0.0).sizes.tolist() == [1] * 10
    assert acceptable_labels(y[:10], p=1.0).sizes.tolist() == [2] * 10


def test_acceptable_labels_refuses_a_bad_probability_and_one_class():
    with pytest.raises(ValueError, match="p must be a probability"):
        acceptable_labels([0, 1], p=1.5)
    with pytest.raises(ValueError, match="at least 2 classes"):
        acceptable_labels([0, 0, 0])
