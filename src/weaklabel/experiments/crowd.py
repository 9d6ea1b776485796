"""Several annotators: majority vote, Dawid & Skene, and a learner trained on posteriors.

Protocol: the training rows of optdigits, letter and Reuters R8, with
uma-real's features, are labelled by ``n_annotators`` simulated annotators of decreasing
quality.  Annotator ``j`` is right with probability ``quality[j]`` whatever the class, and
when wrong says a class drawn from a per-class Dirichlet(1) share of the other classes
(so its confusions have structure for Dawid & Skene to learn); it leaves each row
unannotated with probability ``p_missing`` (every row keeps one annotation).  A gold
fraction of the rows has its true label known.

Compared, for one multinomial logistic regression (``CorrectedLogistic(confusion='identity')``,
L-BFGS, the same alpha everywhere): trained on the majority vote (ties broken at random),
on Dawid & Skene's most probable labels, on Dawid & Skene's posteriors as soft labels, on
the posteriors of Dawid & Skene seeded with the gold rows, and on the true labels.  Also
reported: how often each inferred training label is right.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ..metrics import accuracy
from ..noisy import CorrectedLogistic
from ..sources import DawidSkene
from ..simulate import annotators
from ._common import mean_std
from .engine import Experiment
from .results import MeanStd, Summary, Table

EXPERIMENT = "crowd"
DATASETS = ("optdigits", "letter", "reuters")
# alpha of the logistic regressions: the value uma-real's validation picks on each set
# (S_conf accuracy of LR on class-conditional noisy labels), fixed here for every column
ALPHA = {"optdigits": 1e-4, "letter": 1e-5, "reuters": 1e-5}
QUALITY = (0.85, 0.7, 0.55, 0.4, 0.3)
METHODS = ("lr_vote", "lr_ds", "lr_posterior", "lr_posterior_gold", "lr_true")
LABELS = {"lr_vote": "LR on majority vote", "lr_ds": "LR on DS labels", "lr_posterior": "LR on DS posteriors",
          "lr_posterior_gold": "LR on DS posteriors, with gold", "lr_true": "LR on true labels"}


@functools.lru_cache(maxsize=2)
def _features(name):
    from .uma import real_features

    return real_features(name)


def _confusions(K, quality, rng):
    Cs = np.empty((len(quality), K, K))
    for j, a in enumerate(quality):
        for q in range(K):
            rest = rng.dirichlet(np.ones(K - 1)) * (1 - a)
            Cs[j, :, q] = np.insert(rest, q, a)
    return Cs


def majority_vote(A, K, rng):
    """The most frequent annotation of each row (-1 = none), ties broken at random."""
    counts = np.zeros((A.shape[0], K))
    ii, jj = np.nonzero(A >= 0)
    np.add.at(counts, (ii, A[ii, jj]), 1.0)
    noise = rng.random_sample(counts.shape) * 0.5               # < 1: breaks ties only
    return np.argmax(counts + noise, axis=1)


def _pin(P, gold):
    """The gold rows' posteriors one-hot, as EM held them."""
    P = P.copy()
    known = gold >= 0
    P[known] = np.eye(P.shape[1])[gold[known]]
    return P


def crowd_cell(cfg):
    """One run on one dataset: label accuracy of each aggregate and the test error of each LR."""
    Xtr, ytr, Xte, yte = _features(cfg["dataset"])
    classes = np.unique(ytr)
    K = classes.size
    rng = np.random.RandomState(cfg["run"])
    if cfg["n_train"] and cfg["n_train"] < ytr.size:
        rows = np.sort(rng.choice(ytr.size, cfg["n_train"], replace=False))
        Xtr, ytr = Xtr[rows], ytr[rows]
    y = np.searchsorted(classes, ytr)
    t = np.searchsorted(classes, yte)
    Cs = _confusions(K, cfg["quality"], rng)
    A = annotators(y, Cs, p_missing=cfg["p_missing"], random_state=rng)
    gold = np.full(y.size, -1)
    gold_rows = rng.choice(y.size, max(1, int(round(cfg["gold_fraction"] * y.size))), replace=False)
    gold[gold_rows] = y[gold_rows]
    vote = majority_vote(A, K, rng)
    ds = DawidSkene(abstain="ignore").fit(A, n_classes=K)
    ds_gold = DawidSkene(abstain="ignore").fit(A, gold, n_classes=K)
    posterior, posterior_gold = ds.predict_proba(A), _pin(ds_gold.predict_proba(A), gold)
    out = {"annotations_per_row": float((A >= 0).sum(axis=1).mean()),
           "annotator_accuracy": [float(np.mean(A[A[:, j] >= 0, j] == y[A[:, j] >= 0])) for j in range(A.shape[1])],
           "vote_accuracy": float(np.mean(vote == y)), "ds_accuracy": float(np.mean(ds.predict(A) == y)),
           "ds_gold_accuracy": float(np.mean(posterior_gold.argmax(axis=1) == y)), "ds_iter": ds.n_iter_}
    base = dict(alpha=cfg["alpha"], max_iter=cfg["lbfgs_iter"], classes=np.arange(K))
    targets = {"lr_vote": vote, "lr_ds": ds.predict(A), "lr_posterior": posterior,
               "lr_posterior_gold": posterior_gold, "lr_true": y}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in cfg["methods"]:
            est = CorrectedLogistic(**base).fit(Xtr, targets[m])
            out[m] = 1 - accuracy(t, est.predict(Xte))
    return out


def plan(quick=False, repeats=None, datasets=None):
    names = list(datasets) if datasets else (["optdigits"] if quick else list(DATASETS))
    return {"datasets": names, "runs": repeats if repeats is not None else (1 if quick else 5),
            "quality": list(QUALITY), "p_missing": 0.4, "gold_fraction": 0.01,
            "n_train": 1000 if quick else None, "lbfgs_iter": 300 if quick else 1000,
            "methods": list(METHODS), "quick": bool(quick)}


def execute(ctx):
    p = ctx.plan
    cells = [ctx.cell(crowd_cell, "eval", dataset=n, run=r, quality=p["quality"], p_missing=p["p_missing"],
                      gold_fraction=p["gold_fraction"], n_train=p["n_train"], alpha=ALPHA[n],
                      lbfgs_iter=p["lbfgs_iter"], methods=p["methods"])
             for n in p["datasets"] for r in range(p["runs"])]
    return ctx.run(cells, desc=EXPERIMENT)


def summarize(ctx, rows):
    p = ctx.plan
    label_rows, error_rows = [], []
    for name in p["datasets"]:
        res = [r for c, r in rows if c["dataset"] == name]
        if not res:
            continue

        def ms(key):
            vals = [r[key] for r in res if r.get(key) is not None]
            return MeanStd(float(np.mean(vals)), mean_std(vals)[1]) if vals else None

        quality = np.mean([r["annotator_accuracy"] for r in res], axis=0)
        label_rows.append([name, len(res), float(np.mean([r["annotations_per_row"] for r in res])),
                           " / ".join(f"{a:.2f}" for a in quality), ms("vote_accuracy"), ms("ds_accuracy"),
                           ms("ds_gold_accuracy")])
        error_rows.append([name, len(res), ALPHA[name]] + [ms(m) for m in METHODS])
    tables = [
        Table("labels", "Accuracy of the inferred training labels",
              ["dataset", "runs", "annotations per row", "each annotator's accuracy", "majority vote",
               "Dawid-Skene", "Dawid-Skene with gold"], label_rows,
              formats={"annotations per row": ".2f", "majority vote": ".3f", "Dawid-Skene": ".3f",
                       "Dawid-Skene with gold": ".3f"}),
        Table("test_error", "Test error of logistic regression trained on each aggregate",
              ["dataset", "runs", "alpha"] + [LABELS[m] for m in METHODS], error_rows,
              formats={LABELS[m]: ".3f" for m in METHODS},
              note="LR = CorrectedLogistic(confusion='identity') (multinomial logistic regression, L-BFGS); the posteriors "
                   "enter as soft labels (the expected log loss)."),
    ]
    intro = (f"{p['runs']} runs per dataset; {len(p['quality'])} annotators of accuracy "
             f"{', '.join(f'{q:g}' for q in p['quality'])} (errors spread by a Dirichlet(1) draw per class), each "
             f"leaving a row unannotated with probability {p['p_missing']:g}; {p['gold_fraction']:.0%} gold rows; "
             "features of uma-real (optdigits: Gaussian kernel PCA; letter: Nystroem + PCA; reuters: TF-IDF)."
             + (f" QUICK run: {p['n_train']} training rows." if p["quick"] else ""))
    return Summary("Several annotators: majority vote, Dawid & Skene, posteriors", intro, tables, [], "")


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [Experiment(EXPERIMENT, "Several simulated annotators: majority vote vs Dawid & Skene vs posteriors",
                          plan, execute, summarize, datasets=DATASETS, repeats_help="runs (default 5)")]
