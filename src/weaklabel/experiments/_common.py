"""Pieces shared by the reproductions: learners, grids, summaries."""

from __future__ import annotations

import itertools

import numpy as np

from .. import presets
from .results import Figure, MeanStd, Series, Table

EXACT_LABEL = ("perceptron", "pegasos")


def make_learner(method, params, **extra):
    """The estimator of learner preset ``method`` (:mod:`weaklabel.presets`) with ``params``,
    on the papers' protocol (one pass in order) unless ``params``/``extra`` say otherwise.
    """
    return presets.make(method, paper=True, **params, **extra)


def grid_points(grid):
    """{'eta': [..]} -> [{'eta': v}, ...] in grid order."""
    keys = sorted(grid)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(grid[k] for k in keys))]


def mean_std(values):
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0


def fmt_params(params):
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in sorted(params.items()))


def accuracy_by_split(rows, datasets, learners, labels, describe, *, title, figure_name, figure_title):
    """The summary of a sweep of (dataset, learner, split) cells with an ``accuracy`` result.

    Returns ``[summary table, accuracy table]`` and a bar figure:

    - ``summary``: one row per dataset, ``describe(name)`` -> ``(n, classes, avg set size)``
      then the accuracy (:class:`MeanStd` over splits) of each learner;
    - ``accuracy``: one row per (dataset, learner): splits, mean, std, the hyper-parameters
      chosen over the splits.
    """
    groups = {}
    for cfg, res in rows:
        groups.setdefault((cfg["dataset"], cfg["method"]), []).append(res)
    wide, long, series = [], [], {m: ([], [], []) for m in learners}
    for name in datasets:
        row = [name, *describe(name)]
        for m in learners:
            res = groups.get((name, m), [])
            if not res:
                row.append(None)
                continue
            mu, sd = mean_std([r["accuracy"] for r in res])
            row.append(MeanStd(mu, sd))
            chosen = sorted({fmt_params(r["chosen"]) for r in res if r.get("chosen")})
            long.append([name, m, len(res), mu, sd, " / ".join(chosen)])
            for lst, v in zip(series[m], (name, mu, sd)):
                lst.append(v)
        wide.append(row)
    columns = ["dataset", "n", "classes", "avg set size"] + [labels[m] for m in learners]
    tables = [
        Table("summary", title, columns, wide, formats={"avg set size": ".2f", **{labels[m]: ".3f" for m in learners}}),
        Table("accuracy", "Per learner (all numbers)", ["dataset", "method", "splits", "mean_accuracy",
                                                        "std_accuracy", "chosen_params"], long,
              formats={"mean_accuracy": ".5f", "std_accuracy": ".5f"}),
    ]
    figure = Figure(figure_name, figure_title, [Series(labels[m], *series[m]) for m in learners if series[m][0]],
                    xlabel="dataset", ylabel="test accuracy", kind="bar")
    return tables, figure


# ---- grids whose choice sits at an edge ---------------------------------------------------

GRID_EDGE_COLUMNS = ["reproduction", "learner: parameter", "grid", "choices", "at the low end", "at the high end"]


def _same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def _short(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def numeric_grid(values):
    """The numeric values of a grid, sorted and unique (symbolic points such as
    ``"1/(2(K-1))"`` dropped: they have no place at an end).
    """
    out = set()
    for v in values:
        try:
            out.add(float(v))
        except (TypeError, ValueError):
            continue
    return sorted(out)


def grid_edge_row(reproduction, parameter, grid, choices):
    """One row of the grids-at-an-edge table: how many of ``choices`` sit at either end of
    ``grid``.

    Parameters
    ----------
    reproduction : str
    parameter : str
        ``"learner: parameter"``.
    grid : sequence
        The grid's values in order (the first is the low end, the last the high end).
    choices : sequence of (str, value)
        One ``(where, chosen value)`` per selection (a dataset, split or run).

    Returns
    -------
    list or None
        The row, or None for a grid of fewer than two values or no choice.
    """
    grid, choices = list(grid), list(choices)
    if len(grid) < 2 or not choices:
        return None

    def at(end):
        hits = [w for w, v in choices if _same(v, end)]
        places = sorted(set(hits))
        more = ", ..." if len(places) > 4 else ""
        return f"{len(hits)} ({', '.join(places[:4])}{more})" if hits else "0"

    return [reproduction, parameter, f"{_short(grid[0])} ... {_short(grid[-1])} ({len(grid)} values)", len(choices),
            at(grid[0]), at(grid[-1])]


def grid_edge_table(rows):
    """The ``grid_edges`` table of a report (the docs gather every report's into one)."""
    return Table("grid_edges", "Grid choices at an edge", GRID_EDGE_COLUMNS, [r for r in rows if r],
                 note="Each selection (a dataset, split or run) counts once. A choice at an end may be better "
                      "still beyond it.")


def grid_edges_from_cells(reproduction, rows, label=lambda cfg: cfg["method"], where=lambda cfg: cfg["dataset"]):
    """Grid-edge rows for cells that select from ``cfg["grid"]`` (a list of parameter dicts,
    or of values of the one parameter in ``res["chosen"]``) and store ``res["chosen"]``.
    """
    grids, picks = {}, {}
    for cfg, res in rows:
        grid, chosen = cfg.get("grid"), res.get("chosen") or {}
        if not grid or not chosen:
            continue
        for key, value in chosen.items():
            values = ([g[key] for g in grid if key in g] if isinstance(grid[0], dict)
                      else list(grid) if len(chosen) == 1 else [])
            values = numeric_grid(values)
            if len(values) < 2:
                continue
            name = f"{label(cfg)}: {key}"
            grids[name] = numeric_grid(grids.get(name, []) + values)
            picks.setdefault(name, []).append((where(cfg), value))
    return [grid_edge_row(reproduction, name, grids[name], picks[name]) for name in sorted(grids)]
