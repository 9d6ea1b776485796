"""Online multiclass learners from candidate label sets (partial labels).

Avg/Max Perceptron and Avg/Max Pegasos (Bhattacharjee & Manwani) and the
exact-label baselines Perceptron and Pegasos.
"""

from ._online import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

__all__ = ["AvgPerceptron", "MaxPerceptron", "AvgPegasos", "MaxPegasos", "Perceptron", "Pegasos"]
