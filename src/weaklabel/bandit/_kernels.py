"""Numba kernels for the bandit-feedback learners.

Weights are feature-major, ``W`` of shape (n_features, n_classes), as in
:mod:`weaklabel.partial._kernels`; the row helpers are shared (:mod:`weaklabel._row_kernels`).  One pass visits the
rows in ``order`` (a permutation made in Python); exploring learners read one
pre-drawn uniform ``u[r]`` per round, so no RNG runs inside a kernel and a seeded
run is reproducible exactly.  Ties in every argmax go to the lowest class index.

Two feedback modes share each pass:

* oracle (``logged=False``): the learner proposes, and ``y[i]`` answers "correct?"; with
  candidate sets (``cand`` of shape (n_samples, n_classes), not empty), ``cand[i, k]``
  answers it: a proposal is right when it is any acceptable label of the row;
* logged (``logged=True``): ``proposed[i]`` and ``correct[i]`` are given.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .._intrinsics import prefetch, prefetch_row
from .._row_kernels import (DENSE_FASTMATH, Rows, _pass_matrix, _write_back, _argmax, _cast_to, _cm_axpy, _cm_dot, _cm_scores, _cm_update, _cm_update_pair, _dense_row_in_range, _row_nonzeros, _row_scores, _row_update)

#: rows ahead at which the sketch kernels prefetch the scattered entries they will visit
PREFETCH_AHEAD = 12

RULE_CSPA = 0
RULE_SPA = 1
RULE_BANDITRON = 2
RULE_BPA = 3

#: a pass rule's parameters, one value (the estimator's ``_rule_params()`` builds it):
#: the rule (``RULE_*``), CSPA's beta, the exploration rate gamma, BPA's margin when right
BanditRule = namedtuple("BanditRule", "kind beta gamma margin1")

#: what the rounds answer, one value: ``logged`` selects the log (``proposed[i]``,
#: ``correct[i]``) over the oracle (``y[i]``, or the acceptable labels ``cand[i]`` when
#: ``cand`` is not empty); ``logp`` holds the log's propensities (empty: none)
Feedback = namedtuple("Feedback", "logged y proposed correct cand logp")

#: per round written by a pass: the argmax prediction, the proposal, whether it was right, and
#: the probability with which the proposal was drawn (``1 - gamma + gamma / K`` or
#: ``gamma / K`` for the exploring rules, 1 for the others, NaN for a round replayed from a log)
History = namedtuple("History", "predictions proposals correct propensities")


@njit(cache=True, nogil=True, inline="always")
def _explore(yhat, gamma, u, n_classes):
    """Draw from P(k) = (1-gamma)[k=yhat] + gamma/K by inverse CDF on u in [0, 1)."""
    base = gamma / n_classes
    cum = 0.0
    for k in range(n_classes):
        cum += base
        if k == yhat:
            cum += 1.0 - gamma
        if u < cum:
            return k
    return n_classes - 1


@njit(cache=True, nogil=True, inline="always")
def _spa_coefs(scores, y, upd_k, upd_c, loss, sel):
    """Support-class PA step for label ``y``: fill (class, coefficient) pairs of
    ``w_k += coef * x / ||x||^2``.  Returns their count (0 when no loss).

    The support set ``S = {sigma(k) : sum_{j<k} l_sigma(j) < k l_sigma(k)}`` (losses
    sorted descending) is a prefix of the sorted order, and it is exactly the set of
    classes whose loss exceeds ``A = sum_S l / (|S| + 1)``.  It is found without
    sorting, as in Michelot's simplex projection: start from every positive loss and
    drop those ``<= A`` until none is dropped (each pass only raises ``A``).
    """
    n_classes = scores.shape[0]
    m = 0
    total = 0.0
    sy = scores[y]
    for k in range(n_classes):
        if k != y:
            lk = 1.0 + scores[k] - sy
            if lk > 0.0:
                loss[k] = lk
                sel[m] = k
                total += lk
                m += 1
    if m == 0:
        return 0
    while True:
        a = total / (m + 1)
        keep = 0
        for p in range(m):
            k = sel[p]
            if loss[k] > a:
                sel[keep] = k
                keep += 1
            else:
                total -= loss[k]
        if keep == m:
            break
        m = keep
    upd_k[0] = y
    upd_c[0] = a
    for p in range(m):
        k = sel[p]
        upd_k[p + 1] = k
        upd_c[p + 1] = -(loss[k] - a)
    return m + 1


@njit(cache=True, nogil=True, inline="always")
def _best_candidate(scores, cand, i):
    """The acceptable label of row ``i`` with the highest score (ties: the lowest index)."""
    best = -1
    for k in range(scores.shape[0]):
        if cand[i, k] and (best < 0 or scores[k] > scores[best]):
            best = k
    return best


@njit(cache=True, nogil=True, inline="always")
def _averaged_into(W, acc, T, out):
    """The mean of the weights after each of ``T`` rounds, ``((T + 1) W - acc) / T`` (see
    :func:`_rule_pass`'s ``averaging``), written into ``out`` in one pass; times ``1 / T``
    (within an ulp of the quotient; a stream of short calls computes the mean at every call,
    and the divisions took 1.5 us of a call)."""
    inv = 1.0 / T
    for a in range(W.shape[0]):
        for b in range(W.shape[1]):
            out[a, b] = (W[a, b] * (T + 1.0) - acc[a, b]) * inv


# ---- the rules: each round's step, as its paper writes it --------------------------------
# A step reads the round (the scores, the argmax ``yhat``, the proposal ``yt`` and whether it
# was right, ``b``) and writes the classes that move and their coefficients into ``upd_k``,
# ``upd_c``, returning their count: the pass then makes the step ``w_k += c wi x / ||x||^2``
# (``wi`` the row's sample weight).  Two parts are left to the pass, each measured: SPA's step,
# the support-class step towards a label (:func:`_spa_coefs`), which CSPA makes when right, is
# made from the label the rule names, in one place (inlined into two steps, it made the passes
# 10-25 % slower); and Banditron's probability of its proposal is computed by the pass (inside
# its step, the Banditron passes ran 10-25 % longer).


@njit(cache=True, nogil=True, inline="always")
def _cspa_step(scores, yt, b, nsq, wi, beta, upd_k, upd_c):
    """CSPA (bandit-feedback-cspa, Algorithm 1).  Right: the support-class step towards
    ``yt`` (returned as its label, for the pass to make).  Wrong: with ``best`` the
    highest-scored class other than ``yt`` and loss ``l = 1 + s[yt] - s[best]``,
    ``w_yt -= c (K-1)/K x`` and every other class ``+= c/K x``, ``c = wi beta l / ||x||^2``;
    returned as ``w_yt -= c x`` (its coefficient already holding ``wi``) and the coefficient
    ``c/K`` of a step shared by every class.  Returns ``(n_upd, shared, label)``.
    """
    if b:
        return 0, 0.0, yt
    n_classes = scores.shape[0]
    best = -1
    for k in range(n_classes):
        if k != yt and (best < 0 or scores[k] > scores[best]):
            best = k
    lt = 1.0 + scores[yt] - scores[best]
    if lt <= 0.0:
        return 0, 0.0, -1
    c = wi * beta * lt / nsq
    upd_k[0] = yt
    upd_c[0] = -c * nsq
    return 1, c / n_classes, -1


@njit(cache=True, nogil=True, inline="always")
def _banditron_step(yhat, yt, b, p_yt, upd_k, upd_c):
    """Banditron (Kakade, Shalev-Shwartz and Tewari 2008): ``w_yhat -= x`` every round, and
    ``w_yt += x / P(yt)`` when the proposal was right, ``p_yt = P(yt)`` the probability with
    which it was proposed (the exploring policy's, or a log's propensity)."""
    upd_k[0] = yhat
    upd_c[0] = -1.0
    if not b:
        return 1
    upd_k[1] = yt
    upd_c[1] = 1.0 / p_yt
    return 2


@njit(cache=True, nogil=True, inline="always")
def _bpa_step(scores, yt, b, margin1, upd_k, upd_c):
    """BPA: only the played class moves, a passive-aggressive step on its one-class hinge
    loss: up to the margin ``margin1`` when right, below -1 when wrong."""
    if b:
        lt = margin1 - scores[yt]
        sign = 1.0
    else:
        lt = 1.0 + scores[yt]
        sign = -1.0
    if lt <= 0.0:
        return 0
    upd_k[0] = yt
    upd_c[0] = sign * lt
    return 1


def _rule_pass(kind):
    """The pass of one rule (``RULE_*``) over the rows in ``order``, compiled for that rule
    (``kind`` is a constant of the compiled code: the other rules' branches are not in it).

    Each round calls the rule's step (above).  Banditron and BPA explore: the proposal is
    drawn around the argmax, else it is the argmax.  CSPA's steps have a part common to every
    class (its wrong answers), kept in one vector ``U`` (true weights ``W[:, k] + U``) so that
    such a step costs O(nnz), not O(nnz K).  Score differences, hence every decision, ignore
    ``U``; it is folded into ``W`` at the end.

    The returned pass takes:

    weights : ``(W, class_major)``: float64 weights, updated in place, (n_features, n_classes)
        or with ``class_major`` its transposed view (n_classes, n_features), C-contiguous
        (see :func:`weaklabel.partial._kernels._candidate_epoch`; sparse rows need the
        feature-major form).  ``acc`` and ``mean`` below have ``W``'s form.
    rows : Rows, dense or CSR (:func:`weaklabel.linear.kernel_rows`); this and the next three
        arguments may be passed as plain tuples of their fields (see ``_row_kernels.Rows``).
    order : int array of the rows to visit.
    rule : BanditRule ``(kind, beta, gamma, margin1)``: CSPA's beta; the exploration rate;
        BPA's margin when right.
    feedback : Feedback ``(logged, y, proposed, correct, cand, logp)``: oracle mode reads
        ``y[i]``, logged mode ``proposed[i]``, ``correct[i]``.  ``cand`` : bool
        (n_samples, n_classes) acceptable labels per row (oracle mode), or (0, 0): ``y``
        holds the one right label.  ``logp`` : float64 (n_rows,) or empty; Banditron in
        logged mode weighs a right answer by ``1 / logp[i]`` (the logging policy's
        propensity) instead of its own policy's.
    history : History, written per round: argmax prediction, proposal, correct, propensity.
    u : float array, one uniform per round (exploring rules).
    sw : float array, sample weights (each row's step is multiplied by ``sw[i]``); empty: all 1.
    averaging : ``(acc, t0, mean)``; for averaged weights, ``acc += t * step`` with
        ``t = t0 + r`` the round's number; ``acc`` empty: no averaging.  The mean of the
        weights after each round is then ``((T + 1) W - acc) / T`` after ``T`` rounds
        (:func:`_averaged_into`), which the pass writes into ``mean`` (of ``W``'s shape; empty:
        not asked) at its end, ``T = t0 + len(order) - 1`` (``W`` itself when ``T`` is 0).

    and returns the number of rounds that changed W; -1 when a dense row fails
    ``rows.limits`` (the pass stopped at it; the caller puts the weights back).
    """
    explores = kind == RULE_BANDITRON or kind == RULE_BPA
    shares = kind == RULE_CSPA

    @njit(cache=True, nogil=True)
    def rule_pass(weights, rows, order, rule, feedback, history, u, sw, averaging):
        rows = Rows(*rows)                 # plain tuples cross the boundary (see _row_kernels.Rows)
        W, class_major = weights
        X_dense, is_dense = rows.dense, rows.is_dense
        beta, gamma, margin1 = rule[1], rule[2], rule[3]
        logged, y, proposed, correct, cand, logp = feedback
        pred_out, prop_out, corr_out, prob_out = history
        acc, t0, mean = averaging
        # dense rows: weights (and the average's accumulator) class-major for the pass
        # (contiguous, vectorised dot products and updates), in the rows' precision (float32
        # rows: float32 weights and steps for the pass; the average's accumulator stays float64):
        # W and acc themselves when kept class-major, else copies written back at the end; sparse
        # rows update W in place (M is empty)
        M = _pass_matrix(W, class_major, X_dense) if is_dense else np.empty((0, 0), dtype=X_dense.dtype)
        if is_dense and acc.shape[0] > 0:
            Acc = _pass_matrix(acc, class_major, acc)
        else:
            Acc = acc
        n_classes = W.shape[0] if class_major else W.shape[1]
        n_feat = W.shape[1] if class_major else W.shape[0]
        width = 0 if is_dense else W.shape[0]
        nz_val = np.empty(width, dtype=W.dtype)
        nz_idx = np.empty(width, dtype=np.int64)
        scores = np.empty(n_classes)
        loss = np.empty(n_classes)
        sel = np.empty(n_classes, dtype=np.int64)
        upd_k = np.empty(n_classes + 1, dtype=np.int64)
        upd_c = np.empty(n_classes + 1)
        upd_m = np.empty(n_classes + 1, dtype=M.dtype)     # the steps in M's precision
        upd_a = np.empty(n_classes + 1)
        coef = np.empty(n_classes)
        # CSPA's wrong-answer step adds the same multiple of x to every class but one: that
        # common part is kept in U (true weights W[:, k] + U), so the step costs O(nnz), not
        # O(nnz K).  Score differences, hence every decision, ignore U; it is folded in at the end.
        # (dense rows: Ud, in M's precision; sparse rows: U)
        U = np.zeros(n_feat if shares and not is_dense else 0)
        Ud = np.zeros(n_feat if shares and is_dense else 0, dtype=M.dtype)
        has_cand = cand.shape[0] > 0
        n_updates = 0
        ux = 0.0
        for r in range(order.shape[0]):
            i = order[r]
            if is_dense:
                if r + 1 < order.shape[0]:
                    prefetch_row(X_dense, order[r + 1])      # the next row's reads overlap this row's work
                cnt = 0
                nsq = _cm_scores(M, X_dense, i, 1.0, scores)
                if shares:
                    ux = _cm_dot(Ud, X_dense, i)
                if not _dense_row_in_range(X_dense, i, nsq, rows.limits):
                    return -1                              # a row out of range: stop, W unchanged
                if rows.intercept >= 0:
                    nsq += 1.0                             # the implicit constant feature
            else:
                cnt = _row_nonzeros(rows, i, nz_val, nz_idx)
                _row_scores(W, 1.0, nz_val, nz_idx, cnt, scores)
                nsq = 0.0
                for p in range(cnt):
                    nsq += nz_val[p] * nz_val[p]
            if shares:
                if not is_dense:
                    ux = 0.0
                    for p in range(cnt):
                        ux += nz_val[p] * U[nz_idx[p]]
                for k in range(n_classes):
                    scores[k] += ux
            yhat = _argmax(scores)

            # proposal and feedback
            if logged:
                yt = proposed[i]
                b = correct[i]
            else:
                yt = _explore(yhat, gamma, u[r], n_classes) if explores else yhat
                b = cand[i, yt] if has_cand else y[i] == yt
            pred_out[r] = yhat
            prop_out[r] = yt
            corr_out[r] = b
            if logged:
                prob_out[r] = np.nan                 # the log's own propensities apply
            elif explores:                           # as drawn by _explore
                prob_out[r] = 1.0 - gamma + gamma / n_classes if yt == yhat else gamma / n_classes
            else:
                prob_out[r] = 1.0
            wi = sw[i] if sw.shape[0] > 0 else 1.0
            if nsq == 0.0 or wi == 0.0:        # x = 0 or weight 0: no step, still a round
                continue

            n_upd = 0
            shared = 0.0
            label = -1      # the label of a support-class step (SPA; CSPA when right), made below
            if kind == RULE_CSPA:
                n_upd, shared, label = _cspa_step(scores, yt, b, nsq, wi, beta, upd_k, upd_c)
            elif kind == RULE_SPA:
                # SPA, the full-information baseline: the support-class step towards the right
                # label, y[i]; with acceptable labels, the one scored highest; from a log, the
                # proposal when it was right
                if logged:
                    if b:
                        label = yt
                else:
                    label = _best_candidate(scores, cand, i) if has_cand else y[i]
            elif kind == RULE_BANDITRON:
                if logp.shape[0] > 0:          # a log's propensity (clipped by the caller): off-policy
                    p_yt = logp[i]
                else:                          # the exploring policy's (as _explore draws)
                    p_yt = gamma / n_classes
                    if yt == yhat:
                        p_yt += 1.0 - gamma
                n_upd = _banditron_step(yhat, yt, b, p_yt, upd_k, upd_c)
            else:
                n_upd = _bpa_step(scores, yt, b, margin1, upd_k, upd_c)
            if label >= 0:
                n_upd = _spa_coefs(scores, label, upd_k, upd_c, loss, sel)
            if shares and shared != 0.0:
                if is_dense:
                    _cm_axpy(Ud, shared, X_dense, i)
                else:
                    for p in range(cnt):
                        U[nz_idx[p]] += shared * nz_val[p]
            if n_upd > 0:
                inv = 1.0 / nsq                # the passive-aggressive step size, times wi
                if not shares or b:            # (CSPA's wrong-answer step already holds wi)
                    inv *= wi
                for q in range(n_upd):
                    upd_c[q] *= inv
                averaged = acc.shape[0] > 0
                if averaged:                    # the same step into acc, times the round's number
                    tr = t0 + r                 # (in its own array: scaling upd_c and back would round
                    for q in range(n_upd):      # W's step, and averaging must not change the learning)
                        upd_a[q] = upd_c[q] * tr
                    if not is_dense:
                        _row_update(acc, nz_val, nz_idx, cnt, upd_k, upd_a, n_upd, False)
                if is_dense:
                    for q in range(n_upd):      # (a loop: numba's array slice assignment compiles a message)
                        upd_m[q] = upd_c[q]
                    if averaged:                # the weights and the accumulator in one sweep of the row
                        _cm_update_pair(M, Acc, X_dense, i, upd_k, upd_m, upd_a, n_upd)
                    else:
                        _cm_update(M, X_dense, i, upd_k, upd_m, n_upd, False)
                elif 4 * n_upd > n_classes:
                    # many classes move (SPA's support set early on): one contiguous,
                    # vectorised row update beats scattered per-class writes
                    for k in range(n_classes):
                        coef[k] = 0.0
                    for q in range(n_upd):
                        coef[upd_k[q]] += upd_c[q]
                    for p in range(cnt):
                        xj = nz_val[p]
                        j = nz_idx[p]
                        for k in range(n_classes):
                            W[j, k] += coef[k] * xj
                else:
                    _row_update(W, nz_val, nz_idx, cnt, upd_k, upd_c, n_upd, False)
                n_updates += 1
        if is_dense:
            if shares:
                for k in range(n_classes):
                    for j in range(Ud.shape[0]):
                        M[k, j] += Ud[j]
            _write_back(M, W, class_major)
            if acc.shape[0] > 0:
                _write_back(Acc, acc, class_major)
        elif shares:
            for j in range(U.shape[0]):
                uj = U[j]
                if uj != 0.0:
                    for k in range(n_classes):
                        W[j, k] += uj
        if mean.shape[0] > 0:
            T = t0 + order.shape[0] - 1.0
            if T > 0.0:
                _averaged_into(W, acc, T, mean)
            else:
                for ra in range(W.shape[0]):    # (loops: numba's array slice assignment compiles a message)
                    for ca in range(W.shape[1]):
                        mean[ra, ca] = W[ra, ca]
        return n_updates
    return rule_pass


#: each rule's pass, by its ``RULE_*`` number
RULE_PASSES = tuple(_rule_pass(kind) for kind in (RULE_CSPA, RULE_SPA, RULE_BANDITRON, RULE_BPA))


@njit(cache=True, nogil=True, inline="always")
def _confidit_round(scores, quad, ucb, eta, t, i, r, feedback, history):
    """Confidit's proposal (the upper confidence bound ``score + sqrt(eta quad log(1 + t))``)
    and its feedback for row ``i`` at round ``r``, recorded; returns (class, right).
    """
    logged, y, proposed, correct, cand = feedback.logged, feedback.y, feedback.proposed, feedback.correct, feedback.cand
    pred_out, prop_out, corr_out, prob_out = history
    width_t = eta * np.log(1.0 + t)
    for k in range(scores.shape[0]):
        ucb[k] = scores[k] + np.sqrt(width_t * max(quad[k], 0.0))
    yhat = _argmax(scores)
    if logged:
        c = proposed[i]
        b = correct[i]
    else:
        c = _argmax(ucb)
        b = cand[i, c] if cand.shape[0] > 0 else y[i] == c
    pred_out[r] = yhat
    prop_out[r] = c
    corr_out[r] = b
    prob_out[r] = np.nan if logged else 1.0        # Confidit proposes deterministically
    return c, b


@njit(cache=True, nogil=True)
def _confidit_pass(W, state, params, rows, order, feedback, history, sw):
    """One pass of Confidit (Crammer & Gentile 2011).

    Per class ``k``: ``w_k`` is projected onto ``|w_k . x| <= 1`` in the ``A_k`` norm,
    the proposal is ``argmax_k w_k . x + sqrt(eta x^T A_k^-1 x log(1 + t))``, and the
    proposed class ``c`` (``s = +1`` if right, else -1) takes
    ``A_c <- A_c + x x^T``, ``w_c <- A_c^-1 (A_c,old w_c + s x)``.

    ``diagonal=True`` keeps ``A_diag`` (n_features, n_classes), the diagonal of A, and
    the update is coordinate-wise; otherwise ``A_inv`` (n_classes, n_features,
    n_features) holds the inverses, updated by Sherman-Morrison.  ``t`` is the round
    number of the first row.  Returns ``(t, n_updates)``.

    With sample weights ``sw`` (empty: all 1) the update is weighted least squares:
    ``A_c <- A_c + v x x^T``, ``w_c <- A_c^-1 (A_c,old w_c + v s x)`` for ``v = sw[i]``,
    which is the row learnt ``v`` times in a row when ``v`` is an integer (no projection
    happens between repeats of one row, the scores being then already inside).

    ``state`` is ``(A_diag, A_inv, journal)``, ``params`` ``(diagonal, eta, t)``; ``rows``,
    ``feedback`` and ``history`` as in :func:`_rule_pass` (``feedback.cand`` not empty:
    the proposal is right when it is any acceptable label of the row).

    ``journal`` ``(Jv, Jg, Jc)``, buffers of one entry per row of the pass (the full form;
    ``Jv`` with no rows: none): instead of writing each rank-one update
    ``A_c^-1 -= g v v^T`` into ``A_inv`` at once, the pass keeps ``(v, g, c)`` and reads
    ``A_k^-1 x`` as ``A_inv[k] x - sum_e g_e v_e (v_e . x)`` over its entries of class ``k``;
    at the end, when every entry is finite, it writes them into ``A_inv`` in their order (the
    same matrices as writing them at once, up to rounding).  A pass that fails therefore leaves
    ``A_inv`` untouched, and a short ``partial_fit`` call need not copy it for its rollback.
    Returns ``(t, n_updates, written)``; ``written`` is False when a journal entry is not
    finite (then ``A_inv`` is as it was).
    """
    rows, feedback = Rows(*rows), Feedback(*feedback)     # plain tuples cross the boundary
    A_diag, A_inv, journal = state
    Jv, Jg, Jc = journal
    journaled = Jv.shape[0] > 0
    n_journal = 0
    diagonal, eta, t = params
    n_classes = W.shape[1]
    d = W.shape[0]
    width = d                                      # the row's features, and the intercept if any
    nz_val = np.empty(width, dtype=W.dtype)
    nz_idx = np.empty(width, dtype=np.int64)
    scores = np.empty(n_classes)
    quad = np.empty(n_classes)
    ucb = np.empty(n_classes)
    V = np.zeros((1 if diagonal else n_classes, 1 if diagonal else d))   # A_k^-1 x (full form)
    n_updates = 0
    for r in range(order.shape[0]):
        i = order[r]
        cnt = _row_nonzeros(rows, i, nz_val, nz_idx)
        _row_scores(W, 1.0, nz_val, nz_idx, cnt, scores)
        # quad_k = x^T A_k^-1 x
        if diagonal:
            for k in range(n_classes):
                quad[k] = 0.0
            for p in range(cnt):
                xj = nz_val[p]
                j = nz_idx[p]
                for k in range(n_classes):
                    quad[k] += xj * xj / A_diag[j, k]
        else:
            for k in range(n_classes):
                for a in range(d):
                    V[k, a] = 0.0
                for p in range(cnt):
                    xj = nz_val[p]
                    j = nz_idx[p]
                    for a in range(d):
                        V[k, a] += xj * A_inv[k, j, a]
            for e in range(n_journal):                  # the updates of this pass, not yet written
                k = Jc[e]
                vx = 0.0
                for p in range(cnt):
                    vx += nz_val[p] * Jv[e, nz_idx[p]]
                coef = Jg[e] * vx
                if coef != 0.0:
                    for a in range(d):
                        V[k, a] -= coef * Jv[e, a]
            for k in range(n_classes):
                qk = 0.0
                for p in range(cnt):
                    qk += nz_val[p] * V[k, nz_idx[p]]
                quad[k] = qk
        # projection onto |w_k . x| <= 1 in the A_k norm
        for k in range(n_classes):
            sk = scores[k]
            if (sk > 1.0 or sk < -1.0) and quad[k] > 0.0:
                target = 1.0 if sk > 0.0 else -1.0
                coef = (sk - target) / quad[k]
                if diagonal:
                    for p in range(cnt):
                        j = nz_idx[p]
                        W[j, k] -= coef * nz_val[p] / A_diag[j, k]
                else:
                    for a in range(d):
                        W[a, k] -= coef * V[k, a]
                scores[k] = target
        c, b = _confidit_round(scores, quad, ucb, eta, t, i, r, feedback, history)
        t += 1.0
        v = sw[i] if sw.shape[0] > 0 else 1.0
        if cnt == 0 or quad[c] == 0.0 or v == 0.0:
            continue
        s = 1.0 if b else -1.0
        if diagonal:
            for p in range(cnt):
                xj = nz_val[p]
                j = nz_idx[p]
                a_old = A_diag[j, c]
                a_new = a_old + v * xj * xj
                W[j, c] = (a_old * W[j, c] + v * s * xj) / a_new
                A_diag[j, c] = a_new
        else:
            denom = 1.0 + v * quad[c]
            g = v * (s - scores[c]) / denom
            for a in range(d):
                W[a, c] += g * V[c, a]
            if journaled:
                for a in range(d):
                    Jv[n_journal, a] = V[c, a]
                Jg[n_journal] = v / denom
                Jc[n_journal] = c
                n_journal += 1
            else:
                _rank_one_down(A_inv, c, V[c], v / denom)
        n_updates += 1
    if journaled:
        if not _journal_writable(W, Jv, Jg, n_journal):
            return t, n_updates, False
        for e in range(n_journal):
            _rank_one_down(A_inv, Jc[e], Jv[e], Jg[e])
    return t, n_updates, True


@njit(cache=True, nogil=True)
def _journal_writable(W, Jv, Jg, n):
    """Whether the pass may write its ``n`` journal entries: the weights are finite (else the
    call fails and nothing may have been written) and every entry is finite with
    ``sum_e |g_e| max|v_e|^2 < 1e300``, so that the written matrices cannot overflow (they
    are inverses of matrices above ``a0 I``, so their entries stay below ``1 / a0``)."""
    for a in range(W.shape[0]):
        for k in range(W.shape[1]):
            if not np.isfinite(W[a, k]):
                return False
    total = 0.0
    for e in range(n):
        m = 0.0
        for a in range(Jv.shape[1]):
            va = abs(Jv[e, a])
            if not np.isfinite(va):
                return False
            m = max(m, va)
        total += abs(Jg[e]) * m * m
    return total < 1e300


@njit(cache=True, nogil=True, inline="always")
def _rank_one_down(A_inv, c, v, g):
    """``A_inv[c] -= g v v^T`` (Sherman-Morrison's update of ``A_c^-1``), row by row."""
    d = v.shape[0]
    for a in range(d):
        va = g * v[a]
        if va != 0.0:
            for e in range(d):
                A_inv[c, a, e] -= va * v[e]


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_scores_quad_diag(M, Ainv, X, i, scores, quad):
    """``scores[k] = M[k] . X[i]`` and ``quad[k] = sum_j X[i, j]^2 / A[k, j]`` in one loop
    over the features per class (class-major, dense row), in ``M``'s precision; returns
    ``||X[i]||^2``."""
    nsq = _cast_to(X, 0.0)
    for j in range(X.shape[1]):
        xj = X[i, j]
        nsq += xj * xj
    # five classes a loop (each element of the row loaded once for ten products) where that
    # repeats no more classes than two a loop would, else two; the last block repeats the last
    # class, so every class of a call is computed by the same loop (equal weights, equal scores)
    last = M.shape[0] - 1
    d = X.shape[1]
    if (-M.shape[0]) % 5 <= (-M.shape[0]) % 2:
        for k in range(0, M.shape[0], 5):
            k1, k2, k3, k4 = min(k + 1, last), min(k + 2, last), min(k + 3, last), min(k + 4, last)
            s0 = _cast_to(M, 0.0)
            s1 = _cast_to(M, 0.0)
            s2 = _cast_to(M, 0.0)
            s3 = _cast_to(M, 0.0)
            s4 = _cast_to(M, 0.0)
            q0 = _cast_to(M, 0.0)
            q1 = _cast_to(M, 0.0)
            q2 = _cast_to(M, 0.0)
            q3 = _cast_to(M, 0.0)
            q4 = _cast_to(M, 0.0)
            for j in range(d):
                xj = X[i, j]
                x2 = xj * xj
                s0 += M[k, j] * xj
                s1 += M[k1, j] * xj
                s2 += M[k2, j] * xj
                s3 += M[k3, j] * xj
                s4 += M[k4, j] * xj
                q0 += x2 * Ainv[k, j]
                q1 += x2 * Ainv[k1, j]
                q2 += x2 * Ainv[k2, j]
                q3 += x2 * Ainv[k3, j]
                q4 += x2 * Ainv[k4, j]
            if M.shape[1] > d:                  # the implicit constant feature (x = 1)
                s0, s1, s2, s3, s4 = s0 + M[k, d], s1 + M[k1, d], s2 + M[k2, d], s3 + M[k3, d], s4 + M[k4, d]
                q0, q1, q2 = q0 + Ainv[k, d], q1 + Ainv[k1, d], q2 + Ainv[k2, d]
                q3, q4 = q3 + Ainv[k3, d], q4 + Ainv[k4, d]
            scores[k4], scores[k3], scores[k2], scores[k1], scores[k] = s4, s3, s2, s1, s0
            quad[k4], quad[k3], quad[k2], quad[k1], quad[k] = q4, q3, q2, q1, q0
        return np.float64(nsq)
    for k in range(0, M.shape[0], 2):
        k1 = min(k + 1, last)
        s0 = _cast_to(M, 0.0)
        s1 = _cast_to(M, 0.0)
        q0 = _cast_to(M, 0.0)
        q1 = _cast_to(M, 0.0)
        for j in range(d):
            xj = X[i, j]
            x2 = xj * xj
            s0 += M[k, j] * xj
            s1 += M[k1, j] * xj
            q0 += x2 * Ainv[k, j]
            q1 += x2 * Ainv[k1, j]
        if M.shape[1] > d:                      # the implicit constant feature (x = 1)
            s0, s1, q0, q1 = s0 + M[k, d], s1 + M[k1, d], q0 + Ainv[k, d], q1 + Ainv[k1, d]
        scores[k1] = s1
        quad[k1] = q1
        scores[k] = s0
        quad[k] = q0
    return np.float64(nsq)


@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH)
def _cm_project_diag(M, Ainv, X, i, k, coef):
    """``M[k] -= coef * X[i] / A[k]`` (the projection's step, dense row), in ``M``'s precision."""
    c = _cast_to(M, coef)
    d = X.shape[1]
    for j in range(d):
        M[k, j] -= c * X[i, j] * Ainv[k, j]
    if M.shape[1] > d:                          # the implicit constant feature (x = 1)
        M[k, d] -= c * Ainv[k, d]


# error_model="numpy": a division by zero gives inf instead of raising, so the loop has no
# branch a feature and is vectorised (the diagonals it divides by are >= a0 > 0)
@njit(cache=True, nogil=True, fastmath=DENSE_FASTMATH, error_model="numpy")
def _cm_step_diag(M, Ad, Ainv, X, i, c, v, s):
    """Class ``c``'s weighted least-squares step on a dense row (diagonal ``A``, with its
    inverse ``Ainv`` kept beside it), in ``M``'s precision."""
    one = _cast_to(M, 1.0)
    v_m = _cast_to(M, v)
    vs = _cast_to(M, v * s)
    d = X.shape[1]
    for j in range(d):
        xj = X[i, j]
        a_old = Ad[c, j]
        a_new = a_old + v_m * xj * xj
        inv = one / a_new
        M[c, j] = (a_old * M[c, j] + vs * xj) * inv
        Ad[c, j] = a_new
        Ainv[c, j] = inv
    if M.shape[1] > d:                          # the implicit constant feature (x = 1)
        a_old = Ad[c, d]
        a_new = a_old + v_m
        inv = one / a_new
        M[c, d] = (a_old * M[c, d] + vs) * inv
        Ad[c, d] = a_new
        Ainv[c, d] = inv


@njit(cache=True, nogil=True)
def _confidit_diag_dense_pass(state, params, rows, order, feedback, history, sw):
    """:func:`_confidit_pass` for diagonal ``A`` and dense rows, with the weights and the
    diagonals class-major during the pass (contiguous, vectorised loops over the features).
    ``state`` is ``(W, A_diag, class_major)``: the weights and the diagonals, both
    (n_features, n_classes), or with ``class_major`` both their transposed views (n_classes,
    n_features), C-contiguous, which a pass over float64 rows updates in place (else it works
    on class-major copies in the rows' precision, written back at the end).  ``params`` is
    ``(eta, t)``; the other arguments as in :func:`_confidit_pass`.  Returns
    ``(t, n_updates)``, ``n_updates`` -1 when a row fails ``rows.limits`` (the pass stopped at
    it; the caller puts the weights and diagonals back).
    """
    rows, feedback = Rows(*rows), Feedback(*feedback)     # plain tuples cross the boundary
    W, A_diag, class_major = state
    eta, t = params
    X = rows.dense
    n_classes = W.shape[0] if class_major else W.shape[1]
    # class-major for the pass, in the rows' precision (float32 rows: float32 weights,
    # diagonals and steps, twice the vector lanes)
    M = _pass_matrix(W, class_major, X)
    Ad = _pass_matrix(A_diag, class_major, X)
    Ainv = np.empty_like(Ad)
    for k in range(n_classes):
        for j in range(Ad.shape[1]):
            Ainv[k, j] = 1.0 / Ad[k, j]
    scores = np.empty(n_classes)
    quad = np.empty(n_classes)
    ucb = np.empty(n_classes)
    n_updates = 0
    for r in range(order.shape[0]):
        i = order[r]
        if r + 1 < order.shape[0]:
            prefetch_row(X, order[r + 1])                # the next row's reads overlap this row's work
        nsq = _cm_scores_quad_diag(M, Ainv, X, i, scores, quad)
        if not _dense_row_in_range(X, i, nsq, rows.limits):
            return t, -1                               # a row out of range: stop, W and A unchanged
        if rows.intercept >= 0:
            nsq += 1.0                                 # the implicit constant feature
        for k in range(n_classes):                  # projection onto |w_k . x| <= 1 in the A_k norm
            sk = scores[k]
            if (sk > 1.0 or sk < -1.0) and quad[k] > 0.0:
                target = 1.0 if sk > 0.0 else -1.0
                _cm_project_diag(M, Ainv, X, i, k, (sk - target) / quad[k])
                scores[k] = target
        c, b = _confidit_round(scores, quad, ucb, eta, t, i, r, feedback, history)
        t += 1.0
        v = sw[i] if sw.shape[0] > 0 else 1.0
        if nsq == 0.0 or quad[c] == 0.0 or v == 0.0:
            continue
        _cm_step_diag(M, Ad, Ainv, X, i, c, v, 1.0 if b else -1.0)
        n_updates += 1
    _write_back(M, W, class_major)
    _write_back(Ad, A_diag, class_major)
    return t, n_updates


@njit(cache=True, nogil=True)
def _fd_shrink(B, G, H, C, W, k, a, supp_idx, n_supp):
    """Frequent Directions step for class ``k`` (Liberty 2013; Ghashami et al. 2016): fold
    the implicit part ``B_k^T c_k`` of the weights into ``W[:, k]``, then rotate the full
    sketch ``B_k`` onto its principal directions and shrink the squared singular values by
    the middle one, which empties the lower half of the rows.  ``G_k = B_k B_k^T`` becomes
    diagonal and ``H_k = (a I + G_k)^-1`` with it.  ``B`` is feature-major,
    (n_features, n_classes, ell); only the features in ``supp_idx[k, :n_supp]`` (those some
    row of the sketch uses) are visited.  Returns the rows kept.
    """
    ell = B.shape[2]
    lam, Q = np.linalg.eigh(G[k])                  # ascending
    h = ell // 2
    delta = lam[ell - 1 - h]                       # the (h+1)-th largest squared singular value
    R = np.zeros((ell, ell))                       # new row r = sum_i R[r, i] * old row i
    kept = 0
    for r in range(h):
        idx = ell - 1 - r                          # r-th largest
        lr = lam[idx]
        if lr <= delta or lr <= 0.0:
            continue
        f = np.sqrt((lr - delta) / lr)
        for i in range(ell):
            R[kept, i] = Q[i, idx] * f
        kept += 1
    c = C[k].copy()
    old = np.empty(ell)
    norms = np.zeros(ell)
    for s_ in range(n_supp):
        j = supp_idx[k, s_]
        if s_ + PREFETCH_AHEAD < n_supp:          # the entries are scattered over the whole array
            prefetch(B, supp_idx[k, s_ + PREFETCH_AHEAD], k)
            prefetch(W, supp_idx[k, s_ + PREFETCH_AHEAD], k)
        fold = 0.0
        for i in range(ell):
            v = B[j, k, i]
            old[i] = v
            fold += c[i] * v
        W[j, k] += fold
        for r in range(ell):
            v = 0.0
            if r < kept:
                for i in range(ell):
                    v += R[r, i] * old[i]
            B[j, k, r] = v
            norms[r] += v * v
    for i in range(ell):
        C[k, i] = 0.0
        for m in range(ell):
            G[k, i, m] = 0.0
            H[k, i, m] = 0.0
        G[k, i, i] = norms[i]
        H[k, i, i] = 1.0 / (a + norms[i])
    return kept


@njit(cache=True, nogil=True)
def _sketch_exact(sketch, k, row, a, work):
    """Class ``k``'s exact terms for the row: ``Z_k = B_k x``, ``HZ_k = H_k Z_k``; adds
    ``c_k . Z_k`` to ``scores[k]`` (which holds ``W_k x``) and sets ``quad[k]``.

    ``sketch`` is ``(B, H, C, in_supp)``, ``row`` ``(nz_val, nz_idx, cnt, xx)`` (the row's
    nonzeros and squared norm), ``work`` ``(Z, HZ, scores, quad)``.
    """
    B, H, C, in_supp = sketch
    nz_val, nz_idx, cnt, xx = row
    Z, HZ, scores, quad = work
    ell = B.shape[2]
    for m in range(ell):
        Z[k, m] = 0.0
    for p in range(cnt):
        j = nz_idx[p]
        if p + PREFETCH_AHEAD < cnt:
            prefetch(B, nz_idx[p + PREFETCH_AHEAD], k)
        if in_supp[j, k]:                          # a byte read instead of ell zeros
            xj = nz_val[p]
            for m in range(ell):
                Z[k, m] += xj * B[j, k, m]
    zhz = 0.0
    cz = 0.0
    for m in range(ell):
        s = 0.0
        for q in range(ell):
            s += H[k, m, q] * Z[k, q]
        HZ[k, m] = s
        zhz += Z[k, m] * s
        cz += C[k, m] * Z[k, m]
    scores[k] += cz
    quad[k] = (xx - zhz) / a


@njit(cache=True, nogil=True)
def _sketch_exact_if(sketch, k, row, a, work, done):
    """:func:`_sketch_exact` for class ``k`` unless ``done[k]``; marks it done."""
    if not done[k]:
        _sketch_exact(sketch, k, row, a, work)
        done[k] = True


@njit(cache=True, nogil=True)
def _sketch_ucb(scores, quad, width_t, k):
    return scores[k] + np.sqrt(width_t * max(quad[k], 0.0))


@njit(cache=True, nogil=True)
def _sketch_best(k, scores, quad, width_t, best_s, best_u):
    """The best exact score and UCB so far, with class ``k`` now exact (ties: lowest index)."""
    if best_s < 0 or scores[k] > scores[best_s] or (scores[k] == scores[best_s] and k < best_s):
        best_s = k
    if best_u < 0:
        best_u = k
    else:
        uk = _sketch_ucb(scores, quad, width_t, k)
        ub = _sketch_ucb(scores, quad, width_t, best_u)
        if uk > ub or (uk == ub and k < best_u):
            best_u = k
    return best_s, best_u


@njit(cache=True, nogil=True)
def _sketched_confidit_pass(W, state, params, rows, order, feedback, history, sw):
    """One pass of Confidit with each ``A_k`` replaced by ``a I + B_k^T B_k``, ``B_k`` an
    ell-row Frequent Directions sketch of the rows class ``k`` learnt from (as Luo et al.
    sketch Online Newton, NeurIPS 2016).  ``B`` is feature-major, (n_features, n_classes,
    ell), so the sketches' values for one feature are contiguous.

    The weights are kept as ``w_k = W[:, k] + B_k^T c_k``: every step moves along
    ``A_k^-1 x = (x - B_k^T H_k B_k x) / a`` (Woodbury, ``H_k = (a I + B_k B_k^T)^-1``), so
    ``W`` takes the sparse part and the ell coefficients ``c_k`` the rest, and a round costs
    at most O(K ell (nnz + ell)) plus O(ell^3) for the class that learns (``B_k x`` is
    computed only for the classes whose bounds can still win; see the loop); the coefficients are
    folded into ``W`` before a sketch rotates and at the end of the pass.  While a class's
    rows span at most ``ell / 2`` dimensions the sketch is exact and this is full-matrix
    Confidit.  Arguments as :func:`_confidit_pass`, with ``state`` ``(B, G, H, nrows)``
    (``nrows[k]`` counts the sketch's filled rows) and ``params`` ``(a, eta, t)``.
    """
    rows, feedback = Rows(*rows), Feedback(*feedback)     # plain tuples cross the boundary
    B, G, H, nrows = state
    a, eta, t = params
    logged, y, proposed, correct, cand = feedback.logged, feedback.y, feedback.proposed, feedback.correct, feedback.cand
    pred_out, prop_out, corr_out, prob_out = history
    n_classes = W.shape[1]
    d = W.shape[0]
    ell = B.shape[2]
    width = d                                      # the row's features, and the intercept if any
    nz_val = np.empty(width, dtype=W.dtype)
    nz_idx = np.empty(width, dtype=np.int64)
    scores = np.empty(n_classes)
    quad = np.empty(n_classes)
    Z = np.empty((n_classes, ell))                 # B_k x
    HZ = np.empty((n_classes, ell))                # H_k B_k x
    C = np.zeros((n_classes, ell))
    M = np.empty((ell, ell))
    # the features each class's sketch uses (so that a rotation visits only those)
    in_supp = np.zeros((d, n_classes), dtype=np.bool_)
    supp_idx = np.empty((n_classes, d), dtype=np.int64)
    n_supp = np.zeros(n_classes, dtype=np.int64)
    any_rows = False
    for k in range(n_classes):
        any_rows = any_rows or nrows[k] > 0
    if any_rows:                                   # a fresh model's sketches are empty: no scan
        for j in range(d):
            for k in range(n_classes):
                if nrows[k] == 0:
                    continue
                for m in range(ell):
                    if B[j, k, m] != 0.0:
                        in_supp[j, k] = True
                        supp_idx[k, n_supp[k]] = j
                        n_supp[k] += 1
                        break
    done = np.zeros(n_classes, dtype=np.bool_)
    sketch = (B, H, C, in_supp)
    work = (Z, HZ, scores, quad)
    radius = np.zeros(n_classes)
    c_nonzero = np.zeros(n_classes, dtype=np.bool_)     # C[k] != 0 (set by a step, cleared by a fold)
    n_updates = 0
    for r in range(order.shape[0]):
        i = order[r]
        cnt = _row_nonzeros(rows, i, nz_val, nz_idx)
        _row_scores(W, 1.0, nz_val, nz_idx, cnt, scores)
        xx = 0.0
        for p in range(cnt):
            xx += nz_val[p] * nz_val[p]
        xrow = (nz_val, nz_idx, cnt, xx)
        # The exact score W_k x + c_k . B_k x and quad_k = x^T A_k^-1 x cost a read of
        # B_k over the row's features; they are computed only for the classes that can
        # matter.  Bounds (Cauchy-Schwarz, and A_k >= a I):
        #   |c_k . B_k x| <= sqrt(c_k^T G_k c_k xx) = radius_k,   0 <= quad_k <= xx / a.
        # A class whose score bound can pass 1 may be projected: it is computed.  Then the
        # classes are visited by their bound, highest first, until no bound can beat (or
        # tie with a lower index) the best exact score and the best exact UCB found.
        width_t = eta * np.log(1.0 + t)
        ucb_slack = np.sqrt(width_t * xx / a) * (1.0 + 1e-9) + 1e-12
        for k in range(n_classes):
            done[k] = False
            rk = 0.0
            if c_nonzero[k]:
                cgc = 0.0
                for m in range(ell):
                    s = 0.0
                    for q in range(ell):
                        s += G[k, m, q] * C[k, q]
                    cgc += C[k, m] * s
                rk = np.sqrt(max(cgc, 0.0) * xx) * (1.0 + 1e-9) + 1e-12
            radius[k] = rk
            if abs(scores[k]) + rk > 1.0:
                _sketch_exact(sketch, k, xrow, a, work)
                done[k] = True
        # projection onto |w_k . x| <= 1 in the A_k norm
        for k in range(n_classes):
            if not done[k]:
                continue
            sk = scores[k]
            if (sk > 1.0 or sk < -1.0) and quad[k] > 0.0:
                target = 1.0 if sk > 0.0 else -1.0
                coef = (sk - target) / quad[k] / a
                for p in range(cnt):
                    W[nz_idx[p], k] -= coef * nz_val[p]
                for m in range(ell):
                    C[k, m] += coef * HZ[k, m]
                c_nonzero[k] = True
                scores[k] = target
        if logged:
            _sketch_exact_if(sketch, proposed[i], xrow, a, work, done)
        best_s, best_u = -1, -1
        for k in range(n_classes):
            if done[k]:
                best_s, best_u = _sketch_best(k, scores, quad, width_t, best_s, best_u)
        while True:
            top = -1                               # the unvisited class of highest bound
            for k in range(n_classes):
                if not done[k] and (top < 0 or scores[k] + radius[k] > scores[top] + radius[top]):
                    top = k
            if top < 0:
                break
            bound = scores[top] + radius[top]
            need = best_s < 0 or bound > scores[best_s] or (bound == scores[best_s] and top < best_s)
            if not logged:
                ub = bound + ucb_slack
                u_best = _sketch_ucb(scores, quad, width_t, best_u) if best_u >= 0 else 0.0
                need = need or best_u < 0 or ub > u_best or (ub == u_best and top < best_u)
            if not need:
                break
            _sketch_exact(sketch, top, xrow, a, work)
            done[top] = True
            best_s, best_u = _sketch_best(top, scores, quad, width_t, best_s, best_u)
        yhat = best_s
        if logged:
            c = proposed[i]
            b = correct[i]
        else:
            c = best_u
            b = cand[i, c] if cand.shape[0] > 0 else y[i] == c
        pred_out[r] = yhat
        prop_out[r] = c
        corr_out[r] = b
        prob_out[r] = np.nan if logged else 1.0
        t += 1.0
        v = sw[i] if sw.shape[0] > 0 else 1.0
        if cnt == 0 or quad[c] <= 0.0 or v == 0.0:
            continue
        s_ = 1.0 if b else -1.0
        g = v * (s_ - scores[c]) / (1.0 + v * quad[c]) / a
        for p in range(cnt):
            W[nz_idx[p], c] += g * nz_val[p]
        for m in range(ell):
            C[c, m] -= g * HZ[c, m]
        c_nonzero[c] = True
        # A_c += v x x^T: the row sqrt(v) x enters the sketch
        if nrows[c] == ell:
            nrows[c] = _fd_shrink(B, G, H, C, W, c, a, supp_idx, n_supp[c])
            c_nonzero[c] = False
            for m in range(ell):                   # B_c changed: its product with x again
                Z[c, m] = 0.0
            for p in range(cnt):
                for m in range(ell):
                    Z[c, m] += nz_val[p] * B[nz_idx[p], c, m]
        row = nrows[c]
        sv = np.sqrt(v)
        for p in range(cnt):
            j = nz_idx[p]
            B[j, c, row] = sv * nz_val[p]
            if not in_supp[j, c]:
                in_supp[j, c] = True
                supp_idx[c, n_supp[c]] = j
                n_supp[c] += 1
        for m in range(ell):
            G[c, row, m] = sv * Z[c, m] if m != row else v * xx
            G[c, m, row] = G[c, row, m]
        nrows[c] = row + 1
        for m in range(ell):
            for q in range(ell):
                M[m, q] = G[c, m, q]
            M[m, m] += a
        Minv = np.linalg.inv(M)
        for m in range(ell):                       # (a loop: numba's array slice assignment
            for q in range(ell):                   # compiles an error message's formatting)
                H[c, m, q] = Minv[m, q]
        n_updates += 1
    for k in range(n_classes):                     # fold the implicit parts into W
        for s_ in range(n_supp[k]):                # B_k is zero off its support
            j = supp_idx[k, s_]
            if s_ + PREFETCH_AHEAD < n_supp[k]:
                prefetch(B, supp_idx[k, s_ + PREFETCH_AHEAD], k)
                prefetch(W, supp_idx[k, s_ + PREFETCH_AHEAD], k)
            f = 0.0
            for m in range(ell):
                f += C[k, m] * B[j, k, m]
            W[j, k] += f
    return t, n_updates
