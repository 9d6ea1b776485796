"""Learning from labels corrupted by a known confusion matrix: UMA (Louche & Ralaivola),
confusion estimation, the label-a-little pipeline of the paper's Example 1, and
Dawid & Skene's EM for several annotators, loss-corrected logistic regression
(Patrini et al.), and a ranking of the labels most likely wrong."""

from ._corrected import CorrectedLogistic, corrected_loss, estimate_confusion_anchors
from ._crowd import DawidSkene
from ._issues import LabelIssues, label_issues
from ._trusted import TrustedKFold
from ._pipeline import LabelALittle, estimate_confusion
from ._uma import UMA

__all__ = ["UMA", "LabelALittle", "estimate_confusion", "DawidSkene", "CorrectedLogistic", "corrected_loss", "estimate_confusion_anchors",
           "TrustedKFold", "label_issues", "LabelIssues"]
