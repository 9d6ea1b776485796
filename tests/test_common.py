"""Every estimator's checks in one place: scikit-learn's estimator checks over every
family that takes a matrix of rows (partial, bandit, noisy, bags), and the declared
parameter constraints of every estimator, the structured ones included.

(The structured learners take lists of graphs; their own checks are in
tests/structured/test_checks.py.  LabelALittle is not run through scikit-learn's checks:
on their random data its rough classifier often never predicts some class, so the
confusion estimate is singular and it raises, by design, a clear error.)
"""

import inspect

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel._online import OnlineLinear
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, GaussianSupport, SketchedConfidit
from weaklabel.noisy import UMA, CorrectedLogistic, LabelALittle
from weaklabel.partial import CLPL, PLKNN, PRODEN, KernelPRODEN, MLPPRODEN, AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from weaklabel.structured import LPMILM3N, MILM3N, RampCCCPM3N

# Bandit learners: several passes and an intercept.  The checks' blobs are centred, not
# unit-norm rows, and one pass of one-bit feedback over 300 samples is too little for
# their 0.83 accuracy bar.
_KW = dict(max_iter=5, fit_intercept=True)

# UMA with confusion="identity" (C = I for whatever classes the check uses).  MLPPRODEN with its
# penalties and input noise given: the checks fit it some 60 times, and each "auto" would add
# linear starts or networks to every fit (its selections are tested in tests/partial/test_mlp_proden.py).
# CLPL(probability=True) fits six times a check (five folds and the model): with alpha=1e-2 its
# L-BFGS needs fewer steps on the checks' separable blobs (CLPL() checks the default penalty).
ESTIMATORS = [AvgPerceptron(), MaxPerceptron(), AvgPegasos(), MaxPegasos(), Perceptron(), Pegasos(),
              CSPA(**_KW), SPA(**_KW), Banditron(random_state=0, **_KW), BPA(random_state=0, **_KW),
              Confidit(**_KW), SketchedConfidit(sketch_size=4, **_KW), GaussianSupport(n_support=20),
              UMA(confusion="identity", max_iter=50), MMS(max_iter=3, random_state=0), CandidateLabelSVM(random_state=0),
              CorrectedLogistic(confusion="identity"), CorrectedLogistic(confusion="identity", correction="backward"), CLPL(),
              CLPL(loss="logistic"), PRODEN(), PRODEN(update="hard", init="clpl", init_alpha=1e-2), PLKNN(), KernelPRODEN(gamma=0.5, alpha=0.01, n_components=30, max_iter=100, random_state=0), 
              MLPPRODEN(hidden_units=16, alpha=0.01, init_alpha=1e-3, input_noise=0.0, learning_rate=0.01, max_iter=30, random_state=0), Pegasos(probability=True, random_state=0),
              CSPA(probability=True, random_state=0, **_KW), CLPL(probability=True, alpha=1e-2),
              UMA(confusion="identity", max_iter=50, probability=True), MMS(max_iter=3, random_state=0, probability=True),
              CandidateLabelSVM(random_state=0, probability=True)]

_OBJECT = ("X of dtype object is rejected with a TypeError by design (the issue asks for it), while this "
           "check expects object arrays of numbers to be converted")


_BAGS = ("the bag learners name fit's second argument `bags` (the issue's API: it is a BagCandidates, "
         "not a y); scikit-learn tools pass it positionally, so they still work")


_ONLINE_WEIGHTS = ("an online learner multiplies a weighted row's step by its weight (as scikit-learn's SGD and "
                   "Vowpal Wabbit do): a weight of 2 is one doubled step, not two steps, so the fit is not the "
                   "fit on the repeated row")


_ONLINE_CLASS_WEIGHT = (
    "class_weight multiplies a round's step, as SGDClassifier's does (tests/test_online.py checks it equals "
    "the sample_weight it stands for), but weights of 1000 against 0.0001 on overlapping blobs do not push these "
    "rules to predict class 0 on 87 % of the rows: the Perceptrons and the passive-aggressive rules (CSPA, SPA, BPA) "
    "step on mistakes or margins, not on a weighted loss, and Pegasos projects onto the ball of radius "
    "1/sqrt(alpha) meant for weights <= 1; without an intercept (the papers') no linear rule can predict one class "
    "everywhere. Confidit and Banditron pass it")


def _expected(est):
    out = {"check_dtype_object": _OBJECT}
    if isinstance(est, OnlineLinear) and not isinstance(est, CorrectedLogistic):    # its fit is batch L-BFGS
        out["check_sample_weight_equivalence_on_dense_data"] = _ONLINE_WEIGHTS
        out["check_sample_weight_equivalence_on_sparse_data"] = _ONLINE_WEIGHTS
        if not (isinstance(est, (Confidit, SketchedConfidit, Banditron))):
            out["check_class_weight_classifiers"] = _ONLINE_CLASS_WEIGHT
    if isinstance(est, MMS):
        why = ("MMS's Pegasos draws bags at random and its default alpha is 1/N bags: a bag of weight 2 is one "
               "draw with a doubled step, not two bags (the weighted kernel equals a weighted numpy reference)")
        out["check_sample_weight_equivalence_on_dense_data"] = why
        out["check_sample_weight_equivalence_on_sparse_data"] = why
    if isinstance(est, CandidateLabelSVM):
        why = ("LIBLINEAR stops at tol=1e-4 with a random coordinate order, so weights and repeated rows give "
               "slightly different fits; at tol=1e-10 they agree (tests/bags/test_mms.py)")
        out["check_sample_weight_equivalence_on_dense_data"] = why
        out["check_sample_weight_equivalence_on_sparse_data"] = why
    if isinstance(est, (MMS, CandidateLabelSVM)):
        out["check_fit_score_takes_y"] = _BAGS
    if isinstance(est, KernelPRODEN):
        why = ("the Nystroem landmarks (and, with gamma or alpha 'auto', the held-out rows) are drawn from the rows "
               "and the features are standardised over the rows: a row repeated k times counts k times in each, a "
               "row of weight k once, so the feature maps differ")
        out["check_sample_weight_equivalence_on_dense_data"] = why
        out["check_sample_weight_equivalence_on_sparse_data"] = why
    if isinstance(est, MLPPRODEN):
        why = ("the held-out rows of early stopping and the minibatches are drawn from the rows: a row repeated k "
               "times may be held out and drawn k times a pass, a row of weight k once")
        out["check_sample_weight_equivalence_on_dense_data"] = why
        out["check_sample_weight_equivalence_on_sparse_data"] = why
    if isinstance(est, (UMA, MMS)):
        out["check_class_weight_classifiers"] = (
            "class_weight multiplies each row's weight (tests/test_online.py checks it equals the sample_weight "
            "it stands for), but UMA's updates are mistake-driven (a Perceptron's) and MMS's Pegasos projects onto a "
            "ball meant for weights <= 1 and has no intercept feature of its own scale, so weights of 1000 against "
            "0.0001 on overlapping blobs do not make them predict class 0 on 87 % of the rows")
    if getattr(est, "probability", False):
        why = ("probability=True fits a temperature on 5 folds of the rows: a row repeated k times may fall in k "
               "folds, a weighted row in one, so the temperatures (and predict_proba) differ slightly")
        out.setdefault("check_sample_weight_equivalence_on_dense_data", why)
        out.setdefault("check_sample_weight_equivalence_on_sparse_data", why)
    if isinstance(est, CLPL) and est.loss == "squared_hinge":
        why = ("the squared hinge has no second derivative at the hinge, so L-BFGS stops at tol=1e-6 at slightly "
               "different points for weights and repeated rows; CLPL(loss='logistic') passes this check")
        out["check_sample_weight_equivalence_on_dense_data"] = why
        out["check_sample_weight_equivalence_on_sparse_data"] = why
    return out


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)


ALL_CLASSES = [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, Perceptron, Pegasos, CSPA, SPA, Banditron, BPA,
               Confidit, SketchedConfidit, GaussianSupport, UMA, LabelALittle, MMS, CandidateLabelSVM, MILM3N, RampCCCPM3N, LPMILM3N,
               CorrectedLogistic, CLPL, PRODEN, PLKNN, KernelPRODEN, MLPPRODEN]


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_every_parameter_has_a_declared_constraint(cls):
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert sorted(cls._parameter_constraints) == sorted(params)


_BAD = {"max_iter": 0, "alpha": -1.0, "eta": 0.0, "beta": 1.5, "gamma": 1.0, "tol": -1.0, "C": 0.0,
        "n_support": 0, "g": float("nan"), "m": 0, "n_rounds": 0, "batch_size": 0, "learning_rate": 0.0,
        "pairwise_scale": float("inf"), "correct_margin": -0.5, "selection": "best", "loss": "l1",
        "solver": "sgd", "inference": "lp", "shuffle": "yes", "fit_intercept": 2.5,
        "max_rounds": 0, "n_neighbors": 0, "sketch_size": 1, "weights": "gaussian", "trusted_weight": 0.0}
#: where a name means something else (KernelPRODEN's gamma is a kernel width: any positive number)
_BAD_FOR = {"KernelPRODEN": {"gamma": -1.0, "n_components": 0, "validation_fraction": 1.0},
            "MLPPRODEN": {"hidden_units": 0, "init": "zeros", "renew_every": 0, "n_iter_no_change": 0,
                          "validation_fraction": 1.0, "ema_decay": 1.0, "init_alpha": -1.0,
                          "input_noise": -0.5}}


def _fit_args(est):
    rng = np.random.RandomState(0)
    if isinstance(est, (MILM3N, LPMILM3N)):
        X = rng.randint(0, 3, size=(6, 4))
        return X, X % 2
    return rng.randn(20, 3), np.arange(20) % 2


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_a_bad_parameter_is_one_clear_error_naming_it(cls):
    base = {"confusion": "identity"} if cls is UMA else {}
    bad = {**_BAD, **_BAD_FOR.get(cls.__name__, {})}
    for name in cls._parameter_constraints:
        if name not in bad:
            continue
        est = cls(**base, **{name: bad[name]})
        X, y = _fit_args(est)
        with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {cls.__name__} must be"):
            est.fit(X, y)


def _public_estimators():
    import weaklabel
    from sklearn.base import BaseEstimator

    out = {}
    for mod in ("partial", "bandit", "bags", "noisy", "sources", "structured", "calibration", "scaling"):
        m = getattr(weaklabel, mod)
        for name in getattr(m, "__all__", []):
            obj = getattr(m, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                out[f"{mod}.{name}"] = obj
    return out


@pytest.mark.parametrize("name,cls", sorted(_public_estimators().items()))
def test_constructors_are_keyword_only(name, cls):
    """Every estimator's parameters are keyword-only; a meta-estimator may take its
    ``estimator`` first (scikit-learn's convention).  Positional use still works for one
    release, with a FutureWarning (the deprecated noisy.DawidSkene warns anyway)."""
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert positional in ([], ["estimator"], ["func"]), f"{name} takes {positional} by position"


def test_positional_arguments_warn_and_still_work():
    with pytest.warns(FutureWarning, match="confusion='identity' as keyword"):
        est = UMA("identity")
    assert est.confusion == "identity"
    with pytest.warns(FutureWarning, match="n_neighbors=3"):
        assert PLKNN(3).n_neighbors == 3
    with pytest.raises(TypeError, match="both by position and by keyword"):
        CLPL(0.1, alpha=0.2)
