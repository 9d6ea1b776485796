"""Online multiclass learners from candidate label sets (partial labels).

Avg/Max Perceptron and Avg/Max Pegasos (Bhattacharjee & Manwani) and the
exact-label baselines Perceptron and Pegasos; CLPL, the convex batch loss of Cour,
Sapp & Taskar.
"""

from ._clpl import CLPL
from ._online import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

__all__ = ["CLPL", "AvgPerceptron", "MaxPerceptron", "AvgPegasos", "MaxPegasos", "Perceptron", "Pegasos"]
