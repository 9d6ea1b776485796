"""Data loading and splits shared by the experiments: the one place each is defined.

Every function is cached per process, so the cells of a sweep reuse the parsed arrays
(also on Dask workers, each with its own cache).
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler

from .. import datasets

__all__ = ["prepared", "stream_data", "unit_norm", "pll_arrays", "pll_split", "art_pooled", "art_split"]


# ---- LIBSVM / UCI sets as streams (partial-labels, cspa-*) -------------------------------

@functools.lru_cache(maxsize=8)
def prepared(name, preprocess, part="train"):
    """(X, y, classes) of a dataset's train part (or train+test), preprocessed.

    preprocess: "none" or "minmax" (each feature to [0, 1] over the whole stream).
    Cached per process: every cell of a sweep reuses the parsed arrays.
    """
    d = datasets.load(name)
    X, y = d.X_train, d.y_train
    if part == "all" and d.X_test is not None:
        X = sp.vstack([X, d.X_test]).tocsr() if sp.issparse(X) else np.vstack([X, d.X_test])
        y = np.concatenate([y, d.y_test])
    if preprocess == "minmax":
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = (X - lo) / span
    elif preprocess != "none":
        raise ValueError(f"unknown preprocess {preprocess!r}; use 'none' or 'minmax'.")
    classes = np.unique(y)
    return X, y, classes


@functools.lru_cache(maxsize=4)
def stream_data(name, part, scaling):
    """(X, y_idx, n_classes): the dataset's rows scaled as the paper's files, then unit norm.

    scaling: "none", or "minmax": each feature to [-1, 1] (LIBSVM's scaling; constant
    features become 0).
    """
    X, y, classes = prepared(name, "none", part)
    if scaling == "minmax":
        X = np.asarray(X, dtype=np.float64)
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0)
    elif scaling != "none":
        raise ValueError(f"unknown scaling {scaling!r}; use 'none' or 'minmax'.")
    return unit_norm(X), np.searchsorted(classes, y), classes.size


def unit_norm(X):
    """Rows scaled to unit Euclidean norm (all-zero rows stay zero)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        n = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        n[n == 0] = 1.0
        X = sp.diags(1.0 / n) @ X
        return X.tocsr()
    X = np.asarray(X, dtype=np.float64)
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n == 0, 1.0, n)


# ---- real candidate-label sets (pll-realworld, mms-realworld) -----------------------------

_CACHE = {}


def pll_arrays(name):
    if name not in _CACHE:
        d = datasets.load(name)
        X = sp.csr_matrix(d.X_train) if name == "italian" else d.X_train
        _CACHE[name] = (X, d.y_train, d.S_train)
    return _CACHE[name]


def pll_split(name, seed):
    """Split ``seed`` of a real partial-label set: ``(X, y, S, train, test, val, fit_part)``.

    A random 80/20 train/test split; features standardised on the training part (italian,
    binary and sparse, left as is); the training part split again 25/75 into a validation
    part and a fitting part for hyper-parameter choice.  Shared by pll-realworld and mms-realworld.
    """
    X, y, S = pll_arrays(name)
    n = y.size
    rs = np.random.RandomState(seed)
    perm = rs.permutation(n)
    n_test = int(round(0.2 * n))
    test, train = perm[:n_test], perm[n_test:]
    if not sp.issparse(X):
        scaler = StandardScaler().fit(X[train])
        X = scaler.transform(X)
    n_val = int(round(0.25 * train.size))
    val, fit_part = train[:n_val], train[n_val:]
    return X, y, S, train, test, val, fit_part


def pll_fold(name, fold, n_folds=10):
    """Fold ``fold`` of a shuffled ``n_folds``-fold cross-validation of a real partial-label
    set, the protocol of the classic tables (IPAL, PL-AGGD, PL-CL): the same
    ``(X, y, S, train, test, val, fit_part)`` as :func:`pll_split`, the test part one fold.
    """
    X, y, S = pll_arrays(name)
    perm = np.random.RandomState(0).permutation(y.size)
    folds = np.array_split(perm, n_folds)
    test = folds[fold]
    train = np.concatenate([f for k, f in enumerate(folds) if k != fold])
    train = train[np.random.RandomState(fold).permutation(train.size)]
    if not sp.issparse(X):
        X = StandardScaler().fit(X[train]).transform(X)
    n_val = int(round(0.25 * train.size))
    return X, y, S, train, test, train[:n_val], train[n_val:]


# ---- pooled train + test with re-drawn splits (mms-artificial) ----------------------------

@functools.lru_cache(maxsize=4)
def art_pooled(name, subsample=None):
    """Train + test of ``name`` pooled, and the original test size; ``subsample`` (quick
    runs) keeps that many random instances, same code path on less data.
    """
    d = datasets.load(name)
    X, y = d.X_train, d.y_train
    n_test = d.y_test.size
    if sp.issparse(X):
        X = sp.vstack([X, d.X_test]).tocsr()
    else:
        X = np.vstack([X, d.X_test])
    y = np.concatenate([y, d.y_test])
    if subsample:
        idx = np.random.RandomState(0).permutation(y.size)[:subsample]
        n_test = int(round(subsample * n_test / y.size))
        X, y = X[idx], y[idx]
    return X, y, n_test


def art_split(name, split, subsample=None):
    """(X, y, train, test) of split ``split``: a random permutation, the original test size."""
    X, y, n_test = art_pooled(name, subsample)
    perm = np.random.RandomState(1000 + split).permutation(y.size)
    return X, y, perm[n_test:], perm[:n_test]
