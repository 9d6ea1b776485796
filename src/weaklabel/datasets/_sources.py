"""Several weak sources as staged: labeling-function votes (WRENCH) and real crowd answers.

``load_votes`` reads ``votes/{name}/{train,valid,test}.json.xz`` (WRENCH's layout: one JSON
object ``{id: {"label", "weak_labels", "data": {"text"}}}``) and ``load_crowd`` reads
``crowd/{name}/{answer,truth}.csv.xz``. Every file is checked against the data folder's
checksums first, as :func:`weaklabel.datasets.load` does.

Two defects of the staged WRENCH copies are repaired by default (``repair=True``), each
checked by re-applying the labeling functions that the sets' ``readme.txt`` lists as regular
expressions (they reproduce the staged votes of the untouched splits exactly):

- ``trec``: every test question starts with its *fine* label (``"dist How far is it ..."``)
  and keeps its case, while the training and validation questions are lower case without
  it. The repair drops that first token and lower-cases the text; the 68 rules then give
  exactly the staged test votes (788 of 788), so the votes are kept.
- ``sms``: the validation and test vote rows do not belong to their texts (the 73 rules
  give the staged votes of all 4,571 training rows but differ on 295 of 500 validation
  and 291 of 500 test rows, and the spam rules' staged test votes are right 0 % of the
  time). The repair recomputes the validation and test votes from the rules.

``youtube``'s functions are code (keywords, spaCy, TextBlob), not listed rules; its staged
votes are used as they are.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._registry import _newsgroup_docs, _open_text, _r8_docs, _resolve

__all__ = ["VoteSet", "CrowdSet", "TextSet", "load_votes", "load_crowd", "load_texts", "VOTE_SETS", "CROWD_SETS"]

VOTE_SETS = ("youtube", "sms", "trec")
CROWD_SETS = ("product", "duck", "dog")
_SPLITS = ("train", "valid", "test")
# the readme's rule names -> the label file's class names
_TREC_NAMES = {"ABBREVIATION": "ABBR", "DESCRIPTION": "DESC", "ENTITY": "ENTY", "HUMAN": "HUM",
               "LOCATION": "LOC", "NUMERIC": "NUM"}


@dataclass
class VoteSet:
    """A labeling-function benchmark: votes, true labels and texts of three splits.

    Parameters
    ----------
    name : str
        The benchmark.
    L : dict of str to ndarray
        ``L[split]``: an int array (n_rows, n_sources), -1 for an abstain.
    y : dict of str to ndarray
        ``y[split]``: the true classes.
    texts : dict of str to list of str
        ``texts[split]``: the documents.
    classes : tuple of str
        The class names.
    repairs : tuple of str, default=()
        What :func:`load_votes` changed from the staged files.
    """

    name: str
    L: dict
    y: dict
    texts: dict
    classes: tuple
    repairs: tuple = field(default_factory=tuple)

    @property
    def n_sources(self):
        """Number of labeling functions, an int."""
        return self.L["train"].shape[1]

    def features(self, *, min_df=2):
        """TF-IDF of the texts, fitted on the training split (words in at least ``min_df``
        training texts, unit-norm rows).

        Parameters
        ----------
        min_df : int, default=2
            The fewest training texts a word must occur in.

        Returns
        -------
        X : dict of str to scipy.sparse.csr_matrix
            ``"train"``, ``"valid"`` and ``"test"``.
        """
        from sklearn.feature_extraction.text import TfidfVectorizer

        vec = TfidfVectorizer(min_df=min_df, dtype=np.float64)
        X = {"train": vec.fit_transform(self.texts["train"]).tocsr()}
        for s in ("valid", "test"):
            X[s] = vec.transform(self.texts[s]).tocsr()
        return X

    def __repr__(self):
        sizes = ", ".join(f"{s}={self.L[s].shape[0]}" for s in _SPLITS)
        return f"VoteSet({self.name!r}, {sizes}, sources={self.n_sources}, classes={len(self.classes)})"


@dataclass
class CrowdSet:
    """Crowd answers with the items' true classes.

    Parameters
    ----------
    name : str
        The set.
    L : scipy.sparse.csr_matrix of shape (n_items, n_workers)
        Storing ``class + 1`` (zero = no answer, the layout
        :func:`weaklabel.sources.check_votes` reads).
    y : ndarray of int of shape (n_items,)
        The true class of each item, -1 where unknown.
    items : ndarray of shape (n_items,)
        The item ids.
    workers : ndarray of shape (n_workers,)
        The worker ids.
    n_classes : int
        The number of classes.
    """

    name: str
    L: object
    y: np.ndarray
    items: np.ndarray
    workers: np.ndarray
    n_classes: int

    def __repr__(self):
        return (f"CrowdSet({self.name!r}, items={self.L.shape[0]}, workers={self.L.shape[1]}, answers={self.L.nnz}, "
                f"classes={self.n_classes})")


def _read_json(path):
    with _open_text(path) as fh:
        return json.load(fh)


def _rules(readme, classes, name):
    """The readme's regular-expression rules as ``(class index, compiled pattern)``."""
    index = {c: k for k, c in enumerate(classes)}
    out = []
    for line in readme.splitlines():
        parts = line.split("\t")
        if len(parts) < 2:
            continue
        label = _TREC_NAMES.get(parts[0], parts[0]) if name == "trec" else parts[0]
        if label in index:
            out.append((index[label], re.compile(parts[1])))
    return out


def apply_rules(rules, texts):
    """Votes of regular-expression rules on texts: ``(n_texts, n_rules)``, -1 = no match."""
    L = np.full((len(texts), len(rules)), -1, dtype=np.int64)
    for j, (c, rx) in enumerate(rules):
        for i, t in enumerate(texts):
            if rx.search(t):
                L[i, j] = c
    return L


def load_votes(name, *, repair=True):
    """Load a labeling-function benchmark staged in ``votes/`` (WRENCH's youtube, sms, trec),
    or a folder of one in WRENCH's layout.

    Parameters
    ----------
    name : {"youtube", "sms", "trec"} or path-like
        A staged set, or a folder holding ``train.json`` (and optionally ``valid.json``,
        ``test.json``; each may be ``.json.xz``) in WRENCH's layout, ``{id: {"label",
        "weak_labels", "data": {"text"}}}``, and optionally ``label.json`` (``{"0":
        name, ...}``). A missing split is empty.
    repair : bool, default=True
        Repair the staged copies' two defects (trec's test texts, sms's validation and test
        votes; see the module's notes). ``False`` returns the files as staged.

    Returns
    -------
    VoteSet
        The votes, labels and texts.

    Raises
    ------
    DataNotFoundError
        Naming the missing file and the variable (WEAKLABEL_DATA) to set.
    ValueError
        An unknown name, or a file failing its checksum.
    """
    import os

    if name not in VOTE_SETS:
        if os.path.isdir(name):
            return _votes_folder(os.fspath(name))
        raise ValueError(f"unknown vote set {name!r}: neither a staged set ({', '.join(VOTE_SETS)}) nor a folder.")
    files = {s: _resolve(f"votes/{name}/{s}.json.xz", name)[0] for s in _SPLITS}
    label_file, _ = _resolve(f"votes/{name}/label.json.xz", name)
    names = _read_json(label_file)
    classes = tuple(names[str(k)] for k in range(len(names)))
    L, y, texts = {}, {}, {}
    for s in _SPLITS:
        rows = list(_read_json(files[s]).values())
        L[s] = np.asarray([r["weak_labels"] for r in rows], dtype=np.int64)
        y[s] = np.asarray([r["label"] for r in rows], dtype=np.int64)
        texts[s] = [r["data"]["text"] for r in rows]
    repairs = []
    if repair and name in ("trec", "sms"):
        readme_file, _ = _resolve(f"votes/{name}/readme.txt.xz", name)
        with _open_text(readme_file) as fh:
            rules = _rules(fh.read(), classes, name)
        if len(rules) != L["train"].shape[1] or not np.array_equal(apply_rules(rules, texts["train"]), L["train"]):
            raise ValueError(f"{name}'s readme rules do not reproduce its staged training votes; not repairing. "
                             "Pass repair=False to read the files as staged.")
        if name == "trec":
            texts["test"] = [t.split(" ", 1)[1].lower() if " " in t else t.lower() for t in texts["test"]]
            if not np.array_equal(apply_rules(rules, texts["test"]), L["test"]):
                raise ValueError("trec's test votes do not match its rules after the repair of the texts.")
            repairs.append("test texts: the leading fine label dropped and the text lower-cased")
        else:
            for s in ("valid", "test"):
                new = apply_rules(rules, texts[s])
                repairs.append(f"{s} votes recomputed from the readme's {len(rules)} rules "
                               f"({int((new != L[s]).any(axis=1).sum())} of {len(new)} rows changed)")
                L[s] = new
    return VoteSet(name, L, y, texts, classes, tuple(repairs))


def _votes_folder(folder):
    """A user's folder in WRENCH's layout (no checksums: the files are the user's)."""
    import lzma
    import os

    def find(stem):
        for ext in (".json", ".json.xz"):
            p = os.path.join(folder, stem + ext)
            if os.path.isfile(p):
                return p
        return None

    def read(path):
        opener = lzma.open if path.endswith(".xz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError, EOFError, lzma.LZMAError) as exc:
            raise ValueError(f"{path} is not a JSON file ({type(exc).__name__}: {exc}).") from None

    if find("train") is None:
        raise FileNotFoundError(f"{folder} holds no train.json (or train.json.xz): not a folder in WRENCH's layout.")
    L, y, texts, width = {}, {}, {}, None
    for split in _SPLITS:
        path = find(split)
        rows = list(read(path).values()) if path else []
        for k, r in enumerate(rows):
            if not isinstance(r, dict) or "weak_labels" not in r:
                raise ValueError(f"{path}: entry {k} has no 'weak_labels'; WRENCH's layout is "
                                 '{id: {"label": int, "weak_labels": [int, ...], "data": {"text": str}}}.')
        votes = [r["weak_labels"] for r in rows]
        if votes and (len({len(v) for v in votes}) != 1 or (width is not None and len(votes[0]) != width)):
            raise ValueError(f"{path}: every entry must have the same number of weak_labels "
                             f"({width if width is not None else len(votes[0])}).")
        width = len(votes[0]) if votes else width
        try:
            L[split] = np.asarray(votes, dtype=np.int64).reshape(len(votes), width or 0)
            y[split] = np.asarray([r.get("label", -1) if r.get("label") is not None else -1 for r in rows],
                                  dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{path}: weak_labels and label must be integers (-1 = abstain / unknown).") from None
        if L[split].size and L[split].min() < -1:
            raise ValueError(f"{path}: weak_labels hold {int(L[split].min())}; classes are >= 0, -1 abstains.")
        texts[split] = [(r.get("data") or {}).get("text", "") if isinstance(r.get("data"), dict) else "" for r in rows]
    for split in _SPLITS:
        L[split] = L[split].reshape(-1, width)
    label_file = find("label")
    top = max(int(v.max()) if v.size else -1 for v in list(L.values()) + list(y.values()))
    if label_file:
        names = read(label_file)
        classes = tuple(names[str(k)] for k in range(len(names)))
    else:
        classes = tuple(str(k) for k in range(max(top + 1, 2)))
    if top >= len(classes):
        raise ValueError(f"{folder}: class {top} is voted or labelled, but label.json names {len(classes)} classes.")
    return VoteSet(os.path.basename(os.path.normpath(folder)), L, y, texts, classes)


def load_crowd(name):
    """Load a crowd set staged in ``crowd/`` (product, duck, dog; Zheng et al., PVLDB 2017).

    Parameters
    ----------
    name : {"product", "duck", "dog"}

    Returns
    -------
    CrowdSet
        Items in the order they first appear among the answers; a worker's repeated answer
        to an item keeps the last one.

    Raises
    ------
    DataNotFoundError
        Naming the missing file and the variable (WEAKLABEL_DATA) to set.
    ValueError
        An unknown name, a file failing its checksum, or an answer that is not a class index.
    """
    if name not in CROWD_SETS:
        raise ValueError(f"unknown crowd set {name!r}; known: {', '.join(CROWD_SETS)}.")
    answer_file, _ = _resolve(f"crowd/{name}/answer.csv.xz", name)
    truth_file, _ = _resolve(f"crowd/{name}/truth.csv.xz", name)
    with _open_text(answer_file) as fh:
        rows = list(csv.DictReader(fh))
    with _open_text(truth_file) as fh:
        truth = {r["question"]: int(r["truth"]) for r in csv.DictReader(fh)}
    items, workers, last = {}, {}, {}
    for r in rows:
        i = items.setdefault(r["question"], len(items))
        j = workers.setdefault(r["worker"], len(workers))
        a = int(r["answer"])
        if a < 0:
            raise ValueError(f"{answer_file}: answer {a} of item {r['question']} is not a class index.")
        last[(i, j)] = a + 1
    keys = np.asarray(list(last), dtype=np.int64).reshape(-1, 2)
    L = sp.csr_matrix((np.asarray(list(last.values()), dtype=np.int64), (keys[:, 0], keys[:, 1])),
                      shape=(len(items), len(workers)))
    y = np.asarray([truth.get(q, -1) for q in items], dtype=np.int64)
    K = int(max(L.data.max(), y.max() + 1))
    return CrowdSet(name, L, y, np.asarray(list(items)), np.asarray(list(workers)), K)


# ---- raw texts, for labeling functions ---------------------------------------------------

TEXT_SETS = {"20news": ("text/20news-bydate.tar.xz",),
             "reuters": ("text/r8-train-all-terms.txt.xz", "text/r8-test-all-terms.txt.xz")}


@dataclass
class TextSet:
    """Raw documents with their classes, in a training and a test part.

    Parameters
    ----------
    name : str
        The set.
    texts : dict of str to list of str
        ``texts[part]``, ``part`` in ``"train"``, ``"test"``.
    y : dict of str to ndarray of int
        ``y[part]``: class indices into ``classes``.
    classes : tuple of str
        The class names, sorted.
    """

    name: str
    texts: dict
    y: dict
    classes: tuple

    def subset(self, classes):
        """The documents of some classes only, their classes numbered from 0 in the order
        given.

        Parameters
        ----------
        classes : sequence of str
            Class names of this set.

        Returns
        -------
        TextSet
            The documents of those classes.
        """
        unknown = [c for c in classes if c not in self.classes]
        if unknown:
            raise ValueError(f"{self.name} has no class {unknown[0]!r}; its classes: {', '.join(self.classes)}.")
        index = {self.classes.index(c): k for k, c in enumerate(classes)}
        texts, y = {}, {}
        for part in self.texts:
            keep = [i for i, c in enumerate(self.y[part]) if int(c) in index]
            texts[part] = [self.texts[part][i] for i in keep]
            y[part] = np.asarray([index[int(self.y[part][i])] for i in keep], dtype=np.int64)
        return TextSet(self.name, texts, y, tuple(classes))

    def __repr__(self):
        return (f"TextSet({self.name!r}, train={len(self.texts['train'])}, test={len(self.texts['test'])}, "
                f"classes={len(self.classes)})")


def load_texts(name):
    """Load the raw documents of a staged text set, for labeling functions.

    Parameters
    ----------
    name : {"20news", "reuters"}
        20 Newsgroups (by date: 11,314 training and 7,532 test posts, 20 groups) or Reuters
        R8 (5,485 and 2,189 newswire stories, 8 topics).

    Returns
    -------
    TextSet
        The documents and their classes.

    Raises
    ------
    DataNotFoundError
        Naming the missing file and the variable (WEAKLABEL_DATA) to set.
    ValueError
        An unknown name, or a file failing its checksum.
    """
    if name not in TEXT_SETS:
        raise ValueError(f"unknown text set {name!r}; known: {', '.join(TEXT_SETS)}.")
    paths = [_resolve(f, name)[0] for f in TEXT_SETS[name]]
    docs, labels = _newsgroup_docs(paths[0]) if name == "20news" else _r8_docs(paths)
    classes = tuple(sorted(set(labels["train"])))
    y = {part: np.searchsorted(classes, labels[part]).astype(np.int64) for part in ("train", "test")}
    return TextSet(name, docs, y, classes)


# ---- the Open Bandit Dataset (small sample): logs/obd/{policy}/{campaign}/ -----------------

OBD_POLICIES = ("random", "bts")
OBD_CAMPAIGNS = ("all", "men", "women")


@dataclass(frozen=True)
class OBDLog:
    """One logging policy's rounds of one campaign of the Open Bandit Dataset.

    Its first five fields are those of :class:`weaklabel.bandit.logs.BanditLog`, so
    ``BanditLog(d.X, d.actions, d.rewards, d.propensities, d.feature_names)`` is the log the
    bandit learners and the off-policy estimators read.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, n_features)
        The contexts: the four hashed user features one-hot, the user-item affinities, then
        the position one-hot.
    actions : ndarray of int of shape (n,)
        The shown item, 0-based.
    rewards : ndarray of shape (n,)
        The click, 0 or 1.
    propensities : ndarray of shape (n,)
        The logging policy's probability of that item at that position.
    feature_names : list of str
        A name per column of ``X``.
    policy : str
        ``"random"`` (uniform over the items) or ``"bts"`` (Bernoulli Thompson sampling).
    campaign : str
        ``"all"``, ``"men"`` or ``"women"``.
    positions : ndarray of int of shape (n,)
        The slot the item was shown in, 0, 1 or 2 (the data's 1-3 less one).
    n_items : int
        The items the policy chooses among.
    item_features : ndarray of shape (n_items, n_item_features)
        ``item_feature_0`` (a number), then the other item features one-hot.
    timestamps : ndarray of str of shape (n,)
        The rounds' times, in log order.
    """

    X: sp.csr_matrix
    actions: np.ndarray
    rewards: np.ndarray
    propensities: np.ndarray
    feature_names: list
    policy: str
    campaign: str
    positions: np.ndarray
    n_items: int
    item_features: np.ndarray
    timestamps: np.ndarray


def _one_hot(values):
    """Column-stacked one-hot codes of a list of category strings, categories sorted."""
    cats = sorted(set(values))
    index = {c: k for k, c in enumerate(cats)}
    out = np.zeros((len(values), len(cats)))
    out[np.arange(len(values)), [index[v] for v in values]] = 1.0
    return out, cats


def load_obd(policy, campaign="all"):
    """Load one logging policy's log of one campaign of the Open Bandit Dataset sample.

    Saito, Aihara, Matsutani & Narita, "Open Bandit Dataset and Pipeline: towards realistic
    and reproducible off-policy evaluation", NeurIPS 2021 Datasets and Benchmarks: 10,000
    real rounds of a fashion e-commerce platform's recommendations per campaign and policy
    (the sample that ships with the ``obp`` package), staged in ``logs/obd/`` of the data
    folder.  The same platform ran both policies, so an estimate of one policy's click rate
    from the other's log can be checked against its own log.

    Parameters
    ----------
    policy : {"random", "bts"}
        The logging policy.
    campaign : {"all", "men", "women"}, default="all"
        The campaign (80, 34 or 46 items).

    Returns
    -------
    OBDLog
        The log's arrays, positions, items and times.

    Raises
    ------
    DataNotFoundError
        Naming the missing file and the variable (WEAKLABEL_DATA) to set.
    ValueError
        An unknown policy or campaign, a file failing its checksum, or a round that is not a
        valid log entry (an item out of range, a propensity outside (0, 1], a click not 0/1).
    """
    if policy not in OBD_POLICIES:
        raise ValueError(f"unknown OBD policy {policy!r}; known: {', '.join(OBD_POLICIES)}.")
    if campaign not in OBD_CAMPAIGNS:
        raise ValueError(f"unknown OBD campaign {campaign!r}; known: {', '.join(OBD_CAMPAIGNS)}.")
    base = f"logs/obd/{policy}/{campaign}"
    log_file, _ = _resolve(f"{base}/{campaign}.csv.xz", f"obd-{policy}-{campaign}")
    item_file, _ = _resolve(f"{base}/item_context.csv.xz", f"obd-{policy}-{campaign}")
    log, n_rows = _read_columns(log_file, ("item_id", "position", "click", "propensity_score", "timestamp",
                                           *(f"user_feature_{k}" for k in range(4))))
    items, n_items = _read_columns(item_file, ("item_id", *(f"item_feature_{k}" for k in range(4))))
    if not n_rows or not np.array_equal(np.asarray(items["item_id"], dtype=np.int64), np.arange(n_items)):
        raise ValueError(f"{item_file}: items must be numbered 0..{n_items - 1} in order, and the log non-empty.")
    item = np.asarray(log["item_id"], dtype=np.int64)
    position = np.asarray(log["position"], dtype=np.int64) - 1
    click = np.asarray(log["click"], dtype=np.float64)
    prop = np.asarray(log["propensity_score"], dtype=np.float64)
    bad = (item < 0) | (item >= n_items) | (position < 0) | (position > 2) | ~np.isin(click, (0.0, 1.0)) \
        | ~(prop > 0) | (prop > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{log_file}: round {i} is not a valid log entry (item {item[i]}, position {position[i] + 1}, "
                         f"click {click[i]:g}, propensity {prop[i]:g}).")
    users = [_one_hot(log[f"user_feature_{k}"]) for k in range(4)]
    affinity_cols = sorted((c for c in log if c.startswith("user-item_affinity_")), key=lambda c: int(c.rsplit("_", 1)[1]))
    affinity = np.asarray([log[c] for c in affinity_cols], dtype=np.float64).T.reshape(n_rows, len(affinity_cols))
    X = np.hstack([u for u, _ in users] + [affinity, np.eye(3)[position]])
    names = ([f"user_feature_{k}={c}" for k, (_, cats) in enumerate(users) for c in cats] + affinity_cols
             + [f"position={p}" for p in (1, 2, 3)])
    item_num = np.asarray(items["item_feature_0"], dtype=np.float64)[:, None]
    item_cat = [_one_hot(items[f"item_feature_{k}"])[0] for k in (1, 2, 3)]
    return OBDLog(sp.csr_matrix(X), item, click, prop, names, policy, campaign, position, n_items,
                  np.hstack([item_num] + item_cat), np.asarray(log["timestamp"]))


def _read_columns(path, required):
    """A CSV file's columns by header name (each a tuple of strings, which numpy converts a
    column at once) and its number of rows; a ValueError names the file and what is wrong
    when a ``required`` column is missing or a row has another number of fields."""
    with _open_text(path) as fh:
        reader = csv.reader(fh)
        header = next(reader, None) or []
        rows = list(reader)
    missing = [c for c in required if c not in header]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)} in its header.")
    if any(len(r) != len(header) for r in rows):
        raise ValueError(f"{path}: every row must have the header's {len(header)} fields.")
    columns = list(zip(*rows)) if rows else [()] * len(header)
    return dict(zip(header, columns)), len(rows)
