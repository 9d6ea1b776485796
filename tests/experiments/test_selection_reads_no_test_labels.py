"""No reproduction chooses anything with the labels it is scored on: each reproduction's cell
is run twice, once with its test labels replaced by others (every class moved by one), and
every choice the cell records (hyper-parameters, validation scores, selected grid points,
the end models' strengths, leave-one-set-out defaults) must come out the same. A selection
path that read a test label would change with them.

Covered: pll-realworld (grid, likelihood, approximated-accuracy and in-fit selections),
wrench (label models selected on held-out votes, end models' strengths by agreement) and
sources-corpus (the leave-one-set-out choice of a matrix's default).
"""

import numpy as np
import pytest

from weaklabel.experiments import pll_realworld, sources_corpus, wrench

pytestmark = pytest.mark.data("lost")


def _shifted(y, rows, K):
    y = np.array(y, copy=True)
    y[rows] = (y[rows] + 1) % K
    return y


@pytest.mark.parametrize("method", ["avg-perceptron", "max-pegasos", "proden", "proden-ll", "proden-aa", "pl-knn",
                                    "perceptron"])
def test_pll_realworld_choices_do_not_move_with_the_test_labels(method, monkeypatch):
    config = {"dataset": "lost", "split": 0, "method": method, "passes": 2,
              "grid": pll_realworld._grid(method, True)}
    honest = pll_realworld.split_cell(config)
    split = pll_realworld.pll_split

    def other_test_labels(name, seed):
        X, y, S, train, test, val, fit_part = split(name, seed)
        return X, _shifted(y, test, S.mask.shape[1]), S, train, test, val, fit_part

    monkeypatch.setattr(pll_realworld, "pll_split", other_test_labels)
    shifted = pll_realworld.split_cell(config)
    assert shifted["chosen"] == honest["chosen"]
    assert shifted["val_errors"] == honest["val_errors"]
    assert shifted["accuracy"] != honest["accuracy"]           # the test labels were read, for the score


@pytest.mark.parametrize("model", ["pv-sel", "mc-sel", "pv"])
def test_wrench_choices_do_not_move_with_the_test_labels(model, monkeypatch):
    config = {"dataset": "youtube", "model": model, "quick": False}         # every end-model strength tried
    honest = wrench.wrench_cell(config)
    vote_set = wrench._vote_set

    def other_test_labels(name):
        data, X = vote_set(name)
        y = dict(data.y)
        y["test"] = _shifted(y["test"], np.arange(y["test"].size), len(data.classes))
        return type(data)(data.name, data.L, y, data.texts, data.classes, data.repairs), X

    monkeypatch.setattr(wrench, "_vote_set", other_test_labels)
    shifted = wrench.wrench_cell(config)
    for key in ("selected", "end_soft_alpha", "end_hard_alpha"):
        assert shifted.get(key) == honest.get(key), key
    assert shifted["test"] != honest["test"]


def test_a_matrix_default_does_not_move_with_its_own_labels():
    """Leave-one-set-out: whatever a matrix's own grid scores are, its chosen grid point is
    the same (the other matrices choose it)."""
    rng = np.random.RandomState(0)
    names = [f"m{k}" for k in range(6)]
    results = {n: {"default": {"mv": float(rng.rand())},
                   "grid": {key: rng.rand(len(grid)).tolist() for key, (_, grid) in sources_corpus.GRIDS.items()}}
               for n in names}
    for key in sources_corpus.GRIDS:
        chosen = sources_corpus.choose(results, key, names)
        for n in names:
            scrambled = {**results, n: {"default": {"mv": 0.5},
                                        "grid": {k: rng.rand(len(v)).tolist() for k, v in results[n]["grid"].items()}}}
            assert sources_corpus.choose(scrambled, key, names)[n] == chosen[n]


def test_the_check_catches_a_selection_made_on_test_labels():
    """The negative control: a grid choice by test accuracy moves when the test labels do."""
    rng = np.random.RandomState(1)
    y = rng.randint(0, 3, 200)
    test = np.arange(100, 200)
    predictions = {"a": np.where(rng.rand(200) < 0.8, y, (y + 1) % 3), "b": (y + 1) % 3}

    def choose_on_test(labels):
        return max(predictions, key=lambda k: np.mean(predictions[k][test] == labels[test]))

    assert choose_on_test(y) != choose_on_test(_shifted(y, test, 3))
