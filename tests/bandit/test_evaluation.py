"""Off-policy evaluation: estimators against plain loops, and the coverage of their intervals
on simulated logs whose true value is known."""

import functools
import warnings

import numpy as np
import pytest

from weaklabel.bandit.evaluation import (OffPolicyWarning, clipped_ips, cross_fit_rewards, diagnose, direct_method,
                                         doubly_robust, dr_shrinkage, estimate_propensities, ips, snips, sndr,
                                         switch_dr)


@functools.lru_cache(maxsize=None)               # the coverage tests read the same 200 logs
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


def _decent(R):
    """An informative but biased reward model."""
    return 0.8 * R + 0.1


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


#: each estimator on a simulated log (a, p, r, P, R): IPS-type alone, DR with a poor constant
#: reward model (still unbiased), the shortcuts with an informative but biased one
COVERED = {
    "ips": lambda a, p, r, P, R: ips(a, p, r, P),
    "snips": lambda a, p, r, P, R: snips(a, p, r, P),
    "dr": lambda a, p, r, P, R: doubly_robust(a, p, r, P, np.full_like(P, 0.5)),
    "clipped_ips": lambda a, p, r, P, R: clipped_ips(a, p, r, P),
    "direct_method": lambda a, p, r, P, R: direct_method(a, p, r, P, _decent(R)),
    "switch_dr": lambda a, p, r, P, R: switch_dr(a, p, r, P, _decent(R)),
    "dr_shrinkage": lambda a, p, r, P, R: dr_shrinkage(a, p, r, P, _decent(R)),
    "sndr": lambda a, p, r, P, R: sndr(a, p, r, P, _decent(R)),
}


@pytest.mark.slow
@pytest.mark.parametrize("estimator", sorted(COVERED))
def test_intervals_cover_the_truth_in_90_percent_of_200_seeds(estimator):
    hits = 0
    for seed in range(200):
        a, p, r, P, truth, R, y = _log(seed)
        low, high = COVERED[estimator](a, p, r, P, R).interval(0.95)
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


def test_tiny_propensities_are_flagged_never_a_quiet_nan_or_inf():
    """At propensity 1e-200 the effective sample size was NaN, diagnose() trusted the log and
    IPS, SNIPS, DR and DR-shrinkage returned 1e306 or NaN without a word: now the ESS is
    finite, the log is not trusted, and every weighted estimate warns and stays finite."""
    rng = np.random.default_rng(0)
    n, K = 200, 3
    a = rng.integers(0, K, n)
    p = np.full(n, 1 / K)
    p[7] = 1e-200
    r = rng.random(n)
    P = np.full((n, K), 1 / K)
    R = np.full((n, K), 0.5)
    d = diagnose(a, p, P)
    assert np.isfinite(d.ess) and d.ess < 1.01 and not d.trusted and np.isfinite(d.mean_weight)
    for est, args in ((snips, ()), (sndr, (R,)), (dr_shrinkage, (R,))):
        with pytest.warns(OffPolicyWarning, match="effective sample size is 1.0"):
            e = est(a, p, r, P, *args)
        assert np.isfinite(e.value) and np.isfinite(e.stderr)
    for est, args in ((ips, ()), (doubly_robust, (R,))):
        with pytest.warns(OffPolicyWarning, match="effective sample size is 1.0"):
            e = est(a, p, r, P, *args)
        assert np.isfinite(e.value) and np.isfinite(e.stderr) and e.value > 1e190   # 1e200 / 200: says so, loudly
    p[7] = 1e-307                                            # a weight near the largest float
    for est, args in ((ips, ()), (snips, ()), (doubly_robust, (R,)), (dr_shrinkage, (R,)), (sndr, (R,))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)          # no overflow on the way
            with pytest.warns(OffPolicyWarning, match="effective sample size is 1.0"):
                e = est(a, p, np.ones(n), P, *args)
        assert np.isfinite(e.value) and np.isfinite(e.stderr)


# ---- the estimators beside IPS / SNIPS / DR, the diagnostics and the cross-fitted model ----------



def test_new_estimators_equal_plain_loops():
    a, p, r, P, truth, R, y = _log(1, n=60)
    Rm = _decent(R) + 0.05 * np.random.default_rng(0).random(P.shape)
    n = 60
    w = [P[i, a[i]] / p[i] for i in range(n)]
    dm = [sum(P[i, k] * Rm[i, k] for k in range(P.shape[1])) for i in range(n)]
    res = [r[i] - Rm[i, a[i]] for i in range(n)]
    assert direct_method(a, p, r, P, Rm).value == pytest.approx(sum(dm) / n)
    assert clipped_ips(a, p, r, P, clip=3.0).value == pytest.approx(sum(min(w[i], 3.0) * r[i] for i in range(n)) / n)
    assert switch_dr(a, p, r, P, Rm, tau=3.0).value == pytest.approx(
        sum(dm[i] + (w[i] * res[i] if w[i] <= 3.0 else 0.0) for i in range(n)) / n)
    assert dr_shrinkage(a, p, r, P, Rm, lam=4.0).value == pytest.approx(
        sum(dm[i] + 4.0 * w[i] / (w[i] ** 2 + 4.0) * res[i] for i in range(n)) / n)
    assert sndr(a, p, r, P, Rm).value == pytest.approx(
        sum(dm) / n + sum(w[i] * res[i] for i in range(n)) / sum(w))
    # the limits: no clipping, switching or shrinking left is doubly robust / IPS, with no bias
    big = 1e9
    assert clipped_ips(a, p, r, P, clip=big).value == pytest.approx(ips(a, p, r, P).value)
    assert switch_dr(a, p, r, P, Rm, tau=big).value == pytest.approx(doubly_robust(a, p, r, P, Rm).value)
    assert dr_shrinkage(a, p, r, P, Rm, lam=1e12).value == pytest.approx(doubly_robust(a, p, r, P, Rm).value)
    assert switch_dr(a, p, r, P, Rm, tau=big).bias == 0.0
    # the bias a shortcut reports is the mean of what it drops from the unbiased terms
    assert direct_method(a, p, r, P, Rm).bias == pytest.approx(abs(sum(w[i] * res[i] for i in range(n)) / n))
    assert clipped_ips(a, p, r, P, clip=3.0).bias == pytest.approx(
        sum(max(w[i] - 3.0, 0.0) * r[i] for i in range(n)) / n)


def test_shrinkage_and_switching_cover_with_a_poor_model_as_doubly_robust_does():
    hits = {"switch_dr": 0, "dr_shrinkage": 0}
    for seed in range(200):
        a, p, r, P, truth, R, y = _log(seed)
        for name, fn in (("switch_dr", switch_dr), ("dr_shrinkage", dr_shrinkage)):
            low, high = fn(a, p, r, P, np.full_like(P, 0.5)).interval(0.95)
            hits[name] += low <= truth <= high
    assert min(hits.values()) >= 180, hits


def test_diagnostics_and_the_warning_when_an_interval_cannot_be_trusted():
    a, p, r, P, truth, R, y = _log(0)
    d = diagnose(a, p, P)
    w = P[np.arange(a.size), a] / p
    assert d.ess == pytest.approx(w.sum() ** 2 / (w ** 2).sum())
    assert d.max_weight == pytest.approx(w.max()) and d.trusted and d.unsupported_mass == 0.0
    assert d.top_share == pytest.approx(np.sort(w)[-10:].sum() / w.sum())
    # a far logger: a handful of rounds carry the weights
    far = np.full(1000, 0.5)
    far[:5] = 0.0005
    with pytest.warns(OffPolicyWarning, match="effective sample size"):
        ips(a, far, r, P)
    assert not diagnose(a, far, P).trusted
    # a target that takes an action the log never shows
    keep = a != 4
    with pytest.warns(OffPolicyWarning, match="never shows"):
        snips(a[keep], p[keep], r[keep], P[keep])
    assert diagnose(a[keep], p[keep], P[keep]).unsupported_mass == pytest.approx(P[keep, 4].mean())


def test_cross_fitted_rewards_never_score_a_round_with_a_model_that_saw_it():
    from sklearn.model_selection import KFold
    from sklearn.neighbors import KNeighborsRegressor

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    a = rng.integers(0, 3, 120)
    r = rng.random(120)                                       # pure noise: memorising it is all a model can do
    R = cross_fit_rewards(X, a, r, n_actions=3, estimator=KNeighborsRegressor(1), random_state=0)
    rows = np.arange(120)
    assert not np.any(np.isclose(R[rows, a], r))               # a 1-NN fitted on its own round would return r_i
    for fit, score in KFold(5, shuffle=True, random_state=0).split(X):     # the same folds, by hand
        for k in range(3):
            own = fit[a[fit] == k]
            model = KNeighborsRegressor(1).fit(X[own], r[own])
            np.testing.assert_allclose(R[score, k], model.predict(X[score]))
    binary = (X[:, 0] > 0).astype(float)
    Rb = cross_fit_rewards(X, a, binary, n_actions=3, random_state=0)        # LogisticRegression by default
    assert ((Rb >= 0) & (Rb <= 1)).all() and np.mean((Rb[rows, a] > 0.5) == (binary > 0.5)) > 0.9
    with pytest.raises(ValueError, match="n_splits"):
        cross_fit_rewards(X, a, r, n_actions=3, n_splits=1)
    with pytest.raises(ValueError, match="actions must be"):
        cross_fit_rewards(X, a + 1, r, n_actions=3)
    with pytest.raises(ValueError, match="clip must be a positive number"):
        clipped_ips(a, np.full(120, 0.5), r, np.eye(3)[a], clip=0)


def _softmax_logged(seed, mix, n=1000, K=5, d=4):
    """A log whose logger is a softmax of linear scores of the context (a logistic model
    holds it exactly when ``mix`` = 0), with ``mix`` of it uniform; a stochastic target."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    B = np.random.default_rng(12345).standard_normal((d, K))
    y = np.argmax(X @ B + rng.gumbel(size=(n, K)), axis=1)
    S = 1.5 * X @ B
    L = np.exp(S - S.max(1, keepdims=True))
    L = (1 - mix) * L / L.sum(1, keepdims=True) + mix / K
    a = (L.cumsum(1) > rng.random((n, 1))).argmax(1)
    P = np.full((n, K), 0.3 / K)
    P[np.arange(n), np.argmax(X @ B, axis=1)] += 0.7
    return X, a, L[np.arange(n), a], (a == y).astype(float), P, float(P[np.arange(n), y].mean())


@pytest.mark.slow
def test_estimated_propensities_are_as_good_as_the_logging_model():
    """The bias check the bandit user guide reports (200 logs there, 40 here): with a
    logistic logger, IPS on cross-fitted estimated propensities is within 2 points of the
    truth on average; with a fifth of the logger uniform (not a logistic model) it is 7
    points high, and the interval rarely covers."""
    bias = {0.0: [], 0.2: []}
    for seed in range(40):
        for mix in bias:
            X, a, p, r, P, truth = _softmax_logged(seed, mix)
            ph = estimate_propensities(X, a, n_actions=5, random_state=seed)
            assert ph.min() >= 1e-3 and ph.max() <= 1
            bias[mix].append(ips(a, ph, r, P).value - truth)
    assert abs(np.mean(bias[0.0])) < 0.03
    assert np.mean(bias[0.2]) > 0.05
    X, a, p, r, P, truth = _softmax_logged(0, 0.0)
    assert np.corrcoef(p, estimate_propensities(X, a, n_actions=5, random_state=0))[0, 1] > 0.9
    with pytest.raises(ValueError, match="min_propensity must be in"):
        estimate_propensities(X, a, n_actions=5, min_propensity=2.0)
    with pytest.raises(ValueError, match="actions must be"):
        estimate_propensities(X, a + 1, n_actions=5)



def test_cross_fitted_models_refuse_an_n_actions_no_log_could_need():
    """n_actions = 10**9 for 10 rounds asked for 80 GB before anything was fitted."""
    X = np.random.default_rng(0).random((10, 2))
    a = np.arange(10) % 2
    for fit in (lambda: cross_fit_rewards(X, a, np.ones(10), n_actions=10**9, n_splits=2),
                lambda: estimate_propensities(X, a, n_actions=10**9, n_splits=2)):
        with pytest.raises(ValueError, match="n_actions=1000000000 would need 74.5 GiB"):
            fit()


def test_what_the_fuzzing_harness_found_stays_fixed():
    """Self-normalised IPS on rewards near 1e308 overflowed its standard error (a warning,
    then inf); a 1-D X for the cross-fitted models gave scikit-learn's three-line message."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", OffPolicyWarning)
        est = snips(np.array([2, 1]), np.array([1e-300, 0.95]), np.array([0.3, 1e308]), np.array([2, 1]))
    assert np.isfinite(est.value) and np.isfinite(est.stderr)
    with pytest.raises(ValueError, match="^X: Expected 2D array, got 1D array instead: array=") as info:
        cross_fit_rewards(np.zeros(4), np.zeros(4, int), np.zeros(4), n_actions=2, n_splits=2)
    assert "\n" not in str(info.value)
