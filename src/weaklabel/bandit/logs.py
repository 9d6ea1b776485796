"""Bandit logs in Vowpal Wabbit's ``--cb`` and ``cb_adf`` text formats, as arrays, or as a
pandas DataFrame.

One line per logged round: ``action:cost:probability | features``, with the action
1-based, the cost the logging system paid (lower is better) and the probability with which
the logging policy chose that action; features are ``name:value`` pairs (a bare name has
value 1).  See VW's "Logged Contextual Bandit Example".  weaklabel works with rewards and
0-based actions: ``reward = -cost`` and ``action = vw_action - 1``.

``cb_adf`` ("action-dependent features") writes a round as a block: a ``shared`` line with
the context, then one line per action with its features, the logged action's line carrying
``0:cost:probability``; weaklabel reads and writes logs whose rounds share one action set
(:func:`read_vw_cb_adf`, :func:`write_vw_cb_adf`), the action's features kept once as
``BanditLog.item_features``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

__all__ = ["BanditLog", "read_vw_cb", "read_vw_cb_adf", "write_vw_cb", "write_vw_cb_adf"]


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
    positions : ndarray of int of shape (n,), default=None
        The 0-based slot each logged action was shown in, for logs of a page with several
        slots (the Open Bandit Dataset's positions 1-3 are 0-2 here); ``None``: one slot.
    item_features : ndarray of shape (n_actions, n_item_features), default=None
        A row of features per action (VW's ``cb_adf`` action lines, OBD's item table);
        ``None``: the actions have no features.
    item_feature_names : list of str, default=[]
        A name per column of ``item_features``.
    """

    X: sp.csr_matrix
    actions: np.ndarray
    rewards: np.ndarray
    propensities: np.ndarray
    feature_names: list = field(default_factory=list)
    positions: np.ndarray | None = None
    item_features: np.ndarray | None = None
    item_feature_names: list = field(default_factory=list)

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
    def from_frame(cls, df, *, action="action", reward="reward", propensity="propensity", features=None,
                   position=None, item_features=None):
        """Build a log from a DataFrame with one row per logged round.

        Numeric and boolean feature columns are read as they are; text and categorical
        columns (hashed user features, say) are one-hot encoded, one column per value named
        ``column=value`` (values sorted).  So the Open Bandit Dataset's own files read as
        ``from_frame(pd.read_csv(log, index_col=0), action="item_id", reward="click",
        propensity="propensity_score", position="position", item_features=items)`` give the
        log :func:`weaklabel.datasets.load_obd` builds.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per logged round.
        action, reward, propensity : str
            Columns of the 0-based logged action, the reward and the logging policy's
            probability of that action (at its position, when there are positions), in (0, 1].
        features : list of str, default=None
            The context columns; ``None``: every other column except date-time columns
            (a round's time is not a context feature).
        position : str, default=None
            A column of the slot each action was shown in (any sortable values, OBD's 1-3):
            stored 0-based as ``positions`` and appended to ``X`` one-hot (``position=v``), so
            that a reward model sees the slot.  ``None``: one slot.
        item_features : pandas.DataFrame or array-like, default=None
            One row per action, in action order (a DataFrame holding an ``action`` column,
            or OBD's ``item_id``, is sorted by it and the column dropped); encoded as the
            context columns are.  Stored as ``item_features``.

        Returns
        -------
        BanditLog
            The log.

        Raises
        ------
        ValueError
            An empty frame, a missing column (naming it and the frame's columns), actions that are not
            non-negative integers, rewards that are not finite, propensities outside (0, 1],
            or an action without a row of ``item_features``.
        """
        if len(df) == 0:
            raise ValueError("the DataFrame is empty: a log needs at least one round.")
        repeated = df.columns[df.columns.duplicated()]
        if len(repeated):
            raise ValueError(f"the DataFrame's column names repeat ({', '.join(map(repr, repeated.unique()[:5]))}); "
                             "each column of a log needs its own name.")
        named = [c for c in (action, reward, propensity, position) if c is not None]
        missing = [c for c in named + list(features or []) if c not in df.columns]
        if missing:
            raise ValueError(f"the DataFrame has no column {', '.join(map(repr, missing))}; it has "
                             f"{', '.join(map(str, df.columns[:10]))}{' ...' if len(df.columns) > 10 else ''}.")
        if features is None:
            features = [c for c in df.columns if c not in named and df[c].dtype.kind != "M"
                        and not str(df[c].dtype).startswith("datetime")]
        a = df[action].to_numpy()
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise ValueError(f"column {action!r} holds action {int(a.max())}, beyond the int64 range of action "
                             "indices.")
        if a.dtype.kind not in "iu" or (a < 0).any():
            raise ValueError(f"column {action!r} must hold 0-based action indices (non-negative integers); got dtype "
                             f"{a.dtype}{f', minimum {a.min()}' if a.dtype.kind in 'iuf' and a.size else ''}.")
        r = df[reward].to_numpy(dtype=np.float64)
        p = df[propensity].to_numpy(dtype=np.float64)
        if not np.isfinite(r).all():
            raise ValueError(f"column {reward!r} must be finite; row {int(np.flatnonzero(~np.isfinite(r))[0])} is "
                             f"{r[~np.isfinite(r)][0]}.")
        bad = ~((p > 0) & (p <= 1))
        if bad.any():
            raise ValueError(f"column {propensity!r} must be in (0, 1]; row {int(np.flatnonzero(bad)[0])} is "
                             f"{p[bad][0]}.")
        X, names = _frame_columns(df, features)
        positions = None
        if position is not None:
            values, positions = np.unique(df[position].to_numpy(), return_inverse=True)
            X = sp.hstack([X, sp.csr_matrix(np.eye(values.size)[positions])], format="csr")
            names += [f"{position}={v}" for v in values]
        items, item_names = None, []
        if item_features is not None:
            items, item_names = _item_table(item_features, (action, "item_id", "action"))
            if a.size and a.max() >= items.shape[0]:
                raise ValueError(f"item_features has {items.shape[0]} rows, one per action, but the log holds action "
                                 f"{int(a.max())}.")
        return cls(X, a.astype(np.int64), r, p, names, None if positions is None else positions.astype(np.int64),
                   items, item_names)


def _frame_columns(df, columns):
    """``(X as CSR, names)``: numeric and boolean columns as they are, text and categorical
    ones one-hot (``column=value``, values sorted); an all-sparse frame stays sparse."""
    cols = df[list(columns)]
    if len(columns) and all(str(cols[c].dtype).startswith("Sparse") for c in columns):
        return sp.csr_matrix(cols.sparse.to_coo()), [str(c) for c in columns]
    if all(cols[c].dtype.kind in "iufb" for c in columns):
        v = cols.to_numpy(dtype=np.float64).reshape(len(df), len(columns))
        if not np.isfinite(v).all():
            r, j = (int(t[0]) for t in np.nonzero(~np.isfinite(v)))
            raise ValueError(f"feature column {columns[j]!r} must be finite; row {r} is {v[r, j]}.")
        return sp.csr_matrix(v), [str(c) for c in columns]
    blocks, names = [], []
    for c in columns:
        col = cols[c]
        if col.dtype.kind in "iufb":
            v = col.to_numpy(dtype=np.float64)
            if not np.isfinite(v).all():
                raise ValueError(f"feature column {c!r} must be finite; row {int(np.flatnonzero(~np.isfinite(v))[0])} "
                                 f"is {v[~np.isfinite(v)][0]}.")
            blocks.append(sp.csr_matrix(v[:, None]))
            names.append(str(c))
        else:
            values = col.astype(str).to_numpy()
            cats, codes = np.unique(values, return_inverse=True)
            blocks.append(sp.csr_matrix((np.ones(values.size), (np.arange(values.size), codes)),
                                        shape=(values.size, cats.size)))
            names += [f"{c}={v}" for v in cats]
    if not blocks:
        return sp.csr_matrix((len(df), 0)), []
    return sp.hstack(blocks, format="csr"), names


def _item_table(items, id_columns):
    """``(dense item features, names)`` from a DataFrame (sorted by its id column, which is
    dropped) or an array, one row per action."""
    if hasattr(items, "columns"):
        ids = next((c for c in id_columns if c in items.columns), None)
        if ids is not None:
            order = items[ids].to_numpy()
            if sorted(order.tolist()) != list(range(len(order))):
                raise ValueError(f"item_features' column {ids!r} must number the actions 0..{len(order) - 1}.")
            items = items.sort_values(ids).drop(columns=[ids]).reset_index(drop=True)
        M, names = _frame_columns(items, list(items.columns))
        return M.toarray(), names
    M = np.asarray(items, dtype=np.float64)
    if M.ndim != 2 or not np.isfinite(M).all():
        raise ValueError(f"item_features must be a finite 2-D array, one row per action; got shape {M.shape}.")
    return M, [str(j) for j in range(M.shape[1])]


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
    split = _name_split(feature_names, Xc.shape[1])
    n = Xc.shape[0]
    a, r, p = _check_log_arrays(n, actions, rewards, propensities)
    fh, own = _open(target, "w")
    try:
        for i in range(n):
            mark = _width_mark(Xc, i, split) if i == 0 else ""
            fh.write(f"{int(a[i]) + 1}:{-r[i]:.17g}:{p[i]:.17g} {_feature_text(Xc, i, split)}{mark}\n")
    finally:
        if own:
            fh.close()


def _name_split(feature_names, width, what="feature_names"):
    """Each column's (namespace, "^" or "", feature) for the writers; ``None``: columns by index."""
    if feature_names is None:
        return None
    names = [str(nm) for nm in feature_names]
    if len(names) != width:
        raise ValueError(f"{what} has {len(names)} names for {width} columns.")
    bad = [nm for nm in names if not nm or any(c in nm for c in " \t|:") or nm.startswith("^")]
    if bad:
        raise ValueError(f"{what} must be non-empty, without spaces, '|' or ':'; got {bad[0]!r}.")
    return [nm.partition("^") if "^" in nm else ("", "", nm) for nm in names]


def _feature_text(Xc, i, split):
    """Row ``i`` of CSR ``Xc`` as VW feature text: ``| j:x_j ...`` (columns by index), or
    grouped by namespace (``| f:v |ns g:w``) when ``split`` names the columns."""
    lo, hi = Xc.indptr[i], Xc.indptr[i + 1]
    if split is None:
        return "| " + " ".join(f"{j}:{v:.17g}" for j, v in zip(Xc.indices[lo:hi], Xc.data[lo:hi]))
    groups = {}
    for j, v in zip(Xc.indices[lo:hi], Xc.data[lo:hi]):
        ns, _, f = split[j]
        groups.setdefault(ns, []).append(f"{f}:{v:.17g}")
    default = groups.pop("", None)
    parts = ([f"| {' '.join(default)}"] if default else []) + [f"|{ns} {' '.join(fs)}" for ns, fs in groups.items()]
    return " ".join(parts) if parts else "|"


def _width_mark(Xc, i, split):
    """`` j:0`` for the last column ``j`` of a matrix written by index when row ``i`` has no
    value there: the file then names its width, and a reader keeps trailing all-zero
    columns (VW ignores a zero feature)."""
    last = Xc.shape[1] - 1
    if split is not None or last < 0 or last in Xc.indices[Xc.indptr[i]:Xc.indptr[i + 1]]:
        return ""
    return f" {last}:0"


def _check_log_arrays(n, actions, rewards, propensities):
    """The 0-based actions, rewards and propensities as arrays, each of shape ``(n,)``."""
    a = np.asarray(actions)
    r = np.asarray(rewards, dtype=np.float64)
    p = np.asarray(propensities, dtype=np.float64)
    if a.shape != (n,) or r.shape != (n,) or p.shape != (n,):
        raise ValueError(f"actions, rewards and propensities must each have shape ({n},), one per row of X; got "
                         f"{a.shape}, {r.shape}, {p.shape}.")
    if a.dtype.kind not in "iu" or (a < 0).any():
        raise ValueError("actions must be 0-based action indices (non-negative integers).")
    if not (np.isfinite(r).all() and np.isfinite(p).all()) or (p <= 0).any() or (p > 1).any():
        raise ValueError("rewards must be finite and propensities in (0, 1].")
    return a, r, p


#: a log may name feature indices up to this (or 100 per stored value) without feature_names
_MAX_AUTO_FEATURES = 1 << 20
#: the dense item-feature table a cb_adf log may ask for
_MAX_ITEM_BYTES = 1 << 30
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
    ctx = _Columns(feature_names, "feature_names")
    actions, rewards, probs = [], [], []
    for i, line in enumerate(lines):
        head, sep, body = line.partition("|")
        label = head.split()
        if not sep or len(label) < 1 or label[0].count(":") != 2:
            raise ValueError(f"line {i + 1}: expected 'action:cost:probability | features'; got {line[:80]!r}.")
        act, cost, prob = _label(label[0], i)
        if not 1 <= act <= _MAX_ACTION:
            raise ValueError(f"line {i + 1}: the action must be in 1..{_MAX_ACTION}; got {label[0]!r}.")
        actions.append(act - 1)
        rewards.append(-cost)
        probs.append(prob)
        ctx.add(i, _features(body, i), i)
    X, names = ctx.matrix(len(lines))
    return BanditLog(X, np.asarray(actions, dtype=np.int64), np.asarray(rewards), np.asarray(probs), names)


def _label(token, i):
    """``(action, cost, probability)`` of a label ``a:c:p`` on line ``i`` (0-based)."""
    try:
        act, cost, prob = token.split(":")
        act, cost, prob = int(act), float(cost), float(prob)
    except ValueError:
        raise ValueError(f"line {i + 1}: the label {token!r} is not 'int:float:float'.") from None
    if not (0 < prob <= 1) or not np.isfinite(cost):
        raise ValueError(f"line {i + 1}: a label needs the cost finite and the probability in (0, 1]; got {token!r}.")
    return act, cost, prob


class _Columns:
    """The columns of a matrix read from VW text: a fixed list of names, or names numbered in
    order of first appearance (a file of column indices, as the writers make without names,
    keeps its indices)."""

    def __init__(self, names, what):
        self.fixed = names is not None
        self.vocab = {} if names is None else {name: j for j, name in enumerate(names)}
        self.what, self.numeric = what, True
        self.rows, self.cols, self.vals = [], [], []

    def add(self, row, pairs, line):
        for name, v in pairs:
            if name not in self.vocab:
                if self.fixed:
                    raise ValueError(f"line {line + 1}: feature {name!r} is not in {self.what}.")
                self.vocab[name] = len(self.vocab)
                self.numeric = self.numeric and name.isdigit()
            self.rows.append(row)
            self.cols.append(self.vocab[name])
            self.vals.append(v)

    def matrix(self, n_rows):
        names, cols = list(self.vocab), self.cols
        if not self.fixed and self.numeric and names:
            width = max(int(nm) for nm in names) + 1
            if width > max(_MAX_AUTO_FEATURES, 100 * len(self.vals)):   # as the svmlight reader: refuse first
                raise ValueError(f"the log names feature index {width - 1}, far beyond its {len(self.vals)} stored "
                                 f"values: the matrix would need {width:,} columns. Pass {self.what} to name them.")
            remap = np.array([int(nm) for nm in names], dtype=np.int64)
            cols = remap[np.asarray(cols, dtype=np.int64)] if cols else np.zeros(0, np.int64)
            names = [str(j) for j in range(width)]
        X = sp.csr_matrix((np.asarray(self.vals, dtype=np.float64), (np.asarray(self.rows, dtype=np.int64),
                                                                       np.asarray(cols, dtype=np.int64))),
                          shape=(n_rows, len(names)))
        X.sum_duplicates()
        X.eliminate_zeros()                  # a zero feature names a column (the writers' width mark), no value
        return X, names


def write_vw_cb_adf(target, X, actions, rewards, propensities, item_features, feature_names=None,
                    item_feature_names=None):
    """Write a log in VW's ``cb_adf`` format: one action set shared by every round.

    Each round is a block of lines ended by a blank line: ``shared | <context>``, then one
    line per action with that action's features, the logged action's line starting with its
    label ``0:cost:probability`` (VW reads the action from the line's place in the block,
    so the number before the first colon is 0).  ``vw --cb_adf`` and ``--cb_explore_adf``
    read it.

    Parameters
    ----------
    target : str, path-like or text file object
        Where to write.
    X : {array-like, sparse matrix} of shape (n, n_features)
        Contexts, written on each round's ``shared`` line (zeros left out).
    actions : array-like of int, shape (n,)
        0-based logged actions: the action line that carries the label.
    rewards : array-like of shape (n,)
        Written as the cost ``-reward``.
    propensities : array-like of shape (n,)
        The logging policy's probability of each logged action, in (0, 1].
    item_features : {array-like, sparse matrix} of shape (n_actions, n_item_features)
        One row per action: the action lines of every round.
    feature_names, item_feature_names : list of str, default=None
        Names of the columns of ``X`` and of ``item_features`` (``ns^f``: feature ``f`` of
        namespace ``ns``), as in :func:`write_vw_cb`; ``None`` names column ``j`` by ``j``.

    Raises
    ------
    ValueError
        Arrays of the wrong shape, actions without a row of ``item_features``, rewards that
        are not finite, propensities outside (0, 1], or names VW cannot read.
    """
    Xc = sp.csr_matrix(X, dtype=np.float64)
    items = sp.csr_matrix(item_features, dtype=np.float64)
    split = _name_split(feature_names, Xc.shape[1])
    item_split = _name_split(item_feature_names, items.shape[1], "item_feature_names")
    n = Xc.shape[0]
    a, r, p = _check_log_arrays(n, actions, rewards, propensities)
    if not (np.isfinite(Xc.data).all() and np.isfinite(items.data).all()):
        raise ValueError("X and item_features must be finite.")
    if n and a.max() >= items.shape[0]:
        raise ValueError(f"item_features has {items.shape[0]} rows, one per action, but actions holds {int(a.max())}.")
    lines = [_feature_text(items, k, item_split) + (_width_mark(items, k, item_split) if k == 0 else "")
             for k in range(items.shape[0])]
    fh, own = _open(target, "w")
    try:
        for i in range(n):
            fh.write(f"shared {_feature_text(Xc, i, split)}{_width_mark(Xc, i, split) if i == 0 else ''}\n")
            for k, text in enumerate(lines):
                fh.write(f"0:{-r[i]:.17g}:{p[i]:.17g} {text}\n" if k == a[i] else f"{text}\n")
            fh.write("\n")
    finally:
        if own:
            fh.close()


def read_vw_cb_adf(source, feature_names=None, item_feature_names=None):
    """Read a log in VW's ``cb_adf`` format whose rounds share one action set.

    A round is a block of lines ended by a blank line (or the end of the file): an optional
    ``shared | <context>`` line, then one line per action, exactly one of them labelled
    ``a:cost:probability`` (the logged action is that line's place in the block; the number
    ``a`` is ignored, as VW does).  Namespaces are read as :func:`read_vw_cb` reads them.
    weaklabel's learners and estimators take one action set for every round, so every
    round must list the same actions, with the same features, in the same order.

    Parameters
    ----------
    source : str, path-like or text file object
        The file to read.
    feature_names, item_feature_names : list of str, default=None
        Column orders of ``X`` (the shared lines) and of ``item_features`` (the action lines);
        ``None`` numbers the names in order of first appearance.

    Returns
    -------
    BanditLog
        The log, with ``item_features`` (one row per action) and ``item_feature_names``.

    Raises
    ------
    ValueError
        Naming the line: a round without exactly one labelled action line, a label that is
        not ``a:cost:probability`` with a finite cost and a probability in (0, 1], a round
        whose actions differ from the first round's, or a feature value that is not a finite
        number.
    """
    fh, own = _open(source, "r")
    try:
        text = [line.rstrip("\n") for line in fh]
    finally:
        if own:
            fh.close()
    blocks, block = [], []
    for i, line in enumerate(text + [""]):
        if line.strip():
            block.append((i, line))
        elif block:
            blocks.append(block)
            block = []
    ctx = _Columns(feature_names, "feature_names")
    item_cols = _Columns(item_feature_names, "item_feature_names")
    actions, rewards, probs, first = [], [], [], None
    for r, block in enumerate(blocks):
        start = block[0][0] + 1
        if block[0][1].lstrip().startswith("shared"):
            i, line = block[0]
            head, sep, body = line.partition("|")
            if not sep or head.split() != ["shared"]:
                raise ValueError(f"line {i + 1}: expected 'shared | features'; got {line[:80]!r}.")
            ctx.add(r, _features(body, i), i)
            block = block[1:]
        labelled, acts = [], []
        for k, (i, line) in enumerate(block):
            head, sep, body = line.partition("|")
            label = head.split()
            if not sep or len(label) > 1 or (label and label[0].count(":") != 2):
                raise ValueError(f"line {i + 1}: expected an action line '[a:cost:probability] | features'; got "
                                 f"{line[:80]!r}.")
            if label:
                labelled.append((k, i, label[0]))
            acts.append(_features(body, i))
        if len(labelled) != 1:
            raise ValueError(f"line {start}: a round must label exactly one action line (the logged action); this "
                             f"round labels {len(labelled)}.")
        k, i, token = labelled[0]
        _, cost, prob = _label(token, i)
        if first is None:
            first = acts
            for q, pairs in enumerate(acts):
                item_cols.add(q, pairs, block[q][0])
        elif acts != first:
            raise ValueError(f"line {start}: this round's actions differ from the first round's (in number, "
                             "order or features); weaklabel's logs hold one action set shared by every round.")
        actions.append(k)
        rewards.append(-cost)
        probs.append(prob)
    if not blocks:
        raise ValueError("the log holds no round.")
    X, names = ctx.matrix(len(blocks))
    items, item_names = item_cols.matrix(len(first))
    if items.shape[0] * items.shape[1] * 8 > _MAX_ITEM_BYTES:
        raise ValueError(f"the action lines name {items.shape[1]:,} item features for {items.shape[0]:,} actions: "
                         f"a dense item table of {items.shape[0] * items.shape[1] * 8 / 2**30:.1f} GiB (at most "
                         f"{_MAX_ITEM_BYTES / 2**30:.0f} GiB); pass item_feature_names to name the columns.")
    return BanditLog(X, np.asarray(actions, dtype=np.int64), np.asarray(rewards), np.asarray(probs), names,
                     item_features=items.toarray(), item_feature_names=item_names)
