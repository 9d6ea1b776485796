"""The renderers: a :class:`~weaklabel.experiments.results.Summary` as Markdown, CSV and PNG files.

Matplotlib (the ``cli`` extra) draws the figures; the numbers come from the summary as
they are, with each table's column formats applied only in Markdown.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from .._extras import require
from .results import MeanStd

__all__ = ["to_markdown", "write_summary", "table_markdown", "write_table_csv", "write_figure_png", "draw_figure",
           "figure_problems"]


def _fmt(value, spec):
    if value is None:
        return "-"
    if isinstance(value, MeanStd):
        return f"{_fmt(value.mean, spec)} +- {_fmt(value.std, spec)}"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "-"
        return format(float(value), spec or "g")
    if isinstance(value, (int, np.integer)) and spec:
        return format(int(value), spec)
    return str(value)


def _cell(text):
    """A table cell's text with its pipes escaped (``||C||_F`` would end the cell)."""
    return str(text).replace("|", "\\|")


def table_markdown(table):
    """Render one table as Markdown (title, header, rows, note).

    Parameters
    ----------
    table : Table
        The table; its ``formats`` apply to their columns, ``bold`` cells are bold.

    Returns
    -------
    str
        The Markdown text.
    """
    lines = [f"## {table.title}", ""] if table.title else []
    lines += ["| " + " | ".join(_cell(c) for c in table.columns) + " |", "|" + "---|" * len(table.columns)]
    for i, row in enumerate(table.rows):
        cells = []
        for j, (col, v) in enumerate(zip(table.columns, row)):
            s = _cell(_fmt(v, table.formats.get(col, "")))
            cells.append(f"**{s}**" if (i, j) in table.bold else s)
        lines.append("| " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines)


def to_markdown(summary, image_names=None):
    """Render the whole report as Markdown: title, introduction, tables, figures, notes.

    Parameters
    ----------
    summary : Summary
        What the experiment reports.
    image_names : dict or None, default=None
        Figure name -> image file name to link (default ``NAME.png``).

    Returns
    -------
    str
        The Markdown text, ending with a newline.
    """
    parts = [f"# {summary.title}"]
    if summary.intro:
        parts.append(summary.intro)
    parts += [table_markdown(t) for t in summary.tables]
    if summary.figures:
        figs = ["## Figures", ""]
        for f in summary.figures:
            name = (image_names or {}).get(f.name, f"{f.name}.png")
            figs.append(f"![{f.title}]({name})")
            if f.note:
                figs += ["", f.note]
            figs.append("")
        parts.append("\n".join(figs).rstrip())
    if summary.notes:
        parts.append(summary.notes)
    return "\n\n".join(parts) + "\n"


def _csv_value(v):
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return v


def write_table_csv(table, path):
    """Write the table as CSV at full precision; a :class:`MeanStd` column becomes two.

    Parameters
    ----------
    table : Table
        The table.
    path : str or Path
        The CSV file to write.

    Returns
    -------
    Path
        The file written.
    """
    split = [any(isinstance(r[j], MeanStd) for r in table.rows) for j in range(len(table.columns))]
    header = []
    for col, sp_ in zip(table.columns, split):
        header += [col, f"{col} std"] if sp_ else [col]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for row in table.rows:
            out = []
            for v, sp_ in zip(row, split):
                if sp_:
                    out += [_csv_value(v.mean), _csv_value(v.std)] if isinstance(v, MeanStd) else ["", ""]
                else:
                    out.append(_csv_value(v))
            w.writerow(out)
    return Path(path)


def write_figure_png(fig, path):
    """Draw a :class:`Figure` (see :func:`draw_figure`) and save it as a PNG.

    With ``WEAKLABEL_STRICT_FIGURES=1`` in the environment (the test suite sets it), a
    figure with a problem :func:`figure_problems` finds is an error instead of a file.

    Parameters
    ----------
    fig : Figure
        The figure.
    path : str or Path
        The PNG file to write.

    Returns
    -------
    Path
        The file written.
    """
    plt = require("matplotlib.pyplot", "plotting a reproduction")
    f = draw_figure(fig)
    try:
        if os.environ.get("WEAKLABEL_STRICT_FIGURES") == "1":
            problems = figure_problems(f, fig)
            if problems:
                raise ValueError(f"figure {fig.name!r}: " + "; ".join(problems))
        f.savefig(path, dpi=110)
    finally:
        plt.close(f)
    return Path(path)


def figure_problems(f, fig):
    """List what a reader would trip over in a drawn figure.

    A series missing from the legend, a panel without a title or an x label, a panel
    without a y label (the first column's carry it when panels share y), a legend covering
    a panel, or a title cut off by the figure's edge.

    Parameters
    ----------
    f : matplotlib.figure.Figure
        The drawn figure (:func:`draw_figure`).
    fig : Figure
        What it was drawn from.

    Returns
    -------
    list of str
        One sentence per problem; empty when there is none.
    """
    problems = []
    f.canvas.draw()
    renderer = f.canvas.get_renderer()
    axes = [ax for ax in f.axes if ax.get_visible() and ax.axison and ax.get_label() != "<colorbar>"]
    wanted = {s.label for s in fig.series if s.label}
    shown = {t.get_text() for leg in f.legends for t in leg.get_texts()}
    if fig.kind != "heatmap" and wanted - shown:
        problems.append(f"legend lacks {sorted(wanted - shown)}")
    fbox = f.bbox
    for ax in axes:
        if ax.get_subplotspec() is None:
            continue
        name = ax.get_title() or "?"
        if not ax.get_title():
            problems.append("a panel has no title")
        if not ax.get_xlabel():
            problems.append(f"panel {name!r} has no x label")
        if (ax.get_subplotspec().colspan.start == 0 or not fig.sharey) and not ax.get_ylabel():
            problems.append(f"panel {name!r} has no y label")
        for leg in f.legends:
            if leg.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)):
                problems.append(f"the legend covers panel {name!r}")
    texts = [ax.title for ax in axes] + ([f._suptitle] if getattr(f, "_suptitle", None) is not None else [])
    for t in texts:
        box = t.get_window_extent(renderer)
        if t.get_text() and (box.x0 < fbox.x0 - 1 or box.x1 > fbox.x1 + 1 or box.y1 > fbox.y1 + 1):
            problems.append(f"title {t.get_text()!r} is cut off")
    return problems


def draw_figure(fig):
    """Draw a :class:`Figure` with matplotlib (Agg; the ``cli`` extra).

    One panel per panel name, at most ``fig.ncols`` to a row; lines (with a band for
    ``err``), grouped bars, or heatmaps (``kind="heatmap"``: each series' ``y`` is a
    matrix); one legend below the panels holding every series of every panel.

    Parameters
    ----------
    fig : Figure
        The figure to draw.

    Returns
    -------
    matplotlib.figure.Figure
        The drawn figure (the caller closes it).
    """
    matplotlib = require("matplotlib", "plotting a reproduction")
    matplotlib.use("Agg", force=False)
    plt = require("matplotlib.pyplot", "plotting a reproduction")
    panels = fig.panels()
    ncols = min(len(panels), fig.ncols)
    if len(panels) == 4 and ncols == 3:                       # 2 x 2 rather than 3 + 1
        ncols = 2
    nrows = -(-len(panels) // ncols)
    panel_w = 4.4
    if fig.kind == "bar":                       # room for every bar of the widest panel
        widest = max(len(set(x for s in fig.series if s.panel == p for x in s.x))
                     * sum(1 for s in fig.series if s.panel == p) for p in panels)
        panel_w = max(panel_w, 0.28 * widest + 1.2)
    fig_w = panel_w * ncols + 0.6
    f, axes = plt.subplots(nrows, ncols, figsize=(fig_w, 3.4 * nrows + 0.6), squeeze=False, sharey=fig.sharey)
    for k, panel in enumerate(panels):
        ax = axes[k // ncols][k % ncols]
        series = [s for s in fig.series if s.panel == panel]
        if fig.kind == "heatmap":
            M = np.asarray(series[0].y, dtype=float)
            lim = float(np.abs(M).max()) or 1.0
            im = ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim)
            f.colorbar(im, ax=ax, fraction=0.046)
        elif fig.kind == "bar":
            cats = list(dict.fromkeys(x for s in series for x in s.x))
            width = 0.8 / max(1, len(series))
            for j, s in enumerate(series):
                pos = [cats.index(x) + (j - (len(series) - 1) / 2) * width for x in s.x]
                ax.bar(pos, s.y, width, yerr=s.err, label=s.label, capsize=2, **s.style)
            ax.set_xticks(range(len(cats)))
            ax.set_xticklabels([str(c) for c in cats])
            if all(v >= 0 for s in series for v in s.y):       # counts, shares: the axis starts at 0
                ax.set_ylim(bottom=0)
        else:
            for s in series:
                (line,) = ax.plot(s.x, s.y, label=s.label, **s.style)
                if s.err is not None:
                    lo = np.asarray(s.y, float) - np.asarray(s.err, float)
                    hi = np.asarray(s.y, float) + np.asarray(s.err, float)
                    ax.fill_between(s.x, lo, hi, alpha=0.15, color=line.get_color(), linewidth=0)
            if fig.logx:
                ax.set_xscale("log")
                xs = sorted({float(x) for s in series for x in s.x})
                if 1 < len(xs) <= 10:            # label the points themselves, not crowded powers of ten
                    ticker = require("matplotlib.ticker", "plotting a reproduction")
                    ax.set_xticks(xs)
                    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        if panel in fig.spans:
            ax.axvspan(*fig.spans[panel], color="red", alpha=0.12, lw=0)
        if fig.ylim is not None:
            ax.set_ylim(*fig.ylim)
        ax.set_title(panel or fig.title, fontsize=9)
        ax.set_xlabel(fig.xlabels.get(panel, fig.xlabel))
        if k % ncols == 0 or not fig.sharey:
            ax.set_ylabel(fig.ylabels.get(panel, fig.ylabel))
        if fig.kind != "heatmap":
            ax.grid(alpha=0.3)
    for k in range(len(panels), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    labels = {}
    for row in axes:
        for ax in row:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                labels.setdefault(lab, h)
    legend_rows = 0
    if labels and fig.kind != "heatmap":
        longest = max(len(lab) for lab in labels)
        per_row = max(1, min(len(labels), 5, int(fig_w / (0.6 + 0.075 * longest))))
        legend_rows = -(-len(labels) // per_row)
        f.legend(list(labels.values()), list(labels), loc="lower center", ncol=per_row, fontsize=8, frameon=False)
    if panels != [""]:
        f.suptitle(fig.title, fontsize=10)
    bottom = (0.25 * legend_rows + 0.1) / (3.4 * nrows + 0.6)      # inches of legend / figure height
    f.tight_layout(rect=(0, bottom, 1, 0.96 if panels != [""] else 1))
    return f


def write_summary(summary, out):
    """Write ``report.md``, one CSV per table and one PNG per figure into ``out``.

    Parameters
    ----------
    summary : Summary
        What the experiment reports; figures without series are dropped, and its
        ``report`` is set to the Markdown file.
    out : str or Path
        The folder (created if needed).

    Returns
    -------
    Path
        The report.md written.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary.figures = [f for f in summary.figures if f.series]      # a figure of no rows is not drawn
    for t in summary.tables:
        write_table_csv(t, out / f"{t.name}.csv")
    for f in summary.figures:
        write_figure_png(f, out / f"{f.name}.png")
    md = out / "report.md"
    md.write_text(to_markdown(summary))
    summary.report = md
    return md
