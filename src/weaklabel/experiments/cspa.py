"""Reproductions of Kaneko, Sato & Sugiyama (CSPA): Tables 1-2, Figures 1-4.

Protocol (Section 5): every feature vector is normalised to unit norm (LIBSVM files
are min-max scaled to [-1, 1] first; where the staged file is raw, we do that
scaling ourselves); each run is one pass over the instances in a random order; the
metric is the ratio of correct *proposed* labels during that pass; 10 runs.  Every
grid value is run 10 times and the value with the best mean ratio is reported, as in
the paper (its Section 5.2: "chose the best hyperparameter").

* ``cspa-linear``: Table 1 / Figure 3 on the linear model.
* ``cspa-kernel``: Table 2 / Figure 4 on :class:`weaklabel.bandit.GaussianSupport`
  features over the first 700 instances of each run's stream, the kernel width ``g``
  tuned jointly with each learner's parameter.
* ``cspa-beta``: Figures 1-2, accuracy vs beta under Gaussian noise.

Every learner of a run sees the same order.  Vowpal Wabbit's ``--cbify`` runs in the
same process on the same stream (optional extra).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .. import presets
from ..bandit import BPA, CSPA, Banditron, GaussianSupport
from ._common import fmt_params, grid_points, load_or_make_plan, mean_std, run_and_collect
from ._data import stream_data, unit_norm
from .peers import VW_MISSING, have_vw, vw_cbify_pass, vw_features
from .engine import ReportOnlyExperiment
from .runner import Cell

LINEAR = "cspa-linear"
KERNEL = "cspa-kernel"
BETA = "cspa-beta"
BLOCK = 100

#: dataset -> (rows used, scaling before the unit norm, note)
LINEAR_DATA = {
    "sector": ("train", "none", "LIBSVM sector training part (6412 x 55197, tf-idf, already unit norm), sparse"),
    "vehicle": ("all", "none", "LIBSVM vehicle.scale, all 846 rows"),
    "shuttle": ("train", "minmax", "UCI Statlog shuttle training part (43500 rows), raw file: min-max to [-1, 1] "
                "as LIBSVM's shuttle.scale"),
    "usps": ("train", "minmax", "USPS training part (7291), pixels [0, 1]: min-max to [-1, 1] as LIBSVM's usps"),
    "pendigits": ("train", "minmax", "pendigits training part (7494), raw 0..100: min-max to [-1, 1]"),
}
KERNEL_DATA = {
    "satimage": ("train", "none", "LIBSVM satimage.scale training part (4435)"),
    "mnist-test": ("train", "none", "MNIST: only the 10k test images are available here (the paper streamed the "
                   "60k training images), pixels / 255"),
    "letter": ("train", "none", "LIBSVM letter.scale training part (15000)"),
    "segment": ("all", "none", "LIBSVM segment.scale, all 2310 rows"),
    "vowel": ("train", "minmax", "UCI vowel training part (528, the support set is all of it), min-max to [-1, 1]"),
}
NOT_HERE = {LINEAR: {"20news": "20 Newsgroups is not in the shared data"},
            KERNEL: {"sensorless": "Sensorless drive diagnosis is not in the shared data"}}

#: the paper's Tables 1 and 2: CSPA, Banditron, Confidit, BPA (mean, std)
PAPER = {
    "20news": {"cspa": (66.7, 0.5), "banditron": (23.6, 1.5), "confidit-diag": (55.9, 2.4), "bpa": (63.0, 1.4)},
    "sector": {"cspa": (8.83, 0.99), "banditron": (2.67, 0.33), "confidit-diag": (7.43, 1.09), "bpa": (7.43, 1.14)},
    "vehicle": {"cspa": (49.3, 1.7), "banditron": (35.9, 2.6), "confidit-diag": (47.4, 1.8), "bpa": (48.1, 1.8)},
    "shuttle": {"cspa": (95.3, 0.1), "banditron": (86.6, 3.8), "confidit-diag": (86.6, 0.0), "bpa": (87.1, 1.7)},
    "usps": {"cspa": (84.9, 0.3), "banditron": (48.5, 5.5), "confidit-diag": (78.5, 1.9), "bpa": (81.4, 1.5)},
    "pendigits": {"cspa": (79.7, 0.4), "banditron": (32.7, 3.0), "confidit-diag": (60.7, 2.4), "bpa": (70.7, 1.5)},
    "satimage": {"cspa": (86.2, 0.3), "banditron": (69.3, 1.1), "confidit-diag": (80.2, 0.3), "bpa": (81.9, 0.8)},
    "mnist-test": {"cspa": (91.8, 0.2), "banditron": (69.0, 1.0), "confidit-diag": (87.6, 0.2), "bpa": (89.7, 0.2)},
    "letter": {"cspa": (62.4, 1.6), "banditron": (26.8, 6.3), "confidit-diag": (36.0, 0.9), "bpa": (50.7, 0.5)},
    "segment": {"cspa": (90.1, 0.6), "banditron": (76.2, 0.8), "confidit-diag": (74.9, 1.7), "bpa": (86.7, 0.6)},
    "vowel": {"cspa": (41.8, 4.6), "banditron": (43.1, 4.8), "confidit-diag": (27.1, 1.3), "bpa": (38.6, 2.7)},
    "sensorless": {"cspa": (92.6, 0.3), "banditron": (68.9, 1.2), "confidit-diag": (67.7, 0.5), "bpa": (87.6, 1.2)},
}

METHODS = ("cspa", "cspa-centred", "banditron", "confidit-diag", "confidit-full", "bpa", "bpa-m0", "spa", "vw")
LABELS = {"cspa": "CSPA", "cspa-centred": "CSPA (centred kernel)", "banditron": "Banditron", "confidit-diag": "Confidit (diag)",
          "confidit-full": "Confidit (full)", "bpa": "BPA (margin 1)", "bpa-m0": "BPA (margin 0)",
          "spa": "SPA (full feedback)", "vw": "VW --cbify"}
HALF_BAND = "1/(2(K-1))"

LINEAR_GRID = {
    "cspa": {"beta": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, HALF_BAND]},
    "banditron": {"gamma": [0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
    "bpa": {"gamma": [0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
    "confidit-diag": {"eta": [1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5]},
    "spa": {},
    "vw": {"epsilon": [0.01, 0.025, 0.05, 0.1, 0.2]},
}
LINEAR_GRID["bpa-m0"] = LINEAR_GRID["bpa"]
LINEAR_GRID["confidit-full"] = LINEAR_GRID["confidit-diag"]
KERNEL_GRID = {
    "g": [0.01, 0.1, 1.0, 10.0, 100.0],
    "cspa": {"beta": [0.1, 0.3, 0.5, 0.7, HALF_BAND]},
    "banditron": {"gamma": [0.001, 0.025, 0.1, 0.3, 0.4, 0.6]},
    "bpa": {"gamma": [0.001, 0.025, 0.1, 0.3, 0.4, 0.6]},
    "confidit-diag": {"eta": [1e-4, 1e-2, 1e0, 1e2, 1e4]},
    "spa": {},
    "vw": {"epsilon": [0.05]},        # 700 dense features per example make VW's text input slow
}
KERNEL_GRID["bpa-m0"] = KERNEL_GRID["bpa"]
KERNEL_GRID["cspa-centred"] = KERNEL_GRID["cspa"]
KERNEL_GRID["confidit-full"] = KERNEL_GRID["confidit-diag"]
QUICK_GRID = {
    "cspa": {"beta": [0.3, 0.5, HALF_BAND]}, "cspa-centred": {"beta": [0.3, 0.5, HALF_BAND]}, "banditron": {"gamma": [0.01, 0.1]}, "bpa": {"gamma": [0.01, 0.1]},
    "bpa-m0": {"gamma": [0.01, 0.1]}, "confidit-diag": {"eta": [1e-2, 1.0, 1e2]},
    "confidit-full": {"eta": [1e-2, 1.0, 1e2]}, "spa": {}, "vw": {"epsilon": [0.05]},
}
#: full-matrix Confidit costs O(K d^2) a round: linear sets with d <= 1000, and the
#: kernel sets where the 700-dim matrices stay cheap (few classes and rounds)
FULL_CONFIDIT_KERNEL = ("vowel", "segment")


# ---- data ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=2)
def stream(dataset, part, scaling, seed, rounds, g=None, center=False, noise=0.0):
    """The rows of one run in stream order: ``(X, y_idx, n_classes)``.

    The order is ``RandomState(seed).permutation``, cut to ``rounds``.  With ``noise``,
    Gaussian noise is added (then unit norm again).  With ``g``, the rows become
    Gaussian features over the first 700 instances *of this stream* (the paper's
    support set; in file order satimage's first 700 rows are all one class).
    """
    X, y, K = stream_data(dataset, part, scaling)
    order = np.random.RandomState(seed).permutation(y.size)[: min(rounds, y.size)]
    Xs = X[order]
    if noise:
        Xs = _noisy(Xs, noise, np.random.RandomState(seed + 7_919))
    if g is not None:
        Xs = GaussianSupport(n_support=700, g=g, center=center).fit(Xs).transform(Xs)
    return Xs, y[order], K


@functools.lru_cache(maxsize=2)
def _vw_strings(*key):
    return vw_features(stream(*key)[0])


def _learner(method, params, n_classes, seed):
    """The learner preset ``method`` (``cspa-centred`` is CSPA on centred features);
    the exploring learners draw from ``seed``."""
    p = dict(params)
    if p.get("beta") == HALF_BAND:
        p["beta"] = 1.0 / (2 * (n_classes - 1)) if n_classes > 2 else 0.5
    preset = presets.get("cspa" if method == "cspa-centred" else method)
    if preset.cls in (Banditron, BPA):
        p["random_state"] = seed
    return preset.make(**p)


def blocks(correct, size=BLOCK):
    """Ratio of correct proposals in consecutive blocks of ``size`` rounds (the last may be short)."""
    c = np.asarray(correct, dtype=float)
    edges = np.arange(0, c.size, size)
    return (np.add.reduceat(c, edges) / np.diff(np.append(edges, c.size))).tolist()


def online_cell(config):
    """One run: one learner, one parameter point, one random order; the ratio and its curve."""
    key = (config["dataset"], config["part"], config["scaling"], config["seed"], config["rounds"],
           config.get("g"), config["method"] == "cspa-centred", config.get("noise", 0.0))
    X, y, K = stream(*key)
    if config["method"] == "vw":
        correct = vw_cbify_pass(_vw_strings(*key), y, K, config["params"]["epsilon"], config["seed"])
    else:
        est = _learner(config["method"], config["params"], K, config["seed"])
        est.partial_fit(X, y, classes=np.arange(K))
        correct = est.correct_
    return {"ratio": float(np.mean(correct)), "blocks": blocks(correct), "rounds": int(y.size)}


def _noisy(X, sigma, rng):
    """Gaussian noise of std ``sigma`` on every feature (on the stored entries of a sparse
    matrix), then unit norm again."""
    if sp.issparse(X):
        X = X.tocsr(copy=True)
        X.data = X.data + sigma * rng.standard_normal(X.data.size)
        return unit_norm(X)
    return unit_norm(X + sigma * rng.standard_normal(X.shape))


def artificial(n_per_class, sigma, rng):
    """Section 5.1: 2-D, 4 classes, N(c_i, sigma I) around (1, 1), (1, -1), (-1, 1), (-1, -1)."""
    c = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=float)
    y = np.repeat(np.arange(4), n_per_class)
    X = c[y] + np.sqrt(sigma) * rng.standard_normal((y.size, 2))
    return X, y


def artificial_cell(config):
    rs = np.random.RandomState(config["seed"])
    X, y = artificial(config["n_per_class"], config["sigma"], rs)
    order = rs.permutation(y.size)
    est = CSPA(beta=config["beta"]).partial_fit(unit_norm(X[order]), y[order], classes=np.arange(4))
    return {"ratio": float(est.correct_.mean())}


# ---- plans and cells ----------------------------------------------------------------------

def _check_names(names, table):
    for n in names:
        if n not in table:
            raise ValueError(f"dataset {n!r} is not part of this reproduction; choose from {list(table)}.")


def linear_plan(quick=False, repeats=None, datasets=None):
    names = list(LINEAR_DATA) if datasets is None else list(datasets)
    _check_names(names, LINEAR_DATA)
    return {"datasets": names, "runs": repeats or (2 if quick else 10), "rounds": 1000 if quick else 10**9,
            "quick": bool(quick), "vw": have_vw()}


def kernel_plan(quick=False, repeats=None, datasets=None):
    names = list(KERNEL_DATA) if datasets is None else list(datasets)
    _check_names(names, KERNEL_DATA)
    return {"datasets": names, "runs": repeats or (2 if quick else 10), "rounds": 1000 if quick else 10**9,
            "quick": bool(quick), "vw": have_vw(), "g": [1.0] if quick else KERNEL_GRID["g"]}


def _grid(p, kind, method):
    if p["quick"]:
        return QUICK_GRID[method]
    return (LINEAR_GRID if kind == LINEAR else KERNEL_GRID)[method]


def _methods(p, kind, name):
    out = []
    for m in METHODS:
        if m == "vw" and not p["vw"]:
            continue
        if m == "cspa-centred" and kind != KERNEL:
            continue
        if m == "confidit-full":
            if kind == LINEAR and name == "sector":
                continue
            if kind == KERNEL and name not in FULL_CONFIDIT_KERNEL:
                continue
        out.append(m)
    return out


def table_cells(p, kind):
    table = LINEAR_DATA if kind == LINEAR else KERNEL_DATA
    cells = []
    for name in p["datasets"]:
        part, scaling, _ = table[name]
        for g in (p["g"] if kind == KERNEL else [None]):
            for r in range(p["runs"]):
                for m in _methods(p, kind, name):
                    for params in grid_points(_grid(p, kind, m)):
                        cfg = {"dataset": name, "part": part, "scaling": scaling, "method": m, "params": params,
                               "seed": r, "rounds": p["rounds"]}
                        if g is not None:
                            cfg["g"] = g
                        cells.append(Cell(kind, "run", cfg, online_cell))
    return cells


def summarize(rows):
    """{(dataset, method): best grid point by mean ratio, with its mean, std, curve}."""
    groups = {}
    for cfg, res in rows:
        params = dict(cfg["params"])
        if "g" in cfg:
            params["g"] = cfg["g"]
        key = (cfg["dataset"], cfg["method"], tuple(sorted((k, str(v)) for k, v in params.items())))
        groups.setdefault(key, (params, []))[1].append(res)
    best = {}
    for (name, m, _), (params, results) in groups.items():
        ratios = [r["ratio"] for r in results]
        mean, std = mean_std(ratios)
        if (name, m) not in best or mean > best[(name, m)]["mean"]:
            curves = np.asarray([r["blocks"] for r in results])
            best[(name, m)] = {"mean": mean, "std": std, "n": len(results), "params": params,
                               "curve": curves.mean(axis=0).tolist(), "curve_std": curves.std(axis=0).tolist(),
                               "n_points": len(groups)}
    return best


# ---- reports ------------------------------------------------------------------------------

def _pct(x):
    return f"{100 * x:.1f}"


def _table_report(out, p, kind, rows):
    summary = summarize(rows)
    table = LINEAR_DATA if kind == LINEAR else KERNEL_DATA
    title = ("Table 1 / Figure 3, linear model" if kind == LINEAR else
             "Table 2 / Figure 4, Gaussian kernel over a 700-instance support set")
    methods = [m for m in METHODS if (m != "vw" or p["vw"]) and (m != "cspa-centred" or kind == KERNEL)]
    lines = [f"# CSPA and bandit baselines: {title} (Kaneko, Sato & Sugiyama)", "",
             f"Ratio of correct *proposed* labels during one pass, % (mean (std) over {p['runs']} runs, each a "
             "random order of the stream; all learners of a run see the same order). Every grid value is run "
             "on every run and the best mean is reported, as in the paper." +
             (f" QUICK run: streams cut to {p['rounds']} rounds, small grids." if p["quick"] else ""), "",
             "| dataset | | " + " | ".join(LABELS[m] for m in methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    csv_rows = []
    for name in list(p["datasets"]) + list(NOT_HERE[kind]):
        if name in NOT_HERE[kind]:
            lines.append(f"| {name} | ours | " + " | ".join(["n/a"] * len(methods)) + " |")
        else:
            cells = []
            for m in methods:
                s = summary.get((name, m))
                if s is None:
                    cells.append("-")
                    continue
                cells.append(f"{_pct(s['mean'])} ({_pct(s['std'])})")
                csv_rows.append([name, m, fmt_params(s["params"]), s["n"], f"{100 * s['mean']:.3f}",
                                 f"{100 * s['std']:.3f}"])
            lines.append(f"| {name} | ours | " + " | ".join(cells) + " |")
        pp = PAPER.get(name, {})
        lines.append("| | paper | " + " | ".join(
            f"{pp[m][0]} ({pp[m][1]})" if m in pp else ("" if m != "bpa" else "-") for m in methods) + " |")
    lines += ["", "## Chosen hyper-parameters", "", "| dataset | " + " | ".join(LABELS[m] for m in methods) + " |",
              "|---|" + "---|" * len(methods)]
    for name in p["datasets"]:
        lines.append(f"| {name} | " + " | ".join(
            (fmt_params(summary[(name, m)]["params"]) or "none") if (name, m) in summary else "-" for m in methods)
            + " |")
    grid = {m: _grid(p, kind, m) for m in methods}
    lines += ["", "Grids: " + "; ".join(f"{LABELS[m]}: " + (", ".join(f"{k} in {v}" for k, v in g.items()) or "none")
                                         for m, g in grid.items()) +
              (f"; kernel width g in {p['g']}" if kind == KERNEL else "") + ".",
              f"{HALF_BAND} is the paper's beta for alpha = 1/2 in Theorem 2.", ""]
    notes = ["Confidit (diag) keeps only the diagonal of each A_k, the form behind the paper's Confidit numbers; "
             "Confidit (full) keeps the full matrices" + (" (not on sector: 55,197 features)" if kind == LINEAR
                                                         else f" (only on {', '.join(FULL_CONFIDIT_KERNEL)}: O(K d^2) "
                                                              "per round on 700 kernel features)") + ".",
             "BPA (margin 1) is the form behind the paper's BPA numbers; the BPA authors' code uses margin 0.",
             "SPA learns from the true label every round (full feedback): an upper reference, not a bandit method.",
             "VW --cbify: the vowpalwabbit package in this process, on the same stream and the same features "
             "(named f<j>), scored on the action it played. " + ("" if p["vw"] else VW_MISSING)]
    if kind == KERNEL:
        notes.insert(0, "Kernel features: GaussianSupport(n_support=700, g) over the first 700 instances of each "
                        "run's stream (the paper's support set B; in file order satimage's first 700 rows are all "
                        "one class, so the support set is taken from the shuffled stream), on unit-norm rows.")
        notes.insert(1, "CSPA (centred kernel): the same CSPA on the same features minus the support set's mean "
                        "feature vector (GaussianSupport(center=True)); not in the paper, known before the stream "
                        "starts, and much better conditioned for PA steps.")
    for n, why in NOT_HERE[kind].items():
        notes.append(f"{n}: {why}; the paper's numbers are shown alone.")
    lines += ["Notes:", ""] + [f"- {x}" for x in notes] + ["", "Data:", ""] + \
        [f"- {n}: {table[n][2]}" for n in p["datasets"]]
    png = _plot_curves(summary, p["datasets"], methods, out / f"{kind}.png",
                       "Figure 3 (linear)" if kind == LINEAR else "Figure 4 (kernel)")
    lines += ["", f"![curves]({png.name})"]
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n")
    import csv

    with open(out / "ratios.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "method", "params", "runs", "mean_ratio_pct", "std_ratio_pct"])
        w.writerows(csv_rows)
    return md


_COLORS = {"cspa": "tab:red", "cspa-centred": "tab:orange", "banditron": "tab:gray", "confidit-diag": "tab:green", "confidit-full": "darkgreen",
           "bpa": "tab:blue", "bpa-m0": "tab:cyan", "spa": "k", "vw": "tab:purple"}


def _plot_curves(summary, names, methods, path, title):
    from .plots import _plt

    plt = _plt()
    n = len(names)
    cols = min(3, n)
    rows_ = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(4.6 * cols, 3.4 * rows_), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        for m in methods:
            s = summary.get((name, m))
            if s is None:
                continue
            c = np.asarray(s["curve"])
            sd = np.asarray(s["curve_std"])
            x = (np.arange(c.size) + 1) * BLOCK
            ls = "--" if m == "spa" else "-"
            ax.plot(x, c, ls, color=_COLORS[m], lw=1.3, label=LABELS[m])
            ax.fill_between(x, c - sd, c + sd, color=_COLORS[m], alpha=0.12, lw=0)
        ax.set_title(name)
        ax.set_xlabel("rounds")
        ax.set_ylabel(f"ratio correct (per {BLOCK} rounds)")
        ax.set_ylim(0, 1)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def _run_table(kind, make_plan, out, quick, repeats, jobs, scheduler, progress, datasets, execute):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    p = load_or_make_plan(out, make_plan, quick, repeats, datasets, execute)
    rows = run_and_collect(out, table_cells(p, kind), kind, "run", jobs=jobs, scheduler=scheduler, progress=progress,
                           execute=execute, desc=kind)
    return _table_report(out, p, kind, rows)


def run_linear(out, *, quick=False, repeats=None, jobs=1, scheduler=None, progress=True, datasets=None,
        execute=True):
    """Run (or resume) ``cspa-linear`` and write report.md, ratios.csv and the curves."""
    return _run_table(LINEAR, linear_plan, out, quick, repeats, jobs, scheduler, progress, datasets, execute)


def run_kernel(out, *, quick=False, repeats=None, jobs=1, scheduler=None, progress=True, datasets=None,
        execute=True):
    """Run (or resume) ``cspa-kernel`` and write report.md, ratios.csv and the curves."""
    return _run_table(KERNEL, kernel_plan, out, quick, repeats, jobs, scheduler, progress, datasets, execute)


# ---- beta --------------------------------------------------------------------------------

BETAS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
ART_SIGMAS = [0.1, 0.5, 1.0, 2.0]
#: noise std as a multiple of 1/sqrt(d) (d = features, or mean stored entries per row for
#: sector), so the noise vector has norm about c against unit-norm rows
NOISE_LEVELS = [0.0, 0.5, 1.0, 2.0]


def beta_plan(quick=False, repeats=None, datasets=None):
    names = list(LINEAR_DATA) if datasets is None else list(datasets)
    _check_names(names, LINEAR_DATA)
    return {"datasets": names, "runs": repeats or (2 if quick else 10), "rounds": 1000 if quick else 10**9,
            "quick": bool(quick), "betas": [0.05, 0.2, 0.5, 1.0] if quick else BETAS,
            "sigmas": [0.5, 2.0] if quick else ART_SIGMAS, "levels": [0.0, 1.0] if quick else NOISE_LEVELS,
            "n_per_class": 250 if quick else 1000}


def _noise_std(name, part, scaling, level):
    X, _, _ = stream_data(name, part, scaling)
    width = X.getnnz(axis=1).mean() if sp.issparse(X) else X.shape[1]
    return float(level / np.sqrt(width))


def beta_cells(p):
    cells = []
    for sigma in p["sigmas"]:
        for beta in p["betas"]:
            for r in range(p["runs"]):
                cells.append(Cell(BETA, "artificial", {"sigma": sigma, "beta": beta, "seed": r,
                                                       "n_per_class": p["n_per_class"]}, artificial_cell))
    for name in p["datasets"]:
        part, scaling, _ = LINEAR_DATA[name]
        for level in p["levels"]:
            std = _noise_std(name, part, scaling, level)
            for beta in p["betas"]:
                for r in range(p["runs"]):
                    cfg = {"dataset": name, "part": part, "scaling": scaling, "method": "cspa",
                           "params": {"beta": beta}, "seed": r, "rounds": p["rounds"], "noise": std,
                           "level": level}
                    cells.append(Cell(BETA, "real", cfg, online_cell))
    return cells


def run_beta(out, *, quick=False, repeats=None, jobs=1, scheduler=None, progress=True, datasets=None,
        execute=True):
    """Run (or resume) ``cspa-beta`` (Figures 1-2) and write report.md, beta.csv and the plots."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    p = load_or_make_plan(out, beta_plan, quick, repeats, datasets, execute)
    cells = beta_cells(p)
    art = run_and_collect(out, [c for c in cells if c.stage == "artificial"], BETA, "artificial", jobs=jobs, scheduler=scheduler,
                          progress=progress, execute=execute, desc="cspa-beta artificial")
    real = run_and_collect(out, [c for c in cells if c.stage == "real"], BETA, "real", jobs=jobs, scheduler=scheduler,
                           progress=progress, execute=execute, desc="cspa-beta real")
    panels = {"artificial (K=4)": _beta_curves(art, "sigma", None, 4)}
    for name in p["datasets"]:
        K = stream_data(name, *LINEAR_DATA[name][:2])[2]
        panels[f"{name} (K={K})"] = _beta_curves(real, "level", name, K)
    png = _plot_beta(panels, out / "beta.png")
    lines = ["# CSPA: accuracy vs beta under noise (Kaneko, Sato & Sugiyama, Figures 1-2)", "",
             f"Ratio of correct proposed labels, % (mean over {p['runs']} runs). Artificial: 2-D, 4 classes, "
             f"{p['n_per_class']} points per class from N(c_i, sigma I), rows then unit-normalised. Real sets: "
             "Gaussian noise of std c/sqrt(d) added to every feature of the unit-norm rows (d = features; for "
             "sparse sector, to its stored entries, d = mean stored entries per row), then unit norm again; c is "
             "the noise level below. The band 0 < beta < 1/(K-1) (Theorem 2's guarantee) is shaded in the plot."
             + (" QUICK run." if p["quick"] else ""), ""]
    import csv

    rows_csv = []
    for title, curves in panels.items():
        K = curves["K"]
        lines += [f"## {title}, band beta < {1 / (K - 1):.3f}", "",
                  "| noise | " + " | ".join(f"beta={b:g}" for b in p["betas"]) + " | best beta |",
                  "|---|" + "---|" * (len(p["betas"]) + 1)]
        for lvl, (betas, means, stds) in curves["series"].items():
            best = betas[int(np.argmax(means))]
            lines.append(f"| {lvl:g} | " + " | ".join(f"{100 * m:.1f}" for m in means) + f" | {best:g} |")
            rows_csv += [[title, lvl, b, f"{100 * m:.3f}", f"{100 * s:.3f}"] for b, m, s in zip(betas, means, stds)]
        lines.append("")
    lines += [f"![beta]({png.name})"]
    with open(out / "beta.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["panel", "noise", "beta", "mean_ratio_pct", "std_ratio_pct"])
        w.writerows(rows_csv)
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def _beta_curves(rows, noise_key, dataset, K):
    acc = {}
    for cfg, res in rows:
        if dataset is not None and cfg["dataset"] != dataset:
            continue
        beta = cfg["beta"] if "beta" in cfg else cfg["params"]["beta"]
        acc.setdefault(cfg[noise_key], {}).setdefault(beta, []).append(res["ratio"])
    series = {}
    for lvl in sorted(acc):
        betas = sorted(acc[lvl])
        series[lvl] = (betas, [float(np.mean(acc[lvl][b])) for b in betas],
                       [mean_std(acc[lvl][b])[1] for b in betas])
    return {"K": K, "series": series}


def _plot_beta(panels, path):
    from .plots import _plt

    plt = _plt()
    n = len(panels)
    cols = min(3, n)
    rows_ = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(4.4 * cols, 3.3 * rows_), squeeze=False)
    for ax, (title, curves) in zip(axes.ravel(), panels.items()):
        lo = 0.8 * min(min(b) for b, _, _ in curves["series"].values()) if curves["series"] else 0.004
        ax.axvspan(lo, 1.0 / (curves["K"] - 1), color="red", alpha=0.12, lw=0)
        for lvl, (betas, means, stds) in curves["series"].items():
            m, s = np.asarray(means), np.asarray(stds)
            ax.plot(betas, m, "-o", ms=3, lw=1.2, label=f"noise {lvl:g}")
            ax.fill_between(betas, m - s, m + s, alpha=0.15, lw=0)
        ax.set_title(title)
        ax.set_xscale("log")          # sector's band ends at 1/104
        ax.set_xlabel("beta (log scale)")
        ax.set_ylabel("ratio correct")
        ax.set_xlim(lo, 1.1)
        ax.legend(fontsize=7)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


__all__ = ["run_linear", "run_kernel", "run_beta", "online_cell", "stream_data", "unit_norm", "artificial",
           "PAPER", "METHODS"]


#: registered in weaklabel.experiments.registry (report still written by hand: see ReportOnlyExperiment)
EXPERIMENTS = [
    ReportOnlyExperiment('cspa-linear', 'CSPA and bandit baselines, linear (Kaneko, Sato & Sugiyama, Table 1)', linear_plan, None, None, datasets=tuple(LINEAR_DATA),
                         repeats_help='runs (default 10)', legacy_run=run_linear),
    ReportOnlyExperiment('cspa-kernel', 'CSPA and bandit baselines, Gaussian support (Kaneko, Sato & Sugiyama, Table 2)', kernel_plan, None, None, datasets=tuple(KERNEL_DATA),
                         repeats_help='runs (default 10)', legacy_run=run_kernel),
    ReportOnlyExperiment('cspa-beta', "CSPA's step beta (Kaneko, Sato & Sugiyama, Figures 1-2)", beta_plan, None, None, datasets=tuple(LINEAR_DATA),
                         repeats_help='runs (default 10)', legacy_run=run_beta),
]
