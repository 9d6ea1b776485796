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
