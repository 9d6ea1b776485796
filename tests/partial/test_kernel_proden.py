"""KernelPRODEN: plain-numpy references of the candidate likelihood, the Nystroem map and the
whole fit; the label-free choice of gamma and alpha; save/load and bad input."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad, minimize
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem

import weaklabel
from weaklabel.metrics import candidate_log_loss
from weaklabel.partial import KernelPRODEN, candidate_likelihood_loss, nystroem_map
from weaklabel.partial._kernel_proden import ALPHAS, GAMMA_FACTORS
from weaklabel.simulate import make_candidate_sets


def _reference_cc(Z, S, w):
    """-sum_i w_i log(sum_{a in S_i} softmax(Z_i)_a) / sum_i w_i, row by row."""
    total = 0.0
    for i in range(Z.shape[0]):
        p = np.exp(Z[i] - Z[i].max())
        p = p / p.sum()
        total += w[i] * -np.log(sum(p[a] for a in range(Z.shape[1]) if S[i, a]))
    return total / sum(w)


def _random_sets(rng, n, K):
    S = rng.rand(n, K) < 0.4
    S[np.arange(n), rng.randint(0, K, n)] = True
    return S


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_candidate_likelihood_loss_equals_the_reference_and_its_gradient_is_exact(seed):
    rng = np.random.RandomState(seed)
    n, K = rng.randint(1, 12), rng.randint(2, 6)
    Z, S, w = rng.randn(n, K) * 3, _random_sets(rng, n, K), rng.rand(n) + 0.1
    value, G = candidate_likelihood_loss(Z, S, w)
    assert value == pytest.approx(_reference_cc(Z, S, w), rel=1e-10, abs=1e-12)
    err = check_grad(lambda z: candidate_likelihood_loss(z.reshape(n, K), S, w)[0],
                     lambda z: candidate_likelihood_loss(z.reshape(n, K), S, w)[1].ravel(), Z.ravel())
    assert err < 1e-5
    # the metric the selection reads is the same quantity (unweighted)
    assert candidate_likelihood_loss(Z, S)[0] == pytest.approx(
        candidate_log_loss(S, np.exp(Z - Z.max(1, keepdims=True)) / np.exp(Z - Z.max(1, keepdims=True)).sum(1,
                           keepdims=True)), rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), scale=st.sampled_from([1.0, 50.0, 400.0]))
def test_candidate_likelihood_loss_with_far_apart_scores(seed, scale):
    # scores hundreds apart, candidates far below the best class (past the exponential's
    # floor of the vectorised path): against scipy's logsumexp, value and gradient
    from scipy.special import logsumexp, softmax

    rng = np.random.RandomState(seed)
    n, K = rng.randint(1, 12), rng.randint(2, 7)
    Z, S, w = rng.randn(n, K) * scale, _random_sets(rng, n, K), rng.rand(n) + 0.1
    Z[0, ~S[0]] += 1000.0                                   # row 0: every candidate 1,000 below
    value, G = candidate_likelihood_loss(Z, S, w)
    lse_all = logsumexp(Z, axis=1)
    lse_in = np.array([logsumexp(Z[i, S[i]]) for i in range(n)])
    wn = w / w.sum()
    assert value == pytest.approx(float(wn @ (lse_all - lse_in)), rel=1e-12, abs=1e-12)
    restricted = np.where(S, np.exp(Z - np.where(S, Z, -np.inf).max(1, keepdims=True)), 0.0)
    restricted /= restricted.sum(1, keepdims=True)
    np.testing.assert_allclose(G, wn[:, None] * (softmax(Z, axis=1) - restricted), rtol=1e-10, atol=1e-15)


def test_candidate_likelihood_loss_near_the_exponentials_floor():
    # the best candidate 650 below the best class and another past the floor (exp(-700)):
    # read from exp(Z - max), the candidates' sum would carry the floor's error
    from scipy.special import logsumexp

    Z = np.array([[0.0, -650.0, -720.0, -3.0], [0.0, -599.0, -760.0, -1.0]])
    S = np.array([[False, True, True, False], [False, True, True, False]])
    value, _ = candidate_likelihood_loss(Z, S)
    ref = np.mean([logsumexp(z) - logsumexp(z[s]) for z, s in zip(Z, S)])
    assert value == pytest.approx(ref, rel=1e-14)


def test_nystroem_map_is_exact_on_the_landmarks_and_matches_scikit_learns():
    rng = np.random.RandomState(0)
    X, L = rng.randn(30, 4), rng.randn(12, 4)
    F, N = nystroem_map(X, L, 0.3)
    FL, _ = nystroem_map(L, L, 0.3)
    K_LL = np.exp(-0.3 * ((L[:, None, :] - L[None, :, :]) ** 2).sum(-1))       # the kernel by hand
    np.testing.assert_allclose(FL @ FL.T, K_LL, atol=1e-10)
    np.testing.assert_allclose(N, N.T, atol=1e-10)
    sk = Nystroem(gamma=0.3, n_components=12, random_state=0).fit(L).transform(X)   # landmarks: L permuted
    np.testing.assert_allclose(F @ F.T, sk @ sk.T, atol=1e-10)


def _reference_fit(X, S, gamma, alpha, max_iter, tol):
    """Every row a landmark: the kernel by hand, K^{-1/2} by eigh, standardised features;
    logistic regression on the uniform weights (PRODEN's first round, 50 iterations), then
    the candidate likelihood from there, both by scipy's L-BFGS on plain-numpy objectives."""
    K = np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    vals, vecs = np.linalg.eigh(K)
    N = (vecs / np.sqrt(np.maximum(vals, 1e-12))) @ vecs.T
    F = K @ N
    F = (F - F.mean(0)) / np.where(F.std(0) < 1e-12, 1.0, F.std(0))
    n, m, C = F.shape[0], F.shape[1], S.shape[1]
    Q = S / S.sum(1, keepdims=True)

    def objective(theta, loss):
        W, b = theta[:m * C].reshape(m, C), theta[m * C:]
        Z = F @ W + b
        P = np.exp(Z - Z.max(1, keepdims=True))
        P /= P.sum(1, keepdims=True)
        if loss == "ce":
            value, G = -np.sum(Q * np.log(P)) / n, (P - Q) / n
        else:
            mass = (P * S).sum(1)
            value, G = -np.mean(np.log(mass)), (P - P * S / mass[:, None]) / n
        grad = np.concatenate([(F.T @ G + alpha * W).ravel(), G.sum(0)])
        return value + 0.5 * alpha * np.sum(W * W), grad

    theta = minimize(objective, np.zeros(m * C + C), args=("ce",), jac=True, method="L-BFGS-B",
                     options={"maxiter": 50, "gtol": 1e-6}).x
    theta = minimize(objective, theta, args=("cc",), jac=True, method="L-BFGS-B",
                     options={"maxiter": max_iter, "gtol": tol}).x
    Z = F @ theta[:m * C].reshape(m, C) + theta[m * C:]
    return np.exp(Z - Z.max(1, keepdims=True)) / np.exp(Z - Z.max(1, keepdims=True)).sum(1, keepdims=True)


def test_a_fit_with_given_gamma_and_alpha_equals_the_plain_numpy_reference():
    rng = np.random.RandomState(0)
    y = np.arange(40) % 3
    X = rng.randn(40, 3) + 1.5 * np.eye(3)[y]
    S = np.eye(3, dtype=bool)[y] | (rng.rand(40, 3) < 0.3)
    clf = KernelPRODEN(gamma=0.5, alpha=0.1, n_components=40, max_iter=300, tol=1e-8, random_state=0).fit(X, S)
    assert clf.landmarks_.shape == (40, 3) and clf.selection_ == []
    ref = _reference_fit(X, S, 0.5, 0.1, 300, 1e-8)
    np.testing.assert_allclose(clf.predict_proba(X), ref, atol=1e-4)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X[:600] / 16
    y = y[:600]
    return X, y, make_candidate_sets(y, 3, random_state=0)


def test_gamma_and_alpha_are_chosen_by_held_out_candidate_likelihood_alone(digits):
    X, y, S = digits
    clf = KernelPRODEN(n_components=100, max_iter=200, random_state=0).fit(X[:450], S[:450])
    assert len(clf.selection_) == len(GAMMA_FACTORS) * len(ALPHAS)
    best = min(clf.selection_, key=lambda r: r["held_out_log_loss"])
    assert (clf.gamma_, clf.alpha_) == (best["gamma"], best["alpha"])
    scale = 1.0 / (X.shape[1] * np.mean(X[:450].var(axis=0)))
    assert sorted({r["gamma"] for r in clf.selection_}) == pytest.approx([f * scale for f in GAMMA_FACTORS])
    assert clf.score(X[450:], y[450:]) > 0.85
    # no true label reaches fit: the same candidate sets with other (wrong) truths give the same model
    again = KernelPRODEN(n_components=100, max_iter=200, random_state=0).fit(X[:450], S[:450])
    np.testing.assert_array_equal(again.predict_proba(X[450:]), clf.predict_proba(X[450:]))


def test_the_selection_fits_stop_at_selection_max_iter_and_the_final_fit_at_max_iter(digits):
    """The choice of gamma and alpha runs shorter fits (selection_max_iter, at most max_iter);
    the final fit runs up to max_iter."""
    X, y, S = digits
    kw = {"n_components": 100, "random_state": 0}
    short = KernelPRODEN(max_iter=200, selection_max_iter=3, **kw).fit(X[:450], S[:450])
    full = KernelPRODEN(max_iter=200, selection_max_iter=200, **kw).fit(X[:450], S[:450])
    assert [r["held_out_log_loss"] for r in short.selection_] != [r["held_out_log_loss"] for r in full.selection_]
    assert short.n_iter_ > 4                                   # the final fit is not capped by the selection's
    capped = KernelPRODEN(max_iter=3, selection_max_iter=1000, **kw).fit(X[:450], S[:450])
    same = KernelPRODEN(max_iter=3, selection_max_iter=3, **kw).fit(X[:450], S[:450])
    assert capped.selection_ == same.selection_                # the selection never runs past max_iter


def test_sparse_rows_give_the_dense_model(digits):
    X, y, S = digits
    kw = dict(gamma=0.05, alpha=0.01, n_components=80, max_iter=100, random_state=0)
    dense = KernelPRODEN(**kw).fit(X[:300], S[:300])
    sparse = KernelPRODEN(**kw).fit(sp.csr_matrix(X[:300]), S[:300])
    np.testing.assert_allclose(sparse.predict_proba(sp.csr_matrix(X[300:])), dense.predict_proba(X[300:]),
                               atol=1e-8)


def test_save_and_load_give_the_same_predictions_and_hostile_state_is_refused(digits, tmp_path):
    X, y, S = digits
    clf = KernelPRODEN(gamma=0.05, alpha=0.01, n_components=50, max_iter=100, random_state=0).fit(X[:300], S[:300])
    path = tmp_path / "k.wlm"
    clf.save(path)
    back = weaklabel.load(path)
    np.testing.assert_array_equal(back.predict_proba(X[300:]), clf.predict_proba(X[300:]))
    assert (back.gamma_, back.alpha_, back.n_iter_) == (clf.gamma_, clf.alpha_, clf.n_iter_)
    bad = copy.deepcopy(clf)
    bad._std = bad._std.copy()
    for tiny in (0.0, 1e-300):                       # a fit leaves 1 for a feature below 1e-12
        bad._std[0] = tiny
        with pytest.raises(ValueError, match="std must be at least 1e-12, as a fit leaves it"):
            KernelPRODEN()._set_state(bad._state_arrays(), bad._state_meta())
    empty = {**clf._state_arrays(), "landmarks": np.zeros((0, X.shape[1])), "normalization": np.zeros((0, 0)),
             "mean": np.zeros(0), "std": np.zeros(0), "W": clf._W[:1]}
    with pytest.raises(ValueError, match="no landmark"):
        KernelPRODEN()._set_state(empty, clf._state_meta())
    meta = {**clf._state_meta(), "gamma": -1.0}
    with pytest.raises(ValueError, match="gamma"):
        KernelPRODEN()._set_state(clf._state_arrays(), meta)


def test_bad_input_is_one_clear_error_and_leaves_the_fitted_model_unchanged(digits):
    X, y, S = digits
    clf = KernelPRODEN(gamma=0.05, alpha=0.01, n_components=40, max_iter=50, random_state=0).fit(X[:200], S[:200])
    before = clf.predict_proba(X[300:])
    Xbad = X[:200].copy()
    Xbad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xbad, S[:200])
    with pytest.raises(ValueError, match="validation_fraction"):
        KernelPRODEN(validation_fraction=0.01).fit(X[:20], S[:20])
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:5, :10])
    np.testing.assert_array_equal(clf.predict_proba(X[300:]), before)
