"""weaklabel: train classifiers from weak supervision.

Candidate label sets, bandit feedback, bags with candidate labelings, structured
outputs with missing labels and noisy labels; see the README for what is built.
"""

__version__ = "0.1.0"

from .labels import BagCandidates, BanditFeedback, CandidateSets, dump_candidate_svmlight, load_candidate_svmlight
from .linear import load

__all__ = [
    "__version__",
    "CandidateSets",
    "BanditFeedback",
    "BagCandidates",
    "load",
    "load_candidate_svmlight",
    "dump_candidate_svmlight",
]
