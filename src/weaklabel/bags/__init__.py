"""Bags of instances with candidate labeling vectors (Luo & Orabona, NIPS 2010).

:class:`MMS` learns per-instance linear classifiers from bags whose labels are only
known to be one of a few candidate labeling vectors; :class:`CandidateLabelSVM` is the
paper's CL-SVM baseline; :func:`caption_labelings` builds the candidate set of an
image from its caption (Figure 2); :func:`most_violating_labeling` is the exact
loss-augmented search MMS runs on every bag it visits.
"""

from ._baselines import CandidateLabelSVM
from ._captions import caption_labelings
from ._mms import MMS
from .search import most_violating_labeling

__all__ = ["MMS", "CandidateLabelSVM", "caption_labelings", "most_violating_labeling"]
