"""weaklabel: train classifiers from weak supervision.

Candidate label sets, bandit feedback, bags with candidate labelings, structured
outputs with missing labels and noisy labels; see the README for what is built.
"""

from ._version import __version__
from .labels import BagCandidates, BanditFeedback, CandidateSets, dump_candidate_svmlight, load_candidate_svmlight

__all__ = [
    "__version__",
    "CandidateSets",
    "BanditFeedback",
    "BagCandidates",
    "load",
    "load_candidate_svmlight",
    "dump_candidate_svmlight",
]


def load(path):
    """Load a model written by ``est.save(path)``.

    Parameters
    ----------
    path : str or path-like
        A model file (.npz arrays + JSON metadata; no pickle is ever read).

    Returns
    -------
    estimator : fitted weaklabel estimator
        Of the class named in the file.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is truncated, altered, of another format version, or of an unknown kind.
    """
    from . import _persist, bags, bandit, noisy, partial, structured  # noqa: F401  (fills the registry)

    return _persist.load_model(path)
