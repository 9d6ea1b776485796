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

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .render import draw_figure, figure_problems, table_markdown, to_markdown, write_summary  # noqa: F401
from .results import Figure, MeanStd, Series, Summary, Table  # noqa: F401
from .runner import Cell, run_cells
from .snapshot import Snapshot, _Recorder
from .store import ResultStore, config_key

# Experiment and Context live here; the results, renderers and snapshots they use are
# re-exported so that one import serves an experiment module.
__all__ = ["Experiment", "Context", "Table", "Figure", "Series", "Summary", "MeanStd", "to_markdown",
           "write_summary", "Snapshot"]


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
        """Return the plan of a run, checking ``datasets`` against those the experiment offers.

        Parameters
        ----------
        quick : bool, default=False
            The small plan (a minute or two) instead of the full one.
        repeats : int or None, default=None
            Repeats, where the experiment counts them (None: its default).
        datasets : list of str or None, default=None
            A subset of ``self.datasets``.

        Returns
        -------
        dict
            The JSON-able plan.
        """
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
        """Run (or resume) the cells not yet stored and return the summary.

        The results go to ``OUT/results.sqlite``; with ``write``, report.md, the CSVs and the
        PNGs too.  With ``execute=False`` nothing runs: the summary is made from the stored
        rows and the saved plan (``weaklabel report``).  With ``snapshot`` (a file written by
        :meth:`write_snapshot`), nothing runs either: the plan and the rows come from that file,
        and ``out`` only receives the report.  With ``seed`` (a snapshot file) and ``execute``,
        the snapshot's rows are first copied into the store, so that only the cells it lacks
        are computed.

        Parameters
        ----------
        out : str or Path
            The run's folder.
        quick : bool, default=False
            The small plan instead of the full one (see :meth:`make_plan`).
        repeats : int or None, default=None
            Repeats, where the experiment counts them.
        datasets : list of str or None, default=None
            A subset of the experiment's datasets.
        jobs : int, default=1
            Worker processes (see :func:`~weaklabel.experiments.runner.run_cells`).
        scheduler : str or None, default=None
            A Dask scheduler's address, instead of ``jobs``.
        progress : bool, default=True
            Show progress on stderr.
        execute : bool, default=True
            Run the missing cells (False: render from the store only).
        write : bool, default=True
            Write the report files into ``out``.
        snapshot : str or Path or None, default=None
            Render from this snapshot file instead of a store.
        seed : str or Path or None, default=None
            Copy this snapshot's rows into the store before running.

        Returns
        -------
        Summary
            The tables and figures.
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
            snap = None
            if seed is not None and execute:
                snap = Snapshot.read(seed)
                if snap.experiment != self.name:
                    raise ValueError(f"{seed} is a snapshot of {snap.experiment!r}, not of {self.name!r}.")
            ctx = Context(self, plan, store, out, execute=execute, jobs=jobs, scheduler=scheduler,
                          progress=progress, seed=snap)
            try:
                summary = self.summarize(ctx, self.execute(ctx))
            except Exception as exc:
                summary = self._summarize_again(ctx, exc, seed)
        if write:
            write_summary(summary, out)
        return summary

    def _summarize_again(self, ctx, exc, seed):
        """The summary, once more, after a failure the store explains: rows copied from the
        snapshot ``seed`` that this code cannot summarise, or a stored result without a field
        its summary reads (a :class:`KeyError`).  Those rows are deleted and computed again;
        any other failure is raised as it was.
        """
        store = ctx.store
        if ctx.seeded:
            store.delete(ctx.seeded)
            print(f"weaklabel: the report failed ({type(exc).__name__}) on {len(ctx.seeded)} cell(s) copied from "
                  f"{seed}; they are computed again.", file=sys.stderr)
        elif isinstance(exc, KeyError):
            field = exc.args[0] if exc.args else None
            if not ctx.rows_lacking(field):
                raise exc                                    # not the store's doing
            if not ctx.execute:
                raise ValueError(f"a stored result in {store.path} lacks the field {field!r}; rerun "
                                 f"`weaklabel reproduce {self.name}` with the same --out to compute it "
                                 "again.") from None
            ctx.drop_rows_lacking(field)
        else:
            raise exc
        ctx = Context(self, ctx.plan, store, ctx.out, execute=ctx.execute, jobs=ctx.jobs, scheduler=ctx.scheduler,
                      progress=ctx.progress)
        return self.summarize(ctx, self.execute(ctx))

    def saved_plan(self, out):
        """Return the plan ``weaklabel reproduce`` saved in ``OUT/plan.json``.

        Parameters
        ----------
        out : str or Path
            The run's folder.

        Returns
        -------
        dict
            The plan (checked to be this experiment's).
        """
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
        """Write the saved plan and exactly the stored rows its report reads to ``path``.

        A snapshot (gzip-compressed JSON) is what the documentation renders its reproduction
        pages from: it is small enough to keep under version control, and :meth:`run` with
        ``snapshot=path`` makes the same tables and figures as ``weaklabel report`` on the full
        store.  Rows the store holds but the report does not read are left out.

        Parameters
        ----------
        out : str or Path
            The run's folder (its plan.json and results.sqlite).
        path : str or Path
            The snapshot file to write.

        Returns
        -------
        Snapshot
            What was written.
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


class Context:
    """What an experiment's functions get: the plan, the store and the way to run cells.

    Parameters
    ----------
    experiment : Experiment
        The experiment being run.
    plan : dict
        Its plan.
    store : ResultStore or Snapshot
        Where the rows are read (and, when executing, written).
    out : str or Path
        The run's folder.
    execute : bool, default=True
        Run the cells that are not stored (False: read only).
    jobs : int, default=1
        Worker processes.
    scheduler : str or None, default=None
        A Dask scheduler's address.
    progress : bool, default=True
        Show progress on stderr.
    seed : Snapshot or None, default=None
        A snapshot whose rows :meth:`run` copies into the store for the cells it is asked
        for and lacks (``weaklabel reproduce --from-snapshot``).
    """

    def __init__(self, experiment, plan, store, out, *, execute=True, jobs=1, scheduler=None, progress=True,
                 seed=None):
        self.experiment = experiment
        self.seed = seed                              # a Snapshot whose rows the cells may take
        self.seeded = []                              # the keys copied from it
        self._cells_made = 0
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
        """Return ``fn()``, remembered under ``key``.

        For the few facts an experiment reads from its data outside its cells (a dataset's
        size, a noise scale).  A snapshot keeps them, so that a report renders from it without
        the data.

        Parameters
        ----------
        key : str
            The fact's name.
        fn : callable
            Computes it (not called when the snapshot holds it).

        Returns
        -------
        object
            The JSON-able value.
        """
        stored = getattr(self.store, "memos", None)
        if stored is not None and key in stored:
            value = stored[key]
        else:
            value = fn()
        self.memos[key] = value
        return value

    def cell(self, fn, stage="main", **config):
        """Make a cell of this experiment.

        Parameters
        ----------
        fn : callable
            ``fn(config) -> dict``, defined at module level (it runs on Dask workers too).
        stage : str, default="main"
            The stage the cell belongs to.
        **config : dict
            The cell's JSON-able settings.

        Returns
        -------
        Cell
            The cell, keyed by its config.
        """
        if isinstance(self.store, Snapshot):
            # a report from a snapshot reads its rows only: a plan asking for far more cells than
            # the snapshot holds (an altered file: runs=10**7) would only spend time and memory
            self._cells_made += 1
            if self._cells_made > 10 * len(self.store) + 100_000:
                raise ValueError(f"the plan of {self.store.path} asks for more than {self._cells_made - 1:,} cells "
                                 f"while the snapshot holds {len(self.store):,} rows; the plan was altered.")
        return Cell(self.experiment.name, stage, config, fn)

    def run(self, cells, desc="cells"):
        """Run the cells that are not stored yet (when executing) and return their rows.

        Parameters
        ----------
        cells : list of Cell
            The cells, from :meth:`cell`.
        desc : str, default="cells"
            The progress bar's label.

        Returns
        -------
        list of tuple
            The stored ``(config, result)`` rows of exactly these cells, in the cells' order
            (a cell without a row is left out).
        """
        if self.execute and self.seed is not None:
            copied = self.seed.seed(self.store, keys={c.key for c in cells})
            self.seeded += copied
            if copied and self.progress:
                print(f"weaklabel: {len(copied)} cell(s) copied from {self.seed.path} into {self.store.path}.",
                      file=sys.stderr)
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
        """Return the keys of rows handed out so far that lack a field other rows of their stage have.

        Such a row is a damaged or outdated stored result.

        Parameters
        ----------
        field : str
            The field a summary read.

        Returns
        -------
        list of str
            The rows' config keys.
        """
        return [k for rows in self._seen.values() if any(field in r for _, r in rows)
                for k, r in rows if field not in r]

    def drop_rows_lacking(self, field):
        """Delete :meth:`rows_lacking` from the store, so that the next run computes them again.

        Parameters
        ----------
        field : str
            The field a summary read.

        Returns
        -------
        int
            How many rows were dropped (a line on stderr says so).
        """
        bad = self.rows_lacking(field)
        if bad:
            self.store.delete(bad)
            print(f"weaklabel: {len(bad)} stored cell(s) of {self.store.path} lacked the field {field!r}; "
                  "computed again.", file=sys.stderr)
        self._seen = {}
        return len(bad)
