"""Weak-label containers.

:class:`CandidateSets` holds one candidate label set per sample as a bool mask;
:class:`BanditFeedback` holds logged one-bit feedback.  Both are plain data: the
learners accept them, and also the raw forms they wrap.
"""

from __future__ import annotations

import io
import os

import numpy as np
import scipy.sparse as sp

from ._validation import _classes_array, _labels_to_index, check_candidates, describe_rows

__all__ = ["CandidateSets", "BanditFeedback", "load_candidate_svmlight", "dump_candidate_svmlight"]


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
        """From a bool (or 0/1) mask of shape (n_samples, n_classes)."""
        return cls(mask, classes)

    @classmethod
    def from_lists(cls, lists, classes=None):
        """From a list of label lists, e.g. ``[[1, 3], [2]]``."""
        if not isinstance(lists, (list, tuple)) or not all(
            isinstance(r, (list, tuple, set, frozenset, np.ndarray)) for r in lists
        ):
            raise TypeError("lists must be a list of label lists, e.g. [[1, 3], [2]].")
        S, classes = check_candidates(list(lists), classes=classes, name="lists")
        return cls(S, classes)

    @classmethod
    def from_labels(cls, y, classes=None):
        """Singleton sets from exact labels ``y`` of shape (n_samples,)."""
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D labels; got shape {y.shape}.")
        S, classes = check_candidates(y, classes=classes, name="y")
        return cls(S, classes)

    @classmethod
    def from_complementary(cls, y_bar, classes):
        """Complementary labels: each set is every class but ``y_bar[i]``."""
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
        """From bandit feedback: correct -> {proposed}; wrong -> every class but proposed."""
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
        return self.classes_.size

    def __len__(self):
        return self.mask.shape[0]

    def __getitem__(self, item):
        if isinstance(item, (int, np.integer)):
            return self.classes_[self.mask[item]]
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
        """The sets as a list of label lists (labels as Python scalars)."""
        return [self.classes_[row].tolist() for row in self.mask]

    def contains(self, y):
        """Bool per sample: is label ``y[i]`` in set ``i``?"""
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
    correct : array-like of bool, shape (n_samples,)
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
            if correct.dtype.kind in "iu" and np.isin(correct, (0, 1)).all():
                correct = correct.astype(bool)
            else:
                raise TypeError(f"correct must be bool (or 0/1); got dtype {correct.dtype}.")
        self.proposed = proposed
        self.correct = correct

    def __len__(self):
        return self.proposed.size

    def __repr__(self):
        rate = self.correct.mean() if len(self) else 0.0
        return f"BanditFeedback(n_samples={len(self)}, correct_rate={rate:.3f})"


# ---- multilabel svmlight: the on-disk format of candidate sets ---------------

def load_candidate_svmlight(f, n_features=None, classes=None, dtype=np.float64):
    """Read a multilabel svmlight file whose label field is a candidate set.

    Each line is ``"2,5,7 1:0.3 4:1.2"``: comma-separated candidate labels, then
    1-based ``index:value`` pairs. A single label is a singleton set.

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (n_samples, n_features)
    S : CandidateSets
    """
    from sklearn.datasets import load_svmlight_file

    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"candidate svmlight file not found: {os.fspath(f)}")
    try:
        X, lists = load_svmlight_file(f, n_features=n_features, dtype=dtype, multilabel=True, zero_based=False)
    except ValueError as exc:
        raise ValueError(f"could not parse {getattr(f, 'name', f)} as svmlight with candidate labels: {exc}") from None
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
    """Write ``X`` and candidate sets ``S`` in the multilabel svmlight format."""
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
        tmp = os.fspath(f) + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, f)
    else:
        f.write(text if isinstance(f, io.TextIOBase) else text.encode())
