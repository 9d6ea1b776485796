"""Votes of several weak sources (labeling functions, annotators): one validated form.

A vote matrix ``L`` has one row per example and one column per source:

- a dense integer array, ``L[i, j]`` the class index source ``j`` votes for row ``i``, or
  ``-1`` where it abstains;
- or a SciPy sparse matrix storing ``class + 1``, its implicit zeros (and explicit ones)
  the abstains, so that memory grows with the votes, not with rows x sources.

Every label model turns either into :class:`Votes` (the votes of each row as CSR arrays:
row pointers, source of each vote, class of each vote) once, at its boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._validation import check_memory as _check_memory

__all__ = ["Votes", "check_votes", "LongVotes", "votes_from_long", "check_memory"]

#: a class index beyond this is refused before anything is allocated by it
_MAX_CLASSES = 1 << 20
#: without ``n_classes``, votes naming more distinct classes than this look like ids, not classes
_MAX_INFERRED_CLASSES = 100
_LONG_HINT = ("a long table of (item, worker, label) rows turns into votes with "
              "weaklabel.sources.votes_from_long(table)")


@dataclass(frozen=True)
class Votes:
    """The votes of ``n_rows`` rows by ``n_sources`` sources, as CSR arrays.

    Parameters
    ----------
    n_rows : int
        The rows.
    n_sources : int
        The sources.
    indptr : ndarray of int of shape (n_rows + 1,)
        Row ``i``'s votes are ``indptr[i]:indptr[i + 1]``.
    src : ndarray of int
        The source of each vote.
    cls : ndarray of int
        The class (or set, for set votes) of each vote.
    """

    n_rows: int
    n_sources: int
    indptr: np.ndarray
    src: np.ndarray
    cls: np.ndarray

    @property
    def n_votes(self):
        """Number of votes, an int."""
        return int(self.src.size)

    @property
    def covered(self):
        """Rows with at least one vote (bool mask)."""
        return np.diff(self.indptr) > 0

    def rows(self, idx):
        """Return the votes of some rows, as a new :class:`Votes`.

        Parameters
        ----------
        idx : ndarray of int
            The rows, in the order wanted.

        Returns
        -------
        Votes
            Their votes.
        """
        idx = np.asarray(idx, dtype=np.int64)
        lengths = np.diff(self.indptr)[idx]
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        take = (np.concatenate([np.arange(self.indptr[i], self.indptr[i + 1]) for i in idx]).astype(np.int64)
                if idx.size else np.zeros(0, np.int64))
        return Votes(int(idx.size), self.n_sources, indptr, self.src[take], self.cls[take])


def check_sets(sets, n_classes=None, name="sets"):
    """The table of set votes: a bool array ``(n_sets, n_classes)``, row ``s`` the classes
    that a vote for set ``s`` ("one of these") names.

    Parameters
    ----------
    sets : array-like of bool of shape (n_sets, n_classes), or list of lists of int
        A mask per set, or each set's class indices (then ``n_classes`` is needed). "Not
        C" is the set of every class but C.
    n_classes : int, default=None
        The number of classes (a mask's width when ``None``).
    name : str, default="sets"
        The argument's name in error messages.

    Returns
    -------
    table : ndarray of bool of shape (n_sets, n_classes)
        Row ``s``: the classes set ``s`` names.

    Raises
    ------
    ValueError
        A set that is empty or holds every class (it says nothing), a class out of range,
        lists without ``n_classes``, a mask of another width than ``n_classes``.
    """
    arr = np.asarray(sets) if not isinstance(sets, (list, tuple)) or not sets or \
        not isinstance(sets[0], (list, tuple, np.ndarray)) or np.asarray(sets[0]).dtype == bool else None
    if arr is not None and arr.dtype == bool:
        if arr.ndim != 2:
            raise ValueError(f"{name} must be a 2-D bool mask (n_sets, n_classes) or lists of class indices; got "
                             f"shape {arr.shape}.")
        if n_classes is not None and arr.shape[1] != n_classes:
            raise ValueError(f"{name} is a mask over {arr.shape[1]} classes but n_classes={n_classes}.")
        table = arr.copy()
    else:
        if n_classes is None:
            raise ValueError(f"{name} given as class indices needs n_classes (or give a bool mask).")
        table = np.zeros((len(sets), int(n_classes)), dtype=bool)
        for s, members in enumerate(sets):
            idx = np.asarray(members)
            if idx.ndim != 1 or (idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n_classes)):
                raise ValueError(f"{name}[{s}] must list class indices in 0..{n_classes - 1}; got {members!r}.")
            table[s, idx.astype(np.int64)] = True
    K = table.shape[1]
    sizes = table.sum(axis=1)
    bad = np.flatnonzero((sizes == 0) | (sizes == K))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] names {int(sizes[bad[0]])} of the {K} classes; a set vote must name "
                         "at least one class and leave out at least one.")
    return table


def outputs_table(n_classes, sets):
    """What each output a source may give stands for: ``(n_classes + n_sets, n_classes)``,
    the identity for the classes, then each set's members shared equally (a vote's mass).
    """
    table = np.eye(n_classes)
    if sets is None or len(sets) == 0:
        return table
    shares = sets / sets.sum(axis=1, keepdims=True)
    return np.vstack([table, shares])


def check_votes(L, *, n_classes=None, n_sources=None, sets=None, name="L"):
    """Validate a vote matrix once and return it as :class:`Votes` and its class count.

    Parameters
    ----------
    L : array-like of int, shape (n_rows, n_sources), or sparse matrix
        Dense: class indices, ``-1`` for an abstain. Sparse: ``class + 1``, zero for an
        abstain (CSR, CSC, COO, ... are all read).
    n_classes : int, default=None
        The number of classes; ``None`` means one more than the largest class voted.
    n_sources : int, default=None
        The number of sources a fitted model expects; a matrix with another number of
        columns is refused.
    sets : ndarray of bool of shape (n_sets, n_classes), default=None
        Set votes (see :func:`check_sets`): a value ``n_classes + s`` (dense; ``n_classes
        + s + 1`` sparse) is a vote for set ``s``, "one of these classes". ``n_classes``
        is then the table's width.
    name : str, default="L"
        The argument's name in error messages.

    Returns
    -------
    votes : Votes
        ``cls`` holds outputs: classes, then ``n_classes + s`` for set ``s``.
    n_classes : int
        The number of classes.

    Raises
    ------
    ValueError
        With one line naming ``name``, what was expected and what arrived: a shape that is
        not 2-D or does not match ``n_sources``, values that are not integers, a dense
        value below -1, a class at or beyond ``n_classes``.
    """
    if n_classes is not None and (isinstance(n_classes, bool) or not isinstance(n_classes, Integral)
                                  or not 2 <= n_classes <= _MAX_CLASSES):
        raise ValueError(f"n_classes must be an integer from 2 to {_MAX_CLASSES}; got {n_classes!r}.")
    columns = [str(c).lower() for c in getattr(L, "columns", ())]
    if "worker" in columns or ("label" in columns and ("task" in columns or "item" in columns)):
        raise ValueError(f"{name} has columns {list(getattr(L, 'columns'))}: it looks like a long table, not a vote "
                         f"matrix (one row per example, one column per source); {_LONG_HINT}.")
    if sp.issparse(L):
        if L.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n_rows, n_sources); got shape {L.shape}.")
        M = L if L.format == "csr" else None
        if M is None or not (M.has_canonical_format and M.data.all()):
            C = L.tocoo()                     # a copy: the caller's matrix is never changed
            keep = C.data != 0
            r, c = C.row[keep].astype(np.int64), C.col[keep].astype(np.int64)
            pairs = r * C.shape[1] + c
            uniq, first = np.unique(pairs, return_index=True)
            if uniq.size < pairs.size:
                dup = np.setdiff1d(np.arange(pairs.size), first)[0]
                raise ValueError(f"{name} holds two votes of source {c[dup]} on row {r[dup]}; a source votes at "
                                 "most once per row.")
            M = sp.csr_matrix((C.data[keep], (r, c)), shape=C.shape)
            M.sort_indices()
        data = M.data
        if data.dtype.kind not in "iuf" or (data.dtype.kind == "f" and not (np.isfinite(data).all()
                                                                          and (data == np.round(data)).all())):
            raise ValueError(f"{name} must store class + 1 as integers (0 = abstain); found non-integer values.")
        if (data < 0).any():
            raise ValueError(f"{name} must store class + 1 (>= 1), 0 for an abstain; found negative values.")
        if data.size and data.max() > _MAX_CLASSES:        # before the cast: uint64 >= 2**63 would wrap
            raise ValueError(f"{name} stores {data.max()!r} (class + 1), beyond the {_MAX_CLASSES} classes allowed.")
        n_rows, m = M.shape
        indptr = M.indptr.astype(np.int64)
        src = M.indices.astype(np.int64)          # sorted by source within each row (canonical)
        cls = data.astype(np.int64) - 1
    else:
        A = np.asarray(L)
        if A.ndim != 2:
            raise ValueError(f"{name} must be a 2-D array (n_rows, n_sources) of class indices, -1 = abstain; got "
                             f"shape {A.shape}.")
        if A.dtype.kind == "b" or A.dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold class indices (integers), -1 = abstain; got dtype {A.dtype}.")
        if A.dtype.kind == "f":
            if not (np.isfinite(A).all() and (A == np.round(A)).all()):
                bad = np.argwhere(~np.isfinite(A) | (A != np.round(A)))[0]
                raise ValueError(f"{name} must hold class indices (integers), -1 = abstain; row {bad[0]} holds "
                                 f"{A[tuple(bad)].item()!r}.")
        if A.size and A.min() < -1:
            bad = np.argwhere(A < -1)[0]
            raise ValueError(f"{name} must hold class indices >= 0, or -1 for an abstain; row {bad[0]} holds "
                             f"{A[tuple(bad)].item()!r}.")
        if A.size and A.max() >= _MAX_CLASSES:
            raise ValueError(f"{name} holds class {A.max()!r}, beyond the {_MAX_CLASSES} classes allowed.")
        A = A.astype(np.int64)
        n_rows, m = A.shape
        voted = A >= 0
        indptr = np.concatenate([[0], np.cumsum(voted.sum(axis=1))]).astype(np.int64)
        rows, src = np.nonzero(voted)
        src = src.astype(np.int64)
        cls = A[rows, src]
    if n_rows == 0 or m == 0:
        raise ValueError(f"{name} needs at least one row and one source; got shape {(n_rows, m)}.")
    if n_sources is not None and m != n_sources:
        raise ValueError(f"{name} has {m} sources (columns) but the model was fitted with {n_sources}.")
    top = int(cls.max()) if cls.size else -1
    if top >= _MAX_CLASSES:
        raise ValueError(f"{name} holds class {top}, beyond the {_MAX_CLASSES} classes allowed.")
    if sets is not None and len(sets):
        K = sets.shape[1]
        if n_classes is not None and int(n_classes) != K:
            raise ValueError(f"n_classes={n_classes} but the set votes' table has {K} classes.")
        if top >= K + len(sets):
            row = int(np.searchsorted(indptr, int(np.argmax(cls)), side="right") - 1)
            raise ValueError(f"{name} holds {top} (row {row}), but there are {K} classes and {len(sets)} set votes "
                             f"(0..{K + len(sets) - 1}).")
    else:
        if n_classes is None and top + 1 > _MAX_INFERRED_CLASSES \
                and np.unique(cls).size > _MAX_INFERRED_CLASSES:
            raise ValueError(f"{name} votes {np.unique(cls).size} distinct classes up to {top}: these look like ids, "
                             f"not classes. Pass n_classes if there are that many classes; {_LONG_HINT}.")
        K = max(top + 1, 2) if n_classes is None else int(n_classes)
        if top >= K:
            row = int(np.searchsorted(indptr, int(np.argmax(cls)), side="right") - 1)
            raise ValueError(f"{name} holds class {top} (row {row}), but n_classes={K}.")
    return Votes(int(n_rows), int(m), indptr, np.ascontiguousarray(src), np.ascontiguousarray(cls)), K


def check_memory(nbytes, what, n_classes=None):
    """Refuse, before allocating, what would take more than the memory budget
    (:func:`weaklabel._validation.check_memory`), naming the class count behind it: an
    inferred class count is the usual cause (one vote for a class numbered 29,999).
    """
    hint = (f" The {n_classes} classes are one more than the largest class voted unless n_classes says "
            "otherwise: number the classes 0 .. K-1, or pass n_classes." if n_classes else "")
    _check_memory(nbytes, what, hint)


def check_gold(y, n_rows, n_classes, name="y"):
    """Known labels (class indices, -1 unknown) of ``n_rows`` rows, or all unknown."""
    if y is None:
        return np.full(n_rows, -1, dtype=np.int64)
    g = np.asarray(y)
    if g.shape != (n_rows,):
        raise ValueError(f"{name} must have shape ({n_rows},), one entry per row of L (-1 = unknown); got {g.shape}.")
    if g.dtype.kind == "f" and not (np.isfinite(g).all() and (g == np.round(g)).all()):
        raise ValueError(f"{name} must hold class indices (integers), -1 = unknown.")
    if g.dtype.kind not in "iuf" or (g.size and (g.min() < -1 or g.max() >= n_classes)):
        raise ValueError(f"{name} must hold class indices in 0..{n_classes - 1}, or -1 where unknown.")
    return g.astype(np.int64)


@dataclass(frozen=True)
class LongVotes:
    """What :func:`votes_from_long` returns.

    Parameters
    ----------
    L : scipy.sparse.csr_matrix of shape (n_items, n_workers)
        The votes, storing ``class + 1`` (zero: no answer), as every label model takes them.
    items : ndarray of shape (n_items,)
        The item id of each row, in the order first seen.
    workers : ndarray of shape (n_workers,)
        The worker (source) id of each column, in the order first seen.
    classes : ndarray of shape (n_classes,)
        The label of each class index (sorted, unless given).
    """

    L: sp.csr_matrix
    items: np.ndarray
    workers: np.ndarray
    classes: np.ndarray

    @property
    def n_classes(self):
        """Number of classes, an int."""
        return int(self.classes.size)


def votes_from_long(data, *, item=None, worker="worker", label="label", classes=None):
    """A long table of answers, one ``(item, worker, label)`` row each, as votes.

    The form crowdsourcing platforms export and crowd-kit's aggregators take. Ids may be any
    hashable values (strings, numbers), labels any sortable values (strings included).
    A worker who answered an item twice keeps the last answer; a row with a missing label
    (``None`` or NaN) is skipped.

    Parameters
    ----------
    data : pandas.DataFrame, dict of str to sequence, or sequence of (item, worker, label)
        The answers.
    item : str, default=None
        The items' column; ``None`` takes ``"item"``, or crowd-kit's ``"task"``.
    worker : str, default="worker"
        The workers' column.
    label : str, default="label"
        The labels' column.
    classes : sequence, default=None
        The labels in class-index order (every label of the table must be among them); ``None``
        takes the labels present, sorted.

    Returns
    -------
    LongVotes
        The votes ``L`` (items x workers) and the maps of rows, columns and classes.

    Raises
    ------
    ValueError
        A missing column, a table without answers, or a label outside ``classes``.

    Examples
    --------
    >>> from weaklabel.sources import DawidSkene, votes_from_long
    >>> table = {"task": ["t1", "t1", "t2", "t2", "t3"], "worker": ["ann", "bob", "ann", "cy", "bob"],
    ...          "label": ["cat", "cat", "dog", "cat", "dog"]}
    >>> v = votes_from_long(table)
    >>> v.L.shape, v.items.tolist(), v.classes.tolist()
    ((3, 3), ['t1', 't2', 't3'], ['cat', 'dog'])
    >>> model = DawidSkene(abstain="ignore").fit(v.L, n_classes=v.n_classes)
    >>> v.classes[model.predict(v.L)].tolist()
    ['cat', 'dog', 'dog']
    """
    if hasattr(data, "columns") or isinstance(data, dict):
        names = [str(c) for c in (data.columns if hasattr(data, "columns") else data.keys())]
        item = item if item is not None else ("item" if "item" in names else "task")
        missing = [c for c in (item, worker, label) if c not in names]
        if missing:
            raise ValueError(f"data has no column {missing[0]!r}; it has {names}. Name the columns with item=, "
                             "worker= and label=.")
        cols = [list(data[c]) for c in (item, worker, label)]
    else:
        rows = list(data)
        if any(not hasattr(r, "__len__") or len(r) != 3 for r in rows):
            raise ValueError("data must be a table with item, worker and label columns, or (item, worker, label) "
                             "triples.")
        cols = [list(c) for c in zip(*rows)] if rows else [[], [], []]
    keep = [k for k, v in enumerate(cols[2]) if v is not None and not (isinstance(v, float) and v != v)]
    if not keep:
        raise ValueError("data holds no answer (no row with a label).")
    items, workers, answers = ([cols[c][k] for k in keep] for c in range(3))
    if classes is None:
        try:
            table = np.asarray(sorted(set(answers)))
        except TypeError:
            raise ValueError("the labels cannot be sorted (mixed types?); give their order as classes=.") from None
    else:
        table = np.asarray(list(classes))
    index = {v: k for k, v in enumerate(table.tolist())}
    outside = [a for a in answers if a not in index]
    if outside:
        raise ValueError(f"label {outside[0]!r} is not among classes={table.tolist()}.")
    item_ids, worker_ids, last = {}, {}, {}
    for i, w, a in zip(items, workers, answers):
        last[(item_ids.setdefault(i, len(item_ids)), worker_ids.setdefault(w, len(worker_ids)))] = index[a] + 1
    keys = np.asarray(list(last), dtype=np.int64).reshape(-1, 2)
    L = sp.csr_matrix((np.asarray(list(last.values()), dtype=np.int64), (keys[:, 0], keys[:, 1])),
                      shape=(len(item_ids), len(worker_ids)))
    L.sort_indices()
    return LongVotes(L, _ids(item_ids), _ids(worker_ids), table)


def _ids(seen):
    """The ids in first-seen order: a typed array when they are all numbers or all strings,
    objects otherwise (mixed types keep their own)."""
    ids = list(seen)
    kinds = {"str" if isinstance(k, str) else "num" if isinstance(k, (int, float, np.number)) else "other"
             for k in ids}
    if len(kinds) == 1 and "other" not in kinds:
        return np.asarray(ids)
    out = np.empty(len(ids), dtype=object)
    out[:] = ids
    return out
