"""The candidate-label learners on real partial-label data (lost, birdsong, italian).

Protocol: 10 random 80/20 splits; features standardised on the training part
(italian: binary and sparse, left as is); each learner makes ``passes`` shuffled
passes.  Its hyper-parameter is chosen inside the training part only, on a 75/25
inner split, by the ambiguous error against the validation candidate sets (no true
label of the training part is ever used).  Reported: accuracy against the true labels
of the test part.  Perceptron/Pegasos trained on the TRUE training labels are shown
as an upper reference ("oracle"), not as a competitor.  The side-by-side baseline is
what a scikit-learn user would otherwise do: ``SGDClassifier(loss="hinge")`` on one
copy of each sample per candidate label ("expand"), tuned and scored the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler

from .. import datasets as _datasets
from ..metrics import accuracy, ambiguous_zero_one_loss
from ._common import EXACT_LABEL, fmt_params, grid_points, load_or_make_plan, make_learner, mean_std, run_and_collect
from .engine import ReportOnlyExperiment
from .runner import Cell

EXPERIMENT = "pll-realworld"
DATASETS = ("lost", "birdsong", "italian")
LEARNERS = ("avg-perceptron", "max-perceptron", "avg-pegasos", "max-pegasos", "sklearn-sgd-expand",
            "perceptron", "pegasos")
LABELS = {"avg-perceptron": "Avg Perceptron", "max-perceptron": "Max Perceptron", "avg-pegasos": "Avg Pegasos",
          "max-pegasos": "Max Pegasos", "sklearn-sgd-expand": "scikit-learn SGD, expanded sets",
          "perceptron": "oracle Perceptron (true labels)",
          "pegasos": "oracle Pegasos (true labels)"}
GRID = {
    "avg-perceptron": {"eta": [0.01, 0.1, 1.0]},
    "max-perceptron": {"eta": [0.01, 0.1, 1.0]},
    "perceptron": {"eta": [1.0]},
    "avg-pegasos": {"alpha": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]},
    "max-pegasos": {"alpha": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]},
    "pegasos": {"alpha": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]},
    "sklearn-sgd-expand": {"alpha": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]},
}

_CACHE = {}


def _data(name):
    if name not in _CACHE:
        d = _datasets.load(name)
        X = sp.csr_matrix(d.X_train) if name == "italian" else d.X_train
        _CACHE[name] = (X, d.y_train, d.S_train)
    return _CACHE[name]


def split(name, seed):
    """Split ``seed`` of a real partial-label set: ``(X, y, S, train, test, val, fit_part)``.

    A random 80/20 train/test split; features standardised on the training part (italian,
    binary and sparse, left as is); the training part split again 25/75 into a validation
    part and a fitting part for hyper-parameter choice.  Shared with mms-realworld.
    """
    X, y, S = _data(name)
    n = y.size
    rs = np.random.RandomState(seed)
    perm = rs.permutation(n)
    n_test = int(round(0.2 * n))
    test, train = perm[:n_test], perm[n_test:]
    if not sp.issparse(X):
        scaler = StandardScaler().fit(X[train])
        X = scaler.transform(X)
    n_val = int(round(0.25 * train.size))
    val, fit_part = train[:n_val], train[n_val:]
    return X, y, S, train, test, val, fit_part


def split_cell(config):
    X, y, S, train, test, val, fit_part = split(config["dataset"], config["split"])
    method = config["method"]
    exact = method in EXACT_LABEL

    def target(rows):
        return y[rows] if exact else S[rows]

    classes = S.classes_

    def train_on(rows, params):
        if method == "sklearn-sgd-expand":
            return _fit_expanded(X, S, rows, params, config["passes"], config["split"])
        est = make_learner(method, params, max_iter=config["passes"], shuffle=True, random_state=config["split"])
        est.partial_fit(X[rows], target(rows), classes=classes)
        for _ in range(config["passes"] - 1):
            est.partial_fit(X[rows], target(rows))
        return est

    val_err = {}
    best = None
    for params in config["grid"]:
        est = train_on(fit_part, params)
        pred = est.predict(X[val])
        err = float(np.mean(pred != y[val])) if exact else ambiguous_zero_one_loss(S[val], pred)
        val_err[fmt_params(params)] = err
        if best is None or err < best[0]:
            best = (err, params)
    est = train_on(train, best[1])
    pred = est.predict(X[test])
    return {"accuracy": accuracy(y[test], pred), "ambiguous_error": ambiguous_zero_one_loss(S[test], pred),
            "chosen": best[1], "val_errors": val_err, "n_train": int(train.size), "n_test": int(test.size)}


def _fit_expanded(X, S, rows, params, passes, seed):
    """scikit-learn's SGDClassifier (hinge) on one copy of each sample per candidate label."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    mask = S.mask[rows]
    rep_rows, rep_labels = np.nonzero(mask)
    est = SGDClassifier(loss="hinge", alpha=params["alpha"], max_iter=passes, tol=None, shuffle=True,
                        random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X[rows[rep_rows]], S.classes_[rep_labels])
    return est


def plan(quick=False, repeats=None, datasets=None):
    names = list(DATASETS) if datasets is None else list(datasets)
    for n in names:
        if n not in DATASETS:
            raise ValueError(f"dataset {n!r} is not part of this reproduction; choose from {list(DATASETS)}.")
    return {"datasets": names, "splits": repeats if repeats is not None else (2 if quick else 10),
            "passes": 2 if quick else 10, "quick": bool(quick)}


def cells(p):
    out = []
    for name in p["datasets"]:
        for method in LEARNERS:
            grid = grid_points(GRID[method])
            if p["quick"]:
                grid = grid[-2:]
            for split in range(p["splits"]):
                cfg = {"dataset": name, "method": method, "split": split, "passes": p["passes"], "grid": grid}
                out.append(Cell(EXPERIMENT, "eval", cfg, split_cell))
    return out


def run(out, *, quick=False, repeats=None, jobs=1, scheduler=None, progress=True, datasets=None,
        execute=True):
    from .plots import plot_bars

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    p = load_or_make_plan(out, plan, quick, repeats, datasets, execute)
    rows = run_and_collect(out, cells(p), EXPERIMENT, "eval", jobs=jobs, scheduler=scheduler, progress=progress, execute=execute,
                           desc="splits")
    groups = {}
    for cfg, res in rows:
        groups.setdefault((cfg["dataset"], cfg["method"]), []).append(res)
    lines = ["# Candidate-label learners on real partial-label data", "",
             f"{p['splits']} random 80/20 splits, {p['passes']} shuffled passes; accuracy on the TRUE labels of the "
             "test part (mean +- std over splits). Hyper-parameters chosen inside the training part by the "
             "ambiguous (candidate-set) validation error." + (" QUICK run." if p["quick"] else ""), "",
             "| dataset | n | classes | avg set size | " + " | ".join(LABELS[m] for m in LEARNERS) + " |",
             "|---|---|---|---|" + "---|" * len(LEARNERS)]
    bars = []
    csv_rows = [["dataset", "method", "splits", "mean_accuracy", "std_accuracy", "chosen_params"]]
    for name in p["datasets"]:
        X, y, S = _data(name)
        txt = []
        for m in LEARNERS:
            res = groups.get((name, m), [])
            if not res:
                txt.append("-")
                continue
            mu, sd = mean_std([r["accuracy"] for r in res])
            txt.append(f"{mu:.3f} +- {sd:.3f}")
            bars.append((name, LABELS[m], mu, sd))
            chosen = sorted({fmt_params(r["chosen"]) for r in res})
            csv_rows.append([name, m, len(res), f"{mu:.5f}", f"{sd:.5f}", " / ".join(chosen)])
        lines.append(f"| {name} | {y.size} | {S.n_classes} | {S.sizes.mean():.2f} | " + " | ".join(txt) + " |")
    lines += ["", "Chosen hyper-parameters (over splits):", ""]
    lines += [f"- {r[0]} / {r[1]}: {r[5]}" for r in csv_rows[1:]]
    png = plot_bars(bars, out / "pll_realworld.png", "Accuracy on real candidate-label data")
    lines += ["", f"![accuracy]({png.name})"]
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n")
    import csv

    with open(out / "accuracy.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(csv_rows)
    return md


#: registered in weaklabel.experiments.registry (report still written by hand: see ReportOnlyExperiment)
EXPERIMENTS = [
    ReportOnlyExperiment('pll-realworld', 'Real partial-label data: online learners, 80/20 splits', plan, None, None, datasets=tuple(DATASETS),
                         repeats_help='splits (default 10)', legacy_run=run),
]
