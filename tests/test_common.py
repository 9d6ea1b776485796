"""scikit-learn's estimator checks over the partial-label learners, UMA and the bag learners.

(The bandit learners have theirs in tests/bandit/test_learners.py.  LabelALittle is not
checked here: on the checks' random data its rough classifier often never predicts some
class, so the confusion estimate is singular and it raises, by design, a clear error.)
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.noisy import UMA
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

# UMA with confusion="identity" (C = I for whatever classes the check uses)
ESTIMATORS = [AvgPerceptron(), MaxPerceptron(), AvgPegasos(), MaxPegasos(), Perceptron(), Pegasos(),
              UMA("identity", max_iter=50), MMS(max_iter=3, random_state=0), CandidateLabelSVM(random_state=0)]

_OBJECT = ("X of dtype object is rejected with a TypeError by design (the issue asks for it), while this "
           "check expects object arrays of numbers to be converted")


_BAGS = ("the bag learners name fit's second argument `bags` (the issue's API: it is a BagCandidates, "
         "not a y); scikit-learn tools pass it positionally, so they still work")


def _expected(est):
    out = {"check_dtype_object": _OBJECT}
    if isinstance(est, (MMS, CandidateLabelSVM)):
        out["check_fit_score_takes_y"] = _BAGS
    return out


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)
