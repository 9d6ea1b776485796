"""scikit-learn's estimator checks over the partial-label learners and UMA.

(The bandit learners have theirs in tests/bandit/test_learners.py.  LabelALittle is not
checked here: on the checks' random data its rough classifier often never predicts some
class, so the confusion estimate is singular and it raises, by design, a clear error.)
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from weaklabel.noisy import UMA
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

# UMA with confusion="identity" (C = I for whatever classes the check uses)
ESTIMATORS = [AvgPerceptron(), MaxPerceptron(), AvgPegasos(), MaxPegasos(), Perceptron(), Pegasos(),
              UMA("identity", max_iter=50)]

_OBJECT = ("X of dtype object is rejected with a TypeError by design (the issue asks for it), while this "
           "check expects object arrays of numbers to be converted")


def _expected(est):
    return {"check_dtype_object": _OBJECT}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)
