"""Hypothesis strategies of hostile inputs: arrays of every dtype (uint64 and float16
included) with extreme values (NaN, infinities, 1e308, subnormals, 2**63), one row or
none, one class, duplicated rows, sparse matrices with huge column indices, and labels of
every kind."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

EXTREMES = [0.0, 1.0, -1.0, 1e308, -1e308, 1e-320, 1e150, float("nan"), float("inf"), -float("inf"), 2.0 ** 63,
            3.0, 7.0]
DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint64, np.uint8, np.bool_]


@st.composite
def matrices(draw, n_features=4, max_rows=8):
    """A feature matrix: mostly plain numbers with a few extremes, of any dtype, any number of
    rows (0 and 1 included), sometimes the wrong width, sparse, or sparse and huge."""
    kind = draw(st.sampled_from(["dense", "dense", "sparse", "huge-sparse", "wrong-width", "list", "3d"]))
    n = draw(st.integers(0, max_rows))
    d = n_features if kind != "wrong-width" else draw(st.sampled_from([1, n_features + 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    X = rng.random((n, d))
    for _ in range(draw(st.integers(0, 3))):
        if n:
            X[rng.integers(n), rng.integers(d)] = draw(st.sampled_from(EXTREMES))
    dtype = draw(st.sampled_from(DTYPES))
    with np.errstate(all="ignore"):
        if np.issubdtype(dtype, np.integer):
            X = np.nan_to_num(X * 10, nan=0, posinf=2.0 ** 62, neginf=0).clip(0 if dtype in (np.uint64, np.uint8) else
                                                                              -2.0 ** 62, 2.0 ** 62).astype(dtype)
            if dtype == np.uint64 and n and draw(st.booleans()):
                X[0, 0] = np.uint64(2**64 - 1)
        else:
            X = X.astype(dtype)
    if draw(st.booleans()) and n > 1:
        X[1] = X[0]                                         # a duplicated row
    if kind == "sparse":
        return sp.csr_matrix(X if X.dtype != np.float16 else X.astype(np.float32))
    if kind == "huge-sparse":
        cols = 2**40 if draw(st.booleans()) else 2**31 + 5
        return sp.csr_matrix((np.ones(max(n, 1)), (np.arange(max(n, 1)), np.full(max(n, 1), cols - 1))),
                             shape=(max(n, 1), cols))
    if kind == "list":
        return X.tolist()
    if kind == "3d":
        return X.reshape(n, d, 1)
    return X


@st.composite
def labels(draw, n, n_classes=3):
    """Labels for ``n`` rows: one class, many classes, huge or negative integers, floats with
    NaN, strings, the wrong length, two dimensions, or candidate sets."""
    kind = draw(st.sampled_from(["plain", "one-class", "huge", "negative", "nan", "strings", "short", "2d",
                                 "sets", "empty-sets", "uint64"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    y = rng.integers(0, n_classes, n)
    if kind == "one-class":
        return np.zeros(n, dtype=int)
    if kind == "huge":
        return y.astype(np.int64) * 2**61
    if kind == "negative":
        return y - 5
    if kind == "nan":
        out = y.astype(float)
        if n:
            out[0] = np.nan
        return out
    if kind == "strings":
        return np.array([f"c{v}" for v in y], dtype=object)
    if kind == "short":
        return y[: max(n - 1, 0)]
    if kind == "2d":
        return np.stack([y, y], axis=1)
    if kind == "sets":
        return [[int(v), int((v + 1) % n_classes)] for v in y]
    if kind == "empty-sets":
        return [[] for _ in y]
    if kind == "uint64":
        out = y.astype(np.uint64)
        if n:
            out[0] = np.uint64(2**64 - 1)
        return out
    return y


@st.composite
def votes(draw, n_sources=3, max_rows=8):
    """Vote matrices: class indices and -1, of every dtype, with huge classes, values below -1,
    NaN, one row or none, one source, sparse ``class + 1`` matrices with 2**63 and more."""
    kind = draw(st.sampled_from(["dense", "dense", "sparse", "float", "huge-class", "below", "uint64", "one"]))
    n = draw(st.integers(0, max_rows))
    m = 1 if kind == "one" else n_sources
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    L = rng.integers(-1, 3, (n, m))
    if kind == "sparse":
        S = sp.csr_matrix(L + 1)
        if S.nnz and draw(st.booleans()):
            S = S.astype(np.uint64)
            S.data[0] = np.uint64(2**63 + draw(st.integers(0, 2**20)))
        return S
    if kind == "float":
        F = L.astype(float)
        if n:
            F[0, 0] = draw(st.sampled_from([np.nan, np.inf, 0.5, 1e308]))
        return F
    if kind == "huge-class" and n:
        L[0, 0] = draw(st.sampled_from([29_999, 10**6, 2**40]))
    if kind == "below" and n:
        L[0, 0] = -7
    if kind == "uint64":
        return (L + 1).astype(np.uint64)
    return L


@st.composite
def bag_inputs(draw, n, n_classes=3):
    """``(bag_of, labelings)`` for :class:`~weaklabel.BagCandidates` over ``n`` rows: bag ids
    with gaps, negative, huge or uint64 ids, NaN, the wrong length; labelings of the wrong
    width, ragged, empty, with huge, negative or float labels, one bag's labelings missing."""
    kind = draw(st.sampled_from(["plain", "gap", "negative-id", "huge-id", "uint64-id", "nan-id", "short",
                                 "wrong-width", "ragged", "empty", "huge-label", "negative-label", "float-label",
                                 "missing-bag", "one-row-bags"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    n_bags = max(1, n // 2)
    bag_of = np.arange(n) % n_bags if kind != "one-row-bags" else np.arange(n)
    n_bags = int(bag_of.max()) + 1 if n else 0
    sizes = np.bincount(bag_of, minlength=n_bags) if n else np.zeros(0, int)
    labelings = [rng.integers(0, n_classes, (2, s)) for s in sizes]
    bag_of = bag_of.astype(object if kind == "nan-id" else np.int64)
    if kind == "gap" and n:
        bag_of = bag_of * 2
    elif kind == "negative-id" and n:
        bag_of[0] = -3
    elif kind == "huge-id" and n:
        bag_of = bag_of.copy()
        bag_of[0] = draw(st.sampled_from([2**40, 2**62, 10**9]))
    elif kind == "uint64-id":
        bag_of = bag_of.astype(np.uint64)
        if n:
            bag_of[0] = np.uint64(2**64 - 1)
    elif kind == "nan-id" and n:
        bag_of[0] = float("nan")
    elif kind == "short":
        bag_of = bag_of[: max(n - 1, 0)]
    elif kind == "wrong-width" and labelings:
        labelings[0] = rng.integers(0, n_classes, (2, labelings[0].shape[1] + 2))
    elif kind == "ragged" and labelings:
        labelings[0] = [[0] * labelings[0].shape[1], [0]]
    elif kind == "empty" and labelings:
        labelings[0] = np.zeros((0, labelings[0].shape[1]), int)
    elif kind == "huge-label" and labelings:
        labelings[0] = labelings[0] + draw(st.sampled_from([2**40, 2**62, 10**6]))
    elif kind == "negative-label" and labelings:
        labelings[0] = labelings[0] - 5
    elif kind == "float-label" and labelings:
        labelings[0] = labelings[0].astype(float)
        labelings[0][0, 0] = draw(st.sampled_from([np.nan, np.inf, 0.5]))
    elif kind == "missing-bag" and labelings:
        labelings = labelings[:-1]
    return bag_of, labelings


@st.composite
def graph_examples(draw, n_symbols=3, n_features=2, max_examples=4):
    """Structured examples in the forms the structured learners accept beyond fixed chains:
    node features (a 3-D float array, or a list of (n_i, d) arrays of different sizes) and
    per-example graphs ``(x_i, edges_i)``; with hostile values (NaN, 1e308, float16,
    subnormals, 2**63 symbols) and hostile edges (out of range, negative, self-loops,
    duplicates, floats, uint64, one column, 2**62)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    m = draw(st.integers(1, max_examples))
    sizes = [draw(st.integers(0 if draw(st.booleans()) and m > 1 else 1, 5)) for _ in range(m)]
    form = draw(st.sampled_from(["features-3d", "features-list", "pairs-symbols", "pairs-features"]))
    if form == "features-3d":
        n = max(sizes)
        X = rng.random((m, n, n_features))
    else:
        X = [rng.random((s, n_features)) if form != "pairs-symbols" else rng.integers(0, n_symbols, s)
             for s in sizes]
    flat = X if isinstance(X, np.ndarray) else (X[0] if X else None)
    if flat is not None and flat.size and draw(st.booleans()):
        bad = draw(st.sampled_from([np.nan, np.inf, 1e308, 1e-320, 2.0 ** 63, -1.0]))
        with np.errstate(all="ignore"):
            if flat.dtype.kind in "iu":
                flat.flat[0] = -1 if bad == -1.0 else n_symbols + 7
            else:
                flat.flat[0] = bad
    dtype = draw(st.sampled_from([None, np.float16, np.float32, np.uint64]))
    if dtype is not None:
        with np.errstate(all="ignore"):
            X = X.astype(dtype) if isinstance(X, np.ndarray) else [x.astype(dtype) for x in X]
    if not form.startswith("pairs"):
        return X, sizes if form != "features-3d" else [X.shape[1]] * m
    examples = []
    for x, s in zip(X, sizes):
        edges = np.array([[i, i + 1] for i in range(s - 1)], dtype=np.int64).reshape(-1, 2)
        edge_kind = draw(st.sampled_from(["chain", "chain", "out-of-range", "negative", "self-loop", "duplicate",
                                          "float", "uint64", "one-column", "huge", "empty", "list"]))
        if edge_kind == "out-of-range":
            edges = np.vstack([edges, [[0, s + 3]]])
        elif edge_kind == "negative":
            edges = np.vstack([edges, [[-1, 0]]])
        elif edge_kind == "self-loop":
            edges = np.vstack([edges, [[0, 0]]])
        elif edge_kind == "duplicate" and edges.size:
            edges = np.vstack([edges, edges[:1], edges[:1, ::-1]])
        elif edge_kind == "float":
            edges = edges.astype(float) + 0.5
        elif edge_kind == "uint64":
            edges = np.vstack([edges, [[0, 1]]]).astype(np.uint64)
            edges[-1, 1] = np.uint64(2**64 - 1)
        elif edge_kind == "one-column":
            edges = edges[:, :1]
        elif edge_kind == "huge":
            edges = np.vstack([edges, [[0, 2**62]]])
        elif edge_kind == "empty":
            edges = np.zeros((0, 2), np.int64)
        elif edge_kind == "list":
            edges = edges.tolist()
        examples.append((x, edges))
    return examples, sizes
