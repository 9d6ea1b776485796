"""Rendering results (experiments/render.py): Markdown tables with their formats, one legend for
every panel of a figure."""

import pytest

from weaklabel.experiments.engine import MeanStd, Summary, Table, to_markdown


def test_markdown_renders_numbers_with_formats_and_bold():
    t = Table("t", "T", ["a", "b"], [[1, 0.12345], [2, MeanStd(0.5, 0.25)]], formats={"b": ".2f"}, bold={(0, 1)})
    md = to_markdown(Summary("S", tables=[t]))
    assert "| 1 | **0.12** |" in md and "| 2 | 0.50 +- 0.25 |" in md
    with pytest.raises(KeyError, match="2 rows"):
        Table("t", "", ["a"], [[1], [1]]).value("a", a=1)


def test_one_legend_holds_every_series_of_every_panel_and_problems_are_found():
    """A learner drawn in one panel only (Confidit full on segment) is in the legend; a panel
    without an x label, and a legend over a panel, are reported."""
    import matplotlib.pyplot as plt

    from weaklabel.experiments.engine import Figure, Series, draw_figure, figure_problems

    series = [Series("CSPA", [1, 2], [0.5, 0.6], panel="vehicle"), Series("CSPA", [1, 2], [0.4, 0.7], panel="segment"),
              Series("Confidit (full)", [1, 2], [0.8, 0.9], panel="segment")]
    fig = Figure("f", "two panels", series, xlabel="rounds", ylabel="accuracy")
    f = draw_figure(fig)
    try:
        assert sorted(t.get_text() for t in f.legends[0].get_texts()) == ["CSPA", "Confidit (full)"]
        assert figure_problems(f, fig) == []
        f.axes[1].set_xlabel("")
        f.legends[0].set_bbox_to_anchor((0.5, 0.5), transform=f.transFigure)     # over the panels
        found = figure_problems(f, fig)
        assert "panel 'segment' has no x label" in found
        assert any(p.startswith("the legend covers panel") for p in found)
    finally:
        plt.close(f)
