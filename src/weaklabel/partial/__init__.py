"""Multiclass learners from candidate label sets (partial labels), online and batch.

Avg/Max Perceptron and Avg/Max Pegasos (Bhattacharjee & Manwani) and the
exact-label baselines Perceptron and Pegasos; CLPL, the convex batch loss of Cour,
Sapp & Taskar; PRODEN, progressive identification of the true label (Lv et al.), on the features or
on RBF kernel features (KernelPRODEN) or on a neural network (MLPPRODEN); PL-KNN
(Hüllermeier & Beringer).
"""

from ._clpl import CLPL
from ._kernel_proden import KernelPRODEN, nystroem_map
from ._knn import PLKNN
from ._mlp import MLPPRODEN, mlp_loss
from ._proden import PRODEN, candidate_likelihood_loss, weighted_cross_entropy
from ._online import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

__all__ = ["CLPL", "PRODEN", "KernelPRODEN", "nystroem_map", "MLPPRODEN", "mlp_loss", "candidate_likelihood_loss", "PLKNN", "weighted_cross_entropy", "AvgPerceptron", "MaxPerceptron", "AvgPegasos", "MaxPegasos", "Perceptron", "Pegasos"]
