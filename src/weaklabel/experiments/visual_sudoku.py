"""Reproduction of Franc & Yermakov (2022), Section 4.3 and Table 1: visual Sudoku.

The given digits of the Sudoku puzzles (``../shared/data/sudoku/sudoku10000.csv.xz``) are
replaced by MNIST images, the blank cells by all-black images
(:func:`weaklabel.simulate.visual_sudoku`).  The training, validation and centre digits
come from the 60,000 MNIST *training* images, split by a fixed permutation without
overlap: the RBF centres (the first ``n_centres`` of the first 2,000, the paper's 2,000),
the digits drawn for validation puzzles (the next ``n_val_digits``, 5,000) and the digits
drawn for training puzzles (the next ``n_train_digits``, 53,000).  The test puzzles are
rendered with the 10,000 MNIST *test* images, so no digit image is used both in training
and in test.  Node features are RBF kernels ``exp(-2 ||x - mu||^2)`` of unit-norm images
to the centres, measured relative to the blank image and whitened by the centres' Gram
matrix, as in the authors' code (a Nystroem map;
:func:`weaklabel.structured.rbf_node_features`).  A run draws ``m``
training puzzles from puzzles 0..7998, hides each empty cell's label with probability
``tau`` (given cells always labelled), trains :class:`~weaklabel.structured.LPMILM3N` with
the annotation process's marginals, and decodes the 100 unseen puzzles 8999..9098
(rendered once, with the test digits) by ``decode`` (LP, then branch and bound).

Two classifiers come out of each fit: the paper's (``pairwise_scale = 1``), the headline,
and, as an extra column, one whose
pairwise scores are multiplied by the ``pairwise_scale`` among ``scales`` that predicts
the most validation puzzles right on their annotated cells.  The validation puzzles are
other puzzles of the training pool, annotated by the same process and rendered with the
validation digits, which the unary scores have not been fitted to.  Reported: the share
of perfectly solved puzzles (Table 1's accuracy) for both, cell error, the given digits
read right by the unary scores alone, and times.

``--dataset unlabelled-givens`` (or ``--unlabelled-givens``) runs the setting of Chang et
al. (NeurIPS 2020), in which SATNet solves 0 %: no given cell has a label, only the blank
cells' solution digits do.  The learner first learns the rules from those labels alone
(each puzzle's blank cells as an example of its own graph), reads each training given's
digit by the rules (a constrained MAP), then learns as in the labelled setting
(:func:`_read_givens_by_learned_rules`); tau 0 (every blank cell labelled, the setting of Chang et al.).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from .. import datasets as _datasets
from ..simulate import missing_labels, visual_sudoku
from ..structured import LPMILM3N, rbf_node_features, sudoku_graph, sudoku_label_prob
from ._common import grid_points, mean_std
from .engine import Experiment
from .results import Figure, MeanStd, Series, Summary, Table

EXPERIMENT = "visual-sudoku"
PAPER = {0.0: (90.0, 2.9), 0.1: (80.4, 3.8), 0.2: (89.8, 3.0), 0.5: (76.4, 3.3)}   # Table 1, visual, solved %
SATNET = 63.2          # visual Sudoku, complete labels, 9,000 training puzzles (Wang et al. 2019)
CONVNET = 0.0
RULE_EPOCHS = 30       # unlabelled givens, stage 1 (symbols only: seconds, also in quick runs)
RULE_MAX_NODES = 20_000  # stage 2's branch-and-bound budget per puzzle (the best labeling found when it runs out)
TEST = np.arange(8999, 9099)


@functools.lru_cache(maxsize=1)
def _mnist():
    d = _datasets.load("mnist")
    images = np.asarray(d.X_train).reshape(-1, 28, 28)
    digits = np.asarray(d.y_train).astype(np.int64)
    perm = np.random.RandomState(0).permutation(digits.size)
    test = (np.asarray(d.X_test).reshape(-1, 28, 28), np.asarray(d.y_test).astype(np.int64))
    return images, digits, perm, test


@functools.lru_cache(maxsize=1)
def _puzzles():
    d = _datasets.load("sudoku")
    return d.X_train.astype(np.int64), d.y_train.astype(np.int64) - 1


def _split(n_centres, n_train=53000, n_val=5000):
    """Of the 60k training images: centres from the first 2,000 of the permutation, then
    ``n_val`` validation digits and ``n_train`` training digits; the test digits are the 10k
    test images.  No image is in two parts.
    """
    images, digits, perm, test = _mnist()
    if n_train + n_val > 58000:
        raise ValueError(f"n_train_digits + n_val_digits must be at most 58000; got {n_train} + {n_val}.")
    centres = images[perm[:n_centres]]
    val = perm[2000:2000 + n_val]
    train = perm[2000 + n_val:2000 + n_val + n_train]
    return centres, (images[train], digits[train]), (images[val], digits[val]), test


def _features(X, pool, centres, seed):
    imgs = visual_sudoku(X, pool[0], pool[1], random_state=seed)
    return rbf_node_features(imgs, centres)


def _fit_and_validate(config):
    """Fit on ``config["m"]`` training puzzles, then decode the validation puzzles (other
    puzzles of the training pool, rendered with the validation digits) at each of
    ``config["scales"]``: (the estimator, {scale: share of validation puzzles right on
    their annotated cells}, fit seconds, the unlabelled setting's extra figures).  No test
    puzzle is read.
    """
    X, solutions = _puzzles()
    centres, train_pool, val_pool, _ = _split(config["n_centres"], config["n_train_digits"], config["n_val_digits"])
    rng = np.random.RandomState(config["repeat"])
    tr = rng.choice(7999, config["m"], replace=False)
    va = rng.choice(np.setdiff1d(np.arange(7999), tr), config["n_val"], replace=False)
    F = _features(X[tr], train_pool, centres, 100 + config["repeat"])
    A = missing_labels(solutions[tr], config["tau"], always=X[tr] > 0, random_state=config["repeat"])
    unlabelled = config.get("givens") == "unlabelled"
    t0 = time.perf_counter()
    extra = {}
    if unlabelled:
        A, extra = _read_givens_by_learned_rules(X[tr], A, solutions[tr], config)
    est = LPMILM3N(graph=sudoku_graph(), alpha=config["alpha"], max_iter=config["epochs"],
                   learning_rate=config["learning_rate"], random_state=config["repeat"])
    est.fit(F, A, label_prob=sudoku_label_prob(X[tr], config["tau"]))
    fit_s = time.perf_counter() - t0
    del F
    Fv = _features(X[va], val_pool, centres, 200 + config["repeat"])
    Av = missing_labels(solutions[va], config["tau"], always=X[va] > 0, random_state=1000 + config["repeat"])
    if unlabelled:
        Av[X[va] > 0] = -1                       # no label on a given cell here either
    lab = Av >= 0
    val = {}
    for sc in config["scales"]:
        pv = est.set_params(pairwise_scale=sc).decode(Fv, max_nodes=config.get("max_nodes"))[0]
        val[sc] = float(np.mean(np.all((pv == Av) | ~lab, axis=1)))
    return est, val, fit_s, extra


def cell(config):
    X, solutions = _puzzles()
    centres, _, _, test_pool = _split(config["n_centres"], config["n_train_digits"], config["n_val_digits"])
    est, val, fit_s, extra = _fit_and_validate(config)
    # the pairwise weight, chosen on the validation puzzles
    best = max(config["scales"], key=lambda sc: (val[sc], -sc))
    te = TEST[:config["n_test"]]
    Ft = _features(X[te], test_pool, centres, 7)
    given = X[te] > 0
    unary = Ft @ est.unary_
    out = {"fit_seconds": fit_s, "givens_read": float(np.mean(np.argmax(unary, axis=2)[given] == solutions[te][given])),
           "val_solved": {str(k): v for k, v in val.items()}, "scale": float(best), **extra}
    for name, sc in (("paper", 1.0), ("tuned", best)):
        t0 = time.perf_counter()
        pred, info = est.set_params(pairwise_scale=sc).decode(Ft, max_nodes=config.get("max_nodes"))
        dt = time.perf_counter() - t0
        out[name] = {"solved": float(np.mean(np.all(pred == solutions[te], axis=1))),
                     "cell_error": float(np.mean(pred != solutions[te])), "ms_per_puzzle": 1000 * dt / te.size,
                     "tight": int(info["tight"]), "branch_and_bound": int(info["branch_and_bound"])}
    return out


def _selected(rows):
    """The (alpha, learning rate) of the selection rows that solves the most validation
    puzzles; ties to the smaller alpha, then the smaller learning rate.
    """
    c, _ = max(rows, key=lambda cr: (cr[1]["val_solved"], -cr[0]["alpha"], -cr[0]["learning_rate"]))
    return c["alpha"], c["learning_rate"]


#: the learner settings the selection stage compares, on validation puzzles only
SELECT_GRID = {"alpha": [0.0, 1e-4, 1e-3, 1e-2], "learning_rate": [0.003, 0.01, 0.03]}


def select_cell(config):
    """One point of the learner settings' selection: the share of validation puzzles the
    paper's classifier (scale 1) solves on their annotated cells.  Reads no test puzzle.
    """
    _, val, fit_s, _ = _fit_and_validate({**config, "scales": [1.0]})
    return {"val_solved": val[1.0], "fit_seconds": fit_s}


def _read_givens_by_learned_rules(X, A, solutions, config):
    """Labels for the given cells when none is given (``--unlabelled-givens``).

    Stage 1 learns the rules from the labels alone: LPMILM3N on the blank cells of each
    training puzzle, as an example of its own graph (the blank cells and the Sudoku edges
    between them, each puzzle a different graph), every cell the same symbol and its
    solution digit the label (tau of them hidden).  Its pairwise table is then all it
    knows: the rules of Sudoku as learned from the blank cells.  (The whole puzzle with its
    givens unlabelled would break the missing-at-random assumption the learner makes: a
    given is never labelled, so the givens' edges would pull the pairwise table without a
    counterweight.)  Stage 2 reads each given cell's digit by those rules: the MAP labeling
    of the full puzzle under the stage-1 model with every labelled cell held to its label
    (``decode(allowed=...)``): the digits the learned rules leave for the givens.
    Returns the annotations with the givens so labelled, and how right they are (the true
    digits are used for this report only).
    """
    given = X > 0
    A = A.copy()
    A[given] = -1
    E = sudoku_graph().edges
    blank_examples, blank_labels = [], []
    for g, a in zip(given, A):
        keep = np.flatnonzero(~g)
        pos = np.full(81, -1)
        pos[keep] = np.arange(keep.size)
        blank_examples.append((np.zeros(keep.size, dtype=np.int64), pos[E[~g[E[:, 0]] & ~g[E[:, 1]]]]))
        blank_labels.append(a[keep])
    rules = LPMILM3N(alpha=config["alpha"], max_iter=RULE_EPOCHS, learning_rate=config["learning_rate"],
                     random_state=config["repeat"], n_states=9)
    rules.fit(blank_examples, blank_labels, label_prob=1.0 - config["tau"] if config["tau"] > 0 else None)
    allowed = np.ones(A.shape + (9,), dtype=bool)
    lab = A >= 0
    allowed[lab] = np.eye(9, dtype=bool)[A[lab]]
    puzzles = [(np.zeros(81, dtype=np.int64), E)] * A.shape[0]
    read, info = rules.decode(puzzles, allowed=list(allowed), max_nodes=RULE_MAX_NODES)
    read = np.asarray(read)
    A[given] = read[given]
    return A, {"givens_imputed": float(np.mean(read[given] == solutions[given])),
               "imputed_not_proved": int(info["not_proved"])}


def plan(quick=False, repeats=None, datasets=None):
    learner = {"epochs": 30, "n_train_digits": 53000, "n_val_digits": 5000, "scales": [1.0, 2.0, 4.0, 8.0, 16.0]}
    settings = list(datasets) if datasets else ["labelled-givens"]
    if quick:
        return {"m": [60], "tau": [0.0], "repeats": repeats or 1, "n_centres": 200, "n_test": 3, "n_val": 3,
                "quick": True, **learner, "epochs": 5, "scales": [1.0, 4.0], "givens": settings,
                # 5 epochs on 60 puzzles leave the LP loose: cap branch and bound (the full run's
                # 2,000,000 nodes take 45 s here) so quick stays quick
                "max_nodes": 20_000,
                "select": {"m": 60, "tau": 0.0, "repeat": 100, "grid": {"alpha": [1e-3], "learning_rate": [0.01]}}}
    # curve_m: Figure 2(b)'s further points (test error against m), one repeat each (a fit takes minutes)
    return {"m": [1500], "tau": [0.0, 0.1, 0.2, 0.5], "repeats": repeats or 5, "n_centres": 2000, "n_test": 100,
            "n_val": 100, "quick": False, **learner, "givens": settings,
            "tau_unlabelled": [0.0], "curve_m": [250, 750], "curve_repeats": 1,
            # alpha and the learning rate, chosen on validation puzzles (a draw of its own); every
            # table is fitted at the chosen setting
            "select": {"m": 750, "tau": 0.0, "repeat": 100, "grid": SELECT_GRID},
            # the setting compared on the first test puzzles before the selection stage existed:
            # Table 1 at it too, on the same repeats, for comparison
            "earlier": {"alpha": 1e-3, "learning_rate": 0.01}}


_KEYS = ("n_centres", "n_test", "n_val", "epochs", "n_train_digits", "n_val_digits", "scales")


def execute(ctx):
    p = ctx.plan
    extra = {"max_nodes": p["max_nodes"]} if "max_nodes" in p else {}      # quick only: full keys unchanged
    settings = p.get("givens", ["labelled-givens"])
    sel = p["select"]
    chosen = ctx.run([ctx.cell(select_cell, "select", m=sel["m"], tau=sel["tau"], repeat=sel["repeat"],
                               **{k: p[k] for k in _KEYS if k != "scales"}, **point, **extra)
                      for point in grid_points(sel["grid"])], desc="select")
    if len(chosen) < len(grid_points(sel["grid"])):      # a snapshot without the selection
        return [], [], chosen, []
    alpha, rate = _selected(chosen)
    keys = {**{k: p[k] for k in _KEYS}, "alpha": alpha, "learning_rate": rate}
    cells = []
    if "labelled-givens" in settings:
        cells += [ctx.cell(cell, "fit", m=m, tau=tau, repeat=r, **keys, **extra)
                  for m in p["m"] for tau in p["tau"] for r in range(p["repeats"])]
    if "unlabelled-givens" in settings:
        cells += [ctx.cell(cell, "fit", m=m, tau=tau, repeat=r, givens="unlabelled", **keys, **extra)
                  for m in p["m"] for tau in p.get("tau_unlabelled", p["tau"]) for r in range(p["repeats"])]
    rows = ctx.run(cells, desc="fits")
    if "labelled-givens" not in settings or not p.get("curve_m"):
        return rows, [], chosen, []
    curve = ctx.run([ctx.cell(cell, "curve", m=m, tau=tau, repeat=r, **keys, **extra)
                     for m in p["curve_m"] for tau in p["tau"] for r in range(p["curve_repeats"])], desc="curve")
    return rows, curve, chosen, _earlier(ctx, keys, extra)


def _earlier(ctx, keys, extra):
    """Table 1's fits again at the plan's ``earlier`` setting, where it is not the chosen
    one: the same cells but for alpha and the learning rate.
    """
    p = ctx.plan
    earlier = p.get("earlier")
    if not earlier or all(keys[k] == v for k, v in earlier.items()):
        return []
    keys = {**keys, **earlier}
    return ctx.run([ctx.cell(cell, "fit", m=m, tau=tau, repeat=r, **keys, **extra)
                    for m in p["m"] for tau in p["tau"] for r in range(p["repeats"])], desc="earlier setting")


def _by_m_tau(rows):
    """{(m, tau): [(config, result), ...]} of ``rows``."""
    out = {}
    for c, r in rows:
        out.setdefault((c["m"], c["tau"]), []).append((c, r))
    return out


def _figure2b(p, rows, curve):
    """Figure 2(b): test cell error against m, per tau (scale 1, the paper's classifier)."""
    points = {}
    for cfg, res in list(rows) + list(curve):
        if cfg.get("givens") != "unlabelled":
            points.setdefault((cfg["tau"], cfg["m"]), []).append(100 * res["paper"]["cell_error"])
    table_rows, series = [], []
    for tau in p["tau"]:
        ms = sorted(m for t, m in points if t == tau)
        stats = [mean_std(points[(tau, m)]) for m in ms]
        table_rows += [[tau, m, len(points[(tau, m)]), MeanStd(*st)] for m, st in zip(ms, stats)]
        series.append(Series(f"tau = {tau:g}", ms, [q[0] for q in stats], [q[1] for q in stats],
                             style={"marker": "o", "markersize": 3}))
    table = Table("figure2b", "Figure 2(b): test cell error against the number of training puzzles (scale 1)",
                  ["tau", "m", "repeats", "cell error %"], table_rows, formats={"tau": "g", "cell error %": ".2f"},
                  note=f"m = {', '.join(str(m) for m in p['curve_m'])}: {p['curve_repeats']} repeats each; m = 1,500: "
                       "the main table's fits. The paper's curves go to 1,500 as well, 5 repeats per point.")
    figure = Figure("figure2b", "Figure 2(b): visual Sudoku, test error against m", series,
                    xlabel="training puzzles m", ylabel="test cell error %", logx=True)
    return table, figure


def summarize(ctx, result):
    p = ctx.plan
    rows, curve, chosen, earlier = result
    groups, unl = {}, {}
    for cfg, res in rows:
        (unl if cfg.get("givens") == "unlabelled" else groups).setdefault((cfg["m"], cfg["tau"]), []).append(res)
    table_rows, long, bars = [], [], {}
    for (m, tau), r in sorted(groups.items()):
        sol = mean_std([100 * q["paper"]["solved"] for q in r])
        tun = mean_std([100 * q["tuned"]["solved"] for q in r])
        err = float(np.mean([100 * q["paper"]["cell_error"] for q in r]))
        errt = float(np.mean([100 * q["tuned"]["cell_error"] for q in r]))
        read = float(np.mean([100 * q["givens_read"] for q in r]))
        fit = float(np.mean([q["fit_seconds"] for q in r]))
        ms = float(np.mean([q["paper"]["ms_per_puzzle"] for q in r]))
        mst = float(np.mean([q["tuned"]["ms_per_puzzle"] for q in r]))
        tight = np.mean([q["paper"]["tight"] for q in r])
        tightt = np.mean([q["tuned"]["tight"] for q in r])
        paper = MeanStd(*PAPER[tau]) if tau in PAPER and m == 1500 else None
        table_rows.append([m, tau, len(r), MeanStd(*sol), MeanStd(*tun), ", ".join(f"{q['scale']:g}" for q in r),
                           paper, f"{err:.2f} / {errt:.2f}", read, f"{tight:.0f} / {tightt:.0f}", fit,
                           f"{ms:.0f} / {mst:.0f}"])
        long.append([m, tau, len(r), sol[0], sol[1], tun[0], tun[1], err, errt, read, fit, ms, mst])
        group = f"tau={tau:g}" if len({c["m"] for c, _ in rows}) == 1 else f"m={m}\ntau={tau:g}"
        for label, v in (("LP-MIL-M3N, scale 1 (here)", sol), ("LP-MIL-M3N, scale chosen (here)", tun),
                         ("LP-MIL-M3N (paper)", PAPER[tau] if paper else None)):
            if v is not None:
                xs, ys, es = bars.setdefault(label, ([], [], []))
                xs.append(group)
                ys.append(v[0])
                es.append(v[1])
    fmt = {"tau": "g", "solved % (scale 1)": ".1f", "solved % (scale chosen)": ".1f", "paper solved %": ".1f",
           "givens read by unary %": ".1f", "fit s": ".0f"}
    tables = [
        Table("table1", "Solved puzzles", ["m", "tau", "runs", "solved % (scale 1)", "solved % (scale chosen)",
                                           "scales chosen", "paper solved %", "cell error % (1 / chosen)",
                                           "givens read by unary %", "LP tight (1 / chosen)", "fit s",
                                           "ms/puzzle (1 / chosen)"], table_rows, formats=fmt),
        Table("results", "All numbers", ["m", "tau", "runs", "solved", "solved_std", "solved_tuned",
                                         "solved_tuned_std", "cell_error", "cell_error_tuned", "givens_read", "fit_s",
                                         "ms_per_puzzle", "ms_per_puzzle_tuned"], long,
              formats={c: ".2f" for c in ("solved", "solved_std", "solved_tuned", "solved_tuned_std",
                                          "givens_read")} | {"cell_error": ".3f", "cell_error_tuned": ".3f",
                                                             "fit_s": ".1f", "ms_per_puzzle": ".1f",
                                                             "ms_per_puzzle_tuned": ".1f"}),
    ]
    if unl:
        urows = []
        for (m, tau), r in sorted(unl.items()):
            lab = groups.get((m, tau))
            urows.append([m, tau, len(r), MeanStd(*mean_std([100 * q["paper"]["solved"] for q in r])),
                          MeanStd(*mean_std([100 * q["tuned"]["solved"] for q in r])),
                          MeanStd(*mean_std([100 * q["paper"]["solved"] for q in lab])) if lab else None,
                          float(np.mean([100 * q["givens_imputed"] for q in r])),
                          float(np.mean([100 * q["givens_read"] for q in r])),
                          float(np.mean([q["fit_seconds"] for q in r]))])
        tables.append(Table("unlabelled_givens", "No label on any given cell: solved puzzles",
                            ["m", "tau", "runs", "solved % (scale 1)", "solved % (scale chosen)",
                             "labelled givens, solved % (scale 1)", "givens read by the learned rules %",
                             "givens read by unary %", "fit s (both stages)"], urows,
                            formats={"tau": "g", "solved % (scale 1)": ".1f", "solved % (scale chosen)": ".1f",
                                     "labelled givens, solved % (scale 1)": ".1f",
                                     "givens read by the learned rules %": ".1f", "givens read by unary %": ".1f",
                                     "fit s (both stages)": ".0f"},
                            note="The given cells are images with label -1; only the blank cells' solution digits "
                                 "are labels (tau of them hidden). Stage 1 learns the pairwise table from those "
                                 "labels alone (each puzzle's blank cells as an example of its own graph, the images "
                                 "left out); its constrained MAP reads each training "
                                 "given's digit; stage 2 is the labelled-givens learner on those digits. SATNet: 0 % "
                                 "in this setting (Chang et al. 2020)."))
    figures = [Figure("solved", f"visual Sudoku: solved puzzles (SATNet {SATNET} %, complete labels)",
                      [Series(label, *v) for label, v in bars.items()], ylabel="solved puzzles %", kind="bar",
                      xlabel=("share tau of labels missing" + (f" ({table_rows[0][0]:,} training puzzles)"
                                                                if len({r[0] for r in table_rows}) == 1 else
                                                                ", m training puzzles")))] \
        if bars else []
    if curve:
        t2b, f2b = _figure2b(p, rows, curve)
        tables.append(t2b)
        figures.append(f2b)
    setting = "no setting chosen yet"
    if chosen:
        sel = p["select"]
        best = _selected(chosen)
        setting = f"alpha = {best[0]:g}, learning rate {best[1]:g}"
        tables.append(Table("select", "alpha and learning rate, compared on validation puzzles (scale 1)",
                            ["alpha", "learning rate", "validation puzzles solved %", "fit s", "chosen"],
                            [[c["alpha"], c["learning_rate"], 100 * r["val_solved"], r["fit_seconds"],
                              "yes" if (c["alpha"], c["learning_rate"]) == best else ""] for c, r in chosen],
                            formats={"alpha": "g", "learning rate": "g", "validation puzzles solved %": ".0f",
                                     "fit s": ".0f"},
                            note=f"{sel['m']:,} training puzzles (tau {sel['tau']:g}, a draw of its own) and "
                                 f"{p['n_val']} validation puzzles from the training pool, rendered with the "
                                 "validation digits; no test puzzle is read. The most validation puzzles solved "
                                 "wins; ties go to the smaller alpha, then the smaller learning rate. Every other "
                                 "table is fitted at the chosen setting."))
    if earlier:
        old = p["earlier"]
        chosen_rows = {(c["m"], c["tau"], c["repeat"]): r for c, r in rows if c.get("givens") != "unlabelled"}
        table = []
        for (m, tau), r_old in sorted(_by_m_tau(earlier).items()):
            new = [chosen_rows[(m, tau, c["repeat"])] for c, _ in r_old if (m, tau, c["repeat"]) in chosen_rows]
            table.append([m, tau, len(r_old), MeanStd(*mean_std([100 * r["paper"]["solved"] for _, r in r_old])),
                          MeanStd(*mean_std([100 * r["tuned"]["solved"] for _, r in r_old])),
                          MeanStd(*mean_std([100 * r["paper"]["solved"] for r in new])) if new else None])
        tables.append(Table("earlier", f"Solved puzzles at the earlier alpha = {old['alpha']:g}, learning rate "
                                       f"{old['learning_rate']:g}, beside the validation-chosen setting",
                            ["m", "tau", "runs", "solved % (scale 1)", "solved % (scale chosen)",
                             "validation-chosen setting, scale 1"], table,
                            formats={"tau": "g", "solved % (scale 1)": ".1f", "solved % (scale chosen)": ".1f",
                                     "validation-chosen setting, scale 1": ".1f"},
                            note="The earlier setting was compared on the first 20-40 puzzles of this test list "
                                 "before the selection stage existed; it is shown for comparison only. The same "
                                 "training, validation and test puzzles as the main table's repeats of the same "
                                 "number."))
    intro = (f"LP-MIL-M3N ({setting}, chosen on validation puzzles: the selection table; {p['epochs']} epochs); "
             f"{p['repeats']} repeats; whitened RBF features to {p['n_centres']:,} centres from the MNIST training "
             f"images; {p['n_train_digits']:,} training and {p['n_val_digits']:,} validation digits from the training "
             f"images, disjoint from the centres and from each other, and the 10,000 MNIST test images for the "
             f"{p['n_test']} unseen test puzzles. tau = share of empty "
             "cells left unlabelled (given cells always labelled). Solved = every cell right. 'scale 1' is the "
             f"paper's classifier; 'scale chosen' multiplies the pairwise scores by the value among {p['scales']} "
             f"that gets most of {p['n_val']} validation puzzles right on their annotated cells. Paper: 1,500 "
             f"training puzzles, 2,000 centres. SATNet: {SATNET} % with 9,000 complete examples." +
             (" QUICK run." if p["quick"] else ""))
    return Summary("Visual Sudoku from partial solutions (Franc & Yermakov 2022, Section 4.3, Table 1)", intro,
                   tables, figures)


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [Experiment(EXPERIMENT, "Visual Sudoku with missing labels (Franc & Yermakov)", plan, execute, summarize,
                          datasets=("labelled-givens", "unlabelled-givens"), repeats_help="repeats (default 5)")]


def run(out, **kwargs):
    """Run (or resume) visual-sudoku into ``out``; returns its Summary."""
    return EXPERIMENTS[0].run(out, **kwargs)
