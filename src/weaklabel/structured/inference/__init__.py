"""Max-sum (MAP) inference for Markov networks, as pure functions.

Every function takes ``unary`` of shape (n_nodes, K), ``pairwise`` of shape (K, K)
(shared by every edge) or (n_edges, K, K), and ``edges`` of shape (n_edges, 2); the
score of a labeling ``y`` is ``sum_v unary[v, y_v] + sum_e pairwise[e][y_u, y_v]`` for
``e = (u, v)``.

- :func:`viterbi`: exact on chains, O(n K^2).
- :func:`lp_map`: Schlesinger's LP relaxation by MPLP (dual block-coordinate descent):
  a labeling, the dual upper bound, and whether the relaxation was tight (certified).
- :func:`exact_map`: :func:`lp_map`, then branch and bound over it when not tight.
- :func:`milp_map`: the integer program of MAP solved by HiGHS (``scipy.optimize.milp``),
  exact and solver-certified; slow, for the puzzles branch and bound gives up on.
- :func:`brute_force`: enumeration of all K^n labelings (tests only).
- :func:`constrain` / :func:`satisfies`: hard constraints (allowed labels per node,
  forbidden pairs per edge) imposed on the potentials, so every method honours them.

One module per method; every function returns one :class:`MAPResult` (``labels``,
``value``, ``bound``, ``certified``, ``nodes``, ``info``).
"""

from __future__ import annotations

from ._common import MAPResult, _adjacency, energy, potentials  # noqa: F401  (_adjacency: for the tests)
from .brute_force import brute_force
from .constraints import check_constraints, constrain, satisfies
from .exact import exact_map
from .lp import lp_map
from .milp import milp_map
from .viterbi import viterbi

__all__ = ["MAPResult", "viterbi", "lp_map", "exact_map", "milp_map", "brute_force", "energy", "potentials",
           "check_constraints", "constrain", "satisfies"]
