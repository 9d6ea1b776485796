"""The papers' bounds, checked on data that meets their assumptions: the number of updates
(or the cumulative loss) each learner makes, against the bound's right side computed from
the same data. A learner that broke its paper's bound would fail here.

- Bhattacharjee & Manwani, online partial-label Perceptron and Pegasos: Theorem 1 (Avg
  Perceptron under average linear separability), Theorem 2 (the non-separable case) and
  Theorem 3 (Avg Pegasos' regret against the exact minimiser of the regularised objective,
  found as a quadratic programme).
- Kaneko, Sato & Sugiyama, CSPA: Theorem 2 (the cumulative square loss against any
  comparator satisfying condition (26), with beta = (1 - alpha) / (K - 1)).
"""

import numpy as np
import pytest

from weaklabel.bandit import CSPA
from weaklabel.partial import AvgPegasos, AvgPerceptron


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


def _pegasos_objective(W, X, S, lam):
    """f(W, x, Y) = lambda / 2 ||W||^2 + L_APH (Eq. 2) of every row."""
    return lam / 2 * np.sum(W ** 2) + np.maximum(0.0, 1 - _avg_margin(W, X, S))


def _min_mean_objective(X, S, lam):
    """``min_W (1/T) sum_t f(W, x^t, Y^t)``, exactly: the quadratic programme over (W, xi)
    of ``lambda / 2 ||W||^2 + mean(xi)`` with ``xi_t >= 0`` and ``xi_t >= 1 - mean_{i in Y}
    w_i . x + w_j . x`` for every ``j`` outside ``Y``."""
    from scipy.optimize import Bounds, LinearConstraint, minimize

    T, K = S.shape
    d = X.shape[1]
    rows = []
    for t in range(T):
        inside = np.zeros((K, d))
        inside[S[t]] = X[t] / S[t].sum()
        for j in np.flatnonzero(~S[t]):
            a = inside.copy()
            a[j] -= X[t]
            slack = np.zeros(T)
            slack[t] = 1.0
            rows.append(np.concatenate([a.ravel(), slack]))
    n = K * d
    res = minimize(lambda v: lam / 2 * v[:n] @ v[:n] + v[n:].mean(), np.concatenate([np.zeros(n), np.ones(T)]),
                   jac=lambda v: np.concatenate([lam * v[:n], np.full(T, 1.0 / T)]), method="SLSQP",
                   constraints=[LinearConstraint(np.array(rows), 1.0, np.inf)],
                   bounds=Bounds([-np.inf] * n + [0.0] * T, np.inf), options={"ftol": 1e-12, "maxiter": 2000})
    assert res.success, res.message
    return float(np.mean(_pegasos_objective(res.x[:n].reshape(K, d), X, S, lam)))


@pytest.mark.slow
@pytest.mark.parametrize("seed, lam", [(0, 0.1), (1, 0.01)])
def test_avg_pegasos_regret_within_theorem_3(seed, lam):
    """Avg Pegasos (the paper's Algorithm 3: eta_t = 1 / (lambda t), projection onto the
    ball of radius 1 / sqrt(lambda)), one row at a time: its mean objective at the weights
    W^t it held before each row, minus the best fixed W's, is at most G^2 ln T / (lambda T),
    G = sqrt(lambda) + sqrt(1 + 1/c) R."""
    _, X, S = _candidate_rows(seed, 300, 5, 4, 2)
    T, K = S.shape
    model = AvgPegasos(alpha=lam, row_scale=1.0, shuffle=False)
    held = []
    for t in range(T):
        held.append(np.zeros((K, X.shape[1])) if t == 0 else model.coef_.copy())
        model.partial_fit(X[t:t + 1], S[t:t + 1], classes=np.arange(K))
    online = np.mean([_pegasos_objective(W, X[t:t + 1], S[t:t + 1], lam)[0] for t, W in enumerate(held)])
    best = _min_mean_objective(X, S, lam)
    assert best <= np.mean(_pegasos_objective(model.coef_, X, S, lam)) + 1e-9     # a true minimum
    R, c = np.linalg.norm(X, axis=1).max(), S.sum(axis=1).min()
    G = np.sqrt(lam) + np.sqrt(1 + 1 / c) * R
    bound = G ** 2 * np.log(T) / (lam * T)
    assert 0 < online - best <= bound, (online - best, bound)


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
