"""Results as numbers until rendered (experiments/results.py): reading tables by column and by
row, a summary's tables by name, a figure's panels in order of appearance."""

import pytest

from weaklabel.experiments.results import Figure, MeanStd, Series, Summary, Table


def _table():
    return Table("acc", "Accuracy", ["set", "learner", "acc"],
                 [["lost", "pegasos", MeanStd(0.7, 0.01)], ["lost", "proden", MeanStd(0.75, 0.02)],
                  ["msrc", "pegasos", MeanStd(0.5, 0.03)]])


def test_a_table_is_read_by_column_by_matching_rows_and_by_one_cell():
    t = _table()
    assert t.column("set") == ["lost", "lost", "msrc"]
    assert [r["learner"] for r in t.where(set="lost")] == ["pegasos", "proden"]
    assert t.where(set="lost", learner="proden")[0]["acc"].mean == 0.75
    assert t.value("acc", set="msrc").std == 0.03
    with pytest.raises(KeyError, match="2 rows of table 'acc' match"):
        t.value("acc", set="lost")
    with pytest.raises(KeyError, match="0 rows"):
        t.value("acc", set="yahoo")
    with pytest.raises(ValueError):
        t.column("nope")


def test_a_summary_finds_its_tables_by_name_and_a_figure_lists_its_panels():
    s = Summary("A run", tables=[_table()])
    assert s.table("acc").title == "Accuracy"
    with pytest.raises(KeyError, match=r"no table 'x'; tables: \['acc'\]"):
        s.table("x")
    fig = Figure("f", "F", [Series("a", [1], [1], panel="right"), Series("b", [1], [2], panel="left"),
                            Series("c", [1], [3], panel="right")])
    assert fig.panels() == ["right", "left"]
