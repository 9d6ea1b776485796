"""MatrixCompletion (sources/_matrix_completion.py): its overlaps and objective against loops,
partial_fit, the width bound, the class balance from known labels, declared dependencies."""

import numpy as np
import pytest
import scipy.sparse as sp

from tests.sources.test_label_models import _votes
from weaklabel.sources import MajorityVote, MatrixCompletion


@pytest.mark.parametrize("dependencies", [None, [(0, 2)], [(2, 0), (1, 3), (0, 2)]])
def test_matrix_completion_overlaps_and_objective_equal_loops(dependencies):
    """``O`` counted row by row, the objective summed entry by entry (the declared pairs'
    blocks left out), and its gradient against finite differences."""
    L, _ = _votes(8, 120, 4, 3, coverage=0.5)
    model = MatrixCompletion(l2=0.2, max_iter=3, dependencies=dependencies).fit(L)
    left_out = {frozenset(p) for p in (dependencies or [])}
    m, K = 4, 3
    O = np.zeros((m * K, m * K))
    for i in range(L.shape[0]):
        on = [j * K + L[i, j] for j in range(m) if L[i, j] >= 0]
        for a in on:
            for b in on:
                O[a, b] += 1
    np.testing.assert_array_equal(model._O_sum.toarray(), O)
    pi = np.full(K, 1 / K)
    rng = np.random.RandomState(0)
    mu = rng.uniform(0.05, 0.9, (m * K, K))
    Ob = O / L.shape[0]
    start = np.zeros((m * K, K))
    for a in range(m * K):
        start[a, a % K] = min(Ob[a, a] * 0.7 / pi[a % K], 1.0)

    def f(mu):
        total = 0.0
        for a in range(m * K):
            for b in range(m * K):
                if a // K != b // K and frozenset((a // K, b // K)) not in left_out:
                    total += (Ob[a, b] - sum(mu[a, q] * mu[b, q] * pi[q] for q in range(K))) ** 2
            total += (sum(mu[a, q] * pi[q] for q in range(K)) - Ob[a, a]) ** 2
        return total + 0.2 * ((mu - start) ** 2).sum()

    captured = {}
    import scipy.optimize

    real = scipy.optimize.minimize

    def spy(fun, x0, **kw):
        captured["fun"] = fun
        return real(fun, x0, **kw)

    import weaklabel.sources._matrix_completion as mc
    mc.minimize, saved = spy, mc.minimize
    try:
        MatrixCompletion(l2=0.2, max_iter=1, dependencies=dependencies).fit(L)
    finally:
        mc.minimize = saved
    value, grad = captured["fun"](mu.ravel())
    assert value == pytest.approx(f(mu), rel=1e-10)
    eps = 1e-6
    for k in rng.choice(mu.size, 8, replace=False):
        step = np.zeros(mu.size)
        step[k] = eps
        num = (captured["fun"](mu.ravel() + step)[0] - captured["fun"](mu.ravel() - step)[0]) / (2 * eps)
        assert grad[k] == pytest.approx(num, rel=1e-5, abs=1e-9)


def test_matrix_completion_partial_fit_is_exact():
    L, y = _votes(9, 900, 5, 3, coverage=0.5)
    full = MatrixCompletion().fit(L)
    chunked = MatrixCompletion()
    for rows in np.array_split(np.arange(900), 4):
        chunked.partial_fit(L[rows], n_classes=3)
    np.testing.assert_array_equal(chunked._O_sum.toarray(), full._O_sum.toarray())
    np.testing.assert_allclose(chunked.mu_, full.mu_, atol=1e-8)
    assert full.score(L, y) > MajorityVote().fit(L).score(L, y)


@pytest.mark.slow
def test_matrix_completion_at_width_and_its_bound():
    """500 sources x 20 classes: no dense (sources x classes)^2 array; a fit whose step would
    take more than 1e9 operations is refused before anything is allocated."""
    rng = np.random.RandomState(11)
    n, m, K = 3000, 500, 20
    y = rng.randint(0, K, n)
    L = np.where(rng.rand(n, m) < 0.02, np.where(rng.rand(n, m) < 0.7, y[:, None], rng.randint(0, K, (n, m))), -1)
    model = MatrixCompletion(max_iter=30).fit(L, n_classes=K)
    assert sp.issparse(model._O_sum) and model.mu_.shape == (m, K, K)
    assert model.score(L, y) > 0.9
    L = np.zeros((3, 2), dtype=int)
    L[:, 0] = [0, 1, 2]
    with pytest.raises(ValueError, match="at most 1e\\+09 are allowed.*PrecisionVote"):
        MatrixCompletion().fit(L, n_classes=4096)
    with pytest.raises(ValueError, match="class_balance must be 3 positive numbers"):
        MatrixCompletion(class_balance=[0.5, 0.5]).fit(L[:, :2])


def test_matrix_completion_takes_its_class_balance_from_known_labels():
    rng = np.random.RandomState(10)
    y = np.where(rng.rand(3000) < 0.85, 0, 1)
    L = np.column_stack([np.where(rng.rand(3000) < 0.6, np.where(rng.rand(3000) < a, y, 1 - y), -1)
                         for a in (0.9, 0.8, 0.7, 0.65)])
    gold = np.where(rng.rand(3000) < 0.05, y, -1)
    uniform, informed = MatrixCompletion().fit(L), MatrixCompletion().fit(L, gold)
    known = gold[gold >= 0]
    np.testing.assert_allclose(informed.class_balance_, (np.bincount(known, minlength=2) + 1) / (known.size + 2))
    assert informed.score(L, y) > uniform.score(L, y)
    chunked = MatrixCompletion()
    for rows in np.array_split(np.arange(3000), 3):
        chunked.partial_fit(L[rows], gold[rows], n_classes=2)
    np.testing.assert_allclose(chunked.class_balance_, informed.class_balance_)


def test_matrix_completion_leaves_declared_dependencies_out_of_the_fit():
    """Three copies of one 60 % source agree perfectly: undeclared, they look perfect and
    the good sources look poor; declared, every accuracy is recovered."""
    rng = np.random.RandomState(0)
    n = 6000
    y = rng.randint(0, 2, n)

    def source(a):
        return np.where(rng.rand(n) < 0.6, np.where(rng.rand(n) < a, y, 1 - y), -1)

    copy = source(0.6)
    L = np.column_stack([copy, copy, copy, source(0.85), source(0.8), source(0.75)])
    truth = np.array([0.6, 0.6, 0.6, 0.85, 0.8, 0.75])

    def accuracy(model):
        return model.mu_[:, [0, 1], [0, 1]].sum(axis=1) / model.mu_.sum(axis=(1, 2))

    naive = MatrixCompletion(l2=0.03).fit(L)          # a weak pull towards the start shows the effect
    aware = MatrixCompletion(l2=0.03, dependencies=[(0, 1), (0, 2), (1, 2)]).fit(L)
    assert (accuracy(naive)[:3] > 0.95).all()
    np.testing.assert_allclose(accuracy(aware), truth, atol=0.06)
    assert aware.score(L, y) > naive.score(L, y) + 0.05
    with pytest.raises(ValueError, match="pairs \\(j, k\\) of distinct source indices in 0..5"):
        MatrixCompletion(dependencies=[(0, 6)]).fit(L)
