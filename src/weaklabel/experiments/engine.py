"""The experiment engine: experiments as data, one runner, one set of renderers.

An :class:`Experiment` is a name, a plan (``quick`` and full), a function that runs its
cells through a :class:`Context`, and a summary that returns a :class:`Summary` made
of :class:`Table` and :class:`Figure` objects, which hold numbers.  Renderers turn a
summary into Markdown (:func:`to_markdown`), CSV and PNG files
(:func:`write_summary`); the HTML page reads the Markdown.  Every experiment is
listed in one registry (:mod:`weaklabel.experiments.registry`) that the command line,
``report`` and the tests read, so adding one touches one new module.

A minimal experiment::

    def cell(config):                       # module level: it runs on Dask workers too
        return {"value": config["seed"] * 2.0}

    def execute(ctx):
        return ctx.run([ctx.cell(cell, seed=s) for s in range(ctx.plan["repeats"])])

    def summarize(ctx, rows):
        return Summary("A toy", tables=[Table("values", "Values", ["seed", "value"],
                                              [[c["seed"], r["value"]] for c, r in rows])])

    register(Experiment("toy", "A toy experiment", plan=lambda quick, repeats, datasets:
                        {"repeats": repeats or (2 if quick else 10)}, execute=execute,
                        summarize=summarize))
"""

from __future__ import annotations

import os

import csv
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .._extras import require
from .runner import Cell, run_cells
from .store import ResultStore, config_key
from .store import _default as _json_default

__all__ = ["Experiment", "Context", "Table", "Figure", "Series", "Summary", "MeanStd", "to_markdown",
           "write_summary", "Snapshot"]


# ---- results that hold numbers -------------------------------------------------------------

@dataclass(frozen=True)
class MeanStd:
    """A mean and a standard deviation over repeats, kept as two numbers.

    Markdown shows ``mean +- std`` in the column's format; CSV writes two columns,
    ``NAME`` and ``NAME std``.
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
        """The values of one column, in row order."""
        j = self.columns.index(name)
        return [r[j] for r in self.rows]

    def where(self, **match):
        """Rows (as dicts) whose named columns equal the given values."""
        out = []
        for r in self.rows:
            d = dict(zip(self.columns, r))
            if all(d[k] == v for k, v in match.items()):
                out.append(d)
        return out

    def value(self, column, **match):
        """The one value of ``column`` in the row that ``match`` selects."""
        rows = self.where(**match)
        if len(rows) != 1:
            raise KeyError(f"{len(rows)} rows of table {self.name!r} match {match}; expected exactly one.")
        return rows[0][column]


@dataclass
class Series:
    """One line (or group of bars) of a figure: ``y`` against ``x``, with an optional
    spread ``err`` (drawn as a band for lines, error bars for bars)."""

    label: str
    x: list
    y: list
    err: list | None = None
    panel: str = ""
    style: dict = field(default_factory=dict)


@dataclass
class Figure:
    """A figure of numbers: series grouped into panels, drawn by :func:`write_summary`.

    ``kind`` is ``"line"``, ``"bar"`` or ``"heatmap"``; panels are laid out ``ncols`` to a
    row, in the order their names first appear among the series.
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
        seen = []
        for s in self.series:
            if s.panel not in seen:
                seen.append(s.panel)
        return seen


@dataclass
class Summary:
    """What an experiment reports: a title, an introduction, tables, figures, notes."""

    title: str
    intro: str = ""
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    notes: str = ""
    #: the report.md written for it (set by :func:`write_summary`)
    report: Path | None = None

    def table(self, name):
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"no table {name!r}; tables: {[t.name for t in self.tables]}")


# ---- experiments --------------------------------------------------------------------------

@dataclass
class Experiment:
    """One reproduction (or any sweep), as data.

    Parameters
    ----------
    name : str
        The name the CLI and the registry use (``weaklabel reproduce NAME``).
    title : str
        One line saying what it reproduces.
    plan : callable ``(quick, repeats, datasets) -> dict``
        The sweep settings (JSON-able); saved as ``OUT/plan.json`` so that a report can
        be re-rendered later exactly as it was run.
    execute : callable ``(ctx) -> rows``
        Makes the cells and runs them through ``ctx.run`` (which skips stored ones);
        returns what ``summarize`` needs.  Called with ``ctx.execute`` False to only read
        the store.
    summarize : callable ``(ctx, rows) -> Summary``
        Turns what ``execute`` returned into the tables and figures.
    datasets : tuple of str, optional
        The datasets ``--dataset`` may choose from; empty means the flag does not apply.
    repeats_help : str, optional
        What ``--repeats`` counts here (for ``--help``).
    """

    name: str
    title: str
    plan: Callable
    execute: Callable
    summarize: Callable
    datasets: tuple = ()
    repeats_help: str = "repeats"

    def make_plan(self, quick=False, repeats=None, datasets=None):
        if datasets and not self.datasets:
            raise ValueError(f"--dataset does not apply to {self.name}: it has no choice of datasets.")
        if datasets:
            unknown = [d for d in datasets if d not in self.datasets]
            if unknown:
                raise ValueError(f"dataset(s) {unknown} are not part of {self.name}; choose from "
                                 f"{list(self.datasets)}.")
        return self.plan(quick, repeats, datasets)

    def run(self, out, *, quick=False, repeats=None, datasets=None, jobs=1, scheduler=None, progress=True,
            execute=True, write=True, snapshot=None, seed=None):
        """Run (or resume) the cells not yet stored in ``OUT/results.sqlite`` and return the
        :class:`Summary`; with ``write``, also write report.md, the CSVs and the PNGs.

        With ``execute=False`` nothing runs: the summary is made from the stored rows and
        the saved plan (``weaklabel report``).  With ``snapshot`` (a file written by
        :meth:`write_snapshot`), nothing runs either: the plan and the rows come from that
        file, and ``out`` only receives the report.  With ``seed`` (a snapshot file) and
        ``execute``, the snapshot's rows are first copied into the store, so that only the
        cells it lacks are computed.
        """
        if snapshot is not None:
            snap = Snapshot.read(snapshot)
            if snap.experiment != self.name:
                raise ValueError(f"{snapshot} is a snapshot of {snap.experiment!r}, not of {self.name!r}.")
            ctx = Context(self, snap.plan, snap, out, execute=False, progress=False)
            summary = self.summarize(ctx, self.execute(ctx))
            if write:
                write_summary(summary, out)
            return summary
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        plan_file = out / "plan.json"
        if execute:
            plan = self.make_plan(quick, repeats, datasets)
            plan_file.write_text(json.dumps({"experiment": self.name, "plan": plan}, indent=1))
        else:
            plan = self.saved_plan(out)
        with ResultStore(out / "results.sqlite", read_only=not execute) as store:
            if seed is not None and execute:
                snap = Snapshot.read(seed)
                if snap.experiment != self.name:
                    raise ValueError(f"{seed} is a snapshot of {snap.experiment!r}, not of {self.name!r}.")
                copied = snap.seed(store)
                if progress:
                    print(f"weaklabel: {copied} cell(s) copied from {seed} into {store.path}.", file=sys.stderr)
            ctx = Context(self, plan, store, out, execute=execute, jobs=jobs, scheduler=scheduler,
                          progress=progress)
            try:
                summary = self.summarize(ctx, self.execute(ctx))
            except KeyError as exc:
                # a stored result without a field its summary reads: compute those cells again, once
                field = exc.args[0] if exc.args else None
                if not ctx.rows_lacking(field):
                    raise                                    # not the store's doing
                if not execute:
                    raise ValueError(f"a stored result in {store.path} lacks the field {field!r}; rerun "
                                     f"`weaklabel reproduce {self.name}` with the same --out to compute it "
                                     "again.") from None
                ctx.drop_rows_lacking(field)
                summary = self.summarize(ctx, self.execute(ctx))
        if write:
            write_summary(summary, out)
        return summary

    def saved_plan(self, out):
        """The plan ``weaklabel reproduce`` saved in ``OUT/plan.json`` (checked to be this
        experiment's)."""
        plan_file = Path(out) / "plan.json"
        if not plan_file.exists():
            raise FileNotFoundError(f"{plan_file} is missing; it is written by `weaklabel reproduce {self.name}`.")
        saved = json.loads(plan_file.read_text())
        if isinstance(saved, dict) and set(saved) == {"experiment", "plan"}:
            if saved["experiment"] != self.name:
                raise ValueError(f"{out} holds a run of {saved['experiment']!r}, not of {self.name!r}; use "
                                 f"`weaklabel report {saved['experiment']} --out {out}`.")
            return saved["plan"]
        return saved                                           # written before plan.json named its experiment

    def write_snapshot(self, out, path):
        """Write the plan of ``OUT/plan.json`` and exactly the stored rows its report reads
        (not every cell the store ever held) to ``path``, gzip-compressed JSON.

        A snapshot is what the documentation renders its reproduction pages from: it is
        small enough to keep under version control, and :meth:`run` with ``snapshot=path``
        makes the same tables and figures as ``weaklabel report`` on the full store.
        Returns the :class:`Snapshot`.
        """
        plan = self.saved_plan(out)
        with ResultStore(Path(out) / "results.sqlite", read_only=True) as store:
            recorder = _Recorder(store)
            ctx = Context(self, plan, recorder, out, execute=False, progress=False)
            self.summarize(ctx, self.execute(ctx))
        used = {stage: {k: recorder.used[stage][k] for k, _ in seen} for stage, seen in ctx._seen.items()}
        snap = Snapshot(self.name, plan, used, memos=ctx.memos)
        snap.write(path)
        return snap


class _Recorder:
    """A read-only store that remembers the rows handed out."""

    def __init__(self, store):
        self.store, self.path, self.unreadable, self.used = store, store.path, [], {}

    def rows(self, experiment, stage=None):
        rows = self.store.rows(experiment, stage)
        if stage is not None:
            self.used.setdefault(stage, {}).update({config_key(c): (c, r) for c, r in rows})
        return rows


class Snapshot:
    """The plan and the stored rows of one experiment's report, as one file.

    Read with :meth:`read`; it answers ``rows(experiment, stage)`` as a results store does,
    so a :class:`Context` can render from it.  Only the rows some cell of the plan reads
    are kept (see :meth:`Experiment.write_snapshot`).
    """

    def __init__(self, experiment, plan, rows, memos=None):
        self.experiment, self.plan, self.unreadable = experiment, plan, []
        self.memos = json.loads(json.dumps(memos or {}, default=_json_default))
        self._rows = {stage: dict(r) for stage, r in rows.items()}
        self.path = None

    def __len__(self):
        return sum(len(rows) for rows in self._rows.values())

    def rows(self, experiment, stage=None):
        if experiment != self.experiment:
            return []
        stages = [stage] if stage is not None else sorted(self._rows)
        return [row for st in stages for row in self._rows.get(st, {}).values()]

    def seed(self, store):
        """Copy every row of this snapshot into ``store`` (a writable :class:`ResultStore`)
        that it does not already hold readably, and return how many were copied.

        ``weaklabel reproduce NAME --from-snapshot FILE`` uses it: a fresh clone extends the
        documentation's runs (a new stage, a wider grid) without recomputing the cells the
        snapshot holds.  The copied rows keep their configs and results; their seconds are 0.
        """
        have = store.done_keys(self.experiment)
        copied = 0
        for stage, rows in sorted(self._rows.items()):
            for key, (cfg, res) in rows.items():
                if key not in have:
                    store.put(key, self.experiment, stage, cfg, res, 0.0)
                    copied += 1
        return copied

    def write(self, path):
        import gzip

        body = {"experiment": self.experiment, "plan": self.plan, "memos": self.memos,
                "rows": {st: [[c, _round_floats(r)] for c, r in rows.values()]
                         for st, rows in sorted(self._rows.items())}}
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            json.dump(body, fh, default=_json_default, separators=(",", ":"), sort_keys=True)

    @classmethod
    def read(cls, path):
        import gzip

        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                body = json.load(fh)
            rows = {st: {config_key(c): (c, r) for c, r in pairs} for st, pairs in body["rows"].items()}
            snap = cls(body["experiment"], body["plan"], rows, memos=body.get("memos"))
        except FileNotFoundError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} is not a weaklabel snapshot ({exc}).") from None
        snap.path = Path(path)
        return snap


def _round_floats(value, digits=7, in_curve=False):
    """``value`` with the floats of its long lists (curves, which only figures read)
    rounded to ``digits`` significant digits: a snapshot is half the size, and every
    number a table prints, computed from exact scalars, stays the same to the last digit."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if in_curve and math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _round_floats(v, digits, in_curve) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        curve = in_curve or len(value) >= 10
        return [_round_floats(v, digits, curve) for v in value]
    return value


class Context:
    """What an experiment's functions get: the plan, the store and the way to run cells."""

    def __init__(self, experiment, plan, store, out, *, execute=True, jobs=1, scheduler=None, progress=True):
        self.experiment = experiment
        self.plan = plan
        self.store = store
        self.out = Path(out)
        self.execute = execute
        self._seen = {}                               # stage -> [(key, result)] of the rows handed out
        self.memos = {}                               # what memo() computed (a snapshot keeps it)
        self.jobs = jobs
        self.scheduler = scheduler
        self.progress = progress

    def memo(self, key, fn):
        """``fn()``, remembered under ``key`` (a string): for the few facts an experiment
        reads from its data outside its cells (a dataset's size, a noise scale).  A
        snapshot keeps them, so that a report renders from it without the data."""
        stored = getattr(self.store, "memos", None)
        if stored is not None and key in stored:
            value = stored[key]
        else:
            value = fn()
        self.memos[key] = value
        return value

    def cell(self, fn, stage="main", **config):
        """A cell of this experiment: ``fn(config)`` at module level, ``config`` JSON-able."""
        return Cell(self.experiment.name, stage, config, fn)

    def run(self, cells, desc="cells"):
        """Run the cells that are not stored yet (when executing) and return the stored
        ``(config, result)`` rows of exactly these cells, in the cells' order."""
        if self.execute:
            before = len(self.store.unreadable)
            run_cells(cells, self.store, jobs=self.jobs, scheduler=self.scheduler, progress=self.progress,
                      desc=desc)
            healed = len(self.store.unreadable) - before
            if healed:
                print(f"weaklabel: {healed} stored cell(s) of {self.store.path} could not be read; computed again.",
                      file=sys.stderr)
        by_key = {}
        for stage in sorted({c.stage for c in cells}):
            for cfg, res in self.store.rows(self.experiment.name, stage):
                by_key[config_key(cfg)] = (cfg, res)
        out = [by_key[c.key] for c in cells if c.key in by_key]
        for c in cells:
            if c.key in by_key:
                self._seen.setdefault(c.stage, []).append((c.key, by_key[c.key][1]))
        return out

    def rows_lacking(self, field):
        """Keys of the rows handed out so far that lack ``field`` while other rows of their
        stage have it: a damaged or outdated stored result."""
        return [k for rows in self._seen.values() if any(field in r for _, r in rows)
                for k, r in rows if field not in r]

    def drop_rows_lacking(self, field):
        """Delete :meth:`rows_lacking` from the store, so that the next run computes them
        again.  Returns how many were dropped (and says so)."""
        bad = self.rows_lacking(field)
        if bad:
            self.store.delete(bad)
            print(f"weaklabel: {len(bad)} stored cell(s) of {self.store.path} lacked the field {field!r}; "
                  "computed again.", file=sys.stderr)
        self._seen = {}
        return len(bad)


# ---- renderers ----------------------------------------------------------------------------------

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
    """One table as Markdown (title, header, rows, note)."""
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
    """The whole report as Markdown: title, introduction, tables, figures, notes."""
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
    """The table as CSV at full precision; a :class:`MeanStd` column becomes two."""
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
    figure with a problem :func:`figure_problems` finds is an error instead of a file."""
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
    """What a reader would trip over in the drawn figure ``f`` of ``fig``: a series missing
    from the legend, a panel without a title or an x label, a panel without a y label
    (the first column's carry it when panels share y), a legend covering a panel, or a
    title cut off by the figure's edge."""
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
    """Draw a :class:`Figure` with matplotlib (Agg; the ``cli`` extra) and return it: one
    panel per panel name, at most ``fig.ncols`` to a row; lines (with a band for ``err``),
    grouped bars, or heatmaps (``kind="heatmap"``: each series' ``y`` is a matrix); one
    legend below the panels holding every series of every panel."""
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
    """Write ``report.md``, one CSV per table and one PNG per figure into ``out``."""
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
