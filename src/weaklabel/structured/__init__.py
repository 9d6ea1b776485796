"""Structured outputs with missing labels (Franc & Yermakov): Markov-network graphs and
max-sum inference (:mod:`weaklabel.structured.inference`)."""

from .graphs import Graph, chain_graph, grid_graph, sudoku_graph

__all__ = ["Graph", "chain_graph", "grid_graph", "sudoku_graph"]
