"""Several weak sources on real votes: labeling functions (WRENCH) and crowds.

``wrench``: the label models of :mod:`weaklabel.sources` on the labeling-function votes of
WRENCH's youtube, sms and trec (Zhang et al., NeurIPS 2021 Datasets and Benchmarks), as
staged in ``votes/`` and repaired by :func:`weaklabel.datasets.load_votes`. Each label model
is fitted on the training votes without any true label; it is scored on the test rows with
at least one vote (WRENCH's protocol: accuracy, and F1 of the spam class on sms). Then an
end model, multinomial logistic regression on the TF-IDF of the texts
(``CorrectedLogistic(confusion='identity')``), is trained on the covered training rows with the label
model's posteriors as soft labels (and, for majority vote, also its hard labels), and scored
on every test row. Its L2 strength is chosen among ``ALPHAS`` without true labels: the value
whose predictions on the covered validation rows agree most with the same label model's.
Logistic regression on the true training labels, its strength chosen on the validation
labels, is the ceiling.

``crowds``: the label models against crowd-kit's aggregators (majority vote, Dawid-Skene,
one-coin Dawid-Skene, GLAD, MACE; Ustalov et al., crowd-kit 1.x) on the real crowd answers of
product, duck and dog (Zheng et al., PVLDB 2017), each item's true label known. crowd-kit is
in the ``compare`` extra and only imported here; without it its columns are empty.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from ..datasets import load_crowd, load_votes
from ..labels import CandidateSets
from ..metrics import candidate_log_loss_score
from ..noisy import CorrectedLogistic
from ..partial import PRODEN
from ..sources import DawidSkene, MajorityVote, MatrixCompletion, PrecisionVote, held_out_vote_score
from .engine import Experiment
from .results import Summary, Table

VOTE_SETS = ("youtube", "sms", "trec")
CROWD_SETS = ("product", "duck", "dog")
ALPHAS = (1e-5, 1e-4, 1e-3)
MODELS = ("mv", "ds", "ds-ignore", "pv", "mc", "pv-sel", "mc-sel")
# label-free selection: each grid point fitted on the training votes, the one that predicts
# the validation split's held-out votes best (held_out_vote_score) kept
SELECT = {"pv-sel": ("pv", [{"prior_right": a, "prior_wrong": b} for a, b in ((1, 1), (2, 1), (5, 2), (7, 3), (14, 6))]),
          "mc-sel": ("mc", [{"l2": v} for v in (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)])}
LABELS = {"mv": "majority vote", "ds": "Dawid-Skene", "ds-ignore": "Dawid-Skene, abstains ignored",
          "pv": "PrecisionVote", "mc": "MatrixCompletion", "pv-sel": "PrecisionVote, selected on held-out votes",
          "mc-sel": "MatrixCompletion, selected on held-out votes"}
CROWDKIT = ("ck-mv", "ck-ds", "ck-onecoin", "ck-glad", "ck-mace")
CK_LABELS = {"ck-mv": "crowd-kit MV", "ck-ds": "crowd-kit DS", "ck-onecoin": "crowd-kit OneCoinDS",
             "ck-glad": "crowd-kit GLAD", "ck-mace": "crowd-kit MACE"}
# WRENCH's published figures (Zhang et al. 2021, test set; sms as F1), quoted as published: its
# split differs a little from the staged copy and its sms votes are the misaligned ones
PRODEN_COL = "PRODEN on the votes' candidate sets"
PUBLISHED = {"trec": {"mv": 0.608, "ds": 0.500}, "sms": {"mv": 0.2397, "metal": 0.0706}}


def _model(name):
    return {"mv": MajorityVote(), "ds": DawidSkene(), "ds-ignore": DawidSkene(abstain="ignore"),
            "pv": PrecisionVote(), "mc": MatrixCompletion()}[name]


@functools.lru_cache(maxsize=3)
def _vote_set(name):
    data = load_votes(name)
    return data, data.features()


def _scores(pred, y, binary):
    out = {"accuracy": float(np.mean(pred == y))}
    if binary:
        tp = float(np.sum((pred == 1) & (y == 1)))
        denom = float(np.sum(pred == 1) + np.sum(y == 1))
        out["f1"] = 2 * tp / denom if denom else 0.0
    return out


def _end_model(X, target, K, X_sel, sel_target, quick):
    """LR on ``target`` (hard labels or posteriors) with the alpha whose predictions agree
    most with ``sel_target`` on ``X_sel``; returns the model, the alpha and the seconds.
    """
    best = None
    start = time.perf_counter()
    for alpha in ALPHAS[1:2] if quick else ALPHAS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = CorrectedLogistic(alpha=alpha, classes=np.arange(K), max_iter=300 if quick else 1000).fit(X, target)
        agree = float(np.mean(est.predict(X_sel) == sel_target))
        if best is None or agree > best[0]:
            best = (agree, alpha, est)
    return best[2], best[1], time.perf_counter() - start


def _candidates(L, K):
    """The classes a row's votes name (every class for a row without a vote)."""
    S = np.zeros((L.shape[0], K), dtype=bool)
    rows, cols = np.nonzero(L >= 0)
    S[rows, L[rows, cols]] = True
    S[~S.any(axis=1)] = True
    return CandidateSets(S, np.arange(K))


def wrench_cell(cfg):
    """One label model (or the gold ceiling) on one vote set."""
    data, X = _vote_set(cfg["dataset"])
    K = len(data.classes)
    binary = K == 2
    L, y = data.L, data.y
    out = {"n_sources": int(L["train"].shape[1]), "coverage_train": float(np.mean((L["train"] >= 0).any(axis=1))),
           "coverage_test": float(np.mean((L["test"] >= 0).any(axis=1)))}
    if cfg["model"] == "proden":
        start = time.perf_counter()
        S = {s: _candidates(L[s], K) for s in ("train", "valid")}
        sel = (L["valid"] >= 0).any(axis=1)
        best = None
        for alpha in ALPHAS[1:2] if cfg["quick"] else ALPHAS:
            est = PRODEN(alpha=alpha).fit(X["train"], S["train"])
            score = candidate_log_loss_score(est, X["valid"][sel], S["valid"][sel])
            if best is None or score > best[0]:
                best = (score, alpha, est)
        out.update(end_soft=_scores(best[2].predict(X["test"]), y["test"], binary), end_soft_alpha=best[1],
                   end_soft_seconds=time.perf_counter() - start)
        return out
    if cfg["model"] == "gold":
        est, alpha, seconds = _end_model(X["train"], y["train"], K, X["valid"], y["valid"], cfg["quick"])
        out.update(end=_scores(est.predict(X["test"]), y["test"], binary), end_alpha=alpha, end_seconds=seconds)
        return out
    start = time.perf_counter()
    if cfg["model"] in SELECT:
        base, grid = SELECT[cfg["model"]]
        scored = []
        for params in grid:
            candidate = _model(base).set_params(**params).fit(L["train"], n_classes=K)
            scored.append((held_out_vote_score(candidate, L["valid"]), params, candidate))
        _, out["selected"], model = max(scored, key=lambda t: t[0])
    else:
        model = _model(cfg["model"]).fit(L["train"], n_classes=K)
    out["fit_seconds"] = time.perf_counter() - start
    cov = {s: (L[s] >= 0).any(axis=1) for s in ("train", "valid", "test")}
    out["test"] = _scores(model.predict(L["test"])[cov["test"]], y["test"][cov["test"]], binary)
    out["train"] = _scores(model.predict(L["train"])[cov["train"]], y["train"][cov["train"]], binary)
    rows = cov["train"]
    sel = model.predict(L["valid"])[cov["valid"]]
    Xv = X["valid"][cov["valid"]]
    targets = {"soft": model.predict_proba(L["train"])[rows]}
    if cfg["model"] == "mv":
        targets["hard"] = model.predict(L["train"])[rows]
    for kind, target in targets.items():
        est, alpha, seconds = _end_model(X["train"][rows], target, K, Xv, sel, cfg["quick"])
        out[f"end_{kind}"] = _scores(est.predict(X["test"]), y["test"], binary)
        out[f"end_{kind}_alpha"], out[f"end_{kind}_seconds"] = alpha, seconds
    return out


def wrench_plan(quick=False, repeats=None, datasets=None):
    names = list(datasets) if datasets else (["youtube"] if quick else list(VOTE_SETS))
    return {"datasets": names, "models": list(MODELS), "quick": bool(quick)}


def wrench_execute(ctx):
    p = ctx.plan
    cells = [ctx.cell(wrench_cell, "eval", dataset=n, model=m, quick=p["quick"])
             for n in p["datasets"] for m in list(p["models"]) + ["proden", "gold"]]
    return ctx.run(cells, desc="wrench")


def _params(params):
    return None if params is None else ", ".join(f"{k}={v:g}" for k, v in params.items())


def _cell(res, *path):
    v = res
    for k in path:
        if v is None or k not in v:
            return None
        v = v[k]
    return v


def wrench_summarize(ctx, rows):
    p = ctx.plan
    by = {(c["dataset"], c["model"]): r for c, r in rows}
    label_rows, end_rows, time_rows = [], [], []
    for n in p["datasets"]:
        binary = n == "sms" or n == "youtube"
        for metric in (("accuracy", "f1") if binary else ("accuracy",)):
            label_rows.append([n, metric, _cell(by.get((n, "mv")), "coverage_test")]
                              + [_cell(by.get((n, m)), "test", metric) for m in p["models"]]
                              + [PUBLISHED.get(n, {}).get(k) if (metric == "f1") == (n == "sms") else None
                                 for k in ("mv", "ds", "metal")])
            end_rows.append([n, metric, _cell(by.get((n, "mv")), "end_hard", metric)]
                            + [_cell(by.get((n, m)), "end_soft", metric) for m in p["models"]]
                            + [_cell(by.get((n, "proden")), "end_soft", metric), _cell(by.get((n, "gold")), "end", metric)])
        time_rows.append([n, _cell(by.get((n, "mv")), "n_sources")]
                         + [_cell(by.get((n, m)), "fit_seconds") for m in p["models"]]
                         + [_cell(by.get((n, m)), "end_soft_alpha") for m in p["models"]]
                         + [_cell(by.get((n, "proden")), "end_soft_alpha"), _cell(by.get((n, "gold")), "end_alpha")]
                         + [_params(_cell(by.get((n, m)), "selected")) for m in p["models"] if m in SELECT])
    lm = [LABELS[m] for m in p["models"]]
    f3 = {c: ".3f" for c in lm}
    tables = [
        Table("label_models", "Label models on the covered test rows (no true label used)",
              ["set", "metric", "covered"] + lm + ["WRENCH MV (published)", "WRENCH DS (published)",
                                                  "WRENCH MeTaL (published)"], label_rows,
              formats={"covered": ".2f", **f3, "WRENCH MV (published)": ".3f", "WRENCH DS (published)": ".3f",
                       "WRENCH MeTaL (published)": ".3f"},
              note="F1 of the positive class (spam). WRENCH's figures are quoted as published (on its own split, "
                   "and for sms on the staged votes that do not belong to their texts); they were not measured here."),
        Table("end_models", "End models: TF-IDF logistic regression on every test row",
              ["set", "metric", "LR on majority-vote labels"] + [f"LR on {c} posteriors" for c in lm]
              + [PRODEN_COL, "LR on true labels"], end_rows,
              formats={c: ".3f" for c in ["LR on majority-vote labels", PRODEN_COL, "LR on true labels"]
                       + [f"LR on {c} posteriors" for c in lm]},
              note="Trained on the covered training rows (the true-label ceiling on all of them); the L2 strength "
                   "chosen without true labels, by agreement with the same label model on the covered validation "
                   "rows (the ceiling's on the validation labels). PRODEN (a partial-label learner, linear on the same "
                   "TF-IDF) trains on every training row, each with the classes its votes name as candidates (every "
                   "class where no source voted), its alpha chosen by the candidate likelihood of the covered "
                   "validation rows: no label model and no true label."),
        Table("fit", "Fit seconds of the label models (training votes, one core) and the end models' chosen alpha",
              ["set", "sources"] + [f"{c} s" for c in lm] + [f"{c} alpha" for c in lm]
              + ["PRODEN alpha", "true labels alpha"] + [f"{LABELS[m]}: chosen" for m in p["models"] if m in SELECT],
              time_rows, formats={f"{c} s": ".3f" for c in lm}),
    ]
    intro = ("WRENCH's youtube, sms and trec as staged, with the two repairs of `weaklabel.datasets.load_votes` "
             "(trec's test texts lose their leading fine label; sms's validation and test votes are recomputed "
             "from its 73 published rules, since the staged ones belong to other rows). Label models fitted on "
             "the training votes with their defaults." + (" QUICK run: youtube, one alpha." if p["quick"] else ""))
    return Summary("Labeling functions: label models and end models on WRENCH's votes", intro, tables,
                   [], "")


# ---- crowds ------------------------------------------------------------------------------

def _crowdkit(name, answers):
    import pandas as pd
    from crowdkit import aggregation as ck

    agg = {"ck-mv": ck.MajorityVote(), "ck-ds": ck.DawidSkene(n_iter=100), "ck-onecoin": ck.OneCoinDawidSkene(n_iter=100),
           "ck-glad": ck.GLAD(), "ck-mace": ck.MACE()}[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return agg.fit_predict(pd.DataFrame(answers))


def crowds_cell(cfg):
    data = load_crowd(cfg["dataset"])
    K = data.n_classes
    start = time.perf_counter()
    if cfg["model"].startswith("ck-"):
        try:
            import crowdkit  # noqa: F401
        except ImportError:
            return {"missing": "crowd-kit is not installed (pip install -e '.[compare]')"}
        coo = data.L.tocoo()
        answers = {"task": coo.row, "worker": coo.col, "label": coo.data - 1}
        result = _crowdkit(cfg["model"], answers)
        pred = np.full(data.L.shape[0], -1)
        pred[result.index.to_numpy(dtype=np.int64)] = result.to_numpy(dtype=np.int64)
    else:
        pred = _model(cfg["model"]).fit(data.L, n_classes=K).predict(data.L)
    seconds = time.perf_counter() - start
    known = data.y >= 0
    return {"accuracy": float(np.mean(pred[known] == data.y[known])), "seconds": seconds,
            "items": int(data.L.shape[0]), "workers": int(data.L.shape[1]), "answers": int(data.L.nnz)}


def crowds_plan(quick=False, repeats=None, datasets=None):
    names = list(datasets) if datasets else (["duck"] if quick else list(CROWD_SETS))
    return {"datasets": names, "models": [m for m in MODELS if m not in SELECT], "crowdkit": list(CROWDKIT),
            "quick": bool(quick)}


def crowds_execute(ctx):
    p = ctx.plan
    cells = [ctx.cell(crowds_cell, "eval", dataset=n, model=m)
             for n in p["datasets"] for m in list(p["models"]) + list(p["crowdkit"])]
    return ctx.run(cells, desc="crowds")


def crowds_summarize(ctx, rows):
    p = ctx.plan
    by = {(c["dataset"], c["model"]): r for c, r in rows}
    cols = list(p["models"]) + list(p["crowdkit"])
    names = [LABELS.get(m) or CK_LABELS[m] for m in cols]
    acc_rows, time_rows = [], []
    for n in p["datasets"]:
        first = by.get((n, cols[0])) or {}
        acc_rows.append([n, first.get("items"), first.get("workers"), first.get("answers")]
                        + [_cell(by.get((n, m)), "accuracy") for m in cols])
        time_rows.append([n] + [_cell(by.get((n, m)), "seconds") for m in cols])
    missing = sorted({r["missing"] for _, r in rows if "missing" in r})
    tables = [Table("accuracy", "Accuracy of the aggregated labels against the true labels",
                    ["set", "items", "workers", "answers"] + names, acc_rows, formats={c: ".3f" for c in names},
                    note=" ".join(missing)),
              Table("seconds", "Seconds per fit (one core)", ["set"] + names, time_rows,
                    formats={c: ".3f" for c in names})]
    intro = ("Real crowd answers (Zheng et al., PVLDB 2017) with every item's true label; each model fitted on all "
             "the answers with its defaults and scored on every item; crowd-kit's aggregators run side by side in "
             "the same run." + (" QUICK run: duck." if p["quick"] else ""))
    return Summary("Crowds: label models against crowd-kit's aggregators", intro, tables, [], "")


#: a reproduction module's public face is the experiments it registers (the command line runs
#: them); its cells and helpers are the engine's to call
__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [
    Experiment("wrench", "Labeling functions (WRENCH youtube, sms, trec): label models and end models",
               wrench_plan, wrench_execute, wrench_summarize, datasets=VOTE_SETS, repeats_help="(no repeats)"),
    Experiment("crowds", "Real crowds (product, duck, dog): label models against crowd-kit",
               crowds_plan, crowds_execute, crowds_summarize, datasets=CROWD_SETS, repeats_help="(no repeats)"),
]
