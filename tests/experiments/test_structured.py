"""Small slices of the structured reproductions (m3n-hmc, sudoku, visual-sudoku): the same
code path as `weaklabel reproduce`, asserting on the numbers the summaries hold."""

import pytest



def test_m3n_hmc_quick_slice(tmp_path):
    from weaklabel.experiments import m3n_hmc

    summary = m3n_hmc.run(tmp_path, quick=True, progress=False)
    assert "Bayes rule of the Hamming loss" in summary.intro
    assert (tmp_path / "figure1.png").stat().st_size > 5000
    results = summary.table("results")
    mil = results.where(method="milm3n")
    assert len(mil) == 4                                   # m in {20, 60} x missing rate in {0, 0.5}
    # test errors near reading the symbol (50 %), far from the constant labeling (97 %)
    assert all(r["test_error"] < 60 for r in mil)
    # with every label given, more training sequences do not hurt
    assert results.value("test_error", method="milm3n", missing_rate=0.0, m=60) <= \
        results.value("test_error", method="milm3n", missing_rate=0.0, m=20) + 0.5


@pytest.mark.data("sudoku", "mnist-test")
def test_visual_sudoku_quick_slice(tmp_path):
    from weaklabel.experiments import visual_sudoku

    centres, (tr_img, _), (va_img, _), (te_img, _) = visual_sudoku._split(2000)
    assert len(centres) == 2000 and len(tr_img) == 3500 and len(va_img) == 500 and len(te_img) == 4000
    # centres, training, validation and test digits are disjoint MNIST images
    _, _, perm = visual_sudoku._mnist()
    assert len(set(perm[:2000]) | set(perm[2000:5500]) | set(perm[5500:6000]) | set(perm[6000:])) == 10000
    with pytest.raises(ValueError, match="at most 4000"):
        visual_sudoku._split(2000, 3800, 500)
    summary = visual_sudoku.run(tmp_path, quick=True, progress=False)
    row = summary.table("table1").where(m=60, tau=0.0)[0]
    assert row["runs"] == 1 and row["scales chosen"] in ("1", "4")    # the scale chosen on validation puzzles
    assert row["givens read by unary %"] > 60     # the unary scores read most given digits after 5 epochs on 60 puzzles
    assert (tmp_path / "solved.png").stat().st_size > 5000


@pytest.mark.data("sudoku")
def test_structured_speed_and_sudoku_slices(tmp_path):
    from weaklabel.experiments import speed, sudoku

    lines = []
    r = speed.run_structured(out=lines.append, repeats=5, n_train=60)
    assert r["viterbi_ratio"] > 1 and r["solved"] >= 95
    assert r["solved_other"] >= 80     # 60 training puzzles: weaker rules than the 500 of the real run (100)
    assert any("another source" in line for line in lines)
    summary = sudoku.run(tmp_path, quick=True, progress=False)
    table = summary.table("table1")
    assert table.column("tau") == [0.0, 0.5]
    # 100 training puzzles learn the rules: every unseen puzzle solved at both rates
    assert all(v.mean == 100.0 for v in table.column("unseen 100: solved %"))
    other = summary.table("second_source")
    assert all(v >= 80 for v in other.column("solved %"))
    assert (tmp_path / "sudoku_scores.png").stat().st_size > 5000
