"""The kernels against plain-numpy references of the paper's update rules."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron


# ---- references: loop by loop, class-major W (K, d), written from the paper -------

_TOL = 1e-9


class _Decisions:
    """Records whether any decision of a reference run sat within rounding of flipping.

    Two classes can be tied in exact arithmetic after different update paths (the Max
    rule's +x/-x updates do this with few classes); the kernel and the reference then
    round them apart and may break the tie differently. Classes with identical update
    histories (the same coefficients at the same rounds) are exact ties in every
    implementation: they received the same operations in the same order.
    """

    def __init__(self, tol=_TOL):
        self.tol = tol
        self.ambiguous = False
        self.pred_clear = []
        self.history = {}

    def updated(self, classes, t, coefs):
        for k, c in zip(np.atleast_1d(classes), np.broadcast_to(coefs, np.shape(np.atleast_1d(classes)))):
            self.history.setdefault(int(k), []).append((t, float(c)))

    def pick(self, s, idx, W):
        """argmax of s over idx, lowest index on ties; flags near-ties."""
        vals = s[idx]
        best = idx[int(np.flatnonzero(vals == vals.max())[0])]
        scale = self.tol * (1.0 + abs(s[best]))
        hb = self.history.get(int(best), [])
        for k in idx:
            if k != best and abs(s[k] - s[best]) <= scale and self.history.get(int(k), []) != hb:
                return best, True
        return best, False

    def predict(self, s, W):
        best, near = self.pick(s, np.arange(s.size), W)
        self.pred_clear.append(not near)
        return best

    def positive(self, margin_loss):
        if abs(margin_loss) <= self.tol * 10:
            self.ambiguous = True
        return margin_loss > 0

    def choose(self, s, idx, W):
        best, near = self.pick(s, idx, W)
        self.ambiguous |= near
        return best


def _scores(W, x):
    """s_k = w_k . x summed feature by feature (BLAS may round identical rows apart,
    which would break the exact ties that classes updated together have)."""
    out = np.zeros(W.shape[0])
    for k in range(W.shape[0]):
        acc = 0.0
        for j in range(x.size):
            if x[j] != 0.0:
                acc += x[j] * W[k, j]
        out[k] = acc
    return out


def _reference_perceptron_rule(X, S, rule, eta, order, sw=None, tol=_TOL):
    """Avg ('avg') / Max ('max') Perceptron, or the mistake-driven Perceptron ('mistake');
    with sample weights ``sw`` row i's step is ``eta * sw[i]``."""
    n, d = X.shape
    K = S.shape[1]
    W = np.zeros((K, d))
    dec = _Decisions(tol)
    preds = []
    base = eta
    for t, i in enumerate(order):
        x, Y = X[i], S[i]
        eta = base * (1.0 if sw is None else sw[i])
        if eta == 0.0:
            preds.append(dec.predict(_scores(W, x), W))
            continue
        s = _scores(W, x)
        yhat = dec.predict(s, W)
        preds.append(yhat)
        if rule == "mistake":
            y = int(np.flatnonzero(Y)[0])
            if yhat != y:
                dec.choose(s, np.arange(K), W)
                W[y] += eta * x
                W[yhat] -= eta * x
                dec.updated([y, yhat], t, [1.0, -1.0])
            continue
        if Y.all():
            continue  # no non-candidate: zero loss
        inn, out = np.flatnonzero(Y), np.flatnonzero(~Y)
        jbar = dec.choose(s, out, W)
        if rule == "avg":
            if dec.positive(1 - s[inn].mean() + s[jbar]):
                W[inn] += (eta * (1.0 / inn.size)) * x     # Eq. 4: step eta/|Y|
                W[jbar] -= eta * x
                dec.updated(inn, t, 1.0 / inn.size)
                dec.updated(jbar, t, -1.0)
        else:
            ibest = dec.choose(s, inn, W)
            if dec.positive(1 - s[ibest] + s[jbar]):
                W[ibest] += eta * x
                W[jbar] -= eta * x
                dec.updated([ibest, jbar], t, [1.0, -1.0])
    return W, np.array(preds), dec


def _reference_pegasos(X, S, rule, alpha, order, sw=None, tol=_TOL):
    """Avg/Max Pegasos: shrink every round, subgradient step on a positive loss, project;
    with sample weights ``sw`` row i's subgradient is multiplied by ``sw[i]``."""
    n, d = X.shape
    K = S.shape[1]
    W = np.zeros((K, d))
    dec = _Decisions(tol)
    preds = []
    for t, i in enumerate(order, start=1):
        x, Y = X[i], S[i]
        s = _scores(W, x)
        preds.append(dec.predict(s, W))
        eta_t = 1.0 / (alpha * t)
        G = np.zeros_like(W)
        wi = 1.0 if sw is None else sw[i]
        if not Y.all() and wi > 0:
            inn, out = np.flatnonzero(Y), np.flatnonzero(~Y)
            jbar = dec.choose(s, out, W)
            if rule == "avg":
                if dec.positive(1 - s[inn].mean() + s[jbar]):
                    G[inn] -= x / inn.size
                    G[jbar] += x
                    dec.updated(inn, t, 1.0 / inn.size)
                    dec.updated(jbar, t, -1.0)
            else:
                ibest = dec.choose(s, inn, W)
                if dec.positive(1 - s[ibest] + s[jbar]):
                    G[ibest] -= x
                    G[jbar] += x
                    dec.updated([ibest, jbar], t, [1.0, -1.0])
        W = (1 - eta_t * alpha) * W - eta_t * wi * G
        norm = np.linalg.norm(W)
        if norm > 0:
            W = min(1.0, (1 / np.sqrt(alpha)) / norm) * W
    return W, np.array(preds), dec


def _check_against(est, W, preds, dec):
    """Weights to 1e-9 and the progressive predictions wherever the reference's argmax was clear."""
    assume(not dec.ambiguous)
    assert_allclose(est.coef_, W, atol=1e-9, rtol=1e-9)
    clear = np.array(dec.pred_clear, dtype=bool)
    assert_array_equal(est.predictions_[clear], est.classes_[preds[clear]])


# ---- random streams -----------------------------------------------------------------

@st.composite
def candidate_streams(draw, singletons=False):
    n = draw(st.integers(1, 25))
    d = draw(st.integers(1, 7))
    k = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    if draw(st.booleans()):                      # zero rows
        X[rng.random(n) < 0.2] = 0.0
    if draw(st.booleans()) and n > 2:            # repeated rows
        X[rng.integers(0, n, n // 3)] = X[0]
    y = rng.integers(0, k, n)
    if singletons:
        S = np.zeros((n, k), bool)
    else:
        S = rng.random((n, k)) < draw(st.sampled_from([0.2, 0.5, 0.9]))
    S[np.arange(n), y] = True
    return X, S


RULES = {AvgPerceptron: "avg", MaxPerceptron: "max", Perceptron: "mistake"}


def _fit(est, X, S, sparse):
    Xf = sp.csr_matrix(X) if sparse else X
    return est.fit(Xf, S)


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron])
@pytest.mark.parametrize("sparse", [False, True])
@given(problem=candidate_streams(), eta=st.sampled_from([0.1, 1.0, 3.0]))
@settings(max_examples=60, deadline=None)
def test_perceptrons_match_reference(cls, sparse, problem, eta):
    X, S = problem
    est = _fit(cls(eta=eta, max_iter=1, shuffle=False), X, S, sparse)
    _check_against(est, *_reference_perceptron_rule(X, S, RULES[cls], eta, np.arange(len(X))))


@pytest.mark.parametrize("sparse", [False, True])
@given(problem=candidate_streams(singletons=True), eta=st.sampled_from([0.5, 1.0]))
@settings(max_examples=60, deadline=None)
def test_mistake_perceptron_matches_reference(sparse, problem, eta):
    X, S = problem
    est = Perceptron(eta=eta, max_iter=1, shuffle=False).fit(sp.csr_matrix(X) if sparse else X, S)
    _check_against(est, *_reference_perceptron_rule(X, S, "mistake", eta, np.arange(len(X))))


@pytest.mark.parametrize("cls,rule", [(AvgPegasos, "avg"), (MaxPegasos, "max")])
@pytest.mark.parametrize("sparse", [False, True])
@given(problem=candidate_streams(), alpha=st.sampled_from([1e-3, 0.1, 1.0, 10.0]))
@settings(max_examples=60, deadline=None)
def test_pegasos_match_reference(cls, rule, sparse, problem, alpha):
    X, S = problem
    est = _fit(cls(alpha=alpha, max_iter=1, shuffle=False), X, S, sparse)
    assert est.t_ == len(X) + 1
    # row_scale="auto": the rounds use alpha times the mean squared row norm
    assert est.row_scale_ ** 2 == pytest.approx(np.mean(np.sum(X * X, axis=1)) if np.any(X) else 1.0)
    _check_against(est, *_reference_pegasos(X, S, rule, alpha * est.row_scale_ ** 2, np.arange(len(X))))


@given(problem=candidate_streams(), alpha=st.sampled_from([1e-2, 1.0]), seed=st.integers(0, 100))
@settings(max_examples=30, deadline=None)
def test_pegasos_multi_epoch_shuffled_matches_reference(problem, alpha, seed):
    """Rounds are counted across epochs; the kernel follows the permutation it is given."""
    X, S = problem
    est = AvgPegasos(alpha=alpha, max_iter=3, shuffle=True, random_state=seed, row_scale=1.0).fit(X, S)
    _check_against(est, *_reference_pegasos(X, S, "avg", alpha, est.prediction_rows_))


@given(problem=candidate_streams())
@settings(max_examples=30, deadline=None)
def test_partial_fit_continues_like_one_stream(problem):
    X, S = problem
    n = len(X)
    whole = MaxPegasos(alpha=0.05, max_iter=1, shuffle=False, row_scale=1.0).fit(X, S)
    half = MaxPegasos(alpha=0.05, max_iter=1, shuffle=False, row_scale=1.0)
    cut = n // 2
    if cut:
        half.partial_fit(X[:cut], S[:cut])
        half.partial_fit(X[cut:], S[cut:])
    else:
        half.partial_fit(X, S)
    assert_allclose(half.coef_, whole.coef_, atol=1e-9, rtol=1e-9)
    assert half.t_ == whole.t_


@given(problem=candidate_streams(singletons=True), eta=st.sampled_from([0.5, 2.0]))
@settings(max_examples=40, deadline=None)
def test_singletons_make_avg_and_max_identical(problem, eta):
    X, S = problem
    a = AvgPerceptron(eta=eta, max_iter=1, shuffle=False).fit(X, S)
    m = MaxPerceptron(eta=eta, max_iter=1, shuffle=False).fit(X, S)
    assert_allclose(a.coef_, m.coef_, atol=1e-12)
    assert_array_equal(a.predictions_, m.predictions_)
    pa = AvgPegasos(alpha=0.1, max_iter=1, shuffle=False).fit(X, S)
    pm = MaxPegasos(alpha=0.1, max_iter=1, shuffle=False).fit(X, S)
    pe = Pegasos(alpha=0.1, max_iter=1, shuffle=False).fit(X, S)
    assert_allclose(pa.coef_, pm.coef_, atol=1e-12)
    assert_allclose(pa.coef_, pe.coef_, atol=1e-12)


def test_float32_close_to_float64():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 6))
    S = rng.random((80, 4)) < 0.4
    S[np.arange(80), rng.integers(0, 4, 80)] = True
    for cls, kw in [(AvgPerceptron, {"max_iter": 1, "shuffle": False}), (MaxPegasos, {"alpha": 0.1, "max_iter": 1, "shuffle": False})]:
        a = cls(**kw).fit(X, S)
        b = cls(**kw).fit(X.astype(np.float32), S)
        assert_allclose(a.coef_, b.coef_, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos])
@given(problem=candidate_streams())
@settings(max_examples=40, deadline=None)
def test_float32_rows_follow_the_reference_to_float32_precision(cls, problem):
    """Dense float32 rows are learned in float32 (weights and steps): the weights are the
    reference's on the same float32 values, to float32 precision, wherever no decision of
    the reference sat within float32 rounding of flipping."""
    X, S = problem
    X32 = X.astype(np.float32)
    est = cls(max_iter=1, shuffle=False).fit(X32, S)
    X64, order = X32.astype(np.float64), np.arange(len(X))
    if cls in (AvgPegasos, MaxPegasos):
        ref = _reference_pegasos(X64, S, "avg" if cls is AvgPegasos else "max", est.alpha * est.row_scale_ ** 2,
                                 order, tol=1e-4)
    else:
        ref = _reference_perceptron_rule(X64, S, RULES[cls], est.eta, order, tol=1e-4)
    W, preds, dec = ref
    assume(not dec.ambiguous)
    assert est.coef_.dtype == np.float64
    assert_allclose(est.coef_, W, rtol=1e-4, atol=1e-5 * (1.0 + np.abs(W).max()))
    clear = np.array(dec.pred_clear, dtype=bool)
    assert_array_equal(est.predictions_[clear], est.classes_[preds[clear]])


@pytest.mark.parametrize("n_features", [1, 37])
@pytest.mark.parametrize("n_classes", [5, 6, 7, 9, 10])
@pytest.mark.parametrize("cls", [AvgPegasos, AvgPerceptron])
def test_classes_updated_together_tie_exactly_and_go_to_the_lowest_index(cls, n_classes, n_features):
    """Classes with the same update history have the same weights, so their scores must be
    equal to the bit and the tie go to the lowest index.  A version of the dense kernel whose
    sums started from their first term let the compiler scale the product differently for
    the last of five classes, and round 1 predicted class 4 instead of 0.  The class counts
    cover both widths of the scoring loop (four and five classes a loop, with and without
    repeated classes in the last block), on one feature and on rows long enough to be
    summed in vector lanes."""
    x = float.fromhex("-0x1.47464a7815cb4p-2")
    X = np.array([[x], [x], [0.0], [float.fromhex("0x1.69f17b7f34366p-2")]])
    X = X * np.linspace(1.0, 2.0, n_features)             # column 0 as before
    S = np.ones((4, n_classes), bool)
    S[0, 1] = False                      # round 0 moves classes 0, 2, 3, ... together and 1 apart
    est = cls(max_iter=1, shuffle=False, **({"alpha": 1.0} if cls is AvgPegasos else {})).fit(X, S)
    assert est.predictions_[1] == 0
    together = [0] + list(range(2, n_classes))
    assert len({float(v) for v in est.coef_[together, 0]}) == 1


def test_float32_rows_whose_squares_overflow_float32_are_learned_in_float64():
    """|x| near 1e19 is within the learners' range but its square overflows float32: such
    rows take the float64 path, and the weights stay finite and equal float64's."""
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((30, 4)) * 1e20).astype(np.float32)
    S = rng.random((30, 3)) < 0.5
    S[np.arange(30), rng.integers(0, 3, 30)] = True
    for cls in (AvgPerceptron, MaxPegasos):
        a = cls(max_iter=1, shuffle=False).fit(X, S)
        b = cls(max_iter=1, shuffle=False).fit(X.astype(np.float64), S)
        assert np.all(np.isfinite(a.coef_))
        assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron, Perceptron])
def test_separated_stream_makes_no_update(cls):
    """Once the weights separate the stream (with margin 1 for the hinge rules), a
    further pass changes nothing."""
    rng = np.random.default_rng(3)
    centers = np.eye(3) * 4
    y = rng.integers(0, 3, 60)
    X = centers[y] + rng.uniform(-0.5, 0.5, (60, 3))
    S = np.zeros((60, 4), bool)
    S[np.arange(60), y] = True
    if cls is not Perceptron:
        S[:, 3] = rng.random(60) < 0.5       # an ambiguous extra candidate
    est = cls(max_iter=1, shuffle=False)
    for _ in range(100):
        before = est.__dict__.get("n_updates_", -1)
        est.partial_fit(X, S)
        if est.n_updates_ == before:
            break
    assert est.n_updates_ > 0
    W0 = est.coef_.copy()
    n0 = est.n_updates_
    est.partial_fit(X, S)
    assert est.n_updates_ == n0
    assert_array_equal(est.coef_, W0)
    assert_array_equal(est.predictions_, est.predict(X))


def test_full_candidate_set_gives_no_loss_but_pegasos_still_shrinks():
    X = np.array([[1.0, 2.0], [0.5, -1.0], [1.0, 1.0]])
    S = np.array([[True, False, False], [True, True, True], [True, True, True]])
    p = AvgPerceptron(max_iter=1, shuffle=False).fit(X, S)
    assert p.n_updates_ == 1                               # only the first round
    g = AvgPegasos(alpha=0.5, max_iter=1, shuffle=False, row_scale=1.0).fit(X, S)
    W, _, _ = _reference_pegasos(X, S, "avg", 0.5, np.arange(3))
    assert_allclose(g.coef_, W, atol=1e-12)
    assert g.n_updates_ == 1
    assert np.linalg.norm(g.coef_) < np.linalg.norm(AvgPegasos(alpha=0.5, max_iter=1, shuffle=False,
                                                               row_scale=1.0).fit(X[:1], S[:1]).coef_)


def test_zero_rows_never_give_nan():
    X = np.zeros((5, 3))
    for cls in (AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos):
        est = cls(max_iter=1, shuffle=False).fit(X, [[0, 1], [1], [2], [0], [1, 2]])
        assert np.isfinite(est.coef_).all()
        assert_array_equal(est.coef_, 0.0)
        assert np.isfinite(est.decision_function(X)).all()


# ---- sample weights (issue 18): the step of row i scaled by sample_weight[i] ---------------

def _weights(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.7], size=n)
    return w


@pytest.mark.parametrize("cls,rule", [(AvgPerceptron, "avg"), (MaxPerceptron, "max"), (AvgPegasos, "avg"),
                                      (MaxPegasos, "max")])
@given(problem=candidate_streams(), seed=st.integers(0, 1000), sparse=st.booleans())
@settings(max_examples=40, deadline=None)
def test_weighted_kernels_match_the_weighted_reference(cls, rule, problem, seed, sparse):
    X, S = problem
    sw = _weights(len(X), seed)
    pegasos = cls in (AvgPegasos, MaxPegasos)
    est = cls(**({"alpha": 0.1} if pegasos else {"eta": 0.7}), max_iter=1, shuffle=False)
    est.partial_fit(sp.csr_matrix(X) if sparse else X, S, sample_weight=sw)     # all-zero weights allowed here
    order = np.arange(len(X))
    ref = (_reference_pegasos(X, S, rule, 0.1 * est.row_scale_ ** 2, order, sw) if pegasos
           else _reference_perceptron_rule(X, S, rule, 0.7, order, sw))
    _check_against(est, *ref)


def test_sample_weight_edge_cases():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    y = rng.integers(0, 3, 30)
    plain = AvgPerceptron(max_iter=1, shuffle=False).fit(X, y)
    ones = AvgPerceptron(max_iter=1, shuffle=False).fit(X, y, sample_weight=np.ones(30))
    assert_array_equal(plain.coef_, ones.coef_)
    keep = np.arange(30) % 3 != 0
    zero = AvgPerceptron(max_iter=1, shuffle=False).fit(X, y, sample_weight=keep.astype(float))
    dropped = AvgPerceptron(max_iter=1, shuffle=False).fit(X[keep], y[keep])       # weight 0 = no step
    assert_allclose(zero.coef_, dropped.coef_)
    fitted = AvgPerceptron(max_iter=1, shuffle=False).fit(X, y)
    before = fitted.coef_.copy()
    for bad, match in [(-np.ones(30), "[Nn]egative"), (np.ones(5), "30"), (np.full(30, np.nan), "NaN")]:
        with pytest.raises(ValueError, match=match):
            fitted.partial_fit(X, y, sample_weight=bad)
        assert_array_equal(fitted.coef_, before)                                  # a failed call changes nothing


@pytest.mark.parametrize("cls", [Pegasos, AvgPegasos, MaxPegasos])
def test_row_scale_auto_makes_the_fit_independent_of_the_features_common_scale(cls):
    """row_scale="auto" treats X as X / rms row norm: 16 X gives the same predictions and
    coef_ / 16, as the fit of row_scale=1.0 on X / row_scale_ does; partial_fit keeps the
    first chunk's scale."""
    rng = np.random.RandomState(0)
    X = rng.rand(80, 5)
    y = rng.randint(0, 3, 80)
    a = cls(max_iter=3, random_state=0).fit(X, y)
    b = cls(max_iter=3, random_state=0).fit(16 * X, y)
    assert b.row_scale_ == pytest.approx(16 * a.row_scale_)
    assert_allclose(b.coef_, a.coef_ / 16, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(16 * X))
    c = cls(max_iter=3, random_state=0, row_scale=1.0).fit(X / a.row_scale_, y)
    assert_allclose(c.coef_ / a.row_scale_, a.coef_, rtol=1e-9, atol=1e-12)
    d = cls(max_iter=1).partial_fit(X[:40], y[:40], classes=np.arange(3))
    first = d.row_scale_
    d.partial_fit(100 * X[40:], y[40:])
    assert d.row_scale_ == first


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, Pegasos, Perceptron])
def test_a_single_class_is_refused_as_every_other_learner_refuses_it(cls):
    """The online partial-label learners fitted one class and predicted it; PRODEN, CLPL,
    CSPA, UMA and scikit-learn's Perceptron refuse it.  Declaring the classes still works."""
    X = np.random.RandomState(0).rand(10, 3)
    with pytest.raises(ValueError, match=f"{cls.__name__} needs at least 2 classes; got 1 class \\[0\\]"):
        cls().fit(X, np.zeros(10, dtype=int))
    assert cls().partial_fit(X, np.zeros(10, dtype=int), classes=[0, 1]).classes_.tolist() == [0, 1]
