"""The results an experiment reports: numbers kept as numbers until a renderer formats them.

A :class:`Summary` holds :class:`Table` and :class:`Figure` objects (a figure's lines are
:class:`Series`); :class:`MeanStd` is a mean over repeats with its spread.  The renderers
(:mod:`weaklabel.experiments.render`) turn them into Markdown, CSV and PNG files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MeanStd", "Table", "Series", "Figure", "Summary"]


@dataclass(frozen=True)
class MeanStd:
    """A mean and a standard deviation over repeats, kept as two numbers.

    Markdown shows ``mean +- std`` in the column's format; CSV writes two columns,
    ``NAME`` and ``NAME std``.

    Parameters
    ----------
    mean : float
        The mean over the repeats.
    std : float
        Their standard deviation.
    """

    mean: float
    std: float


@dataclass
class Table:
    """A table of values: numbers stay numbers until a renderer formats them.

    Parameters
    ----------
    name : str
        File stem of its CSV (``name.csv``) and its key in :class:`Summary`.
    title : str
        Heading in the Markdown report.
    columns : list of str
        Column headings.
    rows : list of list
        One list per row, one value per column (float, int, str or None).
    formats : dict, optional
        Column -> format spec for Markdown (e.g. ``".3f"``); CSV keeps full precision.
    note : str, optional
        Markdown shown under the table.
    bold : set of (row, column) index pairs, optional
        Cells shown in bold (e.g. the best learner of a row).
    """

    name: str
    title: str
    columns: list
    rows: list
    formats: dict = field(default_factory=dict)
    note: str = ""
    bold: set = field(default_factory=set)

    def column(self, name):
        """Return the values of one column, in row order.

        Parameters
        ----------
        name : str
            The column's heading.

        Returns
        -------
        list
            One value per row.
        """
        j = self.columns.index(name)
        return [r[j] for r in self.rows]

    def where(self, **match):
        """Return the rows (as dicts) whose named columns equal the given values.

        Parameters
        ----------
        **match : dict
            Column heading -> the value the row must hold there.

        Returns
        -------
        list of dict
            The matching rows, heading -> value, in row order.
        """
        out = []
        for r in self.rows:
            d = dict(zip(self.columns, r))
            if all(d[k] == v for k, v in match.items()):
                out.append(d)
        return out

    def value(self, column, **match):
        """Return the one value of ``column`` in the row that ``match`` selects.

        Parameters
        ----------
        column : str
            The column to read.
        **match : dict
            Column heading -> value; exactly one row must match.

        Returns
        -------
        object
            The cell's value.

        Raises
        ------
        KeyError
            When no row or more than one row matches.
        """
        rows = self.where(**match)
        if len(rows) != 1:
            raise KeyError(f"{len(rows)} rows of table {self.name!r} match {match}; expected exactly one.")
        return rows[0][column]


@dataclass
class Series:
    """One line (or group of bars) of a figure: ``y`` against ``x``.

    Parameters
    ----------
    label : str
        Its legend entry.
    x, y : list
        The points (categories for bars); for a heatmap ``y`` is a matrix.
    err : list or None, default=None
        A spread per point, drawn as a band for lines and error bars for bars.
    panel : str, default=""
        The panel it is drawn in (panels appear in the order of their first series).
    style : dict, default={}
        Keyword arguments for matplotlib (``linestyle``, ``marker``, ``color``, ...).
    """

    label: str
    x: list
    y: list
    err: list | None = None
    panel: str = ""
    style: dict = field(default_factory=dict)


@dataclass
class Figure:
    """A figure of numbers: series grouped into panels, drawn by :func:`~weaklabel.experiments.render.write_summary`.

    Parameters
    ----------
    name : str
        File stem of its PNG.
    title : str
        Its caption (and title above the panels).
    series : list of Series
        What it draws.
    xlabel, ylabel : str, default=""
        Axis labels of every panel.
    kind : {"line", "bar", "heatmap"}, default="line"
        How the series are drawn.
    logx : bool, default=False
        A logarithmic x axis.
    note : str, default=""
        Markdown shown under the figure.
    ncols : int, default=3
        Panels per row.
    sharey : bool, default=False
        One y axis for the panels of a row.
    xlabels, ylabels : dict, default={}
        Axis label per panel, where panels differ (else ``xlabel`` / ``ylabel``).
    spans : dict, default={}
        Shaded x ranges: panel -> (low, high), e.g. a theorem's range of a parameter.
    ylim : tuple or None, default=None
        The y-axis limits of every panel.
    """

    name: str
    title: str
    series: list
    xlabel: str = ""
    ylabel: str = ""
    kind: str = "line"
    logx: bool = False
    note: str = ""
    ncols: int = 3
    sharey: bool = False
    #: x-axis label per panel, where panels differ (else ``xlabel``)
    xlabels: dict = field(default_factory=dict)
    #: y-axis label per panel, where panels differ (else ``ylabel``)
    ylabels: dict = field(default_factory=dict)
    #: shaded x-ranges: panel -> (low, high), e.g. a theorem's range of a parameter
    spans: dict = field(default_factory=dict)
    #: y-axis limits (all panels), or None
    ylim: tuple | None = None

    def panels(self):
        """Return the panel names, in the order they first appear among the series.

        Returns
        -------
        list of str
            One name per panel.
        """
        seen = []
        for s in self.series:
            if s.panel not in seen:
                seen.append(s.panel)
        return seen


@dataclass
class Summary:
    """What an experiment reports: a title, an introduction, tables, figures, notes.

    Parameters
    ----------
    title : str
        The report's heading.
    intro : str, default=""
        Markdown under the title.
    tables : list of Table, default=[]
        The tables, in order.
    figures : list of Figure, default=[]
        The figures, in order.
    notes : str, default=""
        Markdown at the end.
    report : Path or None, default=None
        The report.md written for it (set by :func:`~weaklabel.experiments.render.write_summary`).
    """

    title: str
    intro: str = ""
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    notes: str = ""
    #: the report.md written for it (set by :func:`write_summary`)
    report: Path | None = None

    def table(self, name):
        """Return the table called ``name``.

        Parameters
        ----------
        name : str
            The table's name.

        Returns
        -------
        Table
            The table.

        Raises
        ------
        KeyError
            When the summary has no such table (the message lists the names it has).
        """
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"no table {name!r}; tables: {[t.name for t in self.tables]}")
