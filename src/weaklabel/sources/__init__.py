"""Several weak sources: the votes of labeling functions and annotators, and the label
models that turn them into probabilistic labels.

A vote matrix ``L`` has a row per example and a column per source: class indices with -1
for an abstain, or a sparse matrix storing ``class + 1`` (memory O(votes)). Every label
model takes it as ``fit(L, y=None, *, n_classes=None)``, ``partial_fit`` (chunk by chunk),
``predict_proba(L)`` and ``predict(L)`` on new rows, ``score(L, y)`` and ``save``.
"""

from ._diagnostics import source_summary
from ._end_model import EndModel
from ._matrix_completion import MatrixCompletion
from ._lf import LabelingFunction, LabelingFunctionError, apply_lfs, keyword, labeling_function, regex
from ._label_models import DawidSkene, LabelModelWarning, MajorityVote, PrecisionVote, held_out_vote_score
from ._votes import LongVotes, Votes, check_sets, check_votes, votes_from_long

__all__ = ["MajorityVote", "DawidSkene", "PrecisionVote", "MatrixCompletion", "check_votes", "check_sets", "Votes", "votes_from_long", "LongVotes", "held_out_vote_score", "LabelModelWarning", "source_summary",
           "LabelingFunction", "LabelingFunctionError", "labeling_function", "keyword", "regex", "apply_lfs", "EndModel"]
