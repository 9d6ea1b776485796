"""Sequences with candidate sets per node: ``weaklabel reproduce ocr-words``.

The task: real English words (Reuters-21578 R8's running text, 3-14 letters), each letter
drawn as an image of that letter from UCI letter (training words from letter's training
images, test words from its test images): :func:`weaklabel.datasets.ocr_words`, a stand-in
for Taskar et al.'s OCR words.  Node features: 300 Nystroem RBF features (gamma 0.5) of the
16 letter features, fitted on the training letters without their labels, the same for every
learner.

Partial annotation (:func:`weaklabel.simulate.node_candidate_sets`): each letter's candidate
set is its letter and 3 others, and 20 % of the letters are left unannotated (all 26).  The
others are drawn uniformly ("uniform"), or in proportion to how often a logistic regression
on the raw letter features confuses the letters ("look-alike", a simulated annotator who
hesitates between letters that look alike; harder for a per-letter learner).

Learners: the structured ones see each word as a chain; the per-token ones see its letters
one by one.  Each chooses its hyper-parameter inside the training words (75/25 inner split of
the words) by the ambiguous error on the held-out words' candidate sets (no true training
label is used), then refits on all training words.  Reported: letter (token) and word
accuracy on the test words' TRUE letters, mean +- std over repeats (new words, images and
sets each), and the seconds per cell.  Two oracles trained on the TRUE letters (fixed
hyper-parameters) show the ceiling, not competitors.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from ._common import fmt_params, grid_points, mean_std
from .engine import Experiment
from .results import Figure, MeanStd, Series, Summary, Table

EXPERIMENT = "ocr-words"
SETTINGS = ("uniform", "look-alike")
METHODS = ("latent-m3n", "milm3n", "proden", "clpl", "lr-expand", "m3n-truth", "lr-truth")
STRUCTURED = ("latent-m3n", "milm3n", "m3n-truth")
ORACLES = ("m3n-truth", "lr-truth")
LABELS = {"latent-m3n": "latent M3N (RampCCCPM3N, candidates)", "milm3n": "MILM3N (convex, sets)",
          "proden": "PRODEN per letter", "clpl": "CLPL per letter",
          "lr-expand": "LogisticRegression per letter, expanded sets 1/|S|",
          "m3n-truth": "oracle: MILM3N on true letters", "lr-truth": "oracle: LogisticRegression on true letters"}
GRID = {
    "latent-m3n": {"alpha": [3e-4, 1e-3, 3e-3]},
    "milm3n": {"alpha": [1e-4, 1e-3, 1e-2]},
    "proden": {"alpha": [1e-5, 1e-4, 1e-3]},
    "clpl": {"alpha": [1e-5, 1e-4, 1e-3]},
    "lr-expand": {"C": [1.0, 10.0, 100.0]},
    "m3n-truth": {"alpha": [1e-3]},
    "lr-truth": {"C": [10.0]},
}
N_DISTRACTORS, MISSING_RATE, N_FEATURES, GAMMA = 3, 0.2, 300, 0.5


@functools.lru_cache(maxsize=1)
def _look_alike_confusion():
    """How often a logistic regression on letter's raw features (3-fold, training images)
    confuses each letter with each other: the weights of the look-alike distractors.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import confusion_matrix
    from sklearn.model_selection import cross_val_predict

    from .. import datasets

    d = datasets.load("letter")
    y = np.asarray(d.y_train, dtype=np.int64) - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = cross_val_predict(LogisticRegression(max_iter=300), d.X_train, y, cv=3)
    return confusion_matrix(y, pred, labels=np.arange(26)).astype(float) + 0.5


@functools.lru_cache(maxsize=2)
def problem(setting, repeat, n_train, n_test):
    """Features, true letters and candidate masks of one repeat, words as lists."""
    from sklearn.kernel_approximation import Nystroem

    from ..datasets import ocr_words
    from ..simulate import node_candidate_sets

    Xtr, Ytr, _ = ocr_words("train", n_train, random_state=2 * repeat)
    Xte, Yte, _ = ocr_words("test", n_test, random_state=2 * repeat + 1)
    conf = _look_alike_confusion() if setting == "look-alike" else None
    S = node_candidate_sets(Ytr, 26, n_distractors=N_DISTRACTORS, missing_rate=MISSING_RATE, confusion=conf,
                            random_state=1000 + repeat)
    ny = Nystroem(gamma=GAMMA, n_components=N_FEATURES, random_state=repeat).fit(np.concatenate(Xtr))

    def feats(X):
        F = ny.transform(np.concatenate(X))
        return np.split(F, np.cumsum([len(x) for x in X])[:-1])

    return feats(Xtr), Ytr, S, feats(Xte), Yte


def _fit(method, params, X, Y, S):
    """One learner on words ``X`` (lists of (n_i, d)), true letters ``Y``, candidate masks ``S``."""
    from sklearn.linear_model import LogisticRegression

    from ..partial import CLPL, PRODEN
    from ..structured import MILM3N, RampCCCPM3N

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # ConvergenceWarning at the capped iterations
        if method == "latent-m3n":
            return RampCCCPM3N(alpha=params["alpha"], n_states=26, max_iter=50, n_rounds=10, concave="candidates",
                               start="convex", random_state=0).fit(X, S)
        if method == "milm3n":
            return MILM3N(alpha=params["alpha"], n_states=26, max_iter=100, random_state=0).fit(X, S)
        if method == "m3n-truth":
            return MILM3N(alpha=params["alpha"], n_states=26, max_iter=100, random_state=0).fit(X, Y)
        F = np.concatenate(X)
        if method == "proden":
            return PRODEN(alpha=params["alpha"]).fit(F, np.concatenate(S))
        if method == "clpl":
            return CLPL(alpha=params["alpha"]).fit(F, np.concatenate(S))
        if method == "lr-truth":
            return LogisticRegression(C=params["C"], max_iter=1000).fit(F, np.concatenate(Y))
        M = np.concatenate(S)
        rows, labels = np.nonzero(M)
        return LogisticRegression(C=params["C"], max_iter=1000).fit(F[rows], labels,
                                                                       sample_weight=1.0 / M.sum(axis=1)[rows])


def _predict(method, est, X):
    """Flat letter predictions for words ``X``."""
    if method in STRUCTURED:
        return np.concatenate(est.predict(X))
    return np.asarray(est.predict(np.concatenate(X)))


def cell(config):
    """One learner on one repeat: choose the hyper-parameter on held-out training words'
    candidate sets, refit on all training words, score the test words' true letters.
    """
    start = time.perf_counter()
    X, Y, S, Xt, Yt = problem(config["setting"], config["repeat"], config["n_train"], config["n_test"])
    method = config["method"]
    m = len(X)
    order = np.random.default_rng(config["repeat"]).permutation(m)
    fit_part, val = np.sort(order[: (3 * m) // 4]), np.sort(order[(3 * m) // 4:])
    sub = lambda Z, idx: [Z[i] for i in idx]                       # noqa: E731
    val_err, best = {}, None
    grid = config["grid"]
    for params in grid:
        if len(grid) == 1:
            best = (None, params)
            break
        est = _fit(method, params, sub(X, fit_part), sub(Y, fit_part), sub(S, fit_part))
        pred = _predict(method, est, sub(X, val))
        M = np.concatenate(sub(S, val))
        err = float(np.mean(~M[np.arange(pred.size), pred]))
        val_err[fmt_params(params)] = err
        if best is None or err < best[0]:
            best = (err, params)
    est = _fit(method, best[1], X, Y, S)
    seconds = time.perf_counter() - start
    pred = _predict(method, est, Xt)
    truth = np.concatenate(Yt)
    right = pred == truth
    words = np.add.reduceat(right.astype(int), np.r_[0, np.cumsum([len(y) for y in Yt])[:-1]])
    return {"token_accuracy": float(right.mean()), "word_accuracy": float(np.mean(words == [len(y) for y in Yt])),
            "chosen": best[1], "val_errors": val_err, "fit_seconds": seconds,
            "train_set_size": float(np.concatenate(S).sum(axis=1).mean())}


def plan(quick=False, repeats=None, datasets=None):
    settings = list(SETTINGS) if not datasets else list(datasets)
    return {"settings": settings, "repeats": repeats if repeats is not None else (1 if quick else 3),
            "n_train": 150 if quick else 1000, "n_test": 150 if quick else 1000, "quick": bool(quick)}


def execute(ctx):
    p = ctx.plan
    cells = []
    for setting in p["settings"]:
        for method in METHODS:
            grid = grid_points(GRID[method])
            if p["quick"]:
                grid = grid[1:2] or grid
            cells += [ctx.cell(cell, "eval", setting=setting, method=method, repeat=r, grid=grid,
                               n_train=p["n_train"], n_test=p["n_test"]) for r in range(p["repeats"])]
    return ctx.run(cells, desc=EXPERIMENT)


def summarize(ctx, rows):
    p = ctx.plan
    groups = {}
    for cfg, res in rows:
        groups.setdefault((cfg["setting"], cfg["method"]), []).append(res)
    tok_rows, word_rows, time_rows, chosen_rows = [], [], [], []
    series = {m: ([], [], []) for m in METHODS}
    for setting in p["settings"]:
        tok, word, secs = [setting], [setting], [setting]
        size = None
        for m in METHODS:
            res = groups.get((setting, m), [])
            if not res:
                tok.append(None), word.append(None), secs.append(None)
                continue
            size = res[0]["train_set_size"]
            mu, sd = mean_std([r["token_accuracy"] for r in res])
            tok.append(MeanStd(mu, sd))
            for lst, v in zip(series[m], (setting, mu, sd)):
                lst.append(v)
            word.append(MeanStd(*mean_std([r["word_accuracy"] for r in res])))
            secs.append(float(np.mean([r["fit_seconds"] for r in res])))
            chosen_rows.append([setting, LABELS[m], len(res), " / ".join(sorted({fmt_params(r["chosen"])
                                                                                 for r in res}))])
        tok_rows.append(tok[:1] + [size] + tok[1:])
        word_rows.append(word)
        time_rows.append(secs)
    heads = [LABELS[m] for m in METHODS]
    tables = [
        Table("token_accuracy", "Letter accuracy on the test words' true letters",
              ["setting", "avg set size (26 when unannotated)"] + heads,
              tok_rows, formats={"avg set size (26 when unannotated)": ".2f", **{h: ".3f" for h in heads}},
              note="The two oracle columns learn from the TRUE letters: the ceiling, not competitors."),
        Table("word_accuracy", "Words read entirely right", ["setting"] + heads, word_rows,
              formats={h: ".3f" for h in heads}),
        Table("fit_seconds", "Seconds per cell: the hyper-parameter choice (one fit per grid point on 75 % of the "
                             "training words) and the final fit, one core", ["setting"] + heads, time_rows,
              formats={h: ".1f" for h in heads}),
        Table("chosen", "Hyper-parameters chosen (over repeats)", ["setting", "learner", "repeats", "chosen"],
              chosen_rows),
    ]
    figure = Figure("ocr_words", "Letters read right, candidate sets per letter",
                    [Series(LABELS[m], *series[m]) for m in METHODS if series[m][0]], xlabel="setting",
                    ylabel="test letter accuracy", kind="bar")
    intro = (f"{p['repeats']} repeats; {p['n_train']} training and {p['n_test']} test words; each letter's candidate "
             f"set: its letter and {N_DISTRACTORS} others, {int(100 * MISSING_RATE)} % of letters unannotated. "
             "Hyper-parameters chosen by the ambiguous error on held-out training words." +
             (" QUICK run." if p["quick"] else ""))
    return Summary("Words with candidate sets per letter: structure against per-letter learners", intro, tables,
                   [figure])


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [Experiment(EXPERIMENT, "Words with candidate sets per letter (sequence task)", plan, execute, summarize,
                          datasets=SETTINGS, repeats_help="repeats (default 3)")]
