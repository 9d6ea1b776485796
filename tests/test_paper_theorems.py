"""The papers' bounds, checked on data that meets their assumptions: the number of updates
(or the cumulative loss) each learner makes, against the bound's right side computed from
the same data. A learner that broke its paper's bound would fail here.

- Bhattacharjee & Manwani, online partial-label Perceptron and Pegasos: Theorem 1 (Avg
  Perceptron under average linear separability) and Theorem 2 (the non-separable case).
- Kaneko, Sato & Sugiyama, CSPA: Theorem 2 (the cumulative square loss against any
  comparator satisfying condition (26), with beta = (1 - alpha) / (K - 1)).

Theorem 3 of the partial-label paper (Avg Pegasos' regret) is not checked: it needs the
exact minimiser of the regularised hinge objective over the weights.
"""

import numpy as np
import pytest

from weaklabel.bandit import CSPA
from weaklabel.partial import AvgPerceptron


def _avg_margin(W, X, S):
    """``mean_{i in Y} w_i . x - max_{j not in Y} w_j . x`` of every row."""
    scores = X @ W.T
    inside = np.where(S, scores, 0.0).sum(axis=1) / S.sum(axis=1)
    outside = np.where(S, -np.inf, scores).max(axis=1)
    return inside - outside


def _candidate_rows(seed, n, d, K, set_size):
    rng = np.random.RandomState(seed)
    W_star = rng.randn(K, d)
    W_star /= np.linalg.norm(W_star)                     # ||W*|| = 1 (Frobenius)
    X = rng.randn(n, d)
    X /= np.linalg.norm(X, axis=1, keepdims=True)        # R = 1
    y = np.argmax(X @ W_star.T, axis=1)
    S = np.zeros((n, K), dtype=bool)
    S[np.arange(n), y] = True
    for i in range(n):
        S[i, rng.choice(np.flatnonzero(~S[i]), set_size - 1, replace=False)] = True
    return W_star, X, S


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_avg_perceptron_updates_within_theorem_1(seed):
    """Average linearly separable rows (margin gamma under W*, ||W*|| = 1): Avg Perceptron
    (eta = 1, rows in order, many passes) updates at most 2 / gamma^2 + (1 / c + 1) R^2 /
    gamma^2 times."""
    W_star, X, S = _candidate_rows(seed, 4000, 6, 4, 2)
    margin = _avg_margin(W_star, X, S)
    gamma = 0.05
    keep = margin >= gamma
    X, S = X[keep], S[keep]
    model = AvgPerceptron(eta=1.0, shuffle=False, max_iter=50, tol=0.0).fit(X, S)
    R, c = np.linalg.norm(X, axis=1).max(), S.sum(axis=1).min()
    bound = 2 / gamma ** 2 + (1 / c + 1) * R ** 2 / gamma ** 2
    assert 0 < model.n_updates_ <= bound, (model.n_updates_, bound)


@pytest.mark.parametrize("seed", [0, 1])
def test_avg_perceptron_updates_within_theorem_2_on_non_separable_rows(seed):
    """Every row kept, some on the wrong side of W*: the bound of Theorem 2, from the
    shortfalls d^t of W*'s margin below gamma."""
    W_star, X, S = _candidate_rows(seed, 600, 6, 4, 2)
    gamma = 0.05
    model = AvgPerceptron(eta=1.0, shuffle=False, max_iter=1).fit(X, S)
    sizes = S.sum(axis=1)
    d = np.maximum(0.0, gamma - _avg_margin(W_star, X, S))
    D2 = float(((sizes * d) ** 2).sum())
    R, c = np.linalg.norm(X, axis=1).max(), sizes.min()
    Kc = 1 / c + 1
    delta = ((D2 + Kc * D2 * R ** 2) / Kc) ** 0.25
    Z = np.sqrt(1 + D2 / delta ** 2)
    bound = 2 * Z ** 2 / gamma ** 2 + 2 * Kc * (R ** 2 + delta ** 2) / (gamma / Z) ** 2
    assert D2 > 0 and 0 < model.n_updates_ <= bound, (model.n_updates_, bound)


def _cspa_loss(W, x, proposed, y):
    """Eq. (25): the loss of the round, from the weights before it."""
    s = W @ x
    others = np.delete(s, proposed)
    if proposed == y:
        return max(float((1 + others - s[proposed]).max()), 0.0)
    return float((1 - others + s[proposed]).min())


@pytest.mark.parametrize("seed", [0, 1])
def test_cspa_square_loss_within_theorem_2(seed):
    """Rows of norm R whose true class's direction is their first K features (the other
    classes score exactly 0 under u, so condition (26) holds with alpha = 0 and u's hinge
    loss is 0): CSPA with beta = 1 / (K - 1) keeps sum l_t^2 under Theorem 2's bound."""
    rng = np.random.RandomState(seed)
    n, K, extra, R = 1500, 4, 6, 1.0
    y = rng.randint(0, K, n)
    X = np.zeros((n, K + extra))
    X[np.arange(n), y] = 1.0
    X[:, K:] = 0.5 * rng.randn(n, extra)                  # noise the comparator does not read
    X *= R / np.linalg.norm(X, axis=1, keepdims=True)
    u = np.zeros((K, K + extra))
    u[np.arange(K), np.arange(K)] = 1.0
    u *= 1.0 / (X[np.arange(n), y].min())                 # every true-class score at least 1
    scores = X @ u.T
    others = np.where(np.eye(K, dtype=bool)[y], -np.inf, scores).max(axis=1)
    condition = max(float(np.sum(np.delete(scores[t], [y[t], j]) - scores[t, j]))
                    for t in range(n) for j in range(K) if j != y[t])
    alpha = max(condition, 0.0)
    assert alpha < 1
    loss_star = np.maximum(1 + others - scores[np.arange(n), y], 0.0)
    model = CSPA(beta=(1 - alpha) / (K - 1), random_state=seed, shuffle=False)
    total = 0.0
    for t in range(n):
        W = model.coef_.copy() if t else np.zeros((K, K + extra))
        model.partial_fit(X[t:t + 1], y[t:t + 1], classes=np.arange(K))
        total += _cspa_loss(W, X[t], int(model.proposals_[-1]), y[t]) ** 2
    bound = (K * (K - 1) / (1 - alpha) ** 2 * np.sqrt((loss_star ** 2).sum())
             + R * np.sqrt(K * (K - 1)) / (1 - alpha) * np.sqrt((u ** 2).sum())) ** 2
    assert 0 < total <= bound, (total, bound)
