"""Graphs of Markov networks: an int array ``edges`` of shape (n_edges, 2), node ids
``0 .. n_nodes-1``, each unordered pair at most once, no self-loops."""

from __future__ import annotations

import numpy as np

__all__ = ["chain_graph", "grid_graph", "sudoku_graph", "check_graph", "Graph"]


class Graph:
    """A Markov-network graph: ``n_nodes`` and validated ``edges`` (n_edges, 2).

    Parameters
    ----------
    n_nodes : int
        The number of nodes.
    edges : array-like of int, shape (n_edges, 2)
        Node pairs (node ids ``0 .. n_nodes-1``).
    kind : str, default="general"
        "chain" when ``edges`` is ``(0, 1), (1, 2), ...`` (exact inference by Viterbi).

    Examples
    --------
    >>> g = chain_graph(4)
    >>> g.n_nodes, g.edges.tolist(), g.kind
    (4, [[0, 1], [1, 2], [2, 3]], 'chain')
    >>> sudoku_graph().edges.shape
    (810, 2)
    """

    __slots__ = ("n_nodes", "edges", "kind")

    def __init__(self, n_nodes, edges, kind=None):
        self.n_nodes, self.edges = check_graph(n_nodes, edges)
        is_chain = (self.edges.shape[0] == self.n_nodes - 1 and
                    np.array_equal(self.edges, np.c_[np.arange(self.n_nodes - 1), np.arange(1, self.n_nodes)]))
        self.kind = kind or ("chain" if is_chain else "general")
        if self.kind == "chain" and not is_chain:
            raise ValueError("kind='chain' needs edges (0, 1), (1, 2), ..., (n_nodes-2, n_nodes-1).")
        self.edges.setflags(write=False)

    @property
    def n_edges(self):
        """Number of edges, an int."""
        return self.edges.shape[0]

    def __repr__(self):
        return f"Graph(n_nodes={self.n_nodes}, n_edges={self.n_edges}, kind={self.kind!r})"

    def __eq__(self, other):
        return isinstance(other, Graph) and self.n_nodes == other.n_nodes and np.array_equal(self.edges, other.edges)

    __hash__ = None


def check_graph(n_nodes, edges):
    """Validate a graph.

    Parameters
    ----------
    n_nodes : int
        The number of nodes.
    edges : array-like of int of shape (n_edges, 2)
        Node pairs.

    Returns
    -------
    n_nodes : int
        The number of nodes.
    edges : ndarray of int64 of shape (n_edges, 2)
        The edges.

    Raises
    ------
    ValueError
        Naming the first offending edge: a node id outside ``0 .. n_nodes-1``, a
        self-loop, or a repeated (unordered) pair.
    """
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 1:
        raise ValueError(f"n_nodes must be an int >= 1; got {n_nodes!r}.")
    E = np.asarray(edges)
    if E.size == 0:
        return int(n_nodes), np.zeros((0, 2), dtype=np.int64)
    if E.ndim != 2 or E.shape[1] != 2:
        raise ValueError(f"edges must have shape (n_edges, 2); got {E.shape}.")
    if E.dtype.kind not in "iu":
        raise TypeError(f"edges must hold integer node ids; got dtype {E.dtype}.")
    E = E.astype(np.int64)
    bad = np.flatnonzero((E < 0).any(1) | (E >= n_nodes).any(1))
    if bad.size:
        raise ValueError(f"edge {bad[0]} = {E[bad[0]].tolist()} names a node that does not exist "
                         f"(nodes are 0..{n_nodes - 1}).")
    loops = np.flatnonzero(E[:, 0] == E[:, 1])
    if loops.size:
        raise ValueError(f"edge {loops[0]} = {E[loops[0]].tolist()} is a self-loop.")
    key = np.sort(E, axis=1)
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    if np.any(counts > 1):
        dup = key[first[counts > 1][0]]
        idx = np.flatnonzero((key == dup).all(1))
        raise ValueError(f"edges {idx.tolist()} repeat the pair {dup.tolist()}; each pair may appear once.")
    return int(n_nodes), E


def chain_graph(n_nodes):
    """Return the chain 0 - 1 - ... - (n_nodes - 1).

    Parameters
    ----------
    n_nodes : int
        The number of nodes.

    Returns
    -------
    Graph
        Of kind "chain".
    """
    n = int(n_nodes)
    return Graph(n, np.c_[np.arange(n - 1), np.arange(1, n)].astype(np.int64), kind="chain")


def grid_graph(height, width):
    """Return the 4-connected ``height x width`` grid, node ``r * width + c``.

    Parameters
    ----------
    height, width : int
        The grid's size.

    Returns
    -------
    Graph
        The grid.
    """
    idx = np.arange(height * width).reshape(height, width)
    E = np.vstack([np.c_[idx[:, :-1].ravel(), idx[:, 1:].ravel()], np.c_[idx[:-1].ravel(), idx[1:].ravel()]])
    return Graph(height * width, E)


def sudoku_graph():
    """Return the graph of the 81 cells of a Sudoku (node ``9 * row + col``).

    An edge joins every two cells of one row, one column or one 3x3 box: 810 edges.

    Returns
    -------
    Graph
        The Sudoku graph.
    """
    E = []
    for a in range(81):
        ra, ca = divmod(a, 9)
        for b in range(a + 1, 81):
            rb, cb = divmod(b, 9)
            if ra == rb or ca == cb or (ra // 3 == rb // 3 and ca // 3 == cb // 3):
                E.append((a, b))
    return Graph(81, np.asarray(E, dtype=np.int64))
