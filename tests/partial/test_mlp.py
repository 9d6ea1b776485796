"""MLPPRODEN: a plain-numpy reference of the loss and gradient (row by row) and of the whole fit
(standardising, held-out rows, Glorot start, Adam on minibatches, renewed confidences, early
stopping, refit); the label-free choice of alpha; save/load and bad input."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad
from sklearn.datasets import load_digits

import weaklabel
from weaklabel.partial import MLPPRODEN, mlp_loss
from weaklabel.partial._mlp import ALPHAS, INIT_ALPHAS, NOISES
from weaklabel.simulate import make_candidate_sets


def _reference_loss(params, X, Q, w, alpha):
    """The loss and its gradient, one row at a time, by the chain rule written out."""
    W1, b1, W2, b2 = params
    gW1, gb1, gW2, gb2 = (np.zeros_like(p) for p in params)
    total, W = 0.0, float(sum(w))
    for i in range(X.shape[0]):
        a = X[i] @ W1 + b1
        h = np.where(a > 0, a, 0.0)
        z = h @ W2 + b2
        p = np.exp(z - z.max())
        p = p / p.sum()
        total += w[i] * -sum(Q[i, k] * np.log(p[k]) for k in range(z.size) if Q[i, k] > 0)
        g = w[i] * (p - Q[i]) / W
        gW2 += np.outer(h, g)
        gb2 += g
        gh = (W2 @ g) * (a > 0)
        gW1 += np.outer(X[i], gh)
        gb1 += gh
    loss = total / W + alpha / 2 * ((W1 ** 2).sum() + (W2 ** 2).sum())
    return loss, (gW1 + alpha * W1, gb1, gW2 + alpha * W2, gb2)


def _random_problem(rng, n, d, h, K):
    params = (rng.randn(d, h), rng.randn(h) * 0.1, rng.randn(h, K), rng.randn(K) * 0.1)
    X = rng.randn(n, d)
    S = rng.rand(n, K) < 0.4
    S[np.arange(n), rng.randint(0, K, n)] = True
    Q = S * rng.rand(n, K)
    Q = Q / Q.sum(axis=1, keepdims=True)
    return params, X, Q, rng.rand(n) + 0.1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_loss_and_gradient_equal_the_row_by_row_reference(seed):
    rng = np.random.RandomState(seed)
    n, d, h, K = rng.randint(1, 9), rng.randint(1, 5), rng.randint(1, 6), rng.randint(2, 5)
    params, X, Q, w = _random_problem(rng, n, d, h, K)
    alpha = float(rng.choice([0.0, 0.01, 1.0]))
    loss, grads = mlp_loss(params, X, Q, w, alpha)
    ref_loss, ref_grads = _reference_loss(params, X, Q, w, alpha)
    assert loss == pytest.approx(ref_loss, rel=1e-10, abs=1e-12)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12)
    # sparse rows give the same loss and gradient
    sloss, sgrads = mlp_loss(params, sp.csr_matrix(X), Q, w, alpha)
    assert sloss == pytest.approx(loss, rel=1e-12)
    for g, r in zip(sgrads, grads):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


def test_rows_of_weight_zero_add_nothing_and_a_batch_of_them_leaves_the_penalty():
    rng = np.random.RandomState(3)
    params, X, Q, w = _random_problem(rng, 6, 3, 4, 3)
    w[:3] = 0.0
    loss, grads = mlp_loss(params, X, Q, w, 0.1)
    loss3, grads3 = mlp_loss(params, X[3:], Q[3:], w[3:], 0.1)
    assert loss == pytest.approx(loss3, rel=1e-12)
    for g, h in zip(grads, grads3):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-14)
    loss0, grads0 = mlp_loss(params, X, Q, np.zeros(6), 0.1)
    assert loss0 == pytest.approx(0.05 * ((params[0] ** 2).sum() + (params[2] ** 2).sum()))
    np.testing.assert_allclose(grads0[0], 0.1 * params[0])
    assert not grads0[1].any() and not grads0[3].any()


@pytest.mark.slow
def test_mostly_zero_sample_weights_fit_and_all_zero_is_refused(digits):
    X, y, S = digits
    sw = np.zeros(400)
    sw[::7] = 1.0                 # most minibatches hold rows of weight 0 only
    clf = MLPPRODEN(hidden_units=8, alpha=1e-3, max_iter=5, batch_size=4, random_state=0).fit(
        X[:400], S[:400], sample_weight=sw)
    assert np.isfinite(clf.predict_proba(X[400:])).all()
    with pytest.raises(ValueError, match="non-zero"):
        MLPPRODEN(max_iter=2).fit(X[:100], S[:100], sample_weight=np.zeros(100))


def test_the_gradient_is_the_derivative_of_the_loss():
    rng = np.random.RandomState(1)
    params, X, Q, w = _random_problem(rng, 7, 3, 4, 3)
    shapes = [p.shape for p in params]

    def unpack(theta):
        out, at = [], 0
        for s in shapes:
            size = int(np.prod(s))
            out.append(theta[at:at + size].reshape(s))
            at += size
        return tuple(out)

    theta = np.concatenate([p.ravel() for p in params])
    err = check_grad(lambda t: mlp_loss(unpack(t), X, Q, w, 0.1)[0],
                     lambda t: np.concatenate([g.ravel() for g in mlp_loss(unpack(t), X, Q, w, 0.1)[1]]), theta)
    assert err < 1e-5


def _reference_fit(X, S, *, alpha, hidden, lr, batch, max_iter, renew, patience, frac, seed, decay, noise=0.0):
    """MLPPRODEN's fit with init="uniform", a given alpha and a given input noise, in plain
    numpy and loops."""
    n, d = X.shape
    K = S.shape[1]
    scale = X.std(axis=0)
    scale[scale < 1e-12] = 1.0
    Z = X / scale
    rng = np.random.RandomState(seed)
    perm = rng.permutation(n)
    n_val = int(round(frac * n))
    held, part = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    net_seed = rng.randint(np.iinfo(np.int32).max)

    def softmax_rows(A):
        E = np.exp(A - A.max(axis=1, keepdims=True))
        return E / E.sum(axis=1, keepdims=True)

    def forward(p, A):
        return np.maximum(A @ p[0] + p[1], 0) @ p[2] + p[3]

    def train(Zt, St, epochs, held_rows=None):
        r = np.random.RandomState(net_seed)
        b1, b2 = np.sqrt(6 / (d + hidden)), np.sqrt(6 / (hidden + K))
        p = [r.uniform(-b1, b1, (d, hidden)), np.zeros(hidden), r.uniform(-b2, b2, (hidden, K)), np.zeros(K)]
        m = [np.zeros_like(a) for a in p]
        v = [np.zeros_like(a) for a in p]
        Q = St / St.sum(axis=1, keepdims=True)
        avg = [a.copy() for a in p]                  # the weights' moving average, scored and returned
        t, best, stale = 0, (np.inf, 0, [a.copy() for a in avg]), 0
        for epoch in range(1, epochs + 1):
            order = r.permutation(Zt.shape[0])
            for lo in range(0, Zt.shape[0], batch):
                rows = order[lo:lo + batch]
                Zb = Zt[rows]
                if noise > 0:                        # drawn right after the minibatch is cut
                    Zb = Zb + noise * r.standard_normal((rows.size, d))
                _, g = _reference_loss(p, Zb, Q[rows], np.ones(rows.size), alpha)
                t += 1
                step = lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                for j in range(4):
                    m[j] = 0.9 * m[j] + 0.1 * g[j]
                    v[j] = 0.999 * v[j] + 0.001 * g[j] ** 2
                    p[j] = p[j] - step * m[j] / (np.sqrt(v[j]) + 1e-8)
                    avg[j] = decay * avg[j] + (1 - decay) * p[j]
            if epoch % renew == 0:                   # from the current network, not the average
                P = softmax_rows(forward(p, Zt)) * St
                Q = P / P.sum(axis=1, keepdims=True)
            if held_rows is not None:
                Ph = softmax_rows(forward(avg, Z[held_rows]))
                ll = -np.mean(np.log((Ph * S[held_rows]).sum(axis=1)))
                if ll < best[0] - 1e-4:
                    best, stale = (ll, epoch, [a.copy() for a in avg]), 0
                else:
                    stale += 1
                    if stale >= patience:
                        break
        return avg, best

    _, best = train(Z[part], S[part], max_iter, held)
    p, _ = train(Z, S, best[1])
    return softmax_rows(forward(p, Z)), best[1]


@pytest.mark.parametrize("decay, noise", [(0.0, 0.0), (0.9, 0.0), (0.9, 0.5)])
def test_a_fit_with_a_given_alpha_equals_the_plain_numpy_reference(decay, noise):
    """With the weights' moving average (0.9) and without it (0: the last weights); with
    input noise (0.5) and without."""
    rng = np.random.RandomState(0)
    y = np.arange(48) % 3
    X = rng.randn(48, 4) + 1.5 * np.eye(3, 4)[y]
    S = np.eye(3, dtype=bool)[y] | (rng.rand(48, 3) < 0.3)
    kw = dict(alpha=0.01, hidden=5, lr=0.01, batch=16, max_iter=25, renew=3, patience=4, frac=0.25, seed=7,
              decay=decay, noise=noise)
    clf = MLPPRODEN(hidden_units=5, alpha=0.01, init="uniform", input_noise=noise, learning_rate=0.01,
                    batch_size=16, max_iter=25, renew_every=3, ema_decay=decay, n_iter_no_change=4,
                    validation_fraction=0.25, random_state=7).fit(X, S)
    ref, n_iter = _reference_fit(X, S, **kw)
    assert clf.n_iter_ == n_iter and clf.alpha_ == 0.01 and clf.input_noise_ == noise and len(clf.selection_) == 1
    np.testing.assert_allclose(clf.predict_proba(X), ref, rtol=1e-7, atol=1e-10)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:700], y[:700], make_candidate_sets(y[:700], 3, random_state=0)


@pytest.mark.slow
def test_alpha_auto_keeps_the_most_likely_held_out_sets_and_learns_digits(digits):
    X, y, S = digits
    clf = MLPPRODEN(hidden_units=32, learning_rate=0.01, max_iter=40, random_state=0).fit(X[:500], S[:500])
    # the penalties without noise, then each noise level at the most likely of them
    first = clf.selection_[:len(ALPHAS)]
    assert [(r["alpha"], r["input_noise"]) for r in first] == [(a, 0.0) for a in ALPHAS]
    at = min(first, key=lambda r: r["held_out_log_loss"])["alpha"]
    assert [(r["alpha"], r["input_noise"]) for r in clf.selection_[len(ALPHAS):]] == [(at, n) for n in NOISES]
    best = min(clf.selection_, key=lambda r: r["held_out_log_loss"])
    assert (clf.alpha_, clf.input_noise_) == (best["alpha"], best["input_noise"])
    assert clf.n_iter_ == best["n_iter"] >= 1
    # the noise entry is the fit with that noise given (same held-out rows, same start)
    given = MLPPRODEN(hidden_units=32, learning_rate=0.01, max_iter=40, alpha=at, input_noise=NOISES[0],
                      random_state=0).fit(X[:500], S[:500])
    assert given.selection_[0]["held_out_log_loss"] == clf.selection_[len(ALPHAS)]["held_out_log_loss"]
    # three candidates a row, the true label never given: far above a third
    assert clf.score(X[500:], y[500:]) > 0.75
    again = MLPPRODEN(hidden_units=32, learning_rate=0.01, max_iter=40, random_state=0).fit(X[:500], S[:500])
    np.testing.assert_array_equal(again.predict_proba(X[500:]), clf.predict_proba(X[500:]))


@pytest.mark.slow
def test_the_linear_start_and_the_renewal_schedule_are_used(digits):
    X, y, S = digits
    kw = dict(hidden_units=16, alpha=1e-3, max_iter=12, n_iter_no_change=50, random_state=0)
    a = MLPPRODEN(init="proden", **kw).fit(X[:300], S[:300])
    b = MLPPRODEN(init="uniform", **kw).fit(X[:300], S[:300])
    c = MLPPRODEN(init="uniform", renew_every=1, **kw).fit(X[:300], S[:300])
    pa, pb, pc = (m.predict_proba(X[300:]) for m in (a, b, c))
    assert not np.allclose(pa, pb) and not np.allclose(pb, pc)


@pytest.mark.slow
def test_the_linear_start_penalty_is_the_most_likely_on_the_held_out_sets(digits):
    """init_alpha="auto": each of INIT_ALPHAS' PRODEN fitted on the rows not held out, scored
    by the held-out candidate likelihood; the best one starts the network (the same model as
    that penalty given), and a given penalty is used as is."""
    from weaklabel.metrics import candidate_log_loss
    from weaklabel.partial import PRODEN
    from weaklabel.partial._batch import held_out_split

    X, y, S = digits
    kw = dict(hidden_units=16, alpha=1e-3, max_iter=8, random_state=0)
    clf = MLPPRODEN(**kw).fit(X[:300], S[:300])
    assert [r["alpha"] for r in clf.init_selection_] == list(INIT_ALPHAS)
    # the held-out rows are the first draw of the generator (as in fit), the features scaled
    scale = np.where(X[:300].std(axis=0) < 1e-12, 1.0, X[:300].std(axis=0))
    Z, M = X[:300] / scale, S[:300].mask
    held, part = held_out_split(clf, 300, np.random.RandomState(0), "test")
    for r in clf.init_selection_:
        lin = PRODEN(init="clpl", alpha=r["alpha"]).fit(Z[part], M[part])
        assert r["held_out_log_loss"] == pytest.approx(candidate_log_loss(M[held], lin.predict_proba(Z[held])), rel=1e-9)
    assert clf.init_alpha_ == min(clf.init_selection_, key=lambda r: r["held_out_log_loss"])["alpha"]
    given = MLPPRODEN(init_alpha=clf.init_alpha_, **kw).fit(X[:300], S[:300])
    assert given.init_selection_ == [] and given.init_alpha_ == clf.init_alpha_
    np.testing.assert_allclose(given.predict_proba(X[300:]), clf.predict_proba(X[300:]), rtol=1e-10, atol=1e-12)
    other = next(a for a in INIT_ALPHAS if a != clf.init_alpha_)
    assert not np.allclose(MLPPRODEN(init_alpha=other, **kw).fit(X[:300], S[:300]).predict_proba(X[300:]),
                           clf.predict_proba(X[300:]))
    assert MLPPRODEN(init="uniform", **kw).fit(X[:300], S[:300]).init_alpha_ is None


def test_sparse_rows_give_the_dense_rows_model(digits):
    # from uniform confidences: the linear start (PRODEN's L-BFGS) does not give the same
    # weights on sparse and dense rows to this precision
    X, y, S = digits
    kw = dict(hidden_units=16, alpha=1e-3, learning_rate=0.01, max_iter=30, init="uniform", random_state=0)
    clf = MLPPRODEN(**kw).fit(sp.csr_matrix(X[:500]), S[:500])
    dense = MLPPRODEN(**kw).fit(X[:500], S[:500])
    np.testing.assert_allclose(clf._scale, np.where(X[:500].std(axis=0) < 1e-12, 1.0, X[:500].std(axis=0)))
    np.testing.assert_allclose(clf.predict_proba(sp.csr_matrix(X[500:])), dense.predict_proba(X[500:]), atol=1e-8)
    # from uniform confidences 30 passes learn less than from the linear start (above: > 0.75)
    assert clf.score(sp.csr_matrix(X[500:]), y[500:]) > 0.4
    # with input noise the sparse minibatches are made dense before the noise: the same model
    noisy = {**kw, "input_noise": 0.5, "max_iter": 10}
    np.testing.assert_allclose(MLPPRODEN(**noisy).fit(sp.csr_matrix(X[:300]), S[:300]).predict_proba(X[500:]),
                               MLPPRODEN(**noisy).fit(X[:300], S[:300]).predict_proba(X[500:]), atol=1e-8)


@pytest.mark.slow
def test_save_and_load_give_the_same_predictions_and_hostile_state_is_refused(digits, tmp_path):
    X, y, S = digits
    clf = MLPPRODEN(hidden_units=8, alpha=1e-3, input_noise=0.5, max_iter=5, random_state=0).fit(X[:200], S[:200])
    path = tmp_path / "m.wlm"
    clf.save(path)
    back = weaklabel.load(path)
    np.testing.assert_array_equal(back.predict_proba(X[300:]), clf.predict_proba(X[300:]))
    assert ((back.alpha_, back.init_alpha_, back.input_noise_, back.n_iter_)
            == (clf.alpha_, clf.init_alpha_, 0.5, clf.n_iter_))
    # a file saved before the linear start's penalty and the noise were kept loads (the start
    # unknown, no noise)
    old = {k: v for k, v in clf._state_meta().items() if k not in ("init_alpha", "input_noise")}
    legacy = MLPPRODEN()
    legacy._set_state(clf._state_arrays(), old)
    assert legacy.init_alpha_ is None and legacy.input_noise_ == 0.0
    np.testing.assert_array_equal(legacy.predict_proba(X[300:]), clf.predict_proba(X[300:]))
    for key, value in (("init_alpha", float("nan")), ("input_noise", -1.0), ("input_noise", "loud")):
        with pytest.raises(ValueError, match=key):
            MLPPRODEN()._set_state(clf._state_arrays(), {**clf._state_meta(), key: value})
    bad = copy.deepcopy(clf)
    bad._scale = bad._scale.copy()
    for tiny in (0.0, 1e-300):                       # a fit leaves 1 for a column below 1e-12
        bad._scale[0] = tiny
        with pytest.raises(ValueError, match="scale must be at least 1e-12, as a fit leaves it"):
            MLPPRODEN()._set_state(bad._state_arrays(), bad._state_meta())
    one = copy.deepcopy(clf)                         # a file of one class: no fit leaves it
    one.classes_ = one.classes_[:1]
    one.coefs_ = [one.coefs_[0], one.coefs_[1][:, :1]]
    one.intercepts_ = [one.intercepts_[0], one.intercepts_[1][:1]]
    with pytest.raises(ValueError, match="at least 2 distinct labels"):
        MLPPRODEN()._set_state(one._state_arrays(), one._state_meta())
    bad = copy.deepcopy(clf)
    bad.coefs_ = [bad.coefs_[0].copy(), bad.coefs_[1]]
    bad.coefs_[0][0, 0] = np.inf
    with pytest.raises(ValueError, match="W1 is not finite"):
        MLPPRODEN()._set_state(bad._state_arrays(), bad._state_meta())
    with pytest.raises(ValueError, match="alpha"):
        MLPPRODEN()._set_state(clf._state_arrays(), {**clf._state_meta(), "alpha": -1.0})


@pytest.mark.slow
def test_bad_input_is_one_clear_error_and_leaves_the_fitted_model_unchanged(digits):
    X, y, S = digits
    clf = MLPPRODEN(hidden_units=8, alpha=1e-3, max_iter=5, random_state=0).fit(X[:200], S[:200])
    before = clf.predict_proba(X[300:])
    Xbad = X[:200].astype(float)
    Xbad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xbad, S[:200])
    with pytest.raises(ValueError, match="validation_fraction"):
        clf.set_params(validation_fraction=0.01).fit(X[:20], S[:20])
    clf.set_params(validation_fraction=0.1)
    with pytest.raises(ValueError, match="sample_weight"):
        clf.fit(X[:200], S[:200], sample_weight=-np.ones(200))
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:5, :10])
    np.testing.assert_array_equal(clf.predict_proba(X[300:]), before)


@pytest.mark.slow
def test_no_finite_held_out_score_is_an_error_that_leaves_the_model(digits, monkeypatch):
    import weaklabel.partial._mlp as mlp

    X, y, S = digits
    clf = MLPPRODEN(hidden_units=8, alpha=1e-3, max_iter=5, random_state=0).fit(X[:200], S[:200])
    before = clf.predict_proba(X[300:])
    monkeypatch.setattr(mlp, "candidate_log_loss", lambda S, P: float("nan"))
    with pytest.raises(FloatingPointError, match="no pass gave a finite held-out"):
        clf.fit(X[:200], S[:200])
    np.testing.assert_array_equal(clf.predict_proba(X[300:]), before)
