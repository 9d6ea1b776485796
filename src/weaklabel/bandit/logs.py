"""Bandit logs in Vowpal Wabbit's ``--cb`` text format, as arrays, or as a pandas DataFrame.

One line per logged round: ``action:cost:probability | features``, with the action
1-based, the cost the logging system paid (lower is better) and the probability with which
the logging policy chose that action; features are ``name:value`` pairs (a bare name has
value 1).  See VW's "Logged Contextual Bandit Example".  weaklabel works with rewards and
0-based actions: ``reward = -cost`` and ``action = vw_action - 1``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

__all__ = ["BanditLog", "read_vw_cb", "write_vw_cb"]


@dataclass
class BanditLog:
    """A logged bandit dataset.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, n_features)
        The contexts.
    actions : ndarray of int of shape (n,)
        The 0-based logged actions.
    rewards : ndarray of shape (n,)
        The observed rewards.
    propensities : ndarray of shape (n,)
        The logging policy's probability of each logged action, in (0, 1].
    feature_names : list of str, default=[]
        A name per column of ``X``.
    """

    X: sp.csr_matrix
    actions: np.ndarray
    rewards: np.ndarray
    propensities: np.ndarray
    feature_names: list = field(default_factory=list)

    def feedback(self):
        """The log as one-bit feedback for the bandit learners: the logged action was "right"
        when its reward is the larger of the (at most two) reward values in the log (VW's
        cost 0 against 1, a click against none; a log with one value: right when it is
        positive).  The propensities stay in the log: ``fit(X, log)`` gives them to the
        learner (Banditron weighs its updates by them).

        Returns
        -------
        BanditFeedback
            ``proposed`` the 0-based actions, ``correct`` the rewards as booleans.

        Raises
        ------
        ValueError
            If the rewards take more than two values (graded rewards are not right/wrong).
        """
        from ..labels import BanditFeedback

        r = np.asarray(self.rewards, dtype=np.float64)
        values = np.unique(r)
        if values.size > 2 or not np.isfinite(values).all():
            raise ValueError(f"the bandit learners learn right/wrong answers, so the log's rewards must take at most "
                             f"two values (e.g. a click or not); these take {values.size}: "
                             f"{values[:5].tolist()}{' ...' if values.size > 5 else ''}.")
        right = r == values.max() if values.size == 2 else r > 0
        return BanditFeedback(np.asarray(self.actions), right)

    def to_frame(self):
        """Return the log as a pandas DataFrame.

        Needs pandas (``pip install "weaklabel[pandas]"``).

        Returns
        -------
        pandas.DataFrame
            Columns ``action``, ``reward``, ``propensity``, then one column per feature (named by
            ``feature_names``; sparse columns when ``X`` is sparse).
        """
        from .._extras import require

        pd = require("pandas", "BanditLog.to_frame")
        names = self.feature_names or [str(j) for j in range(self.X.shape[1])]
        head = pd.DataFrame({"action": self.actions, "reward": self.rewards, "propensity": self.propensities})
        feats = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(self.X), columns=names)
        return pd.concat([head, feats], axis=1)

    @classmethod
    def from_frame(cls, df, *, action="action", reward="reward", propensity="propensity", features=None):
        """A log from a DataFrame with one row per logged round.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per logged round.
        action, reward, propensity : str
            Columns of the 0-based logged action, the reward and the logging policy's
            probability of that action, in (0, 1].
        features : list of str, default=None
            The context columns; ``None``: every other column.

        Returns
        -------
        BanditLog
            The log.
        """
        missing = [c for c in (action, reward, propensity) if c not in df.columns]
        if missing:
            raise ValueError(f"the DataFrame has no column {', '.join(map(repr, missing))}; it has "
                             f"{', '.join(map(str, df.columns[:10]))}.")
        features = [c for c in df.columns if c not in (action, reward, propensity)] if features is None else features
        a = df[action].to_numpy()
        if a.dtype.kind not in "iu" or (a < 0).any():
            raise ValueError(f"column {action!r} must hold 0-based action indices (non-negative integers).")
        r = df[reward].to_numpy(dtype=np.float64)
        p = df[propensity].to_numpy(dtype=np.float64)
        if not (np.isfinite(r).all() and np.isfinite(p).all()) or (p <= 0).any() or (p > 1).any():
            raise ValueError(f"column {reward!r} must be finite and {propensity!r} in (0, 1].")
        cols = df[features]
        if hasattr(cols, "sparse") and all(getattr(cols[c].dtype, "name", "").startswith("Sparse") for c in features):
            X = sp.csr_matrix(cols.sparse.to_coo())
        else:
            X = sp.csr_matrix(cols.to_numpy(dtype=np.float64))
        return cls(X, a.astype(np.int64), r, p, [str(c) for c in features])


def _open(target, mode):
    if isinstance(target, io.IOBase) or hasattr(target, "write" if "w" in mode else "read"):
        return target, False
    return open(target, mode, encoding="utf-8"), True


def write_vw_cb(target, X, actions, rewards, propensities, feature_names=None):
    """Write a log in VW's ``--cb`` format (``action:cost:probability | j:x_j ...``).

    Parameters
    ----------
    target : str, path-like or text file object
        Where to write.
    X : {array-like, sparse matrix} of shape (n, n_features)
        Contexts; column ``j`` is written as the feature named ``j`` (zeros are left out).
    actions : array-like of int, shape (n,)
        0-based logged actions (written 1-based).
    rewards : array-like of shape (n,)
        Written as the cost ``-reward``.
    propensities : array-like of shape (n,)
        The logging policy's probability of each logged action, in (0, 1].
    feature_names : list of str, default=None
        A name per column (``BanditLog.feature_names``); ``ns^f`` is written as feature ``f``
        of namespace ``ns``, so that :func:`read_vw_cb` reads the names back. ``None``
        names column ``j`` by ``j``.
    """
    Xc = sp.csr_matrix(X, dtype=np.float64)
    if feature_names is not None:
        names = [str(nm) for nm in feature_names]
        if len(names) != Xc.shape[1]:
            raise ValueError(f"feature_names has {len(names)} names for {Xc.shape[1]} columns of X.")
        bad = [nm for nm in names if not nm or any(c in nm for c in " \t|:") or nm.startswith("^")]
        if bad:
            raise ValueError(f"feature names must be non-empty, without spaces, '|' or ':'; got {bad[0]!r}.")
        split = [nm.partition("^") if "^" in nm else ("", "", nm) for nm in names]
    a = np.asarray(actions)
    r = np.asarray(rewards, dtype=np.float64)
    p = np.asarray(propensities, dtype=np.float64)
    n = Xc.shape[0]
    if a.shape != (n,) or r.shape != (n,) or p.shape != (n,):
        raise ValueError(f"actions, rewards and propensities must each have shape ({n},), one per row of X; got "
                         f"{a.shape}, {r.shape}, {p.shape}.")
    if a.dtype.kind not in "iu" or (a < 0).any():
        raise ValueError("actions must be 0-based action indices (non-negative integers).")
    if not (np.isfinite(r).all() and np.isfinite(p).all()) or (p <= 0).any() or (p > 1).any():
        raise ValueError("rewards must be finite and propensities in (0, 1].")
    fh, own = _open(target, "w")
    try:
        for i in range(n):
            lo, hi = Xc.indptr[i], Xc.indptr[i + 1]
            if feature_names is None:
                feats = " ".join(f"{j}:{v:.17g}" for j, v in zip(Xc.indices[lo:hi], Xc.data[lo:hi]))
            else:
                groups = {}
                for j, v in zip(Xc.indices[lo:hi], Xc.data[lo:hi]):
                    ns, _, f = split[j]
                    groups.setdefault(ns, []).append(f"{f}:{v:.17g}")
                default = groups.pop("", None)
                parts = ([f"| {' '.join(default)}"] if default else []) + [f"|{ns} {' '.join(fs)}"
                                                                            for ns, fs in groups.items()]
                feats = " ".join(parts) if parts else "|"
            head = f"{int(a[i]) + 1}:{-r[i]:.17g}:{p[i]:.17g}"
            fh.write(f"{head} {feats}\n" if feature_names is not None else f"{head} | {feats}\n")
    finally:
        if own:
            fh.close()


#: a log may name feature indices up to this (or 100 per stored value) without feature_names
_MAX_AUTO_FEATURES = 1 << 20
#: actions are numbered 1..this (an int64 with room to spare)
_MAX_ACTION = 1 << 40


def _features(body, i):
    """The (name, value) pairs of a line's feature part (after its first ``|``): every
    namespace, ``|ns f:v`` naming its features ``ns^f`` as VW does (a namespace weight,
    ``|ns:0.5 f:1``, scales them), the default namespace (``| f:v``) naming them ``f``.
    """
    out = []
    for segment in body.split("|"):
        tokens = segment.split()
        prefix, weight = "", 1.0
        if segment[:1] not in (" ", "\t", "") and tokens:        # "|ns f:v": the first token is a namespace
            ns, _, w = tokens[0].partition(":")
            try:
                weight = float(w) if w else 1.0
            except ValueError:
                raise ValueError(f"line {i + 1}: the weight of namespace {ns!r} is not a number: {w!r}.") from None
            prefix, tokens = ns + "^", tokens[1:]
        for tok in tokens:
            name, _, value = tok.partition(":")
            try:
                v = float(value) if value else 1.0
            except ValueError:
                raise ValueError(f"line {i + 1}: the value of feature {prefix + name!r} is not a number: "
                                 f"{value!r}.") from None
            v *= weight
            if not np.isfinite(v):
                raise ValueError(f"line {i + 1}: feature {prefix + name!r} has the value {value!r}; values must be "
                                 "finite.")
            out.append((prefix + name, v))
    return out


def read_vw_cb(source, feature_names=None):
    """Read a log in VW's ``--cb`` format.

    Every namespace is read: ``|user a b |item c:0.5`` gives the features ``user^a``,
    ``user^b`` and ``item^c`` (VW's names); a namespace weight (``|item:2 c``) scales its
    values; features of the default namespace (``| f:v``) keep their names.

    Parameters
    ----------
    source : str, path-like or text file object
        The file to read.
    feature_names : list of str, default=None
        Column order of ``X``; ``None`` numbers the names in order of first appearance (a
        file written by :func:`write_vw_cb` names columns by their index, which is kept).
        A name outside a given list is an error.

    Returns
    -------
    BanditLog
        The log.
    """
    fh, own = _open(source, "r")
    try:
        lines = [line.rstrip("\n") for line in fh if line.strip()]
    finally:
        if own:
            fh.close()
    vocab = {} if feature_names is None else {name: j for j, name in enumerate(feature_names)}
    fixed = feature_names is not None
    numeric = True
    actions, rewards, probs, rows, cols, vals = [], [], [], [], [], []
    for i, line in enumerate(lines):
        head, sep, body = line.partition("|")
        label = head.split()
        if not sep or len(label) < 1 or label[0].count(":") != 2:
            raise ValueError(f"line {i + 1}: expected 'action:cost:probability | features'; got {line[:80]!r}.")
        try:
            act, cost, prob = label[0].split(":")
            act, cost, prob = int(act), float(cost), float(prob)
        except ValueError:
            raise ValueError(f"line {i + 1}: the label {label[0]!r} is not 'int:float:float'.") from None
        if not (1 <= act <= _MAX_ACTION) or not (0 < prob <= 1) or not np.isfinite(cost):
            raise ValueError(f"line {i + 1}: the action must be in 1..{_MAX_ACTION}, the cost finite and the "
                             f"probability in (0, 1]; got {label[0]!r}.")
        actions.append(act - 1)
        rewards.append(-cost)
        probs.append(prob)
        for name, v in _features(body, i):
            if name not in vocab:
                if fixed:
                    raise ValueError(f"line {i + 1}: feature {name!r} is not in feature_names.")
                vocab[name] = len(vocab)
                numeric = numeric and name.isdigit()
            rows.append(i)
            cols.append(vocab[name])
            vals.append(v)
    names = list(vocab)
    if not fixed and numeric and names:                       # a file of column indices keeps them
        width = max(int(nm) for nm in names) + 1
        if width > max(_MAX_AUTO_FEATURES, 100 * len(vals)):    # as the svmlight reader: refuse before allocating
            raise ValueError(f"the log names feature index {width - 1}, far beyond its {len(vals)} stored values: "
                             f"X would need {width:,} columns. Pass feature_names to name the columns.")
        remap = np.array([int(nm) for nm in names], dtype=np.int64)
        cols = remap[np.asarray(cols, dtype=np.int64)] if cols else np.zeros(0, np.int64)
        names = [str(j) for j in range(width)]
    X = sp.csr_matrix((np.asarray(vals, dtype=np.float64), (np.asarray(rows, dtype=np.int64),
                                                              np.asarray(cols, dtype=np.int64))),
                      shape=(len(lines), len(names)))
    X.sum_duplicates()
    return BanditLog(X, np.asarray(actions, dtype=np.int64), np.asarray(rewards), np.asarray(probs), names)
