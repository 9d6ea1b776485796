"""No reproduction chooses anything with the labels it is scored on: each reproduction's cell
is run twice, once with its test labels replaced by others (every class moved by one), and
every choice the cell records (hyper-parameters, validation scores, selected grid points,
the end models' strengths, leave-one-set-out defaults) must come out the same. A selection
path that read a test label would change with them.

Covered: pll-realworld (grid, likelihood, approximated-accuracy and in-fit selections),
mms-realworld (MMS's alpha, CL-SVM's cost), mms-artificial (CL-SVM's cost on held-out bags),
m3n-hmc (lambda on validation sequences), ocr-words (alpha or C on held-out training
words), uma-real (LR's alpha on S_conf, every trusted
weight by cross-validation over the trusted rows, the anchor and cleanlab columns),
visual-sudoku (alpha and the learning rate on validation puzzles: the test puzzles are
never built), wrench (label models selected on held-out votes, end models' strengths by
agreement) and sources-corpus (the leave-one-set-out choice of a matrix's default).

The online reproductions (partial-labels' tuning seeds aside, cspa-linear, cspa-kernel,
bandit-sets) report every learner at its best grid point over the runs, as their papers
do, and say so in their reports: there the reported figure is the selection criterion.
"""

import numpy as np
import pytest

from weaklabel.experiments import m3n_hmc, mms, pll_realworld, sources_corpus, uma, visual_sudoku, wrench

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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mms-tuned", "cl-svm"])
def test_mms_realworld_choices_do_not_move_with_the_test_labels(method, monkeypatch):
    config = {"dataset": "lost", "split": 0, "method": method, "passes": 2, "grid": [1.0, 10.0]}
    honest = mms.real_cell(config)
    split = mms.pll_split

    def other_test_labels(name, seed):
        X, y, S, train, test, val, fit_part = split(name, seed)
        return X, _shifted(y, test, S.mask.shape[1]), S, train, test, val, fit_part

    monkeypatch.setattr(mms, "pll_split", other_test_labels)
    shifted = mms.real_cell(config)
    assert shifted["chosen"] == honest["chosen"] and shifted["accuracy"] != honest["accuracy"]


@pytest.mark.slow
@pytest.mark.data("usps")
def test_mms_artificial_cost_does_not_move_with_the_test_labels(monkeypatch):
    config = {"dataset": "usps", "split": 0, "pc": 0.5, "pa": 0.5, "L": 4, "B": 5, "n_rounds": 1, "max_iter": 2,
              "max_passes": 2, "grid": [0.01, 1.0, 100.0], "subsample": 600}
    honest = mms.artificial_cell(config)
    bags = mms._art_bags

    def other_test_labels(cfg):
        Xtr, Xte, yte, B, seed = bags(cfg)
        return Xtr, Xte, _shifted(yte, np.arange(yte.size), 10), B, seed

    monkeypatch.setattr(mms, "_art_bags", other_test_labels)
    shifted = mms.artificial_cell(config)
    assert (shifted["cl_svm_C"], shifted["cl_svm_val_errors"]) == (honest["cl_svm_C"], honest["cl_svm_val_errors"])
    assert shifted["cl-svm"] != honest["cl-svm"]


def test_m3n_lambda_does_not_move_with_the_test_labels(monkeypatch):
    plan = {**m3n_hmc._setup(m3n_hmc.plan(quick=True)), "n_val": 50, "n_test": 50}
    config = {"m": 20, "rate": 0.5, "repeat": 0, "plan": plan}
    honest = m3n_hmc.cell(config)["milm3n"]
    sets = m3n_hmc._eval_sets

    def other_test_labels(repeat, n_val, n_test, chain):
        Xv, Yv, Xt, Yt = sets(repeat, n_val, n_test, chain)
        return Xv, Yv, Xt, [(y + 1) % 30 for y in Yt]

    monkeypatch.setattr(m3n_hmc, "_eval_sets", other_test_labels)
    shifted = m3n_hmc.cell(config)["milm3n"]
    assert (shifted["lambda"], shifted["val_error"]) == (honest["lambda"], honest["val_error"])
    assert shifted["test_error"] != honest["test_error"]


@pytest.mark.slow
@pytest.mark.parametrize("cell, keys", [
    ("corrected_cell", ("alpha", "trusted_weight")),
    ("trusted_cv_cell", ("alpha", "trusted_weight", "cv_accuracy")),
    ("fair_cell", ("alpha", "lr_cv_weight", "lr_cv_scores", "cleanlab_lr_cv_weight", "cleanlab_lr_cv_scores")),
    ("side_info_cell", ("alpha", "anchor_error", "forward_cv_anchor_weight", "forward_cv_anchor_scores",
                        "cleanlab_lr_cv_given_weight", "cleanlab_lr_cv_given_scores"))])
def test_uma_real_choices_do_not_move_with_the_test_labels(cell, keys, monkeypatch):
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import normalize

    X, y = load_digits(return_X_y=True)
    data = [normalize(X[:1300]), y[:1300], normalize(X[1300:]), y[1300:]]
    monkeypatch.setattr(uma, "real_features", lambda name, kernel=True: tuple(data))
    monkeypatch.setitem(uma.REAL_DATASETS, "digits", (10, None, "test"))
    monkeypatch.setattr(uma, "ALPHAS", (1e-3, 1e-4))
    config = {"dataset": "digits", "run": 0, "noise": "b", "max_iter": 150, "conf_fraction": 0.05,
              "lbfgs_iter": 200, "weights": [1.0, "balanced"], "methods": ["forward_weighted"]}
    honest = getattr(uma, cell)(config)
    data[3] = _shifted(data[3], np.arange(data[3].size), 10)
    shifted = getattr(uma, cell)(config)
    for key in keys:
        if key in honest:
            assert shifted[key] == honest[key], key
    assert any(shifted[k] != honest[k] for k in honest if k.startswith(("forward", "lr_", "cleanlab"))
               and isinstance(honest[k], float))


@pytest.mark.slow
def test_visual_sudoku_selection_never_builds_a_test_puzzle(monkeypatch):
    """The alpha / learning-rate selection decodes validation puzzles only: a test puzzle,
    if it were rendered, would raise here."""
    plan = visual_sudoku.plan(quick=True)
    real = visual_sudoku._features

    def no_test_puzzles(X, pool, centres, seed):
        assert seed != 7, "the test puzzles were rendered"        # cell renders the test list with seed 7
        return real(X, pool, centres, seed)

    monkeypatch.setattr(visual_sudoku, "_features", no_test_puzzles)
    config = {"m": 20, "tau": 0.0, "repeat": 100, **{k: plan[k] for k in visual_sudoku._KEYS if k != "scales"},
              "alpha": 1e-3, "learning_rate": 0.01, "epochs": 2, "max_nodes": 2_000}
    out = visual_sudoku.select_cell(config)
    assert 0.0 <= out["val_solved"] <= 1.0
    with pytest.raises(AssertionError, match="test puzzles"):
        visual_sudoku.cell({**config, "scales": [1.0]})            # the control: the reporting cell does


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


@pytest.mark.slow
@pytest.mark.data("letter")
@pytest.mark.parametrize("method", ["clpl", "lr-expand"])
def test_ocr_words_choices_do_not_move_with_the_test_labels(method, monkeypatch):
    from weaklabel.experiments import ocr_words

    config = {"setting": "look-alike", "method": method, "repeat": 0, "n_train": 60, "n_test": 40,
              "grid": ocr_words.grid_points(ocr_words.GRID[method])[:2]}
    honest = ocr_words.cell(config)
    problem = ocr_words.problem

    def other_test_labels(*args):
        X, Y, S, Xt, Yt = problem(*args)
        return X, Y, S, Xt, [(y + 1) % 26 for y in Yt]

    monkeypatch.setattr(ocr_words, "problem", other_test_labels)
    shifted = ocr_words.cell(config)
    assert (shifted["chosen"], shifted["val_errors"]) == (honest["chosen"], honest["val_errors"])
    assert shifted["token_accuracy"] != honest["token_accuracy"]
