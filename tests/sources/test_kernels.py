"""The label models' numba kernels (sources/_kernels.py: the EM step, posteriors, weighted votes)
equal plain-numpy references of Dawid-Skene's, PrecisionVote's and set votes' EM."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sources.test_label_models import _votes
from weaklabel.sources import DawidSkene, PrecisionVote


def _reference_e_step(L, abstain, theta, pi, covered, abstain_weight=1.0):
    """One E-step by loops; ``abstain`` is the abstain's output index (after the classes and
    the set votes)."""
    n, m = L.shape
    T = np.zeros((n, pi.size))
    for i in range(n):
        if not covered[i]:
            T[i] = pi
            continue
        logp = np.log(pi).copy()
        for j in range(m):
            if L[i, j] >= 0:
                logp += np.log(theta[j, L[i, j]])
            else:                                  # an abstain, its log-likelihood weighted
                logp += abstain_weight * np.log(theta[j, abstain])
        T[i] = np.exp(logp - logp.max())
        T[i] /= T[i].sum()
    return T


def _reference_em(L, K, prior, prior_diag, prior_class, iters, start="majority", abstain_weight=1.0):
    """Dawid-Skene with the abstain as an outcome, written out with loops over rows and
    sources: majority vote's shares to start (or, from the "prior" start, an E-step with
    every source right 7 times in 10 and its observed abstain rate), then M-step / E-step
    ``iters`` times in all. Rows without a vote are left out of the statistics and get
    the class balance."""
    n, m = L.shape
    covered = (L >= 0).any(axis=1)
    T = np.zeros((n, K))
    if start == "majority":
        for i in range(n):
            for j in range(m):
                if L[i, j] >= 0:
                    T[i, L[i, j]] += 1
            T[i] = T[i] / T[i].sum() if T[i].sum() > 0 else 1.0 / K
    else:
        theta0 = np.zeros((m, K + 1, K))
        for j in range(m):
            voted = min(max((L[:, j] >= 0).mean(), 1e-3), 1 - 1e-3)
            for q in range(K):
                for p in range(K):
                    theta0[j, p, q] = voted * (0.7 if p == q else 0.3 / (K - 1))
                theta0[j, K, q] = 1 - voted
        T = _reference_e_step(L, K, theta0, np.full(K, 1.0 / K), covered, abstain_weight)
        iters -= 1
    for _ in range(iters):
        counts = np.zeros((m, K + 1, K))
        for i in range(n):
            if not covered[i]:
                continue
            for j in range(m):
                counts[j, L[i, j] if L[i, j] >= 0 else K] += T[i]
        pseudo = np.full((K + 1, K), prior)
        pseudo[np.arange(K), np.arange(K)] += prior_diag
        theta = (counts + pseudo) / (counts + pseudo).sum(axis=1, keepdims=True)
        pi = (T[covered].sum(axis=0) + prior_class) / (covered.sum() + K * prior_class)
        T = _reference_e_step(L, K, theta, pi, covered, abstain_weight)
    return T


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 40), m=st.integers(1, 6), K=st.integers(2, 4),
       iters=st.integers(1, 4), w=st.sampled_from([1.0, 0.3, 0.0]))
def test_em_equals_the_plain_numpy_reference(seed, n, m, K, iters, w):
    L, _ = _votes(seed, n, m, K)
    model = DawidSkene(prior=0.7, prior_diagonal=1.5, prior_class=0.5, max_iter=iters, tol=0.0, abstain_weight=w)
    if not (L >= 0).any():
        with pytest.raises(ValueError, match="no vote"):
            model.fit(L, n_classes=K)
        return
    model.fit(L, n_classes=K)
    T = _reference_em(L, K, 0.7, 1.5, 0.5, iters, start=model.start_, abstain_weight=w)
    # the fitted parameters are one more M-step on the last posteriors
    counts = np.zeros((m, K + 1, K))
    covered = (L >= 0).any(axis=1)
    for i in np.flatnonzero(covered):
        for j in range(m):
            counts[j, L[i, j] if L[i, j] >= 0 else K] += T[i]
    pseudo = np.full((K + 1, K), 0.7)
    pseudo[np.arange(K), np.arange(K)] += 1.5
    np.testing.assert_allclose(model.confusions_, (counts + pseudo) / (counts + pseudo).sum(axis=1, keepdims=True),
                               atol=1e-10)
    np.testing.assert_allclose(model.class_balance_,
                               (T[covered].sum(axis=0) + 0.5) / (covered.sum() + K * 0.5), atol=1e-10)


def _reference_precision_em(L, K, c1, c0, prior_class, iters, start="majority"):
    """PrecisionVote written out with loops: majority vote's shares to start (or, from the
    "prior" start, the posteriors of every precision at the prior's mean and a uniform
    balance); the M-step's precision of each (source, class) is its votes' expected right
    share under a Beta(c1, c0) prior, each vote adds logit(precision) - logit(balance) to
    its class."""
    n, m = L.shape
    T = np.zeros((n, K))
    covered = (L >= 0).any(axis=1)
    w0 = np.log(c1 / c0) - np.log((1 / K) / (1 - 1 / K))
    for i in range(n):
        for j in range(m):
            if L[i, j] >= 0:
                T[i, L[i, j]] += 1 if start == "majority" else w0
        if start == "majority":
            T[i] = T[i] / T[i].sum() if T[i].sum() > 0 else 1.0 / K
        else:
            T[i] = np.exp(T[i] - T[i].max()) / np.exp(T[i] - T[i].max()).sum() if covered[i] else 1.0 / K
    for _ in range(iters + 1):
        right, total = np.zeros((m, K)), np.zeros((m, K))
        for i in range(n):
            for j in range(m):
                if L[i, j] >= 0:
                    right[j, L[i, j]] += T[i, L[i, j]]
                    total[j, L[i, j]] += 1
        a = (right + c1) / (total + c1 + c0)
        pi = (T[covered].sum(axis=0) + prior_class) / (covered.sum() + K * prior_class)
        W = np.log(a / (1 - a)) - np.log(pi / (1 - pi))
        if _ == iters:
            return a, pi, W
        for i in range(n):
            s = np.log(pi).copy()
            for j in range(m):
                if L[i, j] >= 0:
                    s[L[i, j]] += W[j, L[i, j]]
            T[i] = np.exp(s - s.max()) / np.exp(s - s.max()).sum() if covered[i] else pi


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 40), m=st.integers(1, 6), K=st.integers(2, 4),
       iters=st.integers(1, 4))
def test_precision_vote_em_equals_the_plain_numpy_reference(seed, n, m, K, iters):
    L, _ = _votes(seed, n, m, K)
    model = PrecisionVote(prior_right=3.0, prior_wrong=1.5, prior_class=0.5, max_iter=iters, tol=0.0)
    if not (L >= 0).any():
        with pytest.raises(ValueError, match="no vote"):
            model.fit(L, n_classes=K)
        return
    model.fit(L, n_classes=K)
    a, pi, W = _reference_precision_em(L, K, 3.0, 1.5, 0.5, iters, start=model.start_)
    np.testing.assert_allclose(model.precision_, a, atol=1e-10)
    np.testing.assert_allclose(model.class_balance_, pi, atol=1e-10)
    np.testing.assert_allclose(model.weights_, W, atol=1e-8)
    S = sp.csr_matrix(np.where(L >= 0, L + 1, 0))
    np.testing.assert_allclose(PrecisionVote(prior_right=3.0, prior_wrong=1.5, prior_class=0.5, max_iter=iters,
                                             tol=0.0).fit(S, n_classes=K).predict_proba(S),
                               model.predict_proba(L), atol=1e-12)


def _reference_em_with_sets(L, K, members, prior, prior_diag, prior_class, iters, start="majority"):
    """Dawid-Skene with abstains as an outcome and set votes as more outcomes, with loops:
    output p < K is a class, K + s the set s (``members[p]`` its classes' equal shares), the
    last the abstain; majority vote's shares (a set's weight shared) to start, or an E-step
    with each source's output right (naming the class) 7 times in 10."""
    n, m = L.shape
    A = members.shape[0]
    T = np.zeros((n, K))
    covered = (L >= 0).any(axis=1)
    if start == "majority":
        for i in range(n):
            for j in range(m):
                if L[i, j] >= 0:
                    T[i] += members[L[i, j]]
            T[i] = T[i] / T[i].sum() if T[i].sum() > 0 else 1.0 / K
    else:
        right = np.where(members > 0, 0.7, 0.3 / (A - 1))
        right /= right.sum(axis=0, keepdims=True)
        theta0 = np.zeros((m, A + 1, K))
        for j in range(m):
            voted = min(max((L[:, j] >= 0).mean(), 1e-3), 1 - 1e-3)
            theta0[j, :A] = voted * right
            theta0[j, A] = 1 - voted
        T = _reference_e_step(L, A, theta0, np.full(K, 1.0 / K), covered)
        iters -= 1                               # that E-step was the first iteration's
    for _ in range(iters + 1):
        counts = np.zeros((m, A + 1, K))
        for i in np.flatnonzero(covered):
            for j in range(m):
                counts[j, L[i, j] if L[i, j] >= 0 else A] += T[i]
        pseudo = np.full((A + 1, K), prior)
        pseudo[:A][members > 0] += prior_diag
        theta = (counts + pseudo) / (counts + pseudo).sum(axis=1, keepdims=True)
        pi = (T[covered].sum(axis=0) + prior_class) / (covered.sum() + K * prior_class)
        if _ == iters:
            return theta, pi
        for i in range(n):
            if not covered[i]:
                T[i] = pi
                continue
            logp = np.log(pi).copy()
            for j in range(m):
                logp += np.log(theta[j, L[i, j] if L[i, j] >= 0 else A])
            T[i] = np.exp(logp - logp.max())
            T[i] /= T[i].sum()


def _set_votes(seed, n=60, m=5, K=3):
    """Votes with two sets: 3 = "one of 0, 1" (= "not 2"), 4 = "one of 1, 2" (= "not 0")."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, K, n)
    L = np.where(rng.rand(n, m) < 0.7, y[:, None], rng.randint(0, K, (n, m)))
    sets = [[0, 1], [1, 2]]
    for s, members in enumerate(sets):
        hit = np.isin(y, members)[:, None] & (rng.rand(n, m) < 0.2)
        L[hit] = K + s
    L[rng.rand(n, m) < 0.4] = -1
    return L, y, sets


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), iters=st.integers(1, 4))
def test_set_votes_em_equals_the_plain_numpy_reference(seed, iters):
    from weaklabel.sources._votes import check_sets, outputs_table

    L, _, sets = _set_votes(seed)
    model = DawidSkene(prior=0.7, prior_diagonal=1.5, prior_class=0.5, max_iter=iters, tol=0.0, sets=sets)
    model.fit(L, n_classes=3)
    members = outputs_table(3, check_sets(sets, 3))
    theta, pi = _reference_em_with_sets(L, 3, members, 0.7, 1.5, 0.5, iters, start=model.start_)
    np.testing.assert_allclose(model.confusions_, theta, atol=1e-10)
    np.testing.assert_allclose(model.class_balance_, pi, atol=1e-10)
    S = sp.csr_matrix(np.where(L >= 0, L + 1, 0))
    np.testing.assert_allclose(DawidSkene(prior=0.7, prior_diagonal=1.5, prior_class=0.5, max_iter=iters, tol=0.0,
                                          sets=sets).fit(S, n_classes=3).predict_proba(S),
                               model.predict_proba(L), atol=1e-12)
