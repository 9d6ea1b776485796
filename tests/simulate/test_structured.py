"""The structured simulators: HMC, MAR annotation, second-source Sudoku puzzles."""

import numpy as np
import pytest

from weaklabel.simulate import hidden_markov_chain, hmc_model, missing_labels


def test_hmc_model_defaults_are_the_authors_chain():
    start, trans, emit = hmc_model(30)
    assert np.allclose(trans.sum(1), 1) and np.allclose(emit.sum(1), 1)
    # the authors' create_hmc_dataset.py: 0.7 to stay, 0.7 to emit the state, 0.3/29 elsewhere
    assert trans[0, 0] == 0.7 and emit[0, 0] == 0.7 and emit[0, 1] == pytest.approx(0.3 / 29)
    assert trans[0, 1] == pytest.approx(0.3 / 29)
    X, Y = hidden_markov_chain(400, length=50, random_state=0)
    assert np.mean(X == Y) == pytest.approx(0.7, abs=0.02)
    assert np.mean(Y[:, 1:] == Y[:, :-1]) == pytest.approx(0.7, abs=0.02)
    # the literal reading of the paper's text stays available
    _, trans5, emit5 = hmc_model(30, stay=0.5, match=0.5)
    assert trans5[0, 0] == 0.5 and emit5[0, 1] == pytest.approx(1 / 58)


def test_missing_labels_is_mar_and_keeps_given_cells():
    Y = np.arange(1000).reshape(100, 10) % 9
    A = missing_labels(Y, 0.3, random_state=0)
    assert np.mean(A == -1) == pytest.approx(0.3, abs=0.03)
    assert np.all((A == -1) | (A == Y))
    always = np.zeros_like(Y, dtype=bool)
    always[:, :5] = True
    A = missing_labels(Y, 1.0, always=always, random_state=0)
    assert np.all(A[:, :5] == Y[:, :5]) and np.all(A[:, 5:] == -1)
    with pytest.raises(ValueError, match="rate must be a probability"):
        missing_labels(Y, 1.5)


def _posterior_by_enumeration(x, K, stay, match):
    import itertools

    start, trans, emit = hmc_model(K, stay=stay, match=match)
    n = len(x)
    marg = np.zeros((n, K))
    joint = {}
    for y in itertools.product(range(K), repeat=n):
        p = start[y[0]] * emit[y[0], x[0]]
        for t in range(1, n):
            p *= trans[y[t - 1], y[t]] * emit[y[t], x[t]]
        marg[np.arange(n), y] += p
        joint[y] = p
    return marg, joint


@pytest.mark.parametrize("seed", range(5))
def test_hmc_bayes_rules_match_enumeration(seed):
    from weaklabel.simulate import hmc_bayes_predict

    K, stay, match = 3, 0.7, 0.6
    X, _ = hidden_markov_chain(4, length=5, n_states=K, random_state=seed, stay=stay, match=match)
    ham = hmc_bayes_predict(X, "marginal", n_states=K, stay=stay, match=match)
    vit = hmc_bayes_predict(X, "map", n_states=K, stay=stay, match=match)
    for i in range(X.shape[0]):
        marg, joint = _posterior_by_enumeration(X[i], K, stay, match)
        # (ties are possible: compare the probability of what was returned with the best)
        np.testing.assert_allclose(marg[np.arange(5), ham[i]], marg.max(1), rtol=1e-9)
        assert joint[tuple(vit[i].tolist())] == pytest.approx(max(joint.values()), rel=1e-9)
    with pytest.raises(ValueError, match="rule must be"):
        hmc_bayes_predict(X, "mode")


def test_hmc_bayes_hamming_rule_beats_the_map_rule_and_reading_the_symbol():
    from weaklabel.simulate import hmc_bayes_predict

    X, Y = hidden_markov_chain(300, random_state=0)
    ham = np.mean(hmc_bayes_predict(X, "marginal") != Y)
    vit = np.mean(hmc_bayes_predict(X, "map") != Y)
    # the authors' chain: Bayes (Hamming) 20.2 %, reading the symbol 29.8 % (issue 17)
    assert ham == pytest.approx(0.202, abs=0.01) and np.mean(X != Y) == pytest.approx(0.298, abs=0.01)
    assert ham < vit < np.mean(X != Y)
    X5, Y5 = hidden_markov_chain(300, random_state=0, stay=0.5, match=0.5)
    ham5 = np.mean(hmc_bayes_predict(X5, "marginal", stay=0.5, match=0.5) != Y5)
    vit5 = np.mean(hmc_bayes_predict(X5, "map", stay=0.5, match=0.5) != Y5)
    assert ham5 < np.mean(X5 != Y5) < vit5      # 0.47 < 0.50 < 0.59 on the literal reading


def test_visual_sudoku_draws_images_of_the_right_digit():
    from weaklabel.simulate import visual_sudoku

    rng = np.random.default_rng(0)
    digits = rng.integers(0, 10, size=200)
    images = (digits[:, None, None] * np.ones((200, 2, 2))).astype(np.uint8) + 1
    X = rng.integers(0, 10, size=(5, 81))
    V = visual_sudoku(X, images, digits, random_state=0)
    assert V.shape == (5, 81, 2, 2)
    assert np.all(V[X == 0] == 0)
    assert np.all(V[X > 0][:, 0, 0] == X[X > 0] + 1)
    with pytest.raises(ValueError, match="no image"):
        visual_sudoku(X, images[digits != 3], digits[digits != 3])
    with pytest.raises(ValueError, match="one label per image"):
        visual_sudoku(X, images, digits[:5])


def test_node_candidate_sets_hold_the_truth_and_the_asked_distractors():
    from weaklabel.simulate import markov_chains_of_lengths, node_candidate_sets

    X, Y = markov_chains_of_lengths(np.array([3, 50, 1, 20] * 50), 6, random_state=0)
    assert [x.size for x in X[:4]] == [3, 50, 1, 20] and all(x.shape == y.shape for x, y in zip(X, Y))
    M = node_candidate_sets(Y, 6, n_distractors=2, missing_rate=0.25, random_state=0)
    flat, Mf = np.concatenate(Y), np.concatenate(M)
    assert Mf[np.arange(flat.size), flat].all()                      # the true label is always in
    sizes = Mf.sum(1)
    assert set(np.unique(sizes)) == {3, 6}
    assert abs(np.mean(sizes == 6) - 0.25) < 0.03
    # distractors follow the confusion weights: label y's only confusable label is y+1
    conf = np.roll(np.eye(6), 1, axis=1)
    Mc = node_candidate_sets(Y, 6, n_distractors=1, confusion=conf, random_state=1)
    Mc = np.concatenate(Mc)
    assert Mc[np.arange(flat.size), (flat + 1) % 6].all() and (Mc.sum(1) == 2).all()
    with pytest.raises(ValueError, match="n_distractors must be at most"):
        node_candidate_sets(Y, 6, n_distractors=6)
    with pytest.raises(ValueError, match="missing_rate"):
        node_candidate_sets(Y, 6, missing_rate=1.5)
