"""Online multiclass learning from bandit (one-bit) feedback.

CSPA (Kaneko, Sato & Sugiyama) and its baselines: SPA (full feedback), Banditron,
BPA and Confidit, and Confidit with sketched matrices (:class:`SketchedConfidit`);
:class:`GaussianSupport` gives all of them the paper's kernel model.
"""

from ._gaussian_support import GaussianSupport
from ._learners import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit

__all__ = ["CSPA", "SPA", "Banditron", "BPA", "Confidit", "SketchedConfidit", "GaussianSupport"]
