"""Weak-label containers.

:class:`CandidateSets` holds one candidate label set per sample as a bool mask;
:class:`BanditFeedback` holds logged one-bit feedback; :class:`BagCandidates` holds bags
of instances with candidate labeling vectors.  All are plain data: the learners accept
them, and also the raw forms they wrap.
"""

from __future__ import annotations

import io
import os

import numpy as np
import scipy.sparse as sp

from sklearn.utils.validation import column_or_1d

from ._validation import _classes_array, _labels_to_index, describe_rows, same_labels

__all__ = ["CandidateSets", "BanditFeedback", "BagCandidates", "check_candidates", "load_candidate_svmlight",
           "dump_candidate_svmlight"]


class CandidateSets:
    """Candidate label sets: a bool mask of shape (n_samples, n_classes) and the classes.

    Row ``i`` of ``mask`` marks the labels that may be the true label of sample ``i``.
    An empty set is an error. Build one with a ``from_*`` constructor.

    Parameters
    ----------
    mask : array-like of bool, shape (n_samples, n_classes)
        ``mask[i, k]`` is True when ``classes[k]`` may be the label of sample ``i``.
    classes : array-like, shape (n_classes,), default=None
        Sorted labels; ``None`` means ``0 .. n_classes-1``.

    Examples
    --------
    >>> from weaklabel import CandidateSets
    >>> S = CandidateSets.from_lists([[0, 2], [1], [0, 1, 2]])
    >>> S.sizes.tolist()
    [2, 1, 3]
    >>> S[1:].to_lists()
    [[1], [0, 1, 2]]
    """

    __slots__ = ("mask", "classes_")

    def __init__(self, mask, classes=None):
        S, classes = check_candidates(np.asarray(mask), classes=classes, name="mask")
        if np.asarray(mask).ndim != 2:
            raise ValueError(f"mask must be 2-D (n_samples, n_classes); got shape {np.asarray(mask).shape}.")
        self.mask = S
        self.classes_ = classes
        self.mask.setflags(write=False)

    # ---- constructors -------------------------------------------------------
    @classmethod
    def from_mask(cls, mask, classes=None):
        """Build candidate sets from a bool (or 0/1) mask of shape (n_samples, n_classes).

        Parameters
        ----------
        mask : array-like of shape (n_samples, n_classes)
            ``mask[i, k]`` is true when class ``k`` is a candidate of row ``i``.
        classes : array-like of shape (n_classes,) or None, default=None
            The label of each column (default ``0 .. n_classes-1``).

        Returns
        -------
        CandidateSets
            The sets.
        """
        return cls(mask, classes)

    @classmethod
    def from_lists(cls, lists, classes=None):
        """Build candidate sets from a list of label lists, e.g. ``[[1, 3], [2]]``.

        Parameters
        ----------
        lists : list of list
            One list of candidate labels per row.
        classes : array-like or None, default=None
            The label set (sorted); ``None`` takes the labels found.

        Returns
        -------
        CandidateSets
            The sets.
        """
        if not isinstance(lists, (list, tuple)) or not all(
            isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in lists
        ):
            raise TypeError("lists must be a list of label lists, e.g. [[1, 3], [2]].")
        S, classes = check_candidates(list(lists), classes=classes, name="lists")
        return cls(S, classes)

    @classmethod
    def from_labels(cls, y, classes=None):
        """Build singleton sets from exact labels.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            One label per row.
        classes : array-like or None, default=None
            The label set (sorted); ``None`` takes the labels found.

        Returns
        -------
        CandidateSets
            One single-label set per row.
        """
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
        S, classes = check_candidates(y, classes=classes, name="y")
        return cls(S, classes)

    @classmethod
    def from_complementary(cls, y_bar, classes):
        """Build candidate sets from complementary labels: each set is every class but ``y_bar[i]``.

        Parameters
        ----------
        y_bar : array-like of shape (n_samples,)
            One label per row that the row is known not to have.
        classes : array-like
            The label set.

        Returns
        -------
        CandidateSets
            The sets.
        """
        classes = _classes_array(classes)
        if classes.size < 2:
            raise ValueError("classes must hold at least 2 labels for complementary labels.")
        y_bar = np.asarray(y_bar)
        if y_bar.ndim != 1:
            raise ValueError(f"y_bar must be 1-D labels; got shape {y_bar.shape}.")
        idx = _labels_to_index(y_bar, classes, "y_bar")
        S = np.ones((y_bar.size, classes.size), dtype=bool)
        S[np.arange(y_bar.size), idx] = False
        return cls(S, classes)

    @classmethod
    def from_bandit(cls, proposed, correct, classes):
        """Build candidate sets from bandit feedback: correct -> {proposed}; wrong -> every class but proposed.

        Parameters
        ----------
        proposed : array-like of shape (n_samples,)
            The label proposed for each row.
        correct : array-like of bool of shape (n_samples,)
            Whether it was right.
        classes : array-like
            The label set.

        Returns
        -------
        CandidateSets
            The sets.
        """
        fb = BanditFeedback(proposed, correct)
        classes = _classes_array(classes)
        if classes.size < 2:
            raise ValueError("classes must hold at least 2 labels for bandit feedback.")
        idx = _labels_to_index(fb.proposed, classes, "proposed")
        n = fb.proposed.size
        S = np.zeros((n, classes.size), dtype=bool)
        S[~fb.correct] = True
        rows = np.arange(n)
        S[rows[fb.correct], idx[fb.correct]] = True
        S[rows[~fb.correct], idx[~fb.correct]] = False
        return cls(S, classes)

    # ---- views --------------------------------------------------------------
    @property
    def sizes(self):
        """Number of candidates per sample, shape (n_samples,)."""
        return self.mask.sum(axis=1)

    @property
    def n_classes(self):
        """Number of classes (columns of the mask), an int."""
        return self.classes_.size

    def __len__(self):
        return self.mask.shape[0]

    @property
    def shape(self):
        """``(n_samples, n_classes)``, the shape of ``mask``."""
        return self.mask.shape

    def __array__(self, dtype=None, copy=None):
        # the mask: scikit-learn's ``type_of_target`` then sees a label indicator and its
        # default ``cv`` is ``KFold``; ``_safe_indexing`` slices rows through ``__getitem__``
        if copy is False and dtype is not None and np.dtype(dtype) != self.mask.dtype:
            raise ValueError("CandidateSets cannot give its mask as another dtype without a copy.")
        out = self.mask if dtype is None else self.mask.astype(dtype, copy=False)
        return out.copy() if copy else out

    def __getitem__(self, item):
        if isinstance(item, (int, np.integer)):
            return self.classes_[self.mask[item]]
        item = _rows_key(item)
        sub = self.mask[item]
        if sub.ndim != 2:
            raise IndexError("CandidateSets index must select rows (a slice, an index array or a bool mask).")
        out = object.__new__(CandidateSets)
        out.mask = np.ascontiguousarray(sub)
        out.mask.setflags(write=False)
        out.classes_ = self.classes_
        return out

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other):
        return (
            isinstance(other, CandidateSets)
            and np.array_equal(self.mask, other.mask)
            and np.array_equal(self.classes_, other.classes_)
        )

    __hash__ = None

    def __repr__(self):
        sizes = self.sizes
        mean = sizes.mean() if sizes.size else 0.0
        return f"CandidateSets(n_samples={len(self)}, n_classes={self.n_classes}, mean_size={mean:.2f})"

    def to_lists(self):
        """Return the sets as a list of label lists.

        Returns
        -------
        list of list
            One list per row, labels as Python scalars.
        """
        return [self.classes_[row].tolist() for row in self.mask]

    def contains(self, y):
        """Tell, per row, whether label ``y[i]`` is in set ``i``.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            One label per row.

        Returns
        -------
        ndarray of bool of shape (n_samples,)
            True where the label is a candidate (a label outside ``classes_`` is not).
        """
        y = np.asarray(y)
        if y.shape != (len(self),):
            raise ValueError(f"y must have shape ({len(self)},); got {y.shape}.")
        idx = np.searchsorted(self.classes_, y)
        idx = np.minimum(idx, self.classes_.size - 1)
        known = self.classes_[idx] == y
        out = np.zeros(len(self), dtype=bool)
        out[known] = self.mask[np.flatnonzero(known), idx[known]]
        return out


class BanditFeedback:
    """Logged one-bit feedback: the label proposed for each sample and whether it was right.

    Parameters
    ----------
    proposed : array-like, shape (n_samples,)
        The label proposed for each sample.
    correct : array-like of bool, shape (n_samples,)
        Whether the proposal was right.
    """

    __slots__ = ("proposed", "correct")

    def __init__(self, proposed, correct):
        proposed = np.asarray(proposed)
        correct = np.asarray(correct)
        if proposed.ndim != 1:
            raise ValueError(f"proposed must be 1-D; got shape {proposed.shape}.")
        if correct.shape != proposed.shape:
            raise ValueError(f"correct must have the shape of proposed {proposed.shape}; got {correct.shape}.")
        if correct.dtype != bool:
            # 0/1 integers, or 0./1. floats (rewards as read_vw_cb and most logs give them)
            if correct.dtype.kind in "iuf" and np.isin(correct, (0, 1)).all():
                correct = correct.astype(bool)
            elif correct.dtype.kind == "f":
                bad = correct[~np.isin(correct, (0, 1))][0]
                raise ValueError(f"correct must be right/wrong: bool, 0/1 or 0./1.; found the value {float(bad)!r}. A "
                                 "reward in between is not one-bit feedback.")
            else:
                raise TypeError(f"correct must be bool (or 0/1); got dtype {correct.dtype}.")
        self.proposed = proposed
        self.correct = correct

    def __len__(self):
        return self.proposed.size

    @property
    def shape(self):
        """``(n_samples,)``."""
        return self.proposed.shape

    def __array__(self, dtype=None, copy=None):
        # the proposals: scikit-learn's default cv for a classifier then stratifies on them
        out = self.proposed if dtype is None else self.proposed.astype(dtype)
        return out.copy() if copy else out

    def __getitem__(self, item):
        """``fb[i]``: ``(proposed[i], correct[i])``; ``fb[rows]``: the log of those rows."""
        if isinstance(item, (int, np.integer)):
            return self.proposed[item], bool(self.correct[item])
        item = _rows_key(item)
        proposed = self.proposed[item]
        if proposed.ndim != 1:
            raise IndexError("BanditFeedback index must select rows (a slice, an index array or a bool mask).")
        return BanditFeedback(proposed, self.correct[item])

    def __repr__(self):
        rate = self.correct.mean() if len(self) else 0.0
        return f"BanditFeedback(n_samples={len(self)}, correct_rate={rate:.3f})"


#: the ``Parameters`` section of the methods that read one bag
_BAG_INDEX = """
    Parameters
    ----------
    i : int
        The bag (0 .. ``n_bags - 1``)."""


class BagCandidates:
    """Bags of instances, each with a set of candidate labeling vectors (one is correct).

    Row ``r`` of ``X`` belongs to bag ``bag_of[r]``; bag ids are ``0 .. n_bags-1`` and
    every id has at least one row.  ``labelings[i]`` is an array of shape
    ``(n_labelings_i, bag_size_i)``: column ``m`` labels the ``m``-th row of bag ``i``
    in ``X`` order.  Repeated labeling vectors of one bag are kept once (it is a set).

    Parameters
    ----------
    bag_of : array-like of int, shape (n_rows,)
        Bag id of each row of ``X``.
    labelings : sequence of array-like, length n_bags
        Candidate labeling vectors of each bag, shape ``(n_labelings_i, bag_size_i)``
        (a 1-D array is one labeling vector).
    classes : array-like, shape (n_classes,), default=None
        Every label the learner should know; ``None`` means the labels that occur.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    rows : ndarray of int, shape (n_rows,)
        Row indices of ``X`` grouped by bag: bag ``i`` owns ``rows[bag_ptr[i]:bag_ptr[i+1]]``,
        in increasing order.
    bag_ptr : ndarray of int, shape (n_bags + 1,)
    Z : ndarray of int32
        All labeling vectors as class indices, flat: bag ``i``'s
        ``(n_labelings_i, bag_size_i)`` block starts at ``z_ptr[i]``.
    z_ptr : ndarray of int, shape (n_bags + 1,)

    Examples
    --------
    >>> from weaklabel import BagCandidates
    >>> B = BagCandidates([0, 0, 1], [[[3, 5], [5, 3]], [[4]]])
    >>> B.n_bags, B.bag_sizes.tolist(), B.n_labelings.tolist()
    (2, [2, 1], [2, 1])
    >>> B.labelings(0).tolist()
    [[3, 5], [5, 3]]
    >>> B.instance_candidates().to_lists()
    [[3, 5], [3, 5], [4]]
    """

    __slots__ = ("bag_of", "classes_", "rows", "bag_ptr", "Z", "z_ptr")

    def __init__(self, bag_of, labelings, classes=None):
        bag_of = np.asarray(bag_of)
        if bag_of.ndim != 1 or bag_of.size == 0:
            raise ValueError(f"bag_of must be a non-empty 1-D array of bag ids; got shape {bag_of.shape}.")
        if bag_of.dtype.kind not in "iu":
            if bag_of.dtype.kind == "f" and np.all(np.isfinite(bag_of)) and np.all(bag_of == np.round(bag_of)):
                bag_of = bag_of.astype(np.int64)
            else:
                raise TypeError(f"bag_of must hold integer bag ids; got dtype {bag_of.dtype}.")
        if isinstance(labelings, np.ndarray) and labelings.dtype != object:
            labelings = list(labelings)
        if not isinstance(labelings, (list, tuple)) and not (isinstance(labelings, np.ndarray)):
            raise TypeError("labelings must be a sequence with one (n_labelings, bag_size) array per bag; "
                            f"got {type(labelings).__name__}.")
        n_bags = len(labelings)
        if bag_of.min() < 0 or bag_of.max() >= n_bags:
            bad = np.flatnonzero((bag_of < 0) | (bag_of >= n_bags))
            raise ValueError(f"bag_of must hold ids in 0..{n_bags - 1} (one per entry of labelings); rows "
                             f"{describe_rows(bad)} hold {np.unique(bag_of[bad])[:10].tolist()}.")
        sizes = np.bincount(bag_of, minlength=n_bags)
        if np.any(sizes == 0):
            empty = np.flatnonzero(sizes == 0)
            raise ValueError(f"bags {describe_rows(empty)} have no row in bag_of; every bag needs at least one "
                             "instance.")
        arrays = []
        for i, lab in enumerate(labelings):
            a = np.asarray(lab)
            if a.ndim == 1:
                a = a[None, :]
            if a.ndim != 2:
                raise ValueError(f"labelings[{i}] must be 2-D (n_labelings, bag_size); got shape {a.shape}.")
            if a.shape[0] == 0:
                raise ValueError(f"labelings[{i}] is empty; every bag needs at least one labeling vector.")
            if a.shape[1] != sizes[i]:
                raise ValueError(f"labelings[{i}] has vectors of length {a.shape[1]} but bag {i} has {sizes[i]} "
                                 "rows in bag_of; a labeling vector gives one label per instance of its bag.")
            arrays.append(a)
        flat = np.concatenate([a.ravel() for a in arrays])
        if flat.dtype == object:
            try:
                flat = flat.astype(str)
            except (TypeError, ValueError):
                raise TypeError("labelings must hold numbers or strings.") from None
        if flat.dtype.kind == "f":
            if not np.all(np.isfinite(flat)):
                raise ValueError("labelings hold NaN or infinite labels.")
        if classes is None:
            classes = np.unique(flat)
        else:
            classes = _classes_array(classes)
        idx = _labels_to_index(flat, classes, "labelings").astype(np.int32)
        z_ptr = np.zeros(n_bags + 1, dtype=np.int64)
        blocks = []
        pos = 0
        for i, a in enumerate(arrays):
            block = idx[pos:pos + a.size].reshape(a.shape)
            pos += a.size
            if block.shape[0] > 1:
                block = np.unique(block, axis=0)  # a set of vectors: drop repeats (sorted)
            blocks.append(block.ravel())
            z_ptr[i + 1] = z_ptr[i] + block.size
        self.bag_of = bag_of.astype(np.int64)
        self.classes_ = classes
        self.rows = np.argsort(self.bag_of, kind="stable")
        self.bag_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.Z = np.concatenate(blocks).astype(np.int32)
        self.z_ptr = z_ptr
        for a in (self.bag_of, self.rows, self.bag_ptr, self.Z, self.z_ptr):
            a.setflags(write=False)

    # ---- constructors -------------------------------------------------------
    @classmethod
    def from_labels(cls, y, bag_of, classes=None):
        """Build one labeling vector per bag: the true labels (fully supervised bags).

        Parameters
        ----------
        y : array-like of shape (n_rows,)
            The label of each row.
        bag_of : array-like of int of shape (n_rows,)
            The bag of each row.
        classes : array-like or None, default=None
            The label set (sorted); ``None`` takes the labels found.

        Returns
        -------
        BagCandidates
            Bags with one candidate labeling each.
        """
        y = np.asarray(y)
        bag_of = np.asarray(bag_of)
        if y.ndim != 1 or y.shape != bag_of.shape:
            raise ValueError(f"y must be 1-D with the shape of bag_of {bag_of.shape}; got {y.shape}.")
        order = np.argsort(bag_of, kind="stable")
        n_bags = int(bag_of.max()) + 1 if bag_of.size else 0
        ptr = np.searchsorted(bag_of[order], np.arange(n_bags + 1))
        return cls(bag_of, [y[order[ptr[i]:ptr[i + 1]]][None, :] for i in range(n_bags)], classes=classes)

    @classmethod
    def from_candidate_sets(cls, S, classes=None):
        """Build bags of one instance: each candidate label of row ``r`` is a length-1 labeling.

        Parameters
        ----------
        S : CandidateSets or any form :func:`check_candidates` accepts
            The candidate sets.
        classes : array-like or None, default=None
            The label set (sorted); ``None`` takes the labels found.

        Returns
        -------
        BagCandidates
            One bag per row.
        """
        if not isinstance(S, CandidateSets):
            mask, classes = check_candidates(S, classes=classes, name="S")
            S = CandidateSets(mask, classes)
        labs = [S.classes_[row][:, None] for row in S.mask]
        return cls(np.arange(len(S)), labs, classes=S.classes_)

    # ---- views --------------------------------------------------------------
    @property
    def n_bags(self):
        """Number of bags, an int."""
        return self.bag_ptr.size - 1

    @property
    def n_rows(self):
        """Number of rows of ``X`` the bags cover, an int."""
        return self.bag_of.size

    @property
    def n_classes(self):
        """Number of classes, an int."""
        return self.classes_.size

    @property
    def bag_sizes(self):
        """Instances per bag, shape (n_bags,)."""
        return np.diff(self.bag_ptr)

    @property
    def n_labelings(self):
        """Candidate labeling vectors per bag, shape (n_bags,)."""
        return np.diff(self.z_ptr) // self.bag_sizes

    def __len__(self):
        """Rows of ``X`` described (not bags: ``B`` lines up with ``X`` as ``y`` does)."""
        return self.n_rows

    @property
    def shape(self):
        """``(n_rows, n_classes)``, the shape of ``np.asarray(B)`` (the per-row candidate mask)."""
        return (self.n_rows, self.n_classes)

    def __array__(self, dtype=None, copy=None):
        # the per-row candidate mask: scikit-learn sees a label indicator (default cv = KFold)
        mask = self.instance_candidates().mask
        return mask if dtype is None else mask.astype(dtype)

    def __getitem__(self, item):
        """``B[r]``: the labels row ``r`` may take; ``B[rows]`` (slice, index array or bool
        mask over rows): the bags restricted to those rows, see :meth:`take_rows`.
        """
        if isinstance(item, (int, np.integer)):
            r = int(item)
            if not -self.n_rows <= r < self.n_rows:
                raise IndexError(f"row {item} is out of range for {self.n_rows} rows.")
            r %= self.n_rows
            b = int(self.bag_of[r])
            col = int(np.searchsorted(self.bag_rows(b), r))
            return self.classes_[np.unique(self.Z[self.z_ptr[b]:self.z_ptr[b + 1]].reshape(-1, self.bag_sizes[b])[:, col])]
        item = _rows_key(item)
        rows = np.arange(self.n_rows)[item]
        if rows.ndim != 1:
            raise IndexError("BagCandidates index must select rows (a slice, an index array or a bool mask).")
        return self.take_rows(rows)

    def take_rows(self, rows):
        """The bags restricted to the rows ``rows`` of ``X``, lined up with ``X[rows]``.

        A bag whose rows are all taken keeps its labeling vectors; a bag cut by ``rows``
        keeps the vectors' entries of the rows taken (repeats dropped): the correct
        labeling of the whole bag gives the correct labeling of the part, so the part
        is still a bag with candidate labelings.  This is what scikit-learn's splitters
        do through ``B[train]``; pass ``groups=B.bag_of`` to a group splitter (e.g.
        :class:`~sklearn.model_selection.GroupKFold`) to keep whole bags together.

        Parameters
        ----------
        rows : array-like of int
            Row indices of ``X``, in the order of the new rows (repeats allowed).

        Returns
        -------
        BagCandidates
            Bags renumbered in increasing order of their old ids.
        """
        rows = np.asarray(rows)
        if rows.dtype.kind not in "iu" and rows.size:
            raise IndexError(f"rows must be integer row indices; got dtype {rows.dtype}.")
        rows = rows.astype(np.int64).ravel()
        if rows.size == 0:
            raise ValueError("rows is empty; a BagCandidates needs at least one row.")
        if rows.min() < -self.n_rows or rows.max() >= self.n_rows:
            raise IndexError(f"rows must index 0..{self.n_rows - 1}; got values out of range.")
        rows = rows % self.n_rows
        rank = np.empty(self.n_rows, dtype=np.int64)      # position of each row within its bag
        rank[self.rows] = np.arange(self.n_rows) - np.repeat(self.bag_ptr[:-1], self.bag_sizes)
        old, new_of = np.unique(self.bag_of[rows], return_inverse=True)
        order = np.argsort(new_of, kind="stable")
        ptr = np.searchsorted(new_of[order], np.arange(old.size + 1))
        sizes = self.bag_sizes
        labelings = []
        for i, b in enumerate(old):
            block = self.Z[self.z_ptr[b]:self.z_ptr[b + 1]].reshape(-1, sizes[b])
            labelings.append(self.classes_[block[:, rank[rows[order[ptr[i]:ptr[i + 1]]]]]])
        return BagCandidates(new_of, labelings, classes=self.classes_)

    def labelings(self, i):
        """Return bag ``i``'s candidate labeling vectors, as labels.

        Parameters
        ----------
        i : int
            The bag (0 .. ``n_bags - 1``).

        Returns
        -------
        ndarray of shape (n_labelings_i, bag_size_i)
            One labeling per row of the array, one label per instance (in the order of
            :meth:`bag_rows`).
        """
        m = int(self.bag_sizes[i])
        return self.classes_[self.Z[self.z_ptr[i]:self.z_ptr[i + 1]].reshape(-1, m)]

    def bag_rows(self, i):
        """Return the rows of ``X`` in bag ``i``, increasing.

        Parameters
        ----------
        i : int
            The bag (0 .. ``n_bags - 1``).

        Returns
        -------
        ndarray of int
            Row indices.
        """
        return self.rows[self.bag_ptr[i]:self.bag_ptr[i + 1]]

    def instance_candidates(self):
        """Return, per row, every label any candidate vector gives it.

        Returns
        -------
        CandidateSets
            One set per row of ``X``.
        """
        mask = np.zeros((self.n_rows, self.n_classes), dtype=bool)
        sizes = self.bag_sizes
        for i in range(self.n_bags):
            block = self.Z[self.z_ptr[i]:self.z_ptr[i + 1]].reshape(-1, sizes[i])
            r = self.bag_rows(i)
            mask[np.broadcast_to(r, block.shape), block] = True
        return CandidateSets(mask, self.classes_)

    def contains(self, y):
        """Tell, per bag, whether the labeling ``y`` is one of the bag's candidates.

        Parameters
        ----------
        y : array-like of shape (n_rows,)
            A label per row of ``X``.

        Returns
        -------
        ndarray of bool of shape (n_bags,)
            True where the bag's rows carry one of its candidate labelings.
        """
        y = np.asarray(y)
        if y.shape != (self.n_rows,):
            raise ValueError(f"y must have shape ({self.n_rows},); got {y.shape}.")
        out = np.zeros(self.n_bags, dtype=bool)
        for i in range(self.n_bags):
            block = self.labelings(i)
            out[i] = bool(np.any(np.all(block == y[self.bag_rows(i)][None, :], axis=1)))
        return out

    def subset(self, bags):
        """Return the bags ``bags`` (indices) as a new :class:`BagCandidates` over their own rows.

        Parameters
        ----------
        bags : array-like of int
            The bags to keep, in the order wanted.

        Returns
        -------
        sub : BagCandidates
            Bags renumbered ``0 .. len(bags)-1``, rows in the order of ``rows_taken``.
        rows_taken : ndarray of int
            The rows of ``X`` that ``sub`` describes: use ``X[rows_taken]``.
        """
        bags = np.asarray(bags, dtype=np.int64).ravel()
        if bags.size and (bags.min() < 0 or bags.max() >= self.n_bags):
            raise IndexError(f"bags must index 0..{self.n_bags - 1}; got values out of range.")
        if np.unique(bags).size != bags.size:
            raise ValueError("bags must not repeat a bag.")
        rows_taken = np.concatenate([self.bag_rows(i) for i in bags]) if bags.size else np.zeros(0, np.int64)
        bag_of = np.repeat(np.arange(bags.size), self.bag_sizes[bags])
        out = BagCandidates(bag_of, [self.labelings(i) for i in bags], classes=self.classes_)
        return out, rows_taken

    def __repr__(self):
        return (f"BagCandidates(n_bags={self.n_bags}, n_rows={self.n_rows}, n_classes={self.n_classes}, "
                f"mean_bag_size={self.bag_sizes.mean():.2f}, mean_labelings={self.n_labelings.mean():.2f})")


def _rows_key(item):
    """A row key as scikit-learn's ``_safe_indexing`` passes it (``(key, Ellipsis)``) or as a
    user writes it, reduced to what indexes the first axis.
    """
    if isinstance(item, tuple):
        if len(item) == 2 and item[1] is Ellipsis:
            item = item[0]
        else:
            raise IndexError("index rows only, e.g. S[idx] or S[2:5]; columns are classes, see .mask.")
    if isinstance(item, list):
        item = np.asarray(item)
    return item


# ---- multilabel svmlight: the on-disk format of candidate sets ---------------

#: a file may name up to this many features (or 100 per stored value) without n_features
_MAX_AUTO_FEATURES = 1 << 20


def load_candidate_svmlight(f, n_features=None, classes=None, dtype=np.float64, zero_based="auto"):
    """Read a multilabel svmlight file whose label field is a candidate set.

    Each line is ``"2,5,7 1:0.3 4:1.2"``: comma-separated candidate labels, then
    ``index:value`` pairs. A single label is a singleton set.

    Parameters
    ----------
    f : str, path-like or file object
        The file to read.
    n_features : int, default=None
        The number of features (the file's largest index when ``None``).
    classes : array-like, default=None
        The classes of the candidate sets (those found when ``None``).
    dtype : numpy dtype, default=np.float64
        The dtype of ``X``.
    zero_based : bool or "auto", default="auto"
        Whether the feature indices start at 0 (scikit-learn's ``dump_svmlight_file``)
        or 1 (LIBSVM). ``"auto"``, as scikit-learn: 0-based if the file uses index 0,
        else 1-based; a 0-based file that never uses index 0 is then read shifted by one,
        so give the base when you know it.

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (n_samples, n_features)
        The rows.
    S : CandidateSets
        Their candidate sets.
    """
    from sklearn.datasets import load_svmlight_file

    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"candidate svmlight file not found: {os.fspath(f)}")
    where = getattr(f, "name", f)
    try:
        X, lists = load_svmlight_file(f, n_features=n_features, dtype=dtype, multilabel=True, zero_based=zero_based)
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(f"could not parse {where} as svmlight with candidate labels: {exc}") from None
    if X.nnz == 0:
        raise ValueError(f"{where} has labels but no feature (no index:value pair); nothing to learn from.")
    if n_features is None and X.shape[1] > max(_MAX_AUTO_FEATURES, 100 * X.nnz):
        raise ValueError(
            f"{where} names feature index {X.shape[1]}, far beyond its {X.nnz} stored values: a model of that "
            f"width would need {X.shape[1] * 8 / 2**20:,.0f} MiB per class. If the index is real, pass "
            "n_features (weaklabel fit --n-features N).")
    bad = np.flatnonzero(~np.isfinite(X.data))
    if bad.size:
        line = int(np.searchsorted(X.indptr, bad[0], side="right"))
        raise ValueError(f"{where}: feature values must be finite numbers; line {line} holds {X.data[bad[0]]}.")
    for i, row in enumerate(lists):
        for v in row:
            if not (float(v).is_integer() and abs(float(v)) <= 2**53):
                raise ValueError(f"{where}: labels must be integer class indices (at most 2**53 in size); line "
                                 f"{i + 1} holds {v!r}.")
    lists = [[_as_label(v) for v in row] for row in lists]
    empty = [i for i, r in enumerate(lists) if len(r) == 0]
    if empty:
        raise ValueError(
            f"{getattr(f, 'name', f)}: lines {describe_rows(np.asarray(empty) + 1)} have no candidate label."
        )
    return X.tocsr(), CandidateSets.from_lists(lists, classes=classes)


def _as_label(v):
    fv = float(v)
    return int(fv) if fv.is_integer() else fv


def dump_candidate_svmlight(X, S, f):
    """Write ``X`` and candidate sets ``S`` in the multilabel svmlight format.

    Each line is the row's candidate labels, comma-separated, then its ``index:value``
    pairs with 1-based feature indices, as LIBSVM writes them; :func:`load_candidate_svmlight` reads it
    back.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows.
    S : CandidateSets or any form :func:`check_candidates` accepts
        The candidate sets.
    f : str, path-like or binary file object
        Where to write.
    """
    if not isinstance(S, CandidateSets):
        S = CandidateSets.from_mask(*check_candidates(S, name="S"))
    X = sp.csr_matrix(X)
    if X.shape[0] != len(S):
        raise ValueError(f"X has {X.shape[0]} rows but S has {len(S)}; they must match.")
    buf = io.StringIO()
    for i in range(X.shape[0]):
        labels = ",".join(str(v) for v in S.classes_[S.mask[i]].tolist())
        lo, hi = X.indptr[i], X.indptr[i + 1]
        feats = " ".join(f"{j + 1}:{v:.17g}" for j, v in zip(X.indices[lo:hi], X.data[lo:hi]))
        buf.write(f"{labels} {feats}".rstrip() + "\n")
    text = buf.getvalue()
    if isinstance(f, (str, os.PathLike)):
        import tempfile

        # a fresh temporary file created exclusively beside the target, never a fixed name
        folder, base = os.path.split(os.path.abspath(os.fspath(f)))
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            os.replace(tmp, f)
        except BaseException:
            os.unlink(tmp)
            raise
    else:
        f.write(text if isinstance(f, io.TextIOBase) else text.encode())


# ---- every accepted weak-label form -> one bool mask (the only place that knows them) ----

def check_candidates(y, n_samples=None, classes=None, name="y"):
    """Turn any accepted weak-label form into a bool mask and sorted classes.

    Accepted forms: a :class:`weaklabel.CandidateSets`; a bool (or 0/1) mask of shape
    (n_samples, n_classes); a list of label lists; a plain 1-D array of labels
    (singleton sets); an (n_samples, 1) column of labels (raveled with a warning,
    as scikit-learn does).  This is the one place a mask is validated: a
    ``CandidateSets`` was checked when it was built (its mask is read-only), so it is
    trusted here and every layer below trusts the mask it is handed.

    Parameters
    ----------
    y : CandidateSets, array-like or list of lists
        The weak labels, in any of the forms above.
    n_samples : int or None
        Expected number of rows; a mismatch raises ``ValueError``.
    classes : array-like or None
        The label set. With a mask, its length must equal the mask width; with labels,
        every label must be one of them. ``None`` infers the classes.
    name : str
        Argument name used in error messages.

    Returns
    -------
    S : ndarray of bool, shape (n_samples, n_classes)
        The candidate mask.
    classes : ndarray, shape (n_classes,)
        The label of each column, sorted.
    """
    if y is None:
        raise ValueError(f"requires {name} to be passed, but the target {name} is None; pass labels or candidate sets.")
    if type(y) is CandidateSets and (classes is None or same_labels(classes, y.classes_)):
        # the common case of a stream of CandidateSets batches: checked when built, nothing to map
        if n_samples is not None and y.mask.shape[0] != n_samples:
            raise ValueError(f"{name} has {y.mask.shape[0]} rows but X has {n_samples} samples; they must match.")
        return y.mask, y.classes_
    if classes is not None:
        classes = _classes_array(classes)

    trusted = isinstance(y, CandidateSets)     # validated when it was built; its mask is read-only
    if trusted:
        S, y_classes = y.mask, y.classes_
        if classes is not None and not np.array_equal(classes, y_classes):
            if np.isin(y_classes, classes).all():
                idx = np.searchsorted(classes, y_classes)
                full = np.zeros((S.shape[0], classes.size), dtype=bool)
                full[:, idx] = S
                S = full
            else:
                bad = y_classes[~np.isin(y_classes, classes)]
                raise ValueError(
                    f"{name} (CandidateSets) has classes {bad[:10].tolist()} that are not in classes "
                    f"{classes[:20].tolist()}."
                )
        else:
            classes = y_classes
    elif isinstance(y, list) and len(y) > 0 and all(
        isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in y
    ):
        S, classes = _mask_from_lists(y, classes, name)
    else:
        if sp.issparse(y):
            y = y.toarray()
        arr = np.asarray(y)
        if arr.dtype == object and arr.ndim == 1 and arr.size and all(
            isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in arr
        ):
            S, classes = _mask_from_lists(list(arr), classes, name)
        elif arr.ndim == 2 and arr.shape[1] == 1 and arr.dtype != bool:
            arr = column_or_1d(arr, warn=True)
            S, classes = _mask_from_labels(arr, classes, name)
        elif arr.ndim == 2:
            S = _as_mask_from_2d(arr, name)
            if classes is None:
                classes = np.arange(S.shape[1])
            elif classes.size != S.shape[1]:
                raise ValueError(
                    f"{name} is a candidate mask with {S.shape[1]} columns, but there are "
                    f"{classes.size} classes; the mask needs one column per class."
                )
        elif arr.ndim == 1:
            S, classes = _mask_from_labels(arr, classes, name)
        else:
            raise ValueError(
                f"{name} must be 1-D labels, a 2-D candidate mask or a list of label lists; "
                f"got an array of shape {arr.shape}."
            )

    S = np.ascontiguousarray(S, dtype=bool)
    if n_samples is not None and S.shape[0] != n_samples:
        raise ValueError(f"{name} has {S.shape[0]} rows but X has {n_samples} samples; they must match.")
    empty = np.zeros(0, dtype=bool) if trusted else ~S.any(axis=1)
    if empty.any():
        raise ValueError(
            f"{name} has empty candidate sets at rows {describe_rows(np.flatnonzero(empty))}; "
            "every sample needs at least one candidate label."
        )
    return S, classes


def _mask_from_labels(arr, classes, name):
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or inf; labels must be finite.")
    if arr.dtype.kind == "f" and arr.size and not np.all(arr == np.round(arr)):
        raise ValueError(
            f"Unknown label type: continuous. {name} must hold class labels (integers or strings); "
            f"got non-integer floats such as {arr[arr != np.round(arr)][0]!r}."
        )
    if arr.dtype == object:
        try:
            arr = arr.astype(str)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers or strings; got dtype object.") from None
    if classes is None:
        if arr.size == 0:
            raise ValueError(f"{name} is empty; at least one label is needed.")
        classes = np.unique(arr)
    idx = _labels_to_index(arr, classes, name)
    S = np.zeros((arr.size, classes.size), dtype=bool)
    S[np.arange(arr.size), idx] = True
    return S, classes


def _mask_from_lists(rows, classes, name):
    flat = [lab for r in rows for lab in r]
    if classes is None:
        if not flat:
            raise ValueError(f"{name} holds only empty candidate sets; no class can be inferred.")
        classes = _classes_array(np.unique(np.asarray(flat)))
    S = np.zeros((len(rows), classes.size), dtype=bool)
    if flat:
        idx = _labels_to_index(np.asarray(flat), classes, name)
        row_of = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
        S[row_of, idx] = True
    return S, classes


def _as_mask_from_2d(arr, name):
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf":
        if not np.isfinite(arr).all() if arr.dtype.kind == "f" else False:
            raise ValueError(f"{name} as a 2-D candidate mask must hold 0/1 values; it contains NaN or inf.")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            r = np.flatnonzero(bad.any(axis=1))
            raise ValueError(
                f"{name} as a 2-D candidate mask must be bool or hold only 0/1 values; "
                f"rows {describe_rows(r)} hold other values."
            )
        return arr.astype(bool)
    raise TypeError(f"{name} as a 2-D candidate mask must be bool or 0/1 numbers; got dtype {arr.dtype}.")


def candidate_set_score(self, X, y, sample_weight=None):
    """Return the fraction of predictions inside the candidate sets (1 - ambiguous 0-1 loss).

    With exact labels (1-D ``y``) this is the accuracy, so model selection tools
    (``GridSearchCV``, ``cross_val_score``) work on candidate sets as they are.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows to score.
    y : CandidateSets, bool mask, list of label lists, or 1-D labels
        Candidate label set (or label) of each row.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row; None gives every row weight 1.

    Returns
    -------
    score : float
        Weighted fraction of rows whose prediction is a candidate.
    """
    # the ``score`` method of the learners from candidate sets (``score = candidate_set_score``)
    from sklearn.base import ClassifierMixin

    if not isinstance(y, (list, CandidateSets)) and np.ndim(y) == 1:
        return ClassifierMixin.score(self, X, y, sample_weight=sample_weight)
    pred = self.predict(X)
    S, _ = check_candidates(y, len(pred), self.classes_)
    inside = S[np.arange(len(pred)), np.searchsorted(self.classes_, pred)]
    return float(np.average(inside, weights=sample_weight))
