"""Off-policy evaluation: estimators against plain loops, and the coverage of their intervals
on simulated logs whose true value is known."""

import numpy as np
import pytest

from weaklabel.bandit.evaluation import doubly_robust, ips, snips


def _log(seed, n=1000, K=5, eps=0.3):
    """Contexts with true labels y; the logging policy is eps-greedy around a 60 %-right
    guess; the target policy is stochastic (70 % on a 75 %-right guess, the rest uniform).
    Returns the log, the target's probabilities and its true expected reward on these
    contexts (the estimand)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    guess_log = np.where(rng.random(n) < 0.6, y, rng.integers(0, K, n))
    guess_new = np.where(rng.random(n) < 0.75, y, rng.integers(0, K, n))
    L = np.full((n, K), eps / K)
    L[np.arange(n), guess_log] += 1 - eps
    P = np.full((n, K), 0.3 / K)
    P[np.arange(n), guess_new] += 0.7
    a = np.array([rng.choice(K, p=row) for row in L])
    p = L[np.arange(n), a]
    r = (a == y).astype(float)
    truth = float(P[np.arange(n), y].mean())
    R_true = np.eye(K)[y]                                          # the exact reward model
    return a, p, r, P, truth, R_true, y


def test_estimators_equal_plain_loops():
    a, p, r, P, truth, R, y = _log(0, n=50)
    w = [P[i, a[i]] / p[i] for i in range(50)]
    assert ips(a, p, r, P).value == pytest.approx(sum(w[i] * r[i] for i in range(50)) / 50)
    assert snips(a, p, r, P).value == pytest.approx(sum(w[i] * r[i] for i in range(50)) / sum(w))
    Rm = np.full_like(P, 0.2)
    dr = sum(P[i] @ Rm[i] + w[i] * (r[i] - Rm[i, a[i]]) for i in range(50)) / 50
    assert doubly_robust(a, p, r, P, Rm).value == pytest.approx(dr)
    exact = doubly_robust(a, p, r, P, R)          # a perfect model: the truth; only the contexts vary
    terms = P[np.arange(50), y]
    assert exact.value == pytest.approx(truth)
    assert exact.stderr == pytest.approx(terms.std(ddof=1) / np.sqrt(50))


@pytest.mark.parametrize("estimator", ["ips", "snips", "dr"])
def test_intervals_cover_the_truth_in_90_percent_of_200_seeds(estimator):
    hits = 0
    for seed in range(200):
        a, p, r, P, truth, R, y = _log(seed)
        if estimator == "ips":
            est = ips(a, p, r, P)
        elif estimator == "snips":
            est = snips(a, p, r, P)
        else:                                                      # a poor reward model: still unbiased
            est = doubly_robust(a, p, r, P, np.full_like(P, 0.5))
        low, high = est.interval(0.95)
        hits += low <= truth <= high
    assert hits >= 180, hits


def test_deterministic_policy_and_bad_logs_are_named():
    a, p, r = np.array([0, 1, 2]), np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0, 1.0])
    assert ips(a, p, r, np.array([0, 0, 2])).value == pytest.approx((1 / 0.5 + 1 / 0.25) / 3)
    P = np.eye(3)
    for kwargs, match in [(dict(propensities=[0.5, 0.0, 0.2]), r"propensities must lie in \(0, 1\]"),
                          (dict(rewards=[1.0, np.nan, 0.0]), "rewards must be finite"),
                          (dict(policy=np.full((3, 3), 0.5)), "sum to 1"),
                          (dict(actions=np.array([0, 1, 3])), "actions must lie in 0..2"),
                          (dict(rewards=[1.0, 0.0]), r"rewards must have shape \(3,\)")]:
        args = dict(actions=a, propensities=p, rewards=r, policy=P) | kwargs
        with pytest.raises(ValueError, match=match):
            ips(**args)
    with pytest.raises(ValueError, match="never takes a logged action"):
        snips(a, p, r, np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="reward_model"):
        doubly_robust(a, p, r, P, np.ones((3, 2)))


def test_exploring_learners_record_propensities_that_make_a_log():
    """Banditron's own exploration is a log: its propensities are the draw's probabilities,
    and IPS on that log estimates the accuracy of a fixed policy."""
    from sklearn.datasets import load_digits

    from weaklabel.bandit import CSPA, Banditron

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    g, K = 0.3, 10
    est = Banditron(gamma=g, max_iter=1, shuffle=False, random_state=0).fit(X, y)
    p = est.propensities_
    same = est.proposals_ == est.predictions_
    np.testing.assert_allclose(p[same], 1 - g + g / K)
    np.testing.assert_allclose(p[~same], g / K)
    assert abs(same.mean() - (1 - g + g / K)) < 0.03                  # the draw follows its propensity
    policy = np.full(y.size, 3)                                       # "always 3": true accuracy known
    est_ips = ips(np.searchsorted(est.classes_, est.proposals_), p, est.correct_.astype(float), policy,
                  n_actions=K)
    low, high = est_ips.interval(0.99)
    assert low <= np.mean(y == 3) <= high
    assert np.all(CSPA(max_iter=1, random_state=0).fit(X[:200], y[:200]).propensities_ == 1.0)
    logged = Banditron(random_state=0).partial_fit_feedback(X[:50], est.proposals_[:50], est.correct_[:50],
                                                            classes=np.arange(10))
    assert np.isnan(logged.propensities_).all()


def test_hostile_logs_are_refused_before_they_overflow_or_allocate():
    """A propensity of 5e-324 once gave an infinite estimate with only a RuntimeWarning;
    n_actions = 10**8 over 5 rounds asked for 3.7 GiB; n_actions beside a probability policy
    was silently ignored."""
    a, p, r = np.array([0, 1, 2, 1, 0]), np.full(5, 0.5), np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    P = np.eye(3)[[0, 1, 2, 1, 0]]
    for est in (ips, snips):
        with pytest.raises(ValueError, match="round 2 makes its importance weight overflow"):
            est(a, np.r_[0.5, 0.5, 5e-324, 0.5, 0.5], r, P)
        with pytest.raises(ValueError, match="would need 3.7 GiB"):
            est(a, p, r, a, n_actions=10**8)
        with pytest.raises(ValueError, match="n_actions=4 but the policy's probabilities have 3 columns"):
            est(a, p, r, P, n_actions=4)
        for bad in (2.5, 0, True):
            with pytest.raises(ValueError, match="n_actions must be a positive integer"):
                est(a, p, r, a, n_actions=bad)
    assert ips(a, p, r, P, n_actions=3).value == ips(a, p, r, P).value
