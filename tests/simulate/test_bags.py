"""The bag simulator (weaklabel.simulate.bags): the protocol of the candidate-labeling paper."""

import numpy as np
import pytest

from weaklabel.simulate import bags as simulate_bags


@pytest.mark.parametrize("pc,pa", [(0.0, 0.0), (0.5, 0.5), (0.25, 0.0)])
def test_simulated_bags_follow_the_protocol(pc, pa):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, size=503)
    B = simulate_bags(y, bag_size=5, n_labelings=6, p_correlated=pc, p_ambiguous=pa, random_state=1)
    assert B.n_bags == 101 and (B.bag_sizes[:-1] == 5).all() and B.bag_sizes[-1] == 3
    assert B.contains(y).all()                     # the true labeling is always a candidate
    assert B.n_labelings.max() == 6
    assert (B.n_labelings >= 5).mean() > 0.9
    for i in range(B.n_bags):
        Z = B.labelings(i)
        true = y[B.bag_rows(i)]
        amb = set(true.tolist())
        for z in Z:
            changed = z != true
            # changed elements take labels of the ambiguous set (true labels of the bag, or
            # with pa > 0 possibly their ambiguous partners), never their own true label
            if pa == 0:
                assert set(z[changed].tolist()) <= amb
        assert np.unique(Z, axis=0).shape[0] == Z.shape[0]


def test_simulator_correlated_pairs_share_bags_more_often():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, size=4000)

    def share(pc):
        B = simulate_bags(y, bag_size=4, n_labelings=2, p_correlated=pc, random_state=3)
        # fraction of bags holding two different classes that appear together often
        counts = np.zeros((10, 10))
        for i in range(B.n_bags):
            cls = np.unique(y[B.bag_rows(i)])
            for a in cls:
                for b in cls:
                    if a != b:
                        counts[a, b] += 1
        return np.sort(counts.ravel())[-10:].mean() / counts[counts > 0].mean()

    assert share(0.5) > share(0.0) * 1.3


def test_simulator_is_seeded_and_checks_args():
    y = np.arange(20) % 4
    a = simulate_bags(y, 3, 4, 0.5, 0.5, random_state=0)
    b = simulate_bags(y, 3, 4, 0.5, 0.5, random_state=0)
    assert np.array_equal(a.bag_of, b.bag_of) and np.array_equal(a.Z, b.Z)
    with pytest.raises(ValueError, match="p_correlated must be a probability"):
        simulate_bags(y, 3, 4, p_correlated=1.5)
    with pytest.raises(ValueError, match="bag_size"):
        simulate_bags(y, 0, 4)
    with pytest.raises(ValueError, match="n_labelings"):
        simulate_bags(y, 3, 0)
