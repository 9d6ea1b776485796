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

Each returns an :class:`Estimate` with a standard error (the sample standard deviation of
the per-round terms over ``sqrt(n)``; the delta method for SNIPS) and a normal interval.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._docs import fill_doc
from scipy.stats import norm

__all__ = ["Estimate", "ips", "snips", "doubly_robust"]


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
    """

    value: float
    stderr: float
    n: int

    def interval(self, level=0.95):
        """Return the normal confidence interval ``value -+ z stderr``.

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
        return self.value - z * self.stderr, self.value + z * self.stderr


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
    n = terms.size
    se = float(terms.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return Estimate(float(terms.mean()), se, n)


@fill_doc
def ips(actions, propensities, rewards, policy, *, n_actions=None):
    """Inverse propensity scoring estimate of ``policy``'s mean reward on the log.

    Parameters
    ----------
    {bandit_log}
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
    a, p, r, P = _check_log(actions, propensities, rewards, policy, n_actions)
    w = P[np.arange(a.size), a] / p
    return _mean_estimate(w * r)


@fill_doc
def snips(actions, propensities, rewards, policy, *, n_actions=None):
    """Estimate ``policy``'s mean reward by self-normalised IPS.

    The standard error is the delta method's ``sqrt(sum_i w_i^2 (r_i - value)^2) / sum_i w_i``.

    Parameters
    ----------
    {bandit_log}
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    a, p, r, P = _check_log(actions, propensities, rewards, policy, n_actions)
    w = P[np.arange(a.size), a] / p
    total = w.sum()
    if total <= 0:
        raise ValueError("the target policy never takes a logged action: self-normalised IPS is undefined.")
    value = float(np.sum(w * r) / total)
    se = float(np.sqrt(np.sum(w * w * (r - value) ** 2)) / total)
    return Estimate(value, se, a.size)


@fill_doc
def doubly_robust(actions, propensities, rewards, policy, reward_model, *, n_actions=None):
    """Estimate ``policy``'s mean reward by the doubly robust estimator.

    Parameters
    ----------
    {bandit_log}
    reward_model : array-like of shape (n, n_actions)
        ``rhat(x_i, a)``, a model's estimate of each action's reward on each round
        (fitted on other data than the log rounds it scores, or cross-fitted).
    n_actions : int, default=None
        With a deterministic policy: the number of actions (default: the largest index + 1).

    Returns
    -------
    Estimate
        The estimate and its standard error.
    """
    a, p, r, P = _check_log(actions, propensities, rewards, policy, n_actions)
    R = np.asarray(reward_model, dtype=np.float64)
    if R.shape != P.shape or not np.isfinite(R).all():
        raise ValueError(f"reward_model must be finite with shape {P.shape}; got {R.shape}.")
    rows = np.arange(a.size)
    w = P[rows, a] / p
    terms = np.sum(P * R, axis=1) + w * (r - R[rows, a])
    return _mean_estimate(terms)
