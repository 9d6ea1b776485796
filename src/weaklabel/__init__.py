"""weaklabel: train classifiers from weak supervision.

Candidate label sets, bandit feedback, bags with candidate labelings, structured
outputs with missing labels and noisy labels; see the documentation (docs/, built by ``make -C docs html``) for what is built.
"""

import importlib

from ._version import __version__

# The containers are imported on first use (PEP 562), so `import weaklabel` and the
# command's --help stay fast: scikit-learn and numba load only when a learner or a
# container is used.
_LAZY = {"CandidateSets": "labels", "BanditFeedback": "labels", "BagCandidates": "labels",
         "load_candidate_svmlight": "labels", "dump_candidate_svmlight": "labels",
         "DataScaleWarning": "_validation"}
_SUBMODULES = {"labels", "linear", "metrics", "calibration", "scaling", "presets", "distributed", "partial", "bandit", "bags", "noisy", "sources",
               "structured", "simulate", "datasets", "experiments"}

__all__ = [
    "__version__",
    "CandidateSets",
    "BanditFeedback",
    "BagCandidates",
    "load",
    "load_candidate_svmlight",
    "dump_candidate_svmlight",
    "DataScaleWarning",
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
    from . import _persist, bags, bandit, calibration, noisy, partial, scaling, sources, structured  # noqa: F401  (fills the registry)

    return _persist.load_model(path)


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
