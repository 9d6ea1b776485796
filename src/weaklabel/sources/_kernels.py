"""numba kernels of the label models, over votes as CSR arrays (row pointers, the source and
the class of each vote): time and memory O(votes + sources x classes^2), never rows x
sources."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _softmax_inplace(v):
    """``v <- softmax(v)``; returns the log of the normaliser, ``logsumexp(v)``."""
    mx = v[0]
    for q in range(1, v.size):
        if v[q] > mx:
            mx = v[q]
    total = 0.0
    for q in range(v.size):
        v[q] = np.exp(v[q] - mx)
        total += v[q]
    for q in range(v.size):
        v[q] /= total
    return mx + np.log(total)


@njit(cache=True, inline="always")
def _balance(log_prior):
    """The class balance ``softmax(log_prior)``."""
    prior = np.exp(log_prior - np.max(log_prior))
    return prior / prior.sum()


@njit(cache=True, inline="always")
def _start_row(t, empty, prior, start):
    """Fill one row of ``T`` before its votes: the class balance ``prior`` when the row has
    no vote (``empty``), else the log-scores ``start``; returns ``empty``."""
    src = prior if empty else start
    for k in range(t.shape[0]):
        t[k] = src[k]
    return empty


@njit(cache=True)
def posterior_pass(indptr, src, cls, log_theta, log_prior, T):
    """Posteriors of the true class of every row under the Dawid-Skene model with abstains.

    ``log_theta[j, p, q]`` is the log-probability that source ``j`` outputs ``p`` (a class,
    a set vote ``K + s``, or the last index for an abstain) when the true class is ``q``; ``log_prior[q]`` the log class
    balance. A row's log-posterior is ``log_prior + sum_j log_theta[j, a_ij, :]`` over every
    source, the abstaining ones included: computed as the sum of every source's abstain term
    plus, for each vote, its difference to the abstain term. Rows without a vote get the
    class balance. Writes ``T`` (rows, K); returns the log-likelihood of the covered rows.
    """
    n = indptr.size - 1
    m, n_out, K = log_theta.shape
    A = n_out - 1                          # the abstain: after the classes and the set votes
    base = log_prior.copy()
    for j in range(m):
        for q in range(K):
            base[q] += log_theta[j, A, q]
    ll = 0.0
    prior = _balance(log_prior)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if _start_row(T[i], lo == hi, prior, base):
            continue
        for v in range(lo, hi):
            j = src[v]
            p = cls[v]
            for q in range(K):
                T[i, q] += log_theta[j, p, q] - log_theta[j, A, q]
        ll += _softmax_inplace(T[i])
    return ll


@njit(cache=True)
def weighted_votes(indptr, src, cls, weights, members, P):
    """``P[i, c] = sum of the weights of the sources that voted c on row i``; a set vote
    ``p >= K`` spreads its weight by ``members[p - K]`` (equal shares of the set's classes).
    """
    n = indptr.size - 1
    K = P.shape[1]
    for i in range(n):
        for v in range(indptr[i], indptr[i + 1]):
            p = cls[v]
            w = weights[src[v]]
            if p < K:
                P[i, p] += w
            else:
                for q in range(K):
                    P[i, q] += w * members[p - K, q]


@njit(cache=True)
def lift_pass(indptr, src, cls, W, log_prior, T):
    """Posteriors of a weighted vote: ``T[i] = softmax(log_prior + sum of W[j, p] e_p over
    row i's votes (j, p))``; a row without a vote gets the prior. Returns the sum over the
    covered rows of the log of the softmax's normaliser (a convergence trace, not a
    likelihood).
    """
    n = indptr.size - 1
    prior = _balance(log_prior)
    trace = 0.0
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if _start_row(T[i], lo == hi, prior, log_prior):
            continue
        for v in range(lo, hi):
            T[i, cls[v]] += W[src[v], cls[v]]
        trace += _softmax_inplace(T[i])
    return trace


@njit(cache=True)
def _row_posterior(lo, hi, src, cls, g, mode, params, log_prior, members, t):
    """The posterior of one covered row into ``t``: majority vote's shares (mode 0), Dawid-
    Skene's with abstains (mode 1, ``params = log_theta`` with the abstain-adjusted base in
    ``log_prior``) or PrecisionVote's (mode 2, ``params[:, :, 0] = W``); a known class ``g``
    gives a one-hot row. Returns the log normaliser (0 for modes 0 and a known class).
    """
    K = t.size
    if g >= 0:
        for q in range(K):
            t[q] = 0.0
        t[g] = 1.0
        return 0.0
    if mode == 0:
        for q in range(K):
            t[q] = 0.0
        for v in range(lo, hi):
            p = cls[v]
            if p < K:
                t[p] += 1.0
            else:                          # a set vote: equal shares of its classes
                for q in range(K):
                    t[q] += members[p - K, q]
        total = 0.0
        for q in range(K):
            total += t[q]
        for q in range(K):
            t[q] /= total
        return 0.0
    for q in range(K):
        t[q] = log_prior[q]
    A = params.shape[1] - 1
    for v in range(lo, hi):
        j = src[v]
        p = cls[v]
        if mode == 1:
            for q in range(K):
                t[q] += params[j, p, q] - params[j, A, q]
        else:
            t[p] += params[j, p, 0]
    return _softmax_inplace(t)


@njit(cache=True)
def em_step(indptr, src, cls, gold, mode, params, log_prior, members, counts, class_total):
    """One E-step fused with the M-step's sufficient statistics, row by row, so that no
    (rows x classes) posterior is ever stored: memory O(votes + sources x classes^2).

    For every covered row (and every row whose class is known), its posterior ``t`` (see
    :func:`_row_posterior`; ``log_prior`` already holds the abstain terms of mode 1;
    ``members[p - K]`` spreads set vote ``p`` over its classes in mode 0) is added
    to ``class_total``, and for every vote (j, p) ``counts[j, p, :] += t`` (``counts`` of
    shape (sources, >= K, K)) or ``counts[j, p, 0] += t[p]`` (shape (sources, K, 1): the
    expected right votes, for PrecisionVote). Returns the sum of the
    log normalisers of the covered rows without a known class (the log-likelihood in mode 1,
    up to the constant).
    """
    n = indptr.size - 1
    K = class_total.size
    t = np.empty(K)
    right_only = counts.shape[2] == 1
    trace = 0.0
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        g = gold[i]
        if lo == hi and g < 0:
            continue
        trace += _row_posterior(lo, hi, src, cls, g, mode, params, log_prior, members, t)
        for q in range(K):
            class_total[q] += t[q]
        for v in range(lo, hi):
            j = src[v]
            p = cls[v]
            if right_only:
                counts[j, p, 0] += t[p]
            else:
                for q in range(K):
                    counts[j, p, q] += t[q]
    return trace


@njit(cache=True)
def vote_winners(indptr, src, cls, weights, members, winners):
    """``winners[c] += 1`` for every covered row whose (weighted) vote is won by ``c`` (ties
    to the lower class, as ``np.argmax``), without a (rows x classes) array.
    """
    n = indptr.size - 1
    K = winners.size
    t = np.zeros(K)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if lo == hi:
            continue
        for v in range(lo, hi):
            p = cls[v]
            if p < K:
                t[p] += weights[src[v]]
            else:
                for q in range(K):
                    t[q] += weights[src[v]] * members[p - K, q]
        best, top = 0, t[0]
        for q in range(1, K):
            if t[q] > top:
                best, top = q, t[q]
        winners[best] += 1.0
        for q in range(K):
            t[q] = 0.0
