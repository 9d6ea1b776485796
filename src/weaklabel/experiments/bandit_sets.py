"""Bandit feedback with several acceptable labels: ``weaklabel reproduce bandit-sets``.

Protocol: the linear CSPA table's streams (one pass, a random order per run, features as
in ``cspa-linear``); each row's acceptable labels are its label and, with probability
``p``, its class's partner (:func:`weaklabel.simulate.acceptable_labels`, one pairing of
the classes per data set).  A proposal is right when it is acceptable.  Reported: the
ratio of right proposals over the pass, each learner at its best grid point (as in the
paper's tables), mean +- std over the runs.  Vowpal Wabbit runs ``--cb_explore`` with the
bandit loop done in Python (``--cbify`` takes one right label only).  ``p = 0`` is the
single-label stream of ``cspa-linear``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..simulate import acceptable_labels
from ._common import grid_edge_row, grid_edge_table, grid_points, mean_std, numeric_grid
from .cspa import HALF_BAND, LINEAR_DATA, _learner, _vw_strings, stream
from .engine import Experiment
from .results import MeanStd, Summary, Table
from ._peers import have_vw, vw_cb_explore_pass

EXPERIMENT = "bandit-sets"
DATASETS = ("vehicle", "usps", "pendigits")
METHODS = ("cspa", "banditron", "bpa", "confidit-diag", "confidit-full", "spa", "vw")
LABELS = {"cspa": "CSPA", "banditron": "Banditron", "bpa": "BPA", "confidit-diag": "Confidit (diag)",
          "confidit-full": "Confidit (full)", "spa": "SPA (full feedback)", "vw": "VW --cb_explore"}
GRID = {
    "cspa": {"beta": [0.1, 0.3, 0.5, 0.7, 0.9, HALF_BAND]},
    "banditron": {"gamma": [0.01, 0.05, 0.1, 0.3]},
    "bpa": {"gamma": [0.01, 0.05, 0.1, 0.3]},
    "confidit-diag": {"eta": [1e-2, 1e0, 1e2, 1e4]},
    "confidit-full": {"eta": [1e-2, 1e0, 1e2, 1e4]},
    "spa": {},
    # widened where the best point sat at an edge (epsilon at both ends, the rate at both ends),
    # epsilon down to 0 (no exploration: the end of its range, not of a grid)
    "vw": {"cb_type": ["ips", "dr", "mtr"], "learning_rate": [0.125, 0.5, 2.0, 8.0, 32.0, 128.0, 512.0],
           "epsilon": [0.0, 0.0001, 0.0005, 0.0025, 0.01, 0.05, 0.2]},
}
QUICK_GRID = {m: {k: v[:2] for k, v in g.items()} for m, g in GRID.items()}


@functools.lru_cache(maxsize=4)
def _sets(dataset, part, scaling, seed, rounds, p):
    """The acceptable-label mask of one run's stream (the pairing fixed per data set)."""
    _, y, K = stream(dataset, part, scaling, seed, rounds)
    return acceptable_labels(y, p, classes=np.arange(K), partner_seed=0, random_state=10_000 + seed).mask


def cell(config):
    """One run: one learner, one grid point, one random order, one ``p``."""
    key = (config["dataset"], config["part"], config["scaling"], config["seed"], config["rounds"])
    X, y, K = stream(*key)
    S = _sets(*key, config["p"])
    if config["method"] == "vw":
        right = vw_cb_explore_pass(_vw_strings(*key, None, False, 0.0), S, K, seed=config["seed"],
                                   **config["params"])
    else:
        est = _learner(config["method"], config["params"], K, config["seed"])
        est.partial_fit(X, S, classes=np.arange(K))
        right = est.correct_
    return {"ratio": float(np.mean(right)), "rounds": int(y.size), "set_size": float(S.sum(axis=1).mean())}


def plan(quick=False, repeats=None, datasets=None):
    names = list(DATASETS) if not datasets else list(datasets)
    return {"datasets": names, "runs": repeats or (2 if quick else 5), "rounds": 500 if quick else 10**9,
            "p": [0.5, 1.0], "quick": bool(quick), "vw": have_vw()}


def execute(ctx):
    p = ctx.plan
    cells = []
    for name in p["datasets"]:
        part, scaling, _ = LINEAR_DATA[name]
        for pr in p["p"]:
            for r in range(p["runs"]):
                for m in METHODS:
                    if m == "vw" and not p["vw"]:
                        continue
                    for params in grid_points((QUICK_GRID if p["quick"] else GRID)[m]):
                        cells.append(ctx.cell(cell, "run", dataset=name, part=part, scaling=scaling, method=m,
                                              params=params, seed=r, rounds=p["rounds"], p=pr))
    return ctx.run(cells, desc=EXPERIMENT)


def summarize(ctx, rows):
    p = ctx.plan
    groups = {}
    for cfg, res in rows:
        key = (cfg["dataset"], cfg["p"], cfg["method"], tuple(sorted((k, str(v)) for k, v in cfg["params"].items())))
        groups.setdefault(key, []).append(res)
    best = {}
    for (name, pr, m, params), res in groups.items():
        mu, sd = mean_std([100 * r["ratio"] for r in res])
        if (name, pr, m) not in best or mu > best[(name, pr, m)][0].mean:
            best[(name, pr, m)] = (MeanStd(mu, sd), ", ".join(f"{k}={v}" for k, v in params), res[0]["set_size"],
                                   dict(params))
    methods = [m for m in METHODS if m != "vw" or p["vw"]]
    table_rows = []
    for name in p["datasets"]:
        for pr in p["p"]:
            if (name, pr, methods[0]) not in best:
                continue
            row = [name, pr, best[(name, pr, methods[0])][2]]
            row += [best[(name, pr, m)][0] if (name, pr, m) in best else None for m in methods]
            bandit = {m: best[(name, pr, m)][0].mean for m in methods if m != "spa" and (name, pr, m) in best}
            row.append(LABELS[max(bandit, key=bandit.get)] if bandit else None)
            table_rows.append(row)
    headers = ["dataset", "p", "avg set size"] + [LABELS[m] for m in methods] + ["best bandit learner"]
    chosen = [[name, pr, LABELS[m], best[(name, pr, m)][1]] for (name, pr, m) in sorted(best)]
    tables = [Table("ratio", "Right proposals over one pass (%), each learner at its best grid point", headers,
                    table_rows, formats={"avg set size": ".2f", **{LABELS[m]: ".1f" for m in methods}},
                    note="A proposal is right when it is acceptable. SPA learns from the acceptable label it scores "
                         "highest (full feedback, a reference, not a bandit learner)."),
              Table("chosen", "Best grid point per learner", ["dataset", "p", "learner", "parameters"], chosen)]
    grids = QUICK_GRID if p["quick"] else GRID
    tables.append(grid_edge_table(
        grid_edge_row(EXPERIMENT, f"{LABELS[m]}: {key}", numeric_grid(values),
                      [(f"{name} p={pr:g}", b[3][key]) for (name, pr, mm), b in sorted(best.items()) if mm == m])
        for m in methods for key, values in grids[m].items()))
    intro = (f"{p['runs']} runs (random orders), one pass each; acceptable labels: the label and, with "
             f"probability p, its class's partner." + (" QUICK run." if p["quick"] else ""))
    return Summary("Bandit feedback with several acceptable labels", intro, tables, [])


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [Experiment(EXPERIMENT, "Bandit feedback with several acceptable labels", plan, execute, summarize,
                          datasets=DATASETS, repeats_help="runs (default 5)")]
