"""Small slices of the visual-sudoku reproduction: the same code path as `weaklabel reproduce
visual-sudoku`, asserting on the numbers its summary holds."""

import numpy as np
import pytest


@pytest.mark.slow
@pytest.mark.data("sudoku", "mnist")
def test_visual_sudoku_quick_slice(tmp_path):
    from weaklabel.experiments import visual_sudoku

    centres, (tr_img, _), (va_img, _), (te_img, _) = visual_sudoku._split(2000)
    assert len(centres) == 2000 and len(tr_img) == 53000 and len(va_img) == 5000 and len(te_img) == 10000
    # centres, validation and training digits are disjoint MNIST training images; the test
    # puzzles are drawn with the 10k MNIST test images (issue 17)
    images, _, perm, (test_images, _) = visual_sudoku._mnist()
    assert len(images) == 60000 and len(test_images) == 10000 and np.array_equal(te_img, test_images)
    assert len(set(perm[:2000]) | set(perm[2000:7000]) | set(perm[7000:60000])) == 60000
    np.testing.assert_array_equal(centres, images[perm[:2000]])
    np.testing.assert_array_equal(tr_img, images[perm[7000:]])
    with pytest.raises(ValueError, match="at most 58000"):
        visual_sudoku._split(2000, 55000, 5000)
    summary = visual_sudoku.run(tmp_path, quick=True, progress=False)
    row = summary.table("table1").where(m=60, tau=0.0)[0]
    assert row["runs"] == 1 and row["scales chosen"] in ("1", "4")    # the scale chosen on validation puzzles
    assert row["givens read by unary %"] > 60     # the unary scores read most given digits after 5 epochs on 60 puzzles
    assert (tmp_path / "solved.png").stat().st_size > 5000


@pytest.mark.slow
@pytest.mark.data("sudoku")
def test_unlabelled_givens_are_read_by_rules_learned_from_the_blank_cells():
    """visual-sudoku --unlabelled-givens, stage 1: the rules learned from the blank cells'
    digits alone (each puzzle's blank cells an example of its own graph) read the givens'
    digits; the true givens are never seen (they are -1 in what the learner gets)."""
    from weaklabel import datasets
    from weaklabel.experiments import visual_sudoku

    d = datasets.load("sudoku")
    X, S = d.X_train[:200].astype(np.int64), d.y_train[:200].astype(np.int64) - 1
    A = np.where(X > 0, 7, S)                                 # a wrong label on every given: must be ignored
    A2, info = visual_sudoku._read_givens_by_learned_rules(
        X, A, S, {"alpha": 1e-3, "learning_rate": 0.01, "repeat": 0, "tau": 0.0})
    given = X > 0
    assert info["givens_imputed"] > 0.95 and np.mean(A2[given] == S[given]) == info["givens_imputed"]
    assert np.array_equal(A2[~given], S[~given])               # the blank cells' labels untouched


def test_visual_sudoku_figure2b_joins_the_curve_and_the_main_fits():
    """Figure 2(b)'s points: the curve stage's m beside the main fits' m = 1,500, per tau,
    scale 1 (the paper's classifier); fits without labels on the givens stay out."""
    from weaklabel.experiments import visual_sudoku

    def row(m, tau, err, **extra):
        return ({"m": m, "tau": tau, **extra}, {"paper": {"cell_error": err}})

    plan = {"tau": [0.0, 0.5], "curve_m": [250], "curve_repeats": 2}
    main = [row(1500, 0.0, 0.01), row(1500, 0.0, 0.03), row(1500, 0.5, 0.02), row(1500, 0.0, 0.9, givens="unlabelled")]
    curve = [row(250, 0.0, 0.10), row(250, 0.0, 0.20), row(250, 0.5, 0.30), row(250, 0.5, 0.40)]
    table, figure = visual_sudoku._figure2b(plan, main, curve)
    assert table.value("cell error %", tau=0.0, m=1500).mean == pytest.approx(2.0)
    assert table.value("repeats", tau=0.0, m=1500) == 2
    assert table.value("cell error %", tau=0.5, m=250).mean == pytest.approx(35.0)
    assert [s.x for s in figure.series] == [[250, 1500], [250, 1500]]


def test_visual_sudoku_fits_every_table_at_the_setting_validation_puzzles_chose():
    """alpha and the learning rate are chosen on validation puzzles; every fit (Table 1, the
    unlabelled givens, Figure 2(b)'s curve) runs at that choice, and Table 1 once more at the
    plan's earlier setting only where that is not the choice."""
    from weaklabel.experiments import visual_sudoku as vs

    class Ctx:
        """Runs nothing: the selection stage returns ``chosen``, every other cell an empty result."""

        def __init__(self, plan, chosen):
            self.plan, self.chosen = plan, chosen

        def cell(self, fn, stage, **config):
            return config

        def run(self, cells, desc=""):
            return self.chosen if desc == "select" else [(c, {}) for c in cells]

    plan = vs.plan(datasets=["labelled-givens", "unlabelled-givens"])
    grid = vs.grid_points(plan["select"]["grid"])
    rows = [({**g}, {"val_solved": 0.5}) for g in grid]
    rows[0][1]["val_solved"] = 0.9                              # alpha 0, learning rate 0.003
    fits, curve, _, earlier = vs.execute(Ctx(plan, rows))
    assert {(c["alpha"], c["learning_rate"]) for c, _ in fits + curve} == {(0.0, 0.003)}
    assert {c.get("givens") for c, _ in fits} == {None, "unlabelled"} and curve
    assert len(earlier) == len(plan["tau"]) * plan["repeats"]
    assert {(c["alpha"], c["learning_rate"], c.get("givens")) for c, _ in earlier} == {(1e-3, 0.01, None)}
    same = [({**g}, {"val_solved": 0.9 if (g["alpha"], g["learning_rate"]) == (1e-3, 0.01) else 0.5})
            for g in grid]
    assert vs.execute(Ctx(plan, same))[3] == []                  # the earlier setting won: nothing to rerun
    assert vs.execute(Ctx(plan, rows[:3])) == ([], [], rows[:3], [])   # a selection not finished yet
