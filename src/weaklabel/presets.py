"""Named learner presets: the one registry shared by every experiment and ``weaklabel fit``.

A preset is a name, an estimator class and fixed parameters, e.g. ``"bpa-m0"`` is
``BPA(correct_margin=0.0)``.  Experiments store the preset name and the tuned
parameters in each cell's config; ``make("bpa-m0", gamma=0.01)`` builds the estimator.

Examples
--------
>>> from weaklabel.presets import make, names
>>> make("bpa-m0", gamma=0.1)
BPA(correct_margin=0.0, gamma=0.1)
>>> "avg-pegasos" in names("partial")
True
>>> make("avg-pegasos", paper=True).get_params()["max_iter"]     # the papers' one pass
1
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .bags import MMS, CandidateLabelSVM
from .bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from .noisy import UMA, CorrectedLogistic, LabelALittle
from .partial import CLPL, PLKNN, PRODEN, KernelPRODEN, MLPPRODEN, AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from .structured import LPMILM3N, MILM3N, RampCCCPM3N

__all__ = ["Preset", "PRESETS", "PAPER_SETTINGS", "INPUTS", "make", "names", "get"]


@dataclass(frozen=True)
class Preset:
    """An estimator class with fixed parameters, under a name.

    Parameters
    ----------
    name : str
        The preset's name (``weaklabel fit --learner NAME``).
    cls : type
        The estimator class.
    params : dict, default={}
        Its parameters.
    kind : str, default=""
        ``"partial"``, ``"bandit"``, ``"noisy"``, ``"bags"`` or ``"structured"``.
    exact_labels : bool, default=False
        The learner takes exact labels only.
    description : str, default=""
        One line for ``--help``.
    """

    name: str
    cls: type
    params: dict = field(default_factory=dict)
    kind: str = ""
    exact_labels: bool = False
    description: str = ""

    def make(self, *, paper=False, **params):
        """Make a new estimator with the preset's parameters and ``params``.

        Parameters
        ----------
        paper : bool, default=False
            Put the papers' settings (:data:`PAPER_SETTINGS`) under ``params`` for the online
            kinds.
        **params : dict
            Parameters on top of the preset's.

        Returns
        -------
        estimator
            An unfitted estimator.
        """
        valid = sorted(set(self.cls().get_params(deep=False)) - set(self.params))
        if paper and self.kind in PAPER_SETTINGS:
            paper_params = {k: v for k, v in PAPER_SETTINGS[self.kind].items() if k in valid}
            params = {**paper_params, **params}
        unknown = sorted(set(params) - set(valid) - set(self.params))
        if unknown:
            raise ValueError(f"{self.name} has no parameter {', '.join(map(repr, unknown))}; its parameters are "
                             f"{', '.join(valid)}.")
        clash = sorted(set(params) & set(self.params))
        if clash:
            raise ValueError(f"preset {self.name!r} fixes {clash}; pass the other parameters only "
                             f"(fixed: {self.params}).")
        return self.cls(**self.params, **params)


#: The papers' protocol for the online learners: one pass over the stream in its order,
#: Banditron predicting with its last iterate, the regularisation taken on X as it is
#: (``row_scale=1.0``: the papers' rows have about unit norm) and no intercept.  The estimators' defaults (20 shuffled passes,
#: an averaged Banditron) are for users; the reproductions ask for these.  A learner takes
#: the ones among its parameters.
PAPER_SETTINGS = {"partial": {"max_iter": 1, "shuffle": False, "row_scale": 1.0, "fit_intercept": False},
                  "bandit": {"max_iter": 1, "shuffle": False, "average": False, "row_scale": 1.0,
                             "fit_intercept": False}}


PRESETS = {p.name: p for p in (
    Preset("avg-perceptron", AvgPerceptron, kind="partial", description="Avg Perceptron on candidate sets"),
    Preset("max-perceptron", MaxPerceptron, kind="partial", description="Max Perceptron on candidate sets"),
    Preset("avg-pegasos", AvgPegasos, kind="partial", description="Avg Pegasos on candidate sets"),
    Preset("max-pegasos", MaxPegasos, kind="partial", description="Max Pegasos on candidate sets"),
    Preset("perceptron", Perceptron, kind="partial", exact_labels=True,
           description="multiclass Perceptron on exact labels"),
    Preset("pegasos", Pegasos, kind="partial", exact_labels=True, description="Pegasos on exact labels"),
    Preset("proden", PRODEN, kind="partial-batch",
           description="PRODEN: logistic regression re-weighting each candidate set (Lv et al. 2020)"),
    Preset("proden-clpl", PRODEN, {"init": "clpl"}, kind="partial-batch",
           description="PRODEN started from the weights of a CLPL fit (Lv et al. 2020; Cour et al. 2011)"),
    Preset("proden-hard", PRODEN, {"init": "clpl", "update": "hard", "init_alpha": [3e-4, 1e-3, 3e-3, 1e-2]},
           kind="partial-batch",
           description="hard-label rounds (classification EM, as Nguyen & Caruana's PL-SVM) of logistic "
                       "regression from four CLPL starts, the run of lowest loss kept"),
    Preset("clpl", CLPL, kind="partial-batch", description="CLPL, the convex partial-label loss (Cour et al. 2011)"),
    Preset("kernel-proden", KernelPRODEN, kind="partial-batch",
           description="PRODEN on RBF Nystroem features, width and penalty chosen from held-out candidate sets"),
    Preset("mlp-proden", MLPPRODEN, kind="partial-batch",
           description="PRODEN on a one-hidden-layer network from a linear start, penalties (network's and "
                       "start's), input noise and passes chosen from held-out candidate sets, weights averaged"),
    Preset("pl-knn", PLKNN, kind="partial-batch",
           description="k nearest neighbours voting over candidate sets (Hullermeier & Beringer 2006)"),
    Preset("cspa", CSPA, kind="bandit", description="CSPA from bandit feedback"),
    Preset("spa", SPA, kind="bandit", description="SPA with full feedback (the baseline)"),
    Preset("banditron", Banditron, kind="bandit", description="Banditron"),
    Preset("bpa", BPA, {"correct_margin": 1.0}, kind="bandit", description="BPA, margin 1 on right answers"),
    Preset("bpa-m0", BPA, {"correct_margin": 0.0}, kind="bandit",
           description="BPA, margin 0 on right answers (the BPA authors' code)"),
    Preset("confidit", Confidit, kind="bandit", description="Confidit, diagonal when n_features > 1000"),
    Preset("confidit-diag", Confidit, {"diagonal": True}, kind="bandit", description="Confidit, diagonal"),
    Preset("confidit-full", Confidit, {"diagonal": False}, kind="bandit", description="Confidit, full matrices"),
    Preset("confidit-sketch", SketchedConfidit, kind="bandit",
           description="Confidit with Frequent Directions sketches of its matrices (text scale)"),
    Preset("uma", UMA, kind="noisy", description="UMA on noisy labels with a known confusion matrix"),
    Preset("uma-identity", UMA, {"confusion": "identity"}, kind="noisy",
           description="UMA with C = I (a multiclass Perceptron on the labels as given: the f_y baseline)"),
    Preset("corrected-logistic", CorrectedLogistic, {"correction": "forward"}, kind="noisy",
           description="logistic regression, forward loss correction with a known confusion matrix "
                       "(--param correction=backward for the backward one)"),
    Preset("logistic", CorrectedLogistic, {"confusion": "identity"}, kind="noisy",
           description="multinomial logistic regression on the labels as given (CorrectedLogistic, C = I)"),
    Preset("label-a-little", LabelALittle, kind="noisy",
           description="label a little (-1 = unlabelled), a rough classifier labels the rest, UMA unconfuses"),
    Preset("mms", MMS, kind="bags", description="MMS on bags with candidate labeling vectors"),
    Preset("cl-svm", CandidateLabelSVM, kind="bags", description="CL-SVM, the MMS paper's baseline"),
    Preset("mil-m3n", MILM3N, kind="structured", description="MIL-M3N: structured outputs with missing labels"),
    Preset("ramp-m3n", RampCCCPM3N, kind="structured", description="MIL-M3N with a ramp loss by CCCP"),
    Preset("lp-mil-m3n", LPMILM3N, kind="structured",
           description="LP-MIL-M3N: the LP relaxation, for graphs with cycles (e.g. Sudoku)"),
)}

#: What each kind of learner reads, for ``weaklabel fit`` and its ``--help``.
INPUTS = {
    "partial": "svmlight; a label field may be a candidate set, e.g. \"2,5 1:0.3\"",
    "partial-batch": "as partial (batch learners: no --progress)",
    "bandit": "svmlight with exact labels (or sets of acceptable labels, e.g. \"2,5 1:0.3\"), the oracle of the "
              "learner's own proposals",
    "noisy": "svmlight with (noisy) labels; uma and corrected-logistic need --confusion, label-a-little reads -1 as "
             "unlabelled",
    "bags": "svmlight with candidate sets (bags of one), or --bags FILE.json for bags with labeling vectors",
    "structured": ".npz with X (n, n_nodes) symbols and Y (n, n_nodes) labels, -1 = missing; --graph",
}


#: The presets that read a noise matrix (``weaklabel fit --confusion``).
NEEDS_CONFUSION = ("uma", "corrected-logistic")


def names(kind=None):
    """Return the preset names, in registry order.

    Parameters
    ----------
    kind : str or None, default=None
        Only one kind: ``"partial"``, ``"bandit"``, ``"noisy"``, ``"bags"`` or ``"structured"``.

    Returns
    -------
    list of str
        The names.
    """
    return [n for n, p in PRESETS.items() if kind is None or p.kind == kind]


def get(name):
    """Return the :class:`Preset` called ``name``.

    Parameters
    ----------
    name : str
        Its name.

    Returns
    -------
    Preset
        The preset.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).
    """
    if name not in PRESETS:
        raise ValueError(f"unknown learner {name!r}; choose from {', '.join(PRESETS)}.")
    return PRESETS[name]


def make(name, *, paper=False, **params):
    """Make a new estimator of preset ``name`` with ``params`` on top of the preset's own.

    Parameters
    ----------
    name : str
        The preset.
    paper : bool, default=False
        Start from the papers' protocol (:data:`PAPER_SETTINGS`) instead of the estimator's
        defaults.
    **params : dict
        Parameters on top.

    Returns
    -------
    estimator
        An unfitted estimator.
    """
    return get(name).make(paper=paper, **params)
