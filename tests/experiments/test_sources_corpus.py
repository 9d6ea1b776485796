"""The sources-corpus reproduction's parts (experiments/sources_corpus.py): its simulated vote
matrices, one cell on a small crowd, the leave-one-set-out choice and the interval margin."""

import numpy as np
import pytest

from weaklabel.experiments import sources_corpus as sc


@pytest.mark.parametrize("name", sc.SIMULATED)
def test_simulated_matrices_are_seeded_with_votes_of_their_classes(name):
    m = sc.vote_matrix(name)
    assert m.fit is m.score and m.y.shape == (6000,) and m.fit.shape[0] == 6000
    votes = m.fit[m.fit >= 0]
    assert votes.size and votes.max() < m.n_classes and set(np.unique(m.fit)) <= set(range(-1, m.n_classes))
    again = sc.vote_matrix(name)                          # seeded: the same matrix every time
    np.testing.assert_array_equal(again.fit, m.fit)


def test_an_unknown_matrix_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown vote matrix 'nope'; known: youtube"):
        sc.vote_matrix("nope")


def test_leave_one_set_out_picks_the_best_worst_case_gain_on_the_other_sets():
    key = next(iter(sc.GRIDS))
    n_grid = len(sc.GRIDS[key][1])
    real = ["a", "b", "c"]
    gains = {"a": np.zeros(n_grid), "b": np.zeros(n_grid), "c": np.zeros(n_grid)}
    gains["a"][1] = gains["b"][1] = 0.1                   # point 1 helps a and b, hurts c
    gains["c"][1] = -0.2
    gains["c"][2] = gains["a"][2] = gains["b"][2] = 0.01  # point 2 helps everyone a little
    results = {n: {"default": {"mv": 0.5}, "grid": {key: (0.5 + g).tolist()}} for n, g in gains.items()}
    chosen = sc.choose(results, key, real)
    assert chosen["c"] == 1                               # chosen on a and b alone: c's own labels unseen
    assert chosen["a"] == chosen["b"] == 2 and chosen[None] == 2


def test_a_cell_on_a_small_crowd_scores_every_model_against_majority_vote():
    out = sc.corpus_cell({"matrix": "duck"})
    assert set(out["default"]) >= set(sc.MODELS)
    assert all(0 <= out["default"][k] <= 1 for k in sc.MODELS)
    assert all(len(out["grid"][k]) == len(grid) for k, (_, grid) in sc.GRIDS.items())
    assert out["real"] and out["sources"] > 1 and 0 < out["coverage"] <= 1
