"""Structured outputs with missing labels (Franc & Yermakov): Markov-network graphs and
max-sum inference (:mod:`weaklabel.structured.inference`)."""

from .features import rbf_node_features
from .graphs import Graph, chain_graph, grid_graph, sudoku_graph
from .m3n import LPMILM3N, MILM3N, RampCCCPM3N, estimate_missingness, sudoku_label_prob

__all__ = ["Graph", "chain_graph", "grid_graph", "sudoku_graph", "MILM3N", "LPMILM3N", "RampCCCPM3N",
           "estimate_missingness", "sudoku_label_prob", "rbf_node_features"]
