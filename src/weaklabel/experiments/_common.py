"""Pieces shared by the reproductions: data preparation, learners, grids, summaries."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import scipy.sparse as sp

from .. import datasets
from .. import presets

EXACT_LABEL = ("perceptron", "pegasos")


@functools.lru_cache(maxsize=8)
def prepared(name, preprocess, part="train"):
    """(X, y, classes) of a dataset's train part (or train+test), preprocessed.

    preprocess: "none" or "minmax" (each feature to [0, 1] over the whole stream).
    Cached per process: every cell of a sweep reuses the parsed arrays.
    """
    d = datasets.load(name)
    X, y = d.X_train, d.y_train
    if part == "all" and d.X_test is not None:
        X = sp.vstack([X, d.X_test]).tocsr() if sp.issparse(X) else np.vstack([X, d.X_test])
        y = np.concatenate([y, d.y_test])
    if preprocess == "minmax":
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = (X - lo) / span
    elif preprocess != "none":
        raise ValueError(f"unknown preprocess {preprocess!r}; use 'none' or 'minmax'.")
    classes = np.unique(y)
    return X, y, classes


def make_learner(method, params, **extra):
    """The estimator of learner preset ``method`` (:mod:`weaklabel.presets`) with ``params``."""
    return presets.make(method, **params, **extra)


def grid_points(grid):
    """{'eta': [..]} -> [{'eta': v}, ...] in grid order."""
    keys = sorted(grid)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(grid[k] for k in keys))]


def mean_std(values):
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0


def fmt_params(params):
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in sorted(params.items()))


def load_or_make_plan(out, make_plan, quick, repeats, datasets, execute):
    """The sweep plan: made from the arguments and saved as OUT/plan.json when running,
    read back from there when only re-rendering a report (execute=False)."""
    import json
    from pathlib import Path

    f = Path(out) / "plan.json"
    if not execute:
        if not f.exists():
            raise FileNotFoundError(f"{f} is missing; it is written by `weaklabel reproduce`.")
        return json.loads(f.read_text())
    p = make_plan(quick, repeats, datasets)
    f.write_text(json.dumps(p, indent=1))
    return p


def run_and_collect(out, cells, experiment, stage, *, jobs=1, scheduler=None, progress=True, execute=True,
                    desc="cells"):
    """Run the cells not yet in OUT/results.sqlite (unless ``execute`` is False) and return
    the stored (config, result) rows of exactly these cells."""
    from pathlib import Path

    from .runner import run_cells
    from .store import ResultStore, config_key

    wanted = {c.key for c in cells}
    with ResultStore(Path(out) / "results.sqlite") as store:
        if execute:
            run_cells(cells, store, jobs=jobs, scheduler=scheduler, progress=progress, desc=desc)
        return [(c, r) for c, r in store.rows(experiment, stage) if config_key(c) in wanted]
