"""A small slice of the sudoku reproduction: the same code path as `weaklabel reproduce sudoku`,
asserting on the numbers its summary holds."""

import pytest


@pytest.mark.slow
@pytest.mark.data("sudoku")
def test_sudoku_quick_slice(tmp_path):
    from weaklabel.experiments import sudoku

    summary = sudoku.run(tmp_path, quick=True, progress=False)
    table = summary.table("table1")
    assert table.column("tau") == [0.0, 0.5]
    # 100 training puzzles learn the rules: every unseen puzzle solved at both rates
    assert all(v.mean == 100.0 for v in table.column("unseen 100: solved %"))
    other = summary.table("second_source")
    assert all(v >= 80 for v in other.column("solved %"))
    assert (tmp_path / "sudoku_scores.png").stat().st_size > 5000
    # Figure 2(a): the curve's points are the fit cells' and the curve stage's, per tau
    fig2a = summary.table("figure2a")
    assert sorted({r[1] for r in fig2a.rows}) == [50, 100] and {r[0] for r in fig2a.rows} == {0.0, 0.5}
    assert all(r[2] == 1 for r in fig2a.rows)
    assert fig2a.value("cell error %", tau=0.0, m=100).mean == 0.0          # 100 puzzles: the rules, learned
    assert (tmp_path / "figure2a.png").stat().st_size > 5000


