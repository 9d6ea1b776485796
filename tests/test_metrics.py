import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from weaklabel.metrics import accuracy, ambiguous_zero_one_loss, progressive_error_curve


def test_ambiguous_loss():
    assert ambiguous_zero_one_loss([[0, 1], [2], [1, 2]], [1, 0, 9]) == pytest.approx(2 / 3)
    assert ambiguous_zero_one_loss([[0, 1], [2]], [0, 2], normalize=False) == 0


def test_progressive_curve_is_running_mean():
    y = np.array([0, 1, 1, 0])
    p = np.array([1, 1, 0, 0])
    assert_allclose(progressive_error_curve(y, p), [1, 0.5, 2 / 3, 0.5])
    assert_allclose(progressive_error_curve(y, p, checkpoints=[2, 4]), [0.5, 0.5])
    with pytest.raises(ValueError, match="checkpoints must lie in 1..4"):
        progressive_error_curve(y, p, checkpoints=[0])
    with pytest.raises(ValueError, match="must match"):
        progressive_error_curve(y, p[:3])
    assert accuracy(y, p) == 0.5


# ---- progressive validation (issue 18) ----------------------------------------------------

def test_progressive_validation_is_one_predict_then_learn_pass():
    from sklearn.base import clone
    from sklearn.datasets import load_digits

    from weaklabel.bandit import CSPA
    from weaklabel.metrics import ambiguous_zero_one_loss, progressive_validation
    from weaklabel.partial import AvgPerceptron
    from weaklabel.simulate import bandit_feedback, make_candidate_sets

    X, y = load_digits(return_X_y=True)
    X, y = X[:500] / 16, y[:500]
    S = make_candidate_sets(y, 2, random_state=0)
    one = AvgPerceptron().partial_fit(X, S, classes=np.arange(10))     # the same stream in one call
    lines = []
    res = progressive_validation(AvgPerceptron(), X, S, print_every=120, out=lines.append)
    assert res.losses.shape == (500,)
    assert res.loss == pytest.approx(ambiguous_zero_one_loss(S, one.predictions_))
    assert [ln[0] for ln in res.lines] == [120, 240, 360, 480, 500] and len(lines) == 5
    assert res.lines[-1][1] == pytest.approx(res.loss)
    again = progressive_validation(AvgPerceptron(), X, S)              # print_every does not change it
    np.testing.assert_array_equal(again.losses, res.losses)
    assert again.lines == [(500, res.loss, res.loss)]
    # a bandit learner with exact labels: the 0-1 error of its greedy predictions
    bandit = progressive_validation(CSPA(), X, y, print_every=100, out=lambda s: None)
    ref = CSPA().partial_fit(X, y, classes=np.arange(10))
    np.testing.assert_array_equal(bandit.losses, ref.predictions_ != y)
    # a log: disagreement with the feedback
    fb = bandit_feedback(y, random_state=0)
    logged = progressive_validation(CSPA(), X, fb, print_every=250, out=lambda s: None)
    ref = CSPA().partial_fit_feedback(X, fb, None, classes=np.unique(fb.proposed))
    np.testing.assert_array_equal(logged.losses, (ref.predictions_ == fb.proposed) != fb.correct)
    with pytest.raises(ValueError, match="print_every"):
        progressive_validation(clone(AvgPerceptron()), X, S, print_every=0)
    with pytest.raises(ValueError, match="rows"):
        progressive_validation(AvgPerceptron(), X, S[:10])


@pytest.mark.slow
def test_candidate_log_loss_matches_a_loop_and_chooses_alpha():
    from sklearn.datasets import load_digits
    from sklearn.metrics import log_loss
    from sklearn.model_selection import GridSearchCV

    from weaklabel.metrics import candidate_log_loss, candidate_log_loss_score
    from weaklabel.partial import PRODEN
    from weaklabel.simulate import make_candidate_sets

    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4), size=30)
    S = rng.random((30, 4)) < 0.4
    S[np.arange(30), rng.integers(0, 4, 30)] = True
    ref = -np.mean([np.log(sum(P[i, a] for a in range(4) if S[i, a])) for i in range(30)])
    assert candidate_log_loss(S, P) == pytest.approx(ref, rel=1e-12)
    y = rng.integers(0, 4, 30)
    assert candidate_log_loss(y, P) == pytest.approx(log_loss(y, P, labels=range(4)), rel=1e-9)
    with pytest.raises(ValueError, match="columns"):
        candidate_log_loss(S[:, :3], P)
    X, yd = load_digits(return_X_y=True)
    Sd = make_candidate_sets(yd[:600], 3, random_state=0)
    search = GridSearchCV(PRODEN(), {"alpha": [1e-3, 1.0]}, scoring=candidate_log_loss_score, cv=3)
    search.fit(X[:600] / 16, Sd)
    assert search.best_params_ == {"alpha": 1e-3} and search.best_score_ < 0


def _aa_reference(S, P):
    """PLENCH's approximated accuracy, row by row: the model's probability of its own
    prediction once restricted to the candidate set and renormalised."""
    total = 0.0
    for s, p in zip(S, P):
        yhat = int(np.argmax(p))
        z = sum(p[k] for k in range(len(p)) if s[k])
        total += (p[yhat] / z) if (s[yhat] and z > 0) else 0.0
    return total / len(S)


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 30), k=st.integers(2, 6))
@settings(max_examples=60, deadline=None)
def test_approximated_accuracy_matches_the_reference_and_is_at_most_the_covering_rate(seed, n, k):
    from weaklabel.metrics import approximated_accuracy, covering_rate

    rng = np.random.default_rng(seed)
    S = rng.random((n, k)) < 0.4
    S[np.arange(n), rng.integers(0, k, n)] = True
    P = rng.dirichlet(np.ones(k), n)
    aa = approximated_accuracy(S, P)
    assert aa == pytest.approx(_aa_reference(S, P), abs=1e-12)
    assert aa <= covering_rate(S, P.argmax(1)) + 1e-12
    y = rng.integers(0, k, n)                       # one label a set: AA is the accuracy of the argmax
    assert approximated_accuracy(np.eye(k, dtype=bool)[y], P) == pytest.approx(np.mean(P.argmax(1) == y))


@pytest.mark.slow
def test_plench_scorers_choose_in_grid_search_and_reject_bad_probabilities():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV

    from weaklabel.metrics import (approximated_accuracy, approximated_accuracy_score, covering_rate,
                                   covering_rate_score)
    from weaklabel.partial import PRODEN
    from weaklabel.simulate import make_candidate_sets

    X, y = load_digits(return_X_y=True)
    S = make_candidate_sets(y[:500], 3, random_state=0)
    for scorer in (approximated_accuracy_score, covering_rate_score):
        search = GridSearchCV(PRODEN(), {"alpha": [1e-3, 10.0]}, scoring=scorer, cv=3).fit(X[:500] / 16, S)
        assert search.best_params_ == {"alpha": 1e-3}          # a penalty of 10 leaves a near-uniform model
        assert 0.5 < search.best_score_ <= 1.0
    assert covering_rate([[0, 1], [2]], [1, 2]) == 1.0
    with pytest.raises(ValueError, match="non-negative"):
        approximated_accuracy([[0], [1]], np.array([[0.5, np.nan], [0.2, 0.8]]))
    with pytest.raises(ValueError, match="2-D"):
        approximated_accuracy([[0]], np.array([0.5, 0.5]))
