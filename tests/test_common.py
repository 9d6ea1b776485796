"""scikit-learn's estimator checks over every partial-label learner."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

ESTIMATORS = [AvgPerceptron(), MaxPerceptron(), AvgPegasos(), MaxPegasos(), Perceptron(), Pegasos()]

_OBJECT = ("X of dtype object is rejected with a TypeError by design (the issue asks for it), while this "
           "check expects object arrays of numbers to be converted")


def _expected(est):
    return {"check_dtype_object": _OBJECT}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)
