"""Label models on a corpus of vote matrices nobody tuned them on, and their defaults chosen
by leave-one-set-out.

``sources-corpus``: every label model of :mod:`weaklabel.sources`, with its defaults,
against majority vote on each matrix of a corpus assembled for the purpose:

- real labeling-function votes: WRENCH's youtube, sms and trec as staged (fitted on the
  training votes, scored on the covered test rows);
- labeling functions written for this corpus over raw texts: keyword functions (one per
  keyword, each voting one class or abstaining, as a user writes them) for five subsets of
  20 Newsgroups and for Reuters R8 (fitted on the training posts, scored on the covered
  test posts);
- rules over tabular data: for each class, the three one-sided threshold rules ("feature
  f above its class's 75th percentile") most precise on a dev slice of 200 labelled rows,
  on pendigits, satimage, segment and optdigits (fitted and scored on the other rows);
- real crowds: product, duck and dog (fitted and scored on every item);
- simulated votes: one-sided functions, correlated copies, adversarial functions, low
  coverage, many classes and an imbalanced two-class set.

The real matrices are what the targets are measured on; the simulated ones show where each
model breaks. Each tuned default (PrecisionVote's prior, MatrixCompletion's ``l2``,
DawidSkene's ``prior_diagonal`` and ``abstain_weight``) is chosen on a grid by
leave-one-set-out: for each real
matrix, the grid point with the best worst-case gain over majority vote on the *other*
real matrices (ties by the mean gain) is the one reported on it, so no matrix's own labels
choose its figure. The shipped default is the point chosen on all the real matrices.

A second table gives the models a few known labels: ``fit(L, y)`` with 20, 50 or 200 rows of
the fitted votes labelled (-1 elsewhere), scored on the same rows as without them (for the
crowds, which are fitted and scored on the same items, the labelled items are left out of
the score).
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np

from ..datasets import load, load_crowd, load_texts, load_votes
from ..sources import DawidSkene, LabelModelWarning, MajorityVote, MatrixCompletion, PrecisionVote, source_summary
from ..sources._label_models import COLLAPSE_SHARE
from .engine import Experiment
from .results import Summary, Table

#: the real matrices, and the simulated ones
REAL = ("youtube", "sms", "trec", "20ng-sci", "20ng-rec", "20ng-comp", "20ng-talk", "20ng-mixed", "reuters-r8",
        "pendigits", "satimage", "segment", "optdigits", "product", "duck", "dog")
SIMULATED = ("sim-one-sided", "sim-correlated", "sim-adversarial", "sim-low-coverage", "sim-many-classes",
             "sim-imbalanced")
MATRICES = REAL + SIMULATED

#: the grids the tuned defaults are chosen on (the shipped value first)
GRIDS = {"pv": ("PrecisionVote", [{"prior_right": a, "prior_wrong": b}
                                  for a, b in ((30, 10), (1, 1), (2, 1), (5, 2), (7, 3), (14, 6), (60, 20),
                                                              (120, 40), (300, 100))]),
         "mc": ("MatrixCompletion", [{"l2": v} for v in (1.0, 0.0, 0.01, 0.03, 0.1, 0.3, 3.0, 10.0, 30.0)]),
         "ds": ("DawidSkene", [{"prior_diagonal": d, "abstain_weight": w}
                               for d in (0.0, 2.0, 8.0, 32.0, 64.0, 128.0, 256.0) for w in (1.0, 0.5, 0.25, 0.0)])}
#: the models of the table, each with its defaults
MODELS = ("mv", "pv", "mc", "ds", "ds-ignore")
LABELS = {"mv": "majority vote", "pv": "PrecisionVote", "mc": "MatrixCompletion", "ds": "DawidSkene",
          "ds-ignore": "DawidSkene(abstain='ignore')"}
GOLD = (20, 50, 200)
#: Snorkel's models beside ours (the ``compare`` extra; empty columns without it)
SNORKEL = ("snorkel-mv", "snorkel-lm")
SNORKEL_LABELS = {"snorkel-mv": "Snorkel MajorityLabelVoter", "snorkel-lm": "Snorkel LabelModel"}

# ---- keyword labeling functions, written for this corpus from what the groups are about ---

NEWSGROUP_WORDS = {
    "alt.atheism": ["atheism", "atheist", "atheists", "agnostic"],
    "comp.graphics": ["graphics", "polygon", "render", "jpeg", "gif", "3d"],
    "comp.os.ms-windows.misc": ["windows", "win3", "dos", "microsoft", "ini"],
    "comp.sys.ibm.pc.hardware": ["ide", "scsi", "motherboard", "bios", "isa", "486"],
    "comp.sys.mac.hardware": ["mac", "apple", "powerbook", "quadra", "centris"],
    "comp.windows.x": ["x11", "xlib", "motif", "widget", "xterm"],
    "misc.forsale": ["sale", "shipping", "offer", "asking", "sell"],
    "rec.autos": ["car", "cars", "engine", "dealer", "toyota", "ford"],
    "rec.motorcycles": ["bike", "motorcycle", "helmet", "riding", "dod"],
    "rec.sport.baseball": ["baseball", "pitcher", "inning", "hitter", "batting"],
    "rec.sport.hockey": ["hockey", "nhl", "goalie", "puck", "playoffs"],
    "sci.crypt": ["encryption", "crypto", "clipper", "escrow", "pgp", "cipher"],
    "sci.electronics": ["circuit", "voltage", "resistor", "capacitor", "amplifier"],
    "sci.med": ["doctor", "patients", "disease", "medical", "treatment", "symptoms"],
    "sci.space": ["space", "nasa", "orbit", "shuttle", "launch", "satellite"],
    "soc.religion.christian": ["jesus", "christ", "church", "bible", "prayer"],
    "talk.politics.guns": ["gun", "guns", "firearms", "nra", "weapon", "batf"],
    "talk.politics.mideast": ["israel", "israeli", "arab", "palestinian", "armenian", "turkish"],
    "talk.politics.misc": ["clinton", "government", "tax", "president", "congress"],
    "talk.religion.misc": ["koresh", "religion", "morality", "cult"],
}
NEWSGROUP_SUBSETS = {
    "20ng-sci": ("sci.crypt", "sci.electronics", "sci.med", "sci.space"),
    "20ng-rec": ("rec.autos", "rec.motorcycles", "rec.sport.baseball", "rec.sport.hockey"),
    "20ng-comp": ("comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware",
                  "comp.windows.x"),
    "20ng-talk": ("alt.atheism", "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast",
                  "talk.politics.misc", "talk.religion.misc"),
    "20ng-mixed": ("comp.graphics", "misc.forsale", "rec.autos", "sci.med", "talk.politics.guns"),
}
REUTERS_WORDS = {
    "acq": ["acquire", "acquisition", "merger", "stake", "takeover"],
    "crude": ["crude", "oil", "opec", "barrels", "petroleum"],
    "earn": ["shr", "cts", "qtr", "dividend", "revs"],
    "grain": ["wheat", "grain", "corn", "tonnes", "usda"],
    "interest": ["interest", "rates", "prime", "fed"],
    "money-fx": ["dollar", "currency", "yen", "intervention"],
    "ship": ["ship", "shipping", "vessel", "port", "tanker"],
    "trade": ["trade", "tariff", "imports", "exports", "deficit"],
}
TABULAR = ("pendigits", "satimage", "segment", "optdigits")


class VoteMatrix:
    """One matrix of the corpus: the votes a model is fitted on, and the votes and true
    classes it is scored on (the covered rows).
    """

    def __init__(self, name, fit, score, y, n_classes, real, source):
        self.name, self.fit, self.score, self.y, self.n_classes = name, fit, score, y, n_classes
        self.real, self.source = real, source
        self.y_fit = None                 # the fitted rows' classes, where known (gold labels)


def _keyword_votes(texts, words_by_class):
    """One labeling function per keyword: votes its class where the text holds the word."""
    cols = []
    for c, words in enumerate(words_by_class):
        for w in words:
            rx = re.compile(r"\b" + re.escape(w) + r"\b", re.IGNORECASE)
            cols.append(np.asarray([c if rx.search(t) else -1 for t in texts], dtype=np.int64))
    return np.column_stack(cols)


def _text_matrix(name):
    if name == "reuters-r8":
        data = load_texts("reuters")
        words = [REUTERS_WORDS[c] for c in data.classes]
    else:
        data = load_texts("20news").subset(NEWSGROUP_SUBSETS[name])
        words = [NEWSGROUP_WORDS[c] for c in data.classes]
    L = {part: _keyword_votes(data.texts[part], words) for part in ("train", "test")}
    m = VoteMatrix(name, L["train"], L["test"], data.y["test"], len(data.classes), True,
                   f"{L['train'].shape[1]} keywords")
    m.y_fit = data.y["train"]
    return m


def _tabular_matrix(name, dev=200, per_class=3, seed=0):
    """One-sided threshold rules chosen on a dev slice of ``dev`` labelled rows."""
    d = load(name)
    X = np.asarray(d.X_train.todense() if hasattr(d.X_train, "todense") else d.X_train, dtype=np.float64)
    y = d.y_train
    y = np.searchsorted(np.unique(y), y)
    K = int(y.max()) + 1
    rng = np.random.RandomState(seed)
    order = rng.permutation(y.size)
    dev_rows, rest = order[:dev], order[dev:]
    Xd, yd = X[dev_rows], y[dev_rows]
    rules = []
    for c in range(K):
        inside = Xd[yd == c]
        if inside.shape[0] == 0:
            continue
        scored = []
        for f in range(X.shape[1]):
            for q, above in ((75, True), (25, False)):
                t = np.percentile(inside[:, f], q)
                fire = Xd[:, f] > t if above else Xd[:, f] < t
                if fire.sum() >= 5:
                    scored.append((float(np.mean(yd[fire] == c)), f, t, above))
        for _, f, t, above in sorted(scored, reverse=True)[:per_class]:
            rules.append((c, f, t, above))
    Xr = X[rest]
    L = np.column_stack([np.where((Xr[:, f] > t) if above else (Xr[:, f] < t), c, -1) for c, f, t, above in rules])
    m = VoteMatrix(name, L, L, y[rest], K, True, f"{len(rules)} rules")
    m.y_fit = y[rest]
    return m


def _simulated(name, seed=0):
    rng = np.random.RandomState(seed)

    def two_sided(y, K, acc, cov):
        vote = np.where(rng.rand(y.size) < acc, y, (y + rng.randint(1, K, y.size)) % K)
        return np.where(rng.rand(y.size) < cov, vote, -1)

    def one_sided(y, K, c, precision, cov):
        fire = np.where(y == c, rng.rand(y.size) < cov,
                        rng.rand(y.size) < cov * (1 - precision) / precision * np.mean(y == c) / max(np.mean(y != c),
                                                                                                  1e-9))
        return np.where(fire, c, -1)

    if name == "sim-imbalanced":
        y = (rng.rand(6000) < 0.1).astype(np.int64)
        K = 2
        cols = [one_sided(y, K, 1, p, c) for p, c in ((0.9, 0.3), (0.7, 0.4), (0.5, 0.5))]
        cols += [one_sided(y, K, 0, p, c) for p, c in ((0.97, 0.2), (0.93, 0.3), (0.9, 0.4))]
    else:
        K = {"sim-many-classes": 20}.get(name, 3 if name != "sim-low-coverage" else 4)
        y = rng.randint(0, K, 6000)
        if name == "sim-one-sided":
            cols = [one_sided(y, K, c, p, cov) for c in range(K) for p, cov in ((0.95, 0.3), (0.7, 0.4), (0.45, 0.5))]
        elif name == "sim-correlated":
            good = [two_sided(y, K, a, 0.5) for a in (0.8, 0.75, 0.7)]
            copy = two_sided(y, K, 0.45, 0.6)
            cols = good + [np.where(rng.rand(y.size) < 0.95, copy, -1) for _ in range(6)]
        elif name == "sim-adversarial":
            cols = [two_sided(y, K, a, 0.5) for a in (0.75, 0.7, 0.65, 0.6)]
            cols += [two_sided(y, K, 0.1, 0.5) for _ in range(2)]
        elif name == "sim-low-coverage":
            cols = [two_sided(y, K, a, 0.03) for a in np.linspace(0.55, 0.9, 30)]
        else:                                                    # many classes
            cols = [two_sided(y, K, a, 0.3) for a in np.linspace(0.4, 0.8, 40)]
    L = np.column_stack(cols)
    m = VoteMatrix(name, L, L, y, K, False, f"{L.shape[1]} simulated")
    m.y_fit = y
    return m


def vote_matrix(name):
    """Build one matrix of the corpus by its name (see the module's notes)."""
    if name in ("youtube", "sms", "trec"):
        d = load_votes(name)
        m = VoteMatrix(name, d.L["train"], d.L["test"], d.y["test"], len(d.classes), True,
                       f"{d.n_sources} functions")
        m.y_fit = d.y["train"]
        return m
    if name in ("product", "duck", "dog"):
        d = load_crowd(name)
        m = VoteMatrix(name, d.L, d.L, d.y, d.n_classes, True, f"{d.L.shape[1]} workers")
        m.y_fit = d.y
        return m
    if name in NEWSGROUP_SUBSETS or name == "reuters-r8":
        return _text_matrix(name)
    if name in TABULAR:
        return _tabular_matrix(name)
    if name in SIMULATED:
        return _simulated(name)
    raise ValueError(f"unknown vote matrix {name!r}; known: {', '.join(MATRICES)}.")


def _model(key, **params):
    model = {"mv": MajorityVote(), "pv": PrecisionVote(), "mc": MatrixCompletion(), "ds": DawidSkene(),
             "ds-ignore": DawidSkene(abstain="ignore")}[key]
    return model.set_params(**params)


def _accuracy(model, m, exclude=None):
    from ..sources import check_votes

    votes, _ = check_votes(m.score, n_classes=m.n_classes)
    keep = votes.covered & (m.y >= 0)
    if exclude is not None:
        keep[exclude] = False
    return float(np.mean(model.predict(m.score)[keep] == m.y[keep]))


def _fit(key, m, y=None, **params):
    model = _model(key, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LabelModelWarning)
        start = time.perf_counter()
        model.fit(m.fit, y, n_classes=m.n_classes)
        seconds = time.perf_counter() - start
    collapsed = any(issubclass(w.category, LabelModelWarning) for w in caught)
    return model, seconds, collapsed


def _snorkel(m):
    """Snorkel 0.10's MajorityLabelVoter and LabelModel with their defaults (the LabelModel
    fitted with ``seed=0``), ties broken at random (Snorkel's ``tie_break_policy="random"``),
    on the same votes and rows; ``None`` when Snorkel is not installed.
    """
    try:
        from snorkel.labeling.model import LabelModel, MajorityLabelVoter
    except ImportError:
        return None
    import scipy.sparse as sp

    def dense(L):
        return (L.toarray() - 1) if sp.issparse(L) else np.asarray(L)

    from ..sources import check_votes

    votes, _ = check_votes(m.score, n_classes=m.n_classes)
    keep = votes.covered & (m.y >= 0)
    out = {}
    for key, model in (("snorkel-mv", MajorityLabelVoter(cardinality=m.n_classes, verbose=False)),
                       ("snorkel-lm", LabelModel(cardinality=m.n_classes, verbose=False))):
        start = time.perf_counter()
        if key == "snorkel-lm":
            model.fit(dense(m.fit), seed=0, progress_bar=False)
        pred = model.predict(dense(m.score), tie_break_policy="random")
        out[key] = (float(np.mean(pred[keep] == m.y[keep])), time.perf_counter() - start)
    return out


#: a source's measured accuracy counts for the interval's coverage with this many labelled votes
MIN_GOLD_VOTES = 20


#: the margins the interval's default is chosen among, and the coverage it aims at
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
COVERAGE = 0.9


def _interval_sources(model, m):
    """Per source with at least MIN_GOLD_VOTES labelled votes among the fitted rows: the
    interval of ``source_summary(margin=0)``, the measured accuracy, and whether the source
    is above the median measured accuracy of the matrix's counted sources.
    """
    s = source_summary(m.fit, model=model, y=m.y_fit, warn=False, as_frame=False, margin=0.0)
    counted = s["n_gold"] >= MIN_GOLD_VOTES
    gold = s["accuracy_gold"][counted]
    above = gold > np.median(gold) if gold.size else gold.astype(bool)
    return {"low": s["accuracy_low"][counted].tolist(), "high": s["accuracy_high"][counted].tolist(),
            "gold": gold.tolist(), "above_median": above.tolist(), "classes": m.n_classes}


def _covered(src, margin):
    low, high, gold = (np.asarray(src[k], dtype=np.float64) for k in ("low", "high", "gold"))
    return int(((low - margin <= gold) & (gold <= high + margin)).sum()), int(gold.size)


def choose_margin(results, names):
    """The smallest margin whose interval holds the measured accuracy of at least COVERAGE
    of the sources of ``names`` (all models' fits pooled); the largest if none does.
    """
    for margin in MARGINS:
        hit, total = np.sum([_covered(results[n]["interval"][k], margin) for n in names for k in MODELS], axis=0)
        if total and hit / total >= COVERAGE:
            return margin
    return MARGINS[-1]


def corpus_cell(cfg):
    """Every model (defaults and grid points, with and without known labels) on one matrix."""
    m = vote_matrix(cfg["matrix"])
    from ..sources import check_votes

    votes, _ = check_votes(m.fit, n_classes=m.n_classes)
    out = {"real": m.real, "source": m.source, "classes": m.n_classes, "sources": int(votes.n_sources),
           "rows": int(votes.n_rows), "coverage": float(votes.covered.mean()), "default": {}, "grid": {},
           "gold": {}, "seconds": {}, "collapsed": {}}
    out["interval"] = {}
    for key in MODELS:
        model, seconds, collapsed = _fit(key, m)
        out["default"][key], out["seconds"][key], out["collapsed"][key] = _accuracy(model, m), seconds, collapsed
        out["interval"][key] = _interval_sources(model, m)
    peers = _snorkel(m)
    for key in SNORKEL:
        out["default"][key], out["seconds"][key] = peers[key] if peers else (None, None)
    for key, (_, grid) in GRIDS.items():
        out["grid"][key] = [_accuracy(_fit(key, m, **params)[0], m) for params in grid]
    same_rows = m.fit is m.score
    labelled_pool = np.flatnonzero((m.y_fit >= 0) & votes.covered)
    rng = np.random.RandomState(0)
    pool = rng.permutation(labelled_pool)
    for k in GOLD:
        if pool.size < k:
            continue
        chosen = pool[:k]
        y = np.full(votes.n_rows, -1, dtype=np.int64)
        y[chosen] = m.y_fit[chosen]
        exclude = chosen if same_rows else None
        out["gold"][str(k)] = {key: _accuracy(_fit(key, m, y)[0], m, exclude) for key in MODELS if key != "mv"}
        out["gold"][str(k)]["mv"] = _accuracy(_fit("mv", m)[0], m, exclude)
    return out


def corpus_plan(quick=False, repeats=None, datasets=None):
    names = list(datasets) if datasets else (["duck", "sim-one-sided", "sim-adversarial"] if quick
                                               else list(MATRICES))
    return {"matrices": names, "quick": bool(quick)}


def corpus_execute(ctx):
    cells = [ctx.cell(corpus_cell, "eval", matrix=n) for n in ctx.plan["matrices"]]
    return ctx.run(cells, desc="sources-corpus")


def choose(results, key, real):
    """The grid index chosen for each real matrix by leave-one-set-out (and on all of them,
    under ``None``): the best worst-case gain over majority vote on the other real
    matrices, ties by the mean gain.
    """
    def best(names):
        gains = np.array([[results[n]["grid"][key][i] - results[n]["default"]["mv"] for i in
                           range(len(GRIDS[key][1]))] for n in names])
        return int(max(range(gains.shape[1]), key=lambda i: (round(gains[:, i].min(), 6), gains[:, i].mean())))

    chosen = {n: best([o for o in real if o != n]) for n in real if len(real) > 1}
    chosen[None] = best(real)
    return chosen


def corpus_summarize(ctx, rows):
    by = {c["matrix"]: r for c, r in rows}
    names = [n for n in ctx.plan["matrices"] if n in by]
    real = [n for n in names if by[n]["real"]]
    chosen = {key: choose(by, key, real) for key in GRIDS} if real else {}
    cols = [LABELS[k] for k in MODELS]
    peer_cols = [SNORKEL_LABELS[k] for k in SNORKEL]
    default_rows, loso_rows, gold_rows, provenance = [], [], [], []
    for n in names:
        r = by[n]
        mv = r["default"]["mv"]
        defaults = [r["default"][k] for k in MODELS]
        best = max(MODELS[1:], key=lambda k: r["default"][k])
        default_rows.append([n, "real" if r["real"] else "simulated", r["source"], r["classes"], r["coverage"]]
                            + defaults + [r["default"].get(k) for k in SNORKEL] + [LABELS[best], r["default"][best] - mv,
                                          ", ".join(LABELS[k] for k in MODELS if r["collapsed"].get(k)) or None])
        if r["real"] and real:
            loso = [r["grid"][key][chosen[key][n]] if n in chosen[key] else None for key in GRIDS]
            loso_rows.append([n, mv] + loso + [_params(GRIDS[key][1][chosen[key][n]]) if n in chosen[key] else None
                                               for key in GRIDS])
        for k in GOLD:
            g = r["gold"].get(str(k))
            if g:
                gold_rows.append([n, k, g["mv"]] + [g[key] for key in MODELS[1:]])
    interval_rows = []
    margins = {n: choose_margin(by, [o for o in real if o != n]) for n in real if len(real) > 1}
    shipped_margin = choose_margin(by, real) if real else None
    pooled = {k: [0, 0] for k in MODELS}
    for n in names:
        r = by[n]
        margin = margins.get(n, shipped_margin if shipped_margin is not None else 0.0)
        row = [n, margin if r["real"] else None]
        for k in MODELS:
            hit, total = _covered(r["interval"][k], margin)
            row.append(_share(hit, total))
            if r["real"]:
                pooled[k][0] += hit
                pooled[k][1] += total
        interval_rows.append(row)
    if real:
        interval_rows.append(["all real matrices (leave-one-set-out margins)", None]
                             + [_share(*pooled[k]) for k in MODELS])
    for key, (cls, grid) in GRIDS.items():
        if real:
            provenance.append([cls, _params(grid[0]), _params(grid[chosen[key][None]]), len(real),
                               ", ".join(_params(p) for p in grid)])
    f3 = {c: ".3f" for c in cols}
    tables = [
        Table("defaults", "Every label model with its defaults against majority vote (accuracy on the covered "
              "scored rows, no true label used)",
              ["matrix", "kind", "sources", "classes", "covered"] + cols + peer_cols
              + ["best default", "best - majority vote", "collapse warned"], default_rows,
              formats={"covered": ".2f", **f3, **{c: ".3f" for c in peer_cols}, "best - majority vote": "+.3f"},
              note="Majority vote breaks ties at random (seeded); so do Snorkel's models (tie_break_policy="
                   "'random'), measured in the same run on the same votes with their defaults (the LabelModel "
                   "seed=0); empty where Snorkel is not installed. 'best default' is among weaklabel's models. "
                   f"'collapse warned': the fit put {COLLAPSE_SHARE:.0%} of the covered rows in one class where "
                   "majority vote puts at most two thirds; the model then predicted as majority vote "
                   "(on_collapse='majority')."),
        Table("leave_one_out", "Tuned defaults chosen leave-one-set-out: each real matrix's figure from the grid "
              "point chosen on the other real matrices",
              ["matrix", "majority vote"] + [f"{GRIDS[k][0]} (LOSO)" for k in GRIDS]
              + [f"{GRIDS[k][0]}: chosen" for k in GRIDS], loso_rows,
              formats={"majority vote": ".3f", **{f"{GRIDS[k][0]} (LOSO)": ".3f" for k in GRIDS}},
              note="The choice: the best worst-case accuracy gain over majority vote on the other real matrices, "
                   "ties by the mean gain."),
        Table("provenance", "Where each tuned default comes from",
              ["model", "shipped default", "chosen on all real matrices", "real matrices", "grid"], provenance),
        Table("intervals", "source_summary's interval: the share of sources whose measured accuracy it holds, "
              "its margin chosen leave-one-set-out",
              ["matrix", "margin (LOSO)"] + cols, interval_rows, formats={"margin (LOSO)": ".2f"},
              note=f"Sources with at least {MIN_GOLD_VOTES} labelled votes among the fitted rows, each model with "
                   f"its defaults; 'share (covered / counted)'. Each real matrix's margin is the smallest of "
                   f"{', '.join(f'{v:g}' for v in MARGINS)} that holds at least {COVERAGE:.0%} of the other real "
                   f"matrices' sources (all models pooled); the simulated ones use the margin chosen on all real "
                   f"matrices ({shipped_margin}), source_summary's default."),
        Table("gold", "With a few known labels: fit(L, y) with k labelled rows of the fitted votes",
              ["matrix", "known labels", "majority vote"] + cols[1:], gold_rows,
              formats={"majority vote": ".3f", **f3},
              note="Scored on the same rows as the first table (for the crowds, the labelled items left out)."),
    ]
    intro = ("A corpus of vote matrices assembled for this comparison (see the protocol above); every model with "
             "its defaults." + (" QUICK run: three matrices." if ctx.plan["quick"] else ""))
    return Summary("Label models on a corpus of vote matrices", intro, tables, [], "")


def _share(covered, counted):
    return f"{covered / counted:.3f} ({covered} / {counted})" if counted else None


def _params(params):
    return ", ".join(f"{k}={v:g}" for k, v in params.items())


__all__ = ["EXPERIMENTS"]

EXPERIMENTS = [
    Experiment("sources-corpus", "Label models on a corpus of real and simulated vote matrices, defaults chosen "
               "leave-one-set-out", corpus_plan, corpus_execute, corpus_summarize, datasets=MATRICES,
               repeats_help="(no repeats)"),
]
