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
