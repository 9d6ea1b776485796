"""Vowpal Wabbit as a peer (experiments/_peers.py): its feature strings, and its contextual-bandit
learners learning through our protocol."""

import numpy as np
import pytest

from weaklabel.experiments._peers import have_vw, vw_cb_explore_pass, vw_cbify_pass, vw_features
from weaklabel.simulate import acceptable_labels


@pytest.mark.skipif(not have_vw(), reason="vowpalwabbit is in the dev/compare extras")
def test_vw_cbify_learns_with_string_feature_names():
    rng = np.random.RandomState(0)
    y = rng.randint(3, size=1500)
    X = np.eye(3)[y] * 2 + 0.1 * rng.randn(1500, 3)
    correct = vw_cbify_pass(vw_features(X), y, 3, 0.05, 0)
    assert correct.shape == (1500,) and correct[500:].mean() > 0.85


def test_vw_feature_strings_skip_zeros_and_keep_nine_digits():
    X = np.array([[0.5, 1 / 3, 2.0], [0.0, 0.25, 1e-12], [0.0, 0.0, 0.0]])
    assert vw_features(X) == ["f0:0.5 f1:0.333333333 f2:2", "f1:0.25 f2:1e-12", ""]
    import scipy.sparse as sp

    assert vw_features(sp.csr_matrix(X)) == vw_features(X)


@pytest.mark.skipif(not have_vw(), reason="vowpalwabbit is not installed")
def test_vw_cb_explore_learns_from_acceptable_sets():
    rng = np.random.RandomState(0)
    centers = rng.randn(4, 5) * 3
    y = rng.randint(4, size=2000)
    X = centers[y] + rng.randn(2000, 5)
    S = acceptable_labels(y, 0.5, classes=np.arange(4), random_state=1).mask
    right = vw_cb_explore_pass(vw_features(X), S, 4, 0.1, 0)
    assert right.shape == (2000,)
    assert right[1000:].mean() > 0.8 > right[:100].mean()     # learns, from near chance (about 0.3)
