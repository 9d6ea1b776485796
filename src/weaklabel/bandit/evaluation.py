"""Off-policy evaluation from a bandit log: how good a new policy would have been.

A log holds, for each round ``i``, the action the logging policy showed (``actions[i]``,
a class index), the probability it had of showing it (``propensities[i]``) and the reward
it got (``rewards[i]``, e.g. 1 if the shown label was right).  A *target* policy gives
``pi(a | x_i)``, as an (n, n_actions) array of probabilities or, for a deterministic
policy, the 1-D array of the action it would take.

- :func:`ips`: inverse propensity scoring, ``mean_i r_i pi(a_i | x_i) / p_i`` (Horvitz &
  Thompson, 1952), unbiased when every action the target takes has ``p > 0``.
- :func:`snips`: self-normalised IPS, ``sum_i w_i r_i / sum_i w_i`` with
  ``w_i = pi(a_i | x_i) / p_i`` (Swaminathan & Joachims, NeurIPS 2015): slightly biased,
  much less variance.
- :func:`doubly_robust`: ``mean_i [sum_a pi(a|x_i) rhat(x_i, a) + w_i (r_i - rhat(x_i, a_i))]``
  with a reward model ``rhat`` (Dudik, Langford & Li, ICML 2011): unbiased if either the
  propensities or the reward model are right.

- :func:`direct_method`: ``mean_i sum_a pi(a|x_i) rhat(x_i, a)``, the reward model alone.
- :func:`clipped_ips`: IPS with the weights clipped at ``clip`` (Bottou et al., JMLR 2013).
- :func:`switch_dr`: doubly robust, the rounds whose weight exceeds ``tau`` left to the model
  (Wang, Agarwal & Dudik, ICML 2017, in the per-round form of Open Bandit Pipeline).
- :func:`dr_shrinkage`: doubly robust with the weights shrunk to ``lam w / (w^2 + lam)``
  (optimistic shrinkage; Su, Dimakopoulou, Krishnamurthy & Dudik, ICML 2020).
- :func:`sndr`: doubly robust with the correction self-normalised by ``sum_i w_i``.

Each returns an :class:`Estimate` with a standard error (the sample standard deviation of
the per-round terms over ``sqrt(n)``; the delta method for the self-normalised ones) and a
normal interval.  :func:`diagnose` reads the importance weights (effective sample size,
largest weights, the target's mass on actions the log never shows) and each estimator that
weights rounds warns (:class:`OffPolicyWarning`) when its interval cannot be trusted.
:func:`cross_fit_rewards` fits the reward model by K folds, so that no round is scored by a
model fitted on it, and :func:`estimate_propensities` fits the logging policy the same way
for a log that lacks its propensities.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from scipy.stats import norm

__all__ = ["Estimate", "Diagnostics", "OffPolicyWarning", "ips", "snips", "doubly_robust", "direct_method",
           "clipped_ips", "switch_dr", "dr_shrinkage", "sndr", "diagnose", "cross_fit_rewards",
           "estimate_propensities"]


@dataclass(frozen=True)
class Estimate:
    """An off-policy estimate of a policy's mean reward.

    Parameters
    ----------
    value : float
        The estimate.
    stderr : float
        Its standard error.
    n : int
        The rounds it was computed from.
    bias : float, default=0.0
        For an estimator that trades bias for variance (clipping, switching, shrinking, the
        model alone): the estimated magnitude of that bias, ``|mean_i d_i|`` with ``d_i`` the
        part of the unbiased estimator's per-round term it drops; 0 for the others.
    bias_stderr : float, default=0.0
        The standard error of that estimate.
    """

    value: float
    stderr: float
    n: int
    bias: float = 0.0
    bias_stderr: float = 0.0

    def interval(self, level=0.95):
        """Return the confidence interval ``value -+ (z stderr + bias + z bias_stderr)``.

        The normal interval of the estimator's variance, widened by a bound on its bias (the
        dropped part's mean plus ``z`` of its standard errors), so that it covers where the
        unbiased estimator's interval would.

        Parameters
        ----------
        level : float, default=0.95
            The coverage aimed at.

        Returns
        -------
        tuple of float
            ``(low, high)``.
        """
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1); got {level!r}.")
        z = float(norm.ppf(0.5 + level / 2))
        half = z * self.stderr + self.bias + z * self.bias_stderr
        return self.value - half, self.value + half


_MAX_POLICY_BYTES = 2 << 30      # a deterministic policy's one-hot matrix; more is refused before allocating


def _check_log(actions, propensities, rewards, policy, n_actions=None):
    a = np.asarray(actions)
    if a.ndim != 1 or a.size == 0 or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be a non-empty 1-D array of action indices; got dtype {a.dtype}, "
                         f"shape {a.shape}.")
    n = a.size
    p = np.asarray(propensities, dtype=np.float64)
    r = np.asarray(rewards, dtype=np.float64)
    for name, v in (("propensities", p), ("rewards", r)):
        if v.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), one per logged round; got {v.shape}.")
        if not np.isfinite(v).all():
            raise ValueError(f"{name} must be finite.")
    if (p <= 0).any() or (p > 1).any():
        raise ValueError(f"propensities must lie in (0, 1]; found {p.min():g} .. {p.max():g}.")
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        big = ~np.isfinite(1.0 / p) | ~np.isfinite(r / p)
    if big.any():
        i = int(np.flatnonzero(big)[0])
        raise ValueError(f"propensity {p[i]:g} of round {i} makes its importance weight overflow (reward "
                         f"{r[i]:g} / {p[i]:g}); such a round carries no usable evidence: drop it or clip the "
                         "propensities first.")
    if n_actions is not None and (isinstance(n_actions, bool) or not isinstance(n_actions, numbers.Integral)
                                  or n_actions < 1):
        raise ValueError(f"n_actions must be a positive integer; got {n_actions!r}.")
    pol = np.asarray(policy)
    if pol.ndim == 1:
        if pol.shape != (n,) or pol.dtype.kind not in "iu":
            raise ValueError(f"a deterministic policy must be ({n},) action indices; got dtype {pol.dtype}, "
                             f"shape {pol.shape}.")
        K = int(max(a.max(), pol.max())) + 1 if n_actions is None else int(n_actions)
        if a.min() < 0 or pol.min() < 0 or max(a.max(), pol.max()) >= K:
            raise ValueError(f"actions and the policy's actions must lie in 0..{K - 1}.")
        if n * K * 8 > _MAX_POLICY_BYTES:
            raise ValueError(f"{n} rounds x n_actions={K} would need {n * K * 8 / 2**30:.1f} GiB of policy "
                             f"probabilities (at most {_MAX_POLICY_BYTES / 2**30:.0f} GiB); is n_actions right?")
        P = np.zeros((n, K))
        P[np.arange(n), pol] = 1.0
    else:
        P = pol.astype(np.float64)
        if P.ndim != 2 or P.shape[0] != n:
            raise ValueError(f"policy probabilities must have shape ({n}, n_actions); got {P.shape}.")
        if n_actions is not None and P.shape[1] != n_actions:
            raise ValueError(f"n_actions={n_actions} but the policy's probabilities have {P.shape[1]} columns; "
                             "with a probability policy, n_actions may be left out.")
        if not np.isfinite(P).all() or (P < 0).any() or not np.allclose(P.sum(axis=1), 1.0, atol=1e-6):
            raise ValueError("policy probabilities must be finite, non-negative, and each row must sum to 1.")
        if a.min() < 0 or a.max() >= P.shape[1]:
            raise ValueError(f"actions must lie in 0..{P.shape[1] - 1} (the policy's columns); found "
                             f"{a.min()} .. {a.max()}.")
    return a, p, r, P


def _mean_estimate(terms):
    """The mean of the per-round terms and its standard error; a mean or an error beyond
    floating point (weights near 1 / 1e-308) is refused rather than returned as inf or NaN."""
    n = terms.size
    scale = float(np.abs(terms).max()) if n else 0.0
    scale = scale if scale > 0 else 1.0
    t = terms / scale                                # sums of t cannot overflow
    value = scale * float(t.mean())
    se = scale * float(t.std(ddof=1)) / np.sqrt(n) if n > 1 else float("inf")
    if not np.isfinite(value) or (n > 1 and not np.isfinite(se)):
        raise ValueError(f"the estimate overflows: a round's term reaches {scale:g} (an importance weight of "
                         "about 1 / propensity); such rounds carry no usable evidence: clip the weights "
                         "(clipped_ips, switch_dr) or the propensities first.")
    return Estimate(value, float(se), n)


def ips(actions, propensities, rewards, policy, *, n_actions=None):
    """Inverse propensity scoring estimate of ``policy``'s mean reward on the log.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.

    Examples
    --------
    >>> from weaklabel.bandit.evaluation import ips
    >>> est = ips([0, 1, 1, 0], [0.5, 0.5, 0.5, 0.5], [1, 0, 1, 1], [0, 0, 1, 1])
    >>> est.value, est.n
    (1.0, 4)
    """
    a, p, r, P, w = _weighted_log(actions, propensities, rewards, policy, n_actions)
    return _mean_estimate(w * r)


def snips(actions, propensities, rewards, policy, *, n_actions=None):
    """Estimate ``policy``'s mean reward by self-normalised IPS.

    The standard error is the delta method's ``sqrt(sum_i w_i^2 (r_i - value)^2) / sum_i w_i``.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    a, p, r, P, w = _weighted_log(actions, propensities, rewards, policy, n_actions)
    value, se = _self_normalised(w, r, "self-normalised IPS")
    return Estimate(value, se, a.size)


def doubly_robust(actions, propensities, rewards, policy, reward_model, *, n_actions=None):
    """Estimate ``policy``'s mean reward by the doubly robust estimator.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round (fitted
        on other data than the rounds it scores, or by :func:`cross_fit_rewards`).
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    a, w, dm, residual = _model_log(actions, propensities, rewards, policy, reward_model, n_actions)
    return _mean_estimate(dm + w * residual)


#: below this Kish effective sample size (and this share of the rounds) the normal interval
#: of a weighted estimator is not trusted: a few rounds carry the estimate
_MIN_ESS, _MIN_ESS_SHARE = 30.0, 0.01
#: above this target mass on actions the log never shows, the weighted estimators are biased
_MAX_UNSUPPORTED = 0.01


class OffPolicyWarning(UserWarning):
    """An off-policy interval that the log's importance weights do not support."""


@dataclass(frozen=True)
class Diagnostics:
    """What the importance weights of a log say about estimating a target policy from it.

    Parameters
    ----------
    n : int
        Logged rounds.
    ess : float
        Kish's effective sample size ``(sum_i w_i)^2 / sum_i w_i^2`` of the weights
        ``w_i = pi(a_i | x_i) / p_i``.
    max_weight : float
        The largest weight.
    top_share : float
        The share of ``sum_i w_i`` carried by the largest 1 % of the weights (at least one).
    mean_weight : float
        ``mean_i w_i``, 1 in expectation when the propensities are right.
    unsupported_mass : float
        The target's mean probability on actions that no logged round shows: evidence the
        log cannot give (the weighted estimators are then biased).
    warnings : tuple of str
        Why an interval from this log should not be trusted (empty when nothing is wrong).
    """

    n: int
    ess: float
    max_weight: float
    top_share: float
    mean_weight: float
    unsupported_mass: float
    warnings: tuple

    @property
    def trusted(self):
        """Whether no warning was raised."""
        return not self.warnings


def _weighted_log(actions, propensities, rewards, policy, n_actions, warn=True):
    """The validated log and its importance weights ``w_i = pi(a_i | x_i) / p_i``; warns
    (:class:`OffPolicyWarning`) when the weights cannot support a normal interval."""
    a, p, r, P = _check_log(actions, propensities, rewards, policy, n_actions)
    w = P[np.arange(a.size), a] / p
    if warn:
        for message in _weight_warnings(a, P, w):
            warnings.warn(message, OffPolicyWarning, stacklevel=3)
    return a, p, r, P, w


def _scaled(w):
    """``(w / max(w), max(w))``: sums of the scaled weights cannot overflow, whatever the
    propensities."""
    m = float(w.max()) if w.size else 0.0
    return (w / m if m > 0 else w), m


def _ess(w):
    """Kish's effective sample size ``(sum_i w_i)^2 / sum_i w_i^2`` (scale-free, so finite
    for any finite weights)."""
    u, _ = _scaled(w)
    squares = float(np.sum(u * u))
    return float(u.sum()) ** 2 / squares if squares > 0 else 0.0


def _weight_warnings(a, P, w):
    n = a.size
    out = []
    ess = _ess(w)
    if ess < _MIN_ESS or ess < _MIN_ESS_SHARE * n:
        out.append(f"the importance weights' effective sample size is {ess:.1f} of {n} rounds: a few rounds "
                   "carry the estimate and its normal interval may not cover (see weaklabel.bandit.evaluation."
                   "diagnose).")
    unseen = np.ones(P.shape[1], dtype=bool)
    unseen[np.unique(a)] = False
    mass = float(P[:, unseen].sum(axis=1).mean()) if unseen.any() else 0.0
    if mass > _MAX_UNSUPPORTED:
        out.append(f"the target policy puts {mass:.1%} of its probability on actions the log never shows "
                   f"({np.flatnonzero(unseen)[:10].tolist()}): weighted estimates are biased down by that mass "
                   "times the reward there.")
    return out


def _self_normalised(w, terms, what):
    """``sum_i w_i t_i / sum_i w_i`` and its delta-method standard error (both unchanged by
    a common scale of the weights, so computed on ``w / max(w)``)."""
    u, _ = _scaled(w)
    total = u.sum()
    if total <= 0:
        raise ValueError(f"the target policy never takes a logged action: {what} is undefined.")
    value = float(np.sum(u * terms) / total)
    scale = max(float(np.abs(terms).max()), 1e-300)          # the error on terms near 1e308 without overflow
    spread = (terms / scale - value / scale) ** 2
    return value, float(scale * np.sqrt(np.sum(u * u * spread)) / total)


def _model_log(actions, propensities, rewards, policy, reward_model, n_actions, warn=True):
    """The validated log's actions, importance weights, direct-method terms and residuals."""
    a, _, r, P, w = _weighted_log(actions, propensities, rewards, policy, n_actions, warn=warn)
    dm, residual = _model_terms(a, r, P, reward_model)
    return a, w, dm, residual


def _model_terms(a, r, P, reward_model):
    """Each round's direct-method term ``sum_a pi(a|x_i) rhat(x_i, a)`` and residual
    ``r_i - rhat(x_i, a_i)``."""
    R = np.asarray(reward_model, dtype=np.float64)
    if R.shape != P.shape or not np.isfinite(R).all():
        raise ValueError(f"reward_model must be finite with shape {P.shape}; got {R.shape}.")
    return np.sum(P * R, axis=1), r - R[np.arange(a.size), a]


def _with_bias(estimate, dropped):
    """``estimate`` with the bias of dropping the per-round terms ``dropped`` from an
    unbiased estimator's (see :class:`Estimate`)."""
    bias = _mean_estimate(dropped)
    return Estimate(estimate.value, estimate.stderr, estimate.n, abs(bias.value), bias.stderr)


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    return float(value)


def direct_method(actions, propensities, rewards, policy, reward_model, *, n_actions=None):
    """Estimate ``policy``'s mean reward by the reward model alone (the direct method).

    ``mean_i sum_a pi(a | x_i) rhat(x_i, a)``: no importance weight, so a small variance,
    but biased by whatever the model gets wrong.  Its standard error counts the rounds'
    spread only; its ``bias`` is the doubly robust correction ``mean_i w_i (r_i -
    rhat(x_i, a_i))`` it leaves out, which widens its interval.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round (fitted
        on other data than the rounds it scores, or by :func:`cross_fit_rewards`).
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.

    Examples
    --------
    >>> from weaklabel.bandit.evaluation import direct_method
    >>> round(direct_method([0, 1], [0.5, 0.5], [1, 0], [[1, 0], [0, 1]], [[0.8, 0.1], [0.3, 0.4]]).value, 4)
    0.6
    """
    a, w, dm, residual = _model_log(actions, propensities, rewards, policy, reward_model, n_actions, warn=False)
    return _with_bias(_mean_estimate(dm), w * residual)


def clipped_ips(actions, propensities, rewards, policy, *, clip=10.0, n_actions=None):
    """Estimate ``policy``'s mean reward by IPS with the importance weights clipped.

    ``mean_i min(w_i, clip) r_i`` (Bottou et al., "Counterfactual reasoning and learning
    systems", JMLR 2013): less variance than IPS, biased down where weights exceed ``clip``
    (unbiased when none does); ``bias`` is the clipped part ``mean_i (w_i - clip)_+ r_i``.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    clip : float, default=10.0
        The largest weight a round may carry.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    clip = _positive(clip, "clip")
    a, p, r, P, w = _weighted_log(actions, propensities, rewards, policy, n_actions)
    return _with_bias(_mean_estimate(np.minimum(w, clip) * r), np.maximum(w - clip, 0.0) * r)


def switch_dr(actions, propensities, rewards, policy, reward_model, *, tau=10.0, n_actions=None):
    """Estimate ``policy``'s mean reward by switch doubly robust.

    Wang, Agarwal & Dudik, "Optimal and adaptive off-policy evaluation in contextual
    bandits", ICML 2017, in the per-round form of Open Bandit Pipeline: the doubly robust
    terms ``sum_a pi(a|x_i) rhat(x_i, a) + w_i (r_i - rhat(x_i, a_i))``, with the correction
    dropped (the model trusted alone) on the rounds whose weight exceeds ``tau``.  With
    ``tau`` above every weight it is :func:`doubly_robust`; ``bias`` is the dropped
    corrections' mean.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round (fitted
        on other data than the rounds it scores, or by :func:`cross_fit_rewards`).
    tau : float, default=10.0
        The largest weight whose round keeps its correction.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    tau = _positive(tau, "tau")
    a, w, dm, residual = _model_log(actions, propensities, rewards, policy, reward_model, n_actions)
    kept = np.where(w <= tau, w, 0.0)
    return _with_bias(_mean_estimate(dm + kept * residual), (w - kept) * residual)


def dr_shrinkage(actions, propensities, rewards, policy, reward_model, *, lam=10.0, n_actions=None):
    """Estimate ``policy``'s mean reward by doubly robust with optimistic shrinkage.

    Su, Dimakopoulou, Krishnamurthy & Dudik, "Doubly robust off-policy evaluation with
    shrinkage", ICML 2020: the doubly robust terms with each weight shrunk to
    ``lam w / (w^2 + lam)``, which keeps small weights nearly as they are and sends large
    ones towards 0 (the model); ``lam`` to infinity gives :func:`doubly_robust`; ``bias`` is
    the mean of the corrections' shrunk part.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round (fitted
        on other data than the rounds it scores, or by :func:`cross_fit_rewards`).
    lam : float, default=10.0
        The shrinkage ``lambda``; the weight of largest shrunk value is ``sqrt(lam)``.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    lam = _positive(lam, "lam")
    a, w, dm, residual = _model_log(actions, propensities, rewards, policy, reward_model, n_actions)
    with np.errstate(divide="ignore"):          # lam w / (w^2 + lam), with no w^2 to overflow
        shrunk = np.where(w > 0, lam / (w + lam / w), 0.0)
    return _with_bias(_mean_estimate(dm + shrunk * residual), (w - shrunk) * residual)


def sndr(actions, propensities, rewards, policy, reward_model, *, n_actions=None):
    """Estimate ``policy``'s mean reward by self-normalised doubly robust.

    ``mean_i sum_a pi(a|x_i) rhat(x_i, a) + sum_i w_i (r_i - rhat(x_i, a_i)) / sum_i w_i``:
    the doubly robust correction normalised as SNIPS normalises IPS (bounded by the
    residuals, slightly biased).  The standard error adds the model term's and the
    correction's (delta method) over the rounds' joint terms.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    rewards : array-like of shape (n,)
        The reward observed on each round.
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round (fitted
        on other data than the rounds it scores, or by :func:`cross_fit_rewards`).
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    a, w, dm, residual = _model_log(actions, propensities, rewards, policy, reward_model, n_actions)
    correction, _ = _self_normalised(w, residual, "self-normalised DR")
    u, _ = _scaled(w)
    terms = dm + u / u.mean() * (residual - correction)            # the linearised per-round terms
    return Estimate(float(dm.mean() + correction), _mean_estimate(terms).stderr, a.size)


def diagnose(actions, propensities, policy, *, n_actions=None):
    """Read a log's importance weights for a target policy before trusting an estimate.

    Parameters
    ----------
    actions : array-like of int, shape (n,)
        The logged (shown) action of each round.
    propensities : array-like of shape (n,)
        The logging policy's probability of that action, in (0, 1].
    policy : array-like of shape (n, n_actions) probabilities, or (n,) int actions
        The target policy on each round's context.
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Diagnostics
        The effective sample size, the largest weights, the unsupported mass and the
        warnings the estimators would give.

    Examples
    --------
    >>> from weaklabel.bandit.evaluation import diagnose
    >>> d = diagnose([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5], [0, 0, 0, 2], n_actions=3)
    >>> round(d.ess, 2), round(d.unsupported_mass, 2), d.trusted
    (2.0, 0.25, False)
    """
    a, p, _, P, w = _weighted_log(actions, propensities, np.zeros(np.shape(actions)), policy, n_actions,
                                  warn=False)
    u, _ = _scaled(w)
    total = float(u.sum())
    k = max(1, int(np.ceil(0.01 * w.size)))
    top = float(np.sort(u)[-k:].sum() / total) if total > 0 else 0.0
    unseen = np.ones(P.shape[1], dtype=bool)
    unseen[np.unique(a)] = False
    return Diagnostics(n=int(a.size), ess=_ess(w),
                       max_weight=float(w.max()), top_share=top, mean_weight=float(np.mean(u)) * float(w.max()),
                       unsupported_mass=float(P[:, unseen].sum(axis=1).mean()) if unseen.any() else 0.0,
                       warnings=tuple(_weight_warnings(a, P, w)))


def cross_fit_rewards(X, actions, rewards, *, n_actions, estimator=None, n_splits=5, random_state=None):
    """A reward model ``rhat(x_i, a)`` for every logged round and action, cross-fitted.

    The rounds are split into ``n_splits`` folds; each fold's rows are scored by models
    fitted on the other folds only (one model per action, on the rounds that logged it), so
    that :func:`doubly_robust` and its kin never correct a round with a model that saw it
    (Chernozhukov et al., "Double/debiased machine learning", Econometrics Journal 2018).
    An action with no round (or one reward value) in a fold's training part gets that part's
    mean reward of the action (or of every round).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n, n_features)
        The rounds' contexts.
    actions : array-like of int, shape (n,)
        The logged actions, in ``0 .. n_actions - 1``.
    rewards : array-like of shape (n,)
        The logged rewards.
    n_actions : int
        The number of actions.
    estimator : scikit-learn estimator, default=None
        Fitted on ``(X, reward)`` of the rounds that logged an action; a classifier's
        ``predict_proba`` of the reward 1 is used, a regressor's ``predict`` otherwise.
        ``None``: ``LogisticRegression(max_iter=1000)`` when every reward is 0 or 1,
        ``Ridge()`` otherwise.
    n_splits : int, default=5
        The folds (at least 2).
    random_state : int, RandomState instance or None, default=None
        Shuffles the rounds into folds.

    Returns
    -------
    ndarray of shape (n, n_actions)
        ``rhat(x_i, a)``.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit.evaluation import cross_fit_rewards
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 2)
    >>> a = rng.randint(0, 2, 200)
    >>> r = (a == (X[:, 0] > 0)).astype(float)
    >>> R = cross_fit_rewards(X, a, r, n_actions=2, random_state=0)
    >>> R.shape, bool((R[X[:, 0] > 1, 1] > 0.7).all())
    ((200, 2), True)
    """
    from sklearn.base import clone, is_classifier
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import KFold

    X, a, n_actions, n_splits = _check_rounds(X, actions, n_actions, n_splits)
    r = np.asarray(rewards, dtype=np.float64)
    n = X.shape[0]
    if r.shape != (n,) or not np.isfinite(r).all():
        raise ValueError(f"rewards must be ({n},) finite numbers; got shape {r.shape}.")
    binary = bool(np.isin(r, (0.0, 1.0)).all())
    base = estimator if estimator is not None else (LogisticRegression(max_iter=1000) if binary else Ridge())
    R = np.empty((n, n_actions))
    for fit_rows, score_rows in KFold(n_splits, shuffle=True, random_state=random_state).split(X):
        overall = float(r[fit_rows].mean())
        for k in range(n_actions):
            rows = fit_rows[a[fit_rows] == k]
            if rows.size == 0 or np.unique(r[rows]).size < 2:
                R[score_rows, k] = float(r[rows].mean()) if rows.size else overall
                continue
            model = clone(base).fit(X[rows], r[rows])
            if is_classifier(model):
                R[score_rows, k] = model.predict_proba(X[score_rows])[:, list(model.classes_).index(1.0)]
            else:
                R[score_rows, k] = model.predict(X[score_rows])
    return R


def estimate_propensities(X, actions, *, n_actions, estimator=None, n_splits=5, min_propensity=1e-3,
                          random_state=None):
    """Estimate the propensities of a log that lacks them, by a cross-fitted logging model.

    The logging policy ``mu(a | x)`` is fitted as a classifier of the logged action from the
    context (by default multinomial ``LogisticRegression``), by ``n_splits`` folds so that no
    round's propensity comes from a model fitted on it, and each round gets the probability
    of its logged action, floored at ``min_propensity`` (a weight is at most its inverse).
    The estimators then read these as they read logged propensities: unbiased only as far as
    the model is right (the bandit user guide measures the bias on simulated logs).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n, n_features)
        The rounds' contexts.
    actions : array-like of int, shape (n,)
        The logged actions, in ``0 .. n_actions - 1``.
    n_actions : int
        The number of actions.
    estimator : scikit-learn classifier, default=None
        Has ``predict_proba``; ``None``: ``LogisticRegression(max_iter=1000)``.
    n_splits : int, default=5
        The folds (at least 2).
    min_propensity : float, default=1e-3
        The smallest propensity returned, in (0, 1].
    random_state : int, RandomState instance or None, default=None
        Shuffles the rounds into folds.

    Returns
    -------
    ndarray of shape (n,)
        The estimated probability of each round's logged action, in ``[min_propensity, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from weaklabel.bandit.evaluation import estimate_propensities
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(400, 2)
    >>> a = (X[:, 0] + 0.5 * rng.randn(400) > 0).astype(int)     # a logger that follows x_0
    >>> p = estimate_propensities(X, a, n_actions=2, random_state=0)
    >>> bool(p.min() >= 1e-3 and p.max() <= 1 and p[np.abs(X[:, 0]) > 1.5].mean() > 0.9)
    True
    """
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold

    X, a, n_actions, n_splits = _check_rounds(X, actions, n_actions, n_splits)
    floor = _positive(min_propensity, "min_propensity")
    if floor > 1:
        raise ValueError(f"min_propensity must be in (0, 1]; got {min_propensity!r}.")
    base = estimator if estimator is not None else LogisticRegression(max_iter=1000)
    p = np.empty(a.size)
    for fit_rows, score_rows in KFold(n_splits, shuffle=True, random_state=random_state).split(X):
        seen = np.unique(a[fit_rows])
        if seen.size == 1:                                 # one action logged in this part: it is all there is
            p[score_rows] = np.where(a[score_rows] == seen[0], 1.0, floor)
            continue
        model = clone(base).fit(X[fit_rows], a[fit_rows])
        proba = model.predict_proba(X[score_rows])
        column = {int(c): k for k, c in enumerate(model.classes_)}
        idx = np.array([column.get(int(x), -1) for x in a[score_rows]])
        p[score_rows] = np.where(idx >= 0, proba[np.arange(score_rows.size), np.maximum(idx, 0)], 0.0)
    return np.clip(p, floor, 1.0)


def _check_rounds(X, actions, n_actions, n_splits):
    """Validated ``(X, actions, n_actions, n_splits)`` of a log's rounds (the cross-fitted models)."""
    from sklearn.utils import check_array

    if isinstance(n_actions, bool) or not isinstance(n_actions, numbers.Integral) or n_actions < 1:
        raise ValueError(f"n_actions must be a positive integer; got {n_actions!r}.")
    try:
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"X: {' '.join(str(exc).split())}") from None
    a = np.asarray(actions)
    n = X.shape[0]
    if a.shape != (n,) or a.dtype.kind not in "iu" or (n and (a.min() < 0 or a.max() >= n_actions)):
        raise ValueError(f"actions must be ({n},) action indices in 0..{n_actions - 1}; got dtype {a.dtype}, "
                         f"shape {a.shape}.")
    if isinstance(n_splits, bool) or not isinstance(n_splits, numbers.Integral) or not 2 <= n_splits <= n:
        raise ValueError(f"n_splits must be an integer in 2..{n} (the rounds); got {n_splits!r}.")
    if n * int(n_actions) * 8 > _MAX_POLICY_BYTES:
        raise ValueError(f"{n} rounds x n_actions={n_actions} would need {n * n_actions * 8 / 2**30:.1f} GiB of "
                         f"estimates (at most {_MAX_POLICY_BYTES / 2**30:.0f} GiB); is n_actions right?")
    return X, a, int(n_actions), int(n_splits)
