"""Markov-network graphs (structured/graphs.py): chains, grids and the Sudoku graph, and the
check that names the first bad edge."""

import numpy as np
import pytest

from weaklabel.structured.graphs import Graph, chain_graph, check_graph, grid_graph, sudoku_graph


def test_a_chain_is_its_consecutive_pairs_and_says_so():
    g = chain_graph(5)
    assert g.edges.tolist() == [[0, 1], [1, 2], [2, 3], [3, 4]] and g.kind == "chain"
    assert Graph(5, g.edges).kind == "chain"                       # recognised from its edges
    assert Graph(3, [[0, 2], [1, 2]]).kind != "chain"
    assert chain_graph(1).n_edges == 0
    with pytest.raises(ValueError, match="kind='chain' needs edges"):
        Graph(3, [[0, 2], [1, 2]], kind="chain")
    assert not g.edges.flags.writeable


def test_grid_and_sudoku_graphs_join_the_right_cells():
    g = grid_graph(3, 4)
    assert g.n_nodes == 12 and g.n_edges == 3 * 3 + 2 * 4
    deg = np.bincount(g.edges.ravel(), minlength=12)
    assert deg[0] == 2 and deg[5] == 4 and deg.sum() == 2 * g.n_edges
    s = sudoku_graph()
    assert s.n_nodes == 81 and s.n_edges == 810
    assert (np.bincount(s.edges.ravel(), minlength=81) == 20).all()  # 8 in the row, 8 in the column, 4 more in the box
    assert [0, 10] in s.edges.tolist() and [0, 12] not in s.edges.tolist()


@pytest.mark.parametrize("edges, match", [
    ([[0, 3]], r"edge 0 = \[0, 3\] names a node that does not exist \(nodes are 0..2\)"),
    ([[0, 1], [2, 2]], r"edge 1 = \[2, 2\] is a self-loop"),
    ([[0, 1], [1, 2], [1, 0]], r"edges \[0, 2\] repeat the pair \[0, 1\]"),
    ([[0, 1, 2]], r"edges must have shape \(n_edges, 2\)"),
])
def test_check_graph_names_the_first_bad_edge(edges, match):
    with pytest.raises(ValueError, match=match):
        check_graph(3, edges)


def test_check_graph_refuses_bad_sizes_and_ids_and_accepts_no_edges():
    with pytest.raises(ValueError, match="n_nodes must be an int >= 1"):
        check_graph(0, [])
    with pytest.raises(TypeError, match="integer node ids"):
        check_graph(3, [[0.0, 1.0]])
    n, E = check_graph(4, [])
    assert n == 4 and E.shape == (0, 2) and E.dtype == np.int64
