"""Writing labeling functions and applying them: from records to a vote matrix.

A labeling function takes one record (a text, a dict, a row of a DataFrame) and returns a
class index, or ``None`` / ``-1`` to abstain. Write it as a plain function with the
:func:`labeling_function` decorator, or build one with :func:`keyword` and :func:`regex`;
:func:`apply_lfs` runs a list of them over a list of texts or records, a pandas DataFrame, or
a Dask DataFrame (partition by partition), and returns the votes as a sparse matrix of
``class + 1`` (memory O(votes)), the layout every label model reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .._extras import require
from ._votes import _MAX_CLASSES

__all__ = ["LabelingFunction", "LabelingFunctionError", "labeling_function", "keyword", "regex", "apply_lfs"]


class LabelingFunctionError(ValueError):
    """A labeling function failed on a record: the message names the function and the
    record's position; the function's own exception is its ``__cause__``.
    """


class LabelingFunction:
    """A named function from a record to a class index (``None`` or -1: abstain).

    Parameters
    ----------
    func : callable
        ``func(record) -> int or None``.
    name : str, default=None
        The function's name by default.

    Examples
    --------
    >>> from weaklabel.sources import LabelingFunction
    >>> lf = LabelingFunction(lambda text: 1 if "free" in text else None, name="free")
    >>> lf("free entry"), lf("hello")
    (1, -1)
    """

    def __init__(self, func, *, name=None):
        if not callable(func):
            raise TypeError(f"a labeling function must be callable; got {type(func).__name__}.")
        self.func = func
        self.name = name or getattr(func, "__name__", "lf")

    def __call__(self, record):
        vote = self.func(record)
        if vote is None:
            return -1
        if isinstance(vote, (bool, np.bool_)) or not isinstance(vote, (int, np.integer)) or vote < -1:
            raise ValueError(f"labeling function {self.name!r} returned {vote!r}; expected a class index (int >= 0), "
                             "or None / -1 to abstain.")
        if vote >= _MAX_CLASSES:
            raise ValueError(f"labeling function {self.name!r} returned class {vote!r}, beyond the {_MAX_CLASSES} "
                             "classes allowed.")
        return int(vote)

    def __repr__(self):
        return f"LabelingFunction({self.name!r})"


def labeling_function(func=None, *, name=None):
    """Decorator: make a plain function a :class:`LabelingFunction`.

    Parameters
    ----------
    func : callable, default=None
        ``func(record) -> int or None``; used bare (``@labeling_function``) or with a name
        (``@labeling_function(name="...")``).
    name : str, default=None
        The function's name (default: ``func.__name__``).

    Returns
    -------
    LabelingFunction, or a decorator
        The labeling function; with ``func`` None, a decorator that makes one.

    Examples
    --------
    >>> from weaklabel.sources import labeling_function
    >>> @labeling_function
    ... def short(text):
    ...     return 0 if len(text.split()) < 4 else None
    >>> short.name, short("nice video"), short("check out my channel please")
    ('short', 0, -1)
    """
    if func is None:
        return lambda f: LabelingFunction(f, name=name)
    return LabelingFunction(func, name=name)


def _text(record, field):
    if field is None:
        if not isinstance(record, str):
            raise TypeError(f"a keyword or regex labeling function without `field` reads texts; got a "
                            f"{type(record).__name__}. Pass field= to read one field of a record.")
        return record
    if isinstance(record, Mapping):
        if field not in record:
            raise ValueError(f"field={field!r} is not a key of the record (it has {sorted(map(str, record))[:10]}).")
        value = record[field]
    elif isinstance(record, str):
        raise ValueError(f"field={field!r} reads a field of a record, but the records are texts: drop field=.")
    elif not hasattr(record, field):
        fields = list(getattr(record, "_fields", ()))
        raise ValueError(f"field={field!r} is not a field of the record ({type(record).__name__} with fields "
                         f"{fields[:10]}); a DataFrame's rows come as named tuples, in which pandas renames a column "
                         "that is not a Python identifier or is a keyword (such as 'class'): rename the column.")
    else:
        value = getattr(record, field)
    return "" if value is None else str(value)


def keyword(words, label, *, field=None, case=False, name=None):
    """A labeling function that votes ``label`` when a text holds any of ``words``.

    Parameters
    ----------
    words : str or sequence of str
        Whole words or phrases (matched at word boundaries).
    label : int
        The class index it votes.
    field : str, default=None
        The record's field to read (a key of a dict, a column of a DataFrame row); ``None``
        for records that are texts.
    case : bool, default=False
        Match case.
    name : str, default=None
        ``keyword_<first word>`` by default.

    Returns
    -------
    LabelingFunction
        Votes ``label`` on a record whose text holds one of the words (as whole words);
        abstains (-1) otherwise.

    Examples
    --------
    >>> from weaklabel.sources import keyword
    >>> lf = keyword(["subscribe", "my channel"], 1)
    >>> lf("Please SUBSCRIBE"), lf("check my channel!"), lf("subscribed")
    (1, 1, -1)
    """
    words = [words] if isinstance(words, str) else list(words)
    if not words:
        raise ValueError("keyword needs at least one word.")
    empty = [w for w in words if not isinstance(w, str) or not w.strip()]
    if empty:
        raise ValueError(f"keyword's words must be non-empty strings; got {empty[0]!r} (an empty word matches every "
                         "text).")
    pattern = r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b"
    return regex(pattern, label, field=field, flags=0 if case else re.IGNORECASE,
                 name=name or f"keyword_{words[0].replace(' ', '_')}")


def regex(pattern, label, *, field=None, flags=0, name=None):
    """A labeling function that votes ``label`` when a regular expression matches a text.

    Parameters
    ----------
    pattern : str
        A regular expression, searched anywhere in the text.
    label : int
        The class index it votes.
    field : str, default=None
        The record's field to read; ``None`` for records that are texts.
    flags : int, default=0
        :mod:`re` flags.
    name : str, default=None
        ``regex_<pattern>`` by default.

    Returns
    -------
    LabelingFunction
        Votes ``label`` on a record whose text the pattern matches; abstains (-1)
        otherwise.

    Examples
    --------
    >>> from weaklabel.sources import regex
    >>> regex(r"https?://", 1)("see http://spam.example")
    1
    """
    if isinstance(label, (bool, np.bool_)) or not isinstance(label, (int, np.integer)) or label < 0:
        raise ValueError(f"label must be a class index (int >= 0); got {label!r}.")
    if label >= _MAX_CLASSES:
        raise ValueError(f"label must be a class index below {_MAX_CLASSES}; got {label!r}.")
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, TypeError) as exc:
        raise ValueError(f"pattern {pattern!r} is not a regular expression: {exc}.") from None
    label = int(label)

    def vote(record):
        return label if compiled.search(_text(record, field)) else None

    return LabelingFunction(vote, name=name or f"regex_{pattern}")


def _records(data):
    """Rows of a list of texts / records, or of a pandas DataFrame (as named tuples)."""
    if hasattr(data, "itertuples"):
        return data.itertuples(index=False), len(data)
    if isinstance(data, (str, bytes)):
        raise TypeError("apply_lfs takes a sequence of records (e.g. a list of texts), not one string.")
    data = list(data)
    return data, len(data)


def _apply_local(lfs, data, progress, partition=None):
    records, n = _records(data)
    where = "" if partition is None else f" of partition {partition}"
    if progress:
        tqdm = require("tqdm.auto", "apply_lfs(progress=True)").tqdm
        records = tqdm(records, total=n, desc="labeling functions", unit="row")
    rows, cols, vals = [], [], []
    for i, record in enumerate(records):
        for j, lf in enumerate(lfs):
            try:
                v = lf(record)
            except Exception as exc:
                raise LabelingFunctionError(f"labeling function {lf.name!r} failed on record {i}{where}: "
                                            f"{type(exc).__name__}: {exc}") from exc
            if v >= 0:
                rows.append(i), cols.append(j), vals.append(v + 1)
    return sp.csr_matrix((np.asarray(vals, dtype=np.int64), (np.asarray(rows, dtype=np.int64),
                                                             np.asarray(cols, dtype=np.int64))),
                         shape=(n, len(lfs)))


def apply_lfs(lfs, data, *, sparse=True, progress=False):
    """Run labeling functions over records: the vote matrix of the label models.

    Parameters
    ----------
    lfs : sequence of LabelingFunction or callables
        Plain callables are wrapped as :class:`LabelingFunction`.
    data : sequence of records, pandas.DataFrame or dask.dataframe.DataFrame
        Texts, dicts, or any records the functions read; a DataFrame's rows are passed as
        named tuples (``row.text``). A Dask DataFrame's partitions are labelled where they
        are, and their votes stay there (see Returns).
    sparse : bool, default=True
        Return a CSR matrix of ``class + 1`` (zero = abstain); ``False``: a dense int array
        with -1 for an abstain.
    progress : bool, default=False
        Show a progress bar (needs tqdm, in the ``cli`` extra: an ImportError naming it
        otherwise; local data only).

    Returns
    -------
    L : scipy.sparse.csr_matrix or ndarray of shape (n_records, n_lfs), or dask array
        The votes, one column per labeling function. For a Dask DataFrame, a Dask array
        with one block per partition (CSR blocks, or dense with ``sparse=False``), nothing
        computed yet: :func:`weaklabel.distributed.fit_label_model` fits a label model from
        it without gathering the votes. A labeling function that fails names its record
        and partition.

    Examples
    --------
    >>> from weaklabel.sources import apply_lfs, keyword, regex
    >>> lfs = [keyword("subscribe", 1), regex(r"https?://", 1), keyword(["song", "love"], 0)]
    >>> apply_lfs(lfs, ["subscribe to http://x.y", "love this song", "meh"], sparse=False)
    array([[ 1,  1, -1],
           [-1, -1,  0],
           [-1, -1, -1]])
    """
    lfs = [lf if isinstance(lf, LabelingFunction) else LabelingFunction(lf) for lf in lfs]
    if not lfs:
        raise ValueError("apply_lfs needs at least one labeling function.")
    if hasattr(data, "map_partitions") and hasattr(data, "to_delayed"):
        return _apply_partitions(lfs, data, sparse)
    L = _apply_local(lfs, data, progress)
    return L if sparse else _dense(L)


def _dense(L):
    return np.asarray(L.toarray(), dtype=np.int64) - 1


def _apply_partitions(lfs, data, sparse):
    """The votes of a Dask DataFrame's partitions as a Dask array of one block each, left on
    the cluster (rows per block unknown until computed)."""
    dask = require("dask", "apply_lfs on a Dask DataFrame")
    da = require("dask.array", "apply_lfs on a Dask DataFrame")
    m = len(lfs)
    meta = sp.csr_matrix((0, m), dtype=np.int64) if sparse else np.zeros((0, m), np.int64)
    blocks = []
    for i, part in enumerate(data.to_delayed()):
        votes = dask.delayed(_apply_local)(lfs, part, False, i)
        blocks.append(da.from_delayed(votes if sparse else dask.delayed(_dense)(votes), shape=(np.nan, m),
                                      dtype=np.int64, meta=meta))
    return da.concatenate(blocks, axis=0)
