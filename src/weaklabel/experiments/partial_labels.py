"""Reproduction of Bhattacharjee & Manwani, Section 5 (Figures 1-5).

Protocol: for each dataset and candidate-set size, every repeat draws a random
order of the stream and candidate sets (true label + ``set_size - 1`` uniform
distractors); each learner makes one predict-then-learn pass; the curve is the
average 0-1 error against the TRUE label over the rounds seen so far, averaged
over repeats.  All learners of a repeat see the same order and the same sets.

Hyper-parameters (eta for Avg/Max Perceptron, alpha for the Pegasos variants) are
picked per dataset, set size and learner from a small grid, on separate tuning
seeds, by the final *ambiguous* progressive error (against the candidate sets,
which a user without true labels can measure); the Perceptron's eta does not
change its predictions (zero start, mistake-driven) and is fixed at 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..metrics import ambiguous_zero_one_loss, progressive_error_curve
from ..simulate import make_candidate_sets
from ._common import EXACT_LABEL, fmt_params, grid_points, load_or_make_plan, make_learner, mean_std, prepared
from .runner import Cell, run_cells
from .store import ResultStore

EXPERIMENT = "partial-labels"

#: dataset -> (candidate set sizes, preprocessing, note)
DATASETS = {
    "dermatology": ((2, 4), "minmax", "UCI dermatology (358 rows of the KEEL copy), features min-max scaled"),
    "ecoli": ((2, 4, 6), "none", "UCI ecoli (336 rows, 8 classes)"),
    "satimage": ((2, 4), "none", "Statlog satimage, LIBSVM-scaled training part (4435 rows)"),
    "usps": ((2, 4, 6, 8), "none", "USPS training part (7291 rows), pixels in [0, 1]"),
    "mnist-test": ((2, 4, 6, 8), "none",
                   "MNIST: only the 10k test images are available here, so the stream is those 10,000 images "
                   "(the paper used MNIST's training images)"),
}

LEARNERS = ("perceptron", "avg-perceptron", "max-perceptron", "pegasos", "avg-pegasos", "max-pegasos")

GRID = {
    "perceptron": {"eta": [1.0]},
    "avg-perceptron": {"eta": [0.01, 0.1, 1.0, 10.0]},
    "max-perceptron": {"eta": [0.01, 0.1, 1.0, 10.0]},
    "pegasos": {"alpha": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]},
    "avg-pegasos": {"alpha": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]},
    "max-pegasos": {"alpha": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]},
}

LABELS = {"perceptron": "Perceptron (true labels)", "avg-perceptron": "Avg Perceptron",
          "max-perceptron": "Max Perceptron", "pegasos": "Pegasos (true labels)",
          "avg-pegasos": "Avg Pegasos", "max-pegasos": "Max Pegasos"}

N_CHECKPOINTS = 100
TUNE_SEED0 = 1_000_000


def online_cell(config):
    """One repeat of one learner on one dataset and set size; returns the curve."""
    X, y, classes = prepared(config["dataset"], config["preprocess"])
    rounds = min(config["rounds"], y.size)
    rs = np.random.RandomState(config["seed"])
    order = rs.permutation(y.size)[:rounds]
    S = make_candidate_sets(y[order], config["set_size"], classes=classes, random_state=rs)
    est = make_learner(config["method"], config["params"])
    target = y[order] if config["method"] in EXACT_LABEL else S
    est.fit(X[order], target)
    cp = checkpoints(rounds)
    curve = progressive_error_curve(y[order], est.predictions_, checkpoints=cp)
    return {"final": float(curve[-1]), "curve": curve.tolist(), "checkpoints": cp.tolist(),
            "final_ambiguous": ambiguous_zero_one_loss(S, est.predictions_), "rounds": int(rounds)}


def checkpoints(rounds, n=N_CHECKPOINTS):
    return np.unique(np.linspace(1, rounds, n).round().astype(np.int64))


def plan(quick=False, repeats=None, datasets=None):
    """The sweep settings: datasets, rounds cap, repeats, tuning repeats."""
    names = list(DATASETS) if datasets is None else list(datasets)
    for n in names:
        if n not in DATASETS:
            raise ValueError(f"dataset {n!r} is not part of this reproduction; choose from {list(DATASETS)}.")
    return {
        "datasets": names,
        "rounds": 300 if quick else 10**9,
        "repeats": repeats if repeats is not None else (3 if quick else 100),
        "tune_repeats": 1 if quick else 5,
        "quick": bool(quick),
    }


def _base(p, name, size):
    sizes, pre, _ = DATASETS[name]
    return {"dataset": name, "preprocess": pre, "set_size": size, "rounds": p["rounds"]}


def tune_cells(p):
    cells = []
    for name in p["datasets"]:
        for size in DATASETS[name][0]:
            for method in LEARNERS:
                for params in grid_points(GRID[method]):
                    for r in range(p["tune_repeats"]):
                        cfg = dict(_base(p, name, size), method=method, params=params, seed=TUNE_SEED0 + r)
                        cells.append(Cell(EXPERIMENT, "tune", cfg, online_cell))
    return cells


def choose_params(store, p):
    """Best grid point per (dataset, size, method) by mean final ambiguous error."""
    scores = {}
    for cfg, res in store.rows(EXPERIMENT, "tune"):
        if cfg["dataset"] not in p["datasets"] or cfg["rounds"] != p["rounds"] or cfg["seed"] >= TUNE_SEED0 + p["tune_repeats"]:
            continue
        k = (cfg["dataset"], cfg["set_size"], cfg["method"], json.dumps(cfg["params"], sort_keys=True))
        scores.setdefault(k, []).append(res["final_ambiguous"])
    chosen = {}
    for name in p["datasets"]:
        for size in DATASETS[name][0]:
            for method in LEARNERS:
                best = None
                for params in grid_points(GRID[method]):
                    vals = scores.get((name, size, method, json.dumps(params, sort_keys=True)))
                    if not vals:
                        continue
                    m = float(np.mean(vals))
                    if best is None or m < best[0]:
                        best = (m, params)
                chosen[(name, size, method)] = best[1] if best else grid_points(GRID[method])[0]
    return chosen


def eval_cells(p, chosen):
    cells = []
    for name in p["datasets"]:
        for size in DATASETS[name][0]:
            for method in LEARNERS:
                for r in range(p["repeats"]):
                    cfg = dict(_base(p, name, size), method=method, params=chosen[(name, size, method)], seed=r)
                    cells.append(Cell(EXPERIMENT, "eval", cfg, online_cell))
    return cells


def summarize(store, p, chosen):
    """{(dataset, size, method): {"mean", "std", "n", "curve", "checkpoints", "params"}}."""
    groups = {}
    for cfg, res in store.rows(EXPERIMENT, "eval"):
        key = (cfg["dataset"], cfg["set_size"], cfg["method"])
        if key not in chosen or cfg["params"] != chosen[key] or cfg["rounds"] != p["rounds"] \
                or cfg["seed"] >= p["repeats"]:
            continue
        groups.setdefault(key, []).append(res)
    out = {}
    for key, results in groups.items():
        finals = [r["final"] for r in results]
        m, s = mean_std(finals)
        curves = np.asarray([r["curve"] for r in results])
        out[key] = {"mean": m, "std": s, "n": len(results), "curve": curves.mean(axis=0).tolist(),
                    "checkpoints": results[0]["checkpoints"], "params": chosen[key],
                    "ambiguous": mean_std([r["final_ambiguous"] for r in results])[0]}
    return out


def run(out, *, quick=False, repeats=None, jobs=1, scheduler=None, progress=True, datasets=None,
        execute=True):
    """Run (or resume) the reproduction and write its tables and plots into ``out``.

    Returns the path of the Markdown report.
    """
    from .plots import plot_online_curves
    from .report import write_partial_labels_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    p = load_or_make_plan(out, plan, quick, repeats, datasets, execute)
    with ResultStore(out / "results.sqlite") as store:
        if execute:
            run_cells(tune_cells(p), store, jobs=jobs, scheduler=scheduler, progress=progress, desc="tuning")
        chosen = choose_params(store, p)
        if execute:
            run_cells(eval_cells(p, chosen), store, jobs=jobs, scheduler=scheduler, progress=progress, desc="repeats")
        summary = summarize(store, p, chosen)
    pngs = []
    for name in p["datasets"]:
        pngs.append(plot_online_curves(summary, name, DATASETS[name][0], LEARNERS, LABELS,
                                       out / f"{name}.png", title=f"{name}: {DATASETS[name][2]}"))
    return write_partial_labels_report(out, p, summary, DATASETS, LEARNERS, LABELS, GRID, pngs)


__all__ = ["run", "online_cell", "plan", "DATASETS", "LEARNERS", "GRID", "fmt_params"]
