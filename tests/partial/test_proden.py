"""PRODEN (Lv et al. 2020) and PL-KNN (Hüllermeier & Beringer 2006): plain-numpy references of
the loss, the weight update and the vote, and the learners on digits, sparse, weighted and
bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad
from sklearn.datasets import load_digits

from weaklabel.partial import PLKNN, PRODEN, weighted_cross_entropy
from weaklabel.partial._proden import _restricted_posterior
from weaklabel.simulate import make_candidate_sets


def _reference_loss(Z, Q, w):
    total = 0.0
    for i in range(Z.shape[0]):
        m = max(Z[i])
        log_norm = m + np.log(sum(np.exp(z - m) for z in Z[i]))
        total += w[i] * -sum(Q[i, a] * (Z[i, a] - log_norm) for a in range(Z.shape[1]))
    return total / sum(w)


def _reference_update(Z, S):
    """q_ia = p_a / sum_{b in S_i} p_b, row by row."""
    Q = np.zeros_like(Z)
    for i in range(Z.shape[0]):
        p = np.exp(Z[i] - Z[i].max())
        p = p / p.sum()
        cand = [a for a in range(Z.shape[1]) if S[i, a]]
        for a in cand:
            Q[i, a] = p[a] / sum(p[b] for b in cand)
    return Q


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_loss_gradient_and_weight_update_match_numpy(seed):
    rng = np.random.default_rng(seed)
    n, K = 7, 4
    Z = rng.normal(size=(n, K)) * 2.0
    S = rng.random((n, K)) < 0.4
    S[np.arange(n), rng.integers(0, K, n)] = True
    Q = rng.random((n, K)) * S
    Q /= Q.sum(axis=1, keepdims=True)
    w = rng.uniform(0.1, 2.0, n)
    assert weighted_cross_entropy(Z, Q, w)[0] == pytest.approx(_reference_loss(Z, Q, w), rel=1e-10)
    f = lambda z: weighted_cross_entropy(z.reshape(n, K), Q, w)[0]
    g = lambda z: weighted_cross_entropy(z.reshape(n, K), Q, w)[1].ravel()
    assert check_grad(f, g, Z.ravel()) < 1e-5
    np.testing.assert_allclose(_restricted_posterior(Z, S.astype(float)), _reference_update(Z, S), rtol=1e-10)


def test_loss_taken_in_blocks_equals_the_reference(monkeypatch):
    """The loss runs over blocks of rows (cache-sized); rows split across several blocks,
    a short last block included, give the same value and gradient."""
    import weaklabel.partial._proden as proden

    rng = np.random.default_rng(3)
    n, K = 23, 5
    Z = rng.normal(size=(n, K)) * 3.0
    Q = rng.random((n, K)) * (rng.random((n, K)) < 0.5)
    Q[:, 0] += 0.1
    Q /= Q.sum(axis=1, keepdims=True)
    w = rng.uniform(0.1, 2.0, n)
    whole, G_whole = weighted_cross_entropy(Z, Q, w)
    monkeypatch.setattr(proden, "_BLOCK_VALUES", 4 * K)          # blocks of 4 rows, the last of 3
    blocked, G_blocked = weighted_cross_entropy(Z, Q, w)
    assert blocked == pytest.approx(_reference_loss(Z, Q, w), rel=1e-12)
    assert blocked == pytest.approx(whole, rel=1e-12)
    np.testing.assert_allclose(G_blocked, G_whole, rtol=1e-12, atol=1e-15)


def test_weight_update_survives_scores_far_apart():
    Z = np.array([[0.0, -2000.0, -2001.0]])
    S = np.array([[0.0, 1.0, 1.0]])
    Q = _restricted_posterior(Z, S)
    np.testing.assert_allclose(Q, [[0.0, 1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))]])


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def test_proden_disambiguates_and_beats_uniform_weights(digits):
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = PRODEN(alpha=1e-3).fit(X[:1400], S[:1400])
    uniform = PRODEN(alpha=1e-3, max_rounds=1, max_iter=500).fit(X[:1400], S[:1400])
    acc = est.score(X[1400:], y[1400:])
    assert acc > 0.88                                                       # measured 0.904
    assert acc > uniform.score(X[1400:], y[1400:]) + 0.03                   # uniform: 0.839
    # the confidences are the model's posterior restricted to the sets (the fixed point), and
    # their argmax recovers most true training labels
    Q = _reference_update(est.decision_function(X[:1400]), np.asarray(S[:1400]))
    assert est.n_iter_ < est.max_rounds and np.abs(est.confidence_ - Q).max() < 1e-3 + 1e-6
    assert np.all(est.confidence_[~np.asarray(S[:1400])] == 0)
    assert np.mean(est.classes_[est.confidence_.argmax(axis=1)] == y[:1400]) > 0.9
    np.testing.assert_allclose(est.predict_proba(X[:5]).sum(axis=1), 1.0)


def _clpl_start_data(digits):
    X, y = digits
    X, y = X[:300], y[:300]
    return X, y, make_candidate_sets(y, 3, random_state=2), np.random.default_rng(0).uniform(0.5, 2.0, y.size)


def _assert_one_round_from_clpl(X, S, sw, *, update, init_alpha, alpha, reference):
    """One round of PRODEN(init="clpl") equals one weighted L-BFGS fit (penalty ``alpha``) of
    ``reference`` (the plain-numpy update) applied to the public CLPL's scores (penalty
    ``init_alpha``)."""
    from weaklabel._lbfgs import lbfgs_fit
    from weaklabel.partial import CLPL

    Q0 = reference(CLPL(alpha=init_alpha).fit(X, S, sample_weight=sw).decision_function(X), np.asarray(S))
    W, _ = lbfgs_fit(X, 10, lambda Z: weighted_cross_entropy(Z, Q0, sw), alpha=alpha, fit_intercept=True,
                     max_iter=10, tol=1e-6)
    given = {} if init_alpha == alpha else {"init_alpha": init_alpha}
    one = PRODEN(alpha=alpha, init="clpl", update=update, max_rounds=1, **given).fit(X, S, sample_weight=sw)
    np.testing.assert_allclose(one.coef_, W[:-1].T, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(one.intercept_, W[-1], rtol=1e-6, atol=1e-8)


def test_proden_started_from_clpl_takes_the_clpl_fit_as_its_first_weights(digits):
    """init="clpl": the first weights are the restricted softmax of CLPL's scores (same
    alpha and sample weights), so one round equals one weighted fit from them, computed
    here from the public CLPL and the plain-numpy weight update."""
    X, y, S, sw = _clpl_start_data(digits)
    _assert_one_round_from_clpl(X, S, sw, update="soft", init_alpha=1e-3, alpha=1e-3, reference=_reference_update)
    full = PRODEN(alpha=1e-3, init="clpl").fit(X[:200], S[:200])
    assert full.score(X[200:], y[200:]) > 0.85                               # measured 0.94 (uniform start: 0.94)
    with pytest.raises(ValueError, match="init"):
        PRODEN(init="convex").fit(X, S)


def _reference_hard_update(Z, S):
    """All of each row's weight on the candidate scored highest (the lowest index on ties)."""
    H = np.zeros_like(Z)
    for i in range(Z.shape[0]):
        cand = [a for a in range(Z.shape[1]) if S[i, a]]
        H[i, max(cand, key=lambda a: (Z[i, a], -a))] = 1.0
    return H


def test_hard_update_from_a_more_regularised_clpl_start_is_one_logistic_fit_of_its_labels(digits):
    """update="hard", init="clpl", init_alpha: the first labels are the best candidates of a
    CLPL fit with penalty init_alpha (public CLPL, plain-numpy argmax), and one round is
    one weighted fit of those one-hot labels with penalty alpha; init_alpha=None is alpha."""
    X, y, S, sw = _clpl_start_data(digits)
    _assert_one_round_from_clpl(X, S, sw, update="hard", init_alpha=1e-2, alpha=1e-4, reference=_reference_hard_update)
    _assert_one_round_from_clpl(X, S, sw, update="hard", init_alpha=1e-2, alpha=1e-2, reference=_reference_hard_update)


def test_hard_update_stops_at_labels_its_own_model_picks(digits):
    """The hard rounds end where the labels are the model's best candidates (the fixed
    point of classification EM), one label per row inside its set; they learn digits."""
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = PRODEN(alpha=1e-3, update="hard").fit(X[:1400], S[:1400])
    assert est.n_iter_ < est.max_rounds
    Sm = np.asarray(S[:1400])
    np.testing.assert_array_equal(est.confidence_, _reference_hard_update(est.decision_function(X[:1400]), Sm))
    assert set(np.unique(est.confidence_)) == {0.0, 1.0} and np.all(est.confidence_.sum(axis=1) == 1)
    assert np.all(est.confidence_[~Sm] == 0)
    assert est.score(X[1400:], y[1400:]) > 0.88                              # measured 0.90 (soft: 0.90)
    for bad, match in (({"update": "medium"}, "update"), ({"init_alpha": -1.0}, "init_alpha")):
        with pytest.raises(ValueError, match=match):
            PRODEN(**bad).fit(X[:50], S[:50])


def test_several_clpl_starts_keep_the_run_of_lowest_loss(digits):
    """init_alpha as a list: one CLPL start per penalty, each with its rounds, and the run
    whose final loss is lowest kept: the same weights, confidences, rounds and loss as the
    single start of that penalty, with every start's loss reported in restarts_.  Bad lists
    are named and leave a fitted model unchanged."""
    X, y, S, sw = _clpl_start_data(digits)
    starts = [1e-1, 1e-3, 1e-2]
    kw = dict(alpha=1e-4, init="clpl", update="hard", max_rounds=8)
    singles = [PRODEN(init_alpha=a, **kw).fit(X, S, sample_weight=sw) for a in starts]
    several = PRODEN(init_alpha=starts, **kw).fit(X, S, sample_weight=sw)
    losses = [m.loss_ for m in singles]
    assert len(set(np.round(losses, 8))) == 3                # the starts end apart
    best = singles[int(np.argmin(losses))]
    assert several.init_alpha_ == starts[int(np.argmin(losses))]
    assert [r["init_alpha"] for r in several.restarts_] == starts
    np.testing.assert_allclose([r["loss"] for r in several.restarts_], losses, rtol=1e-12)
    assert several.loss_ == min(losses) and several.n_iter_ == best.n_iter_
    np.testing.assert_array_equal(several.coef_, best.coef_)
    np.testing.assert_array_equal(several.confidence_, best.confidence_)
    assert PRODEN(init_alpha=[1e-3], **kw).fit(X, S).init_alpha_ == 1e-3
    assert PRODEN(alpha=1e-3, max_rounds=2).fit(X, S).init_alpha_ is None          # uniform start
    before = several.coef_.copy()
    for bad in ([], [1e-3, -1.0], [np.nan], [[1e-3, "a"]]):
        with pytest.raises(ValueError, match="init_alpha"):
            several.set_params(init_alpha=bad).fit(X, S)
        np.testing.assert_array_equal(several.coef_, before)
        assert several.init_alpha_ == starts[int(np.argmin(losses))]


def test_proden_sparse_weights_and_bad_input_leave_the_model_unchanged(digits):
    X, y = digits
    X, y = X[:300], y[:300]
    S = make_candidate_sets(y, 2, random_state=1)
    kw = dict(alpha=1e-2, max_rounds=5, tol=0.0)
    dense = PRODEN(**kw).fit(X, S)
    np.testing.assert_allclose(PRODEN(**kw).fit(sp.csr_matrix(X), S).coef_, dense.coef_, atol=1e-3)
    w = np.random.default_rng(0).integers(1, 4, 300).astype(float)
    rows = np.repeat(np.arange(300), w.astype(int))
    np.testing.assert_allclose(PRODEN(**kw).fit(X, S, sample_weight=w).coef_,
                               PRODEN(**kw).fit(X[rows], S[rows]).coef_, atol=1e-3)
    before = {k: np.copy(v) for k, v in dense.__dict__.items() if k.endswith("_") and isinstance(v, np.ndarray)}
    mask = np.asarray(S).copy()
    mask[3] = False
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    unknown = [[0, 1]] * 299 + [[0, 99]]                 # names a class not in `classes`
    for Xb, yb, classes, match in [(X, mask, None, r"empty candidate sets at rows \[3\]"), (X, y[:5], None, "300"),
                                   (Xnan, S, None, "NaN|finite"), (X, unknown, np.arange(10), "99")]:
        dense.set_params(classes=classes)
        with pytest.raises(ValueError, match=match):
            dense.fit(Xb, yb)
        for k, v in before.items():
            np.testing.assert_array_equal(dense.__dict__[k], v)
    dense.set_params(classes=None)
    with pytest.raises(ValueError, match="[Nn]egative"):
        dense.fit(X, S, sample_weight=-w)
    with pytest.raises(ValueError, match="non-zero"):
        dense.fit(X, S, sample_weight=np.zeros(300))








@pytest.mark.parametrize("make", [lambda: PRODEN(alpha=1e-2), lambda: PLKNN(n_neighbors=5), lambda: PLKNN(n_neighbors=5, weights="uniform")],
                         ids=["PRODEN", "PLKNN", "PLKNN-uniform"])
@pytest.mark.parametrize("sparse", [False, True])
def test_save_and_load_predict_the_same(digits, make, sparse, tmp_path):
    import weaklabel

    X, y = digits
    X = sp.csr_matrix(X[:300]) if sparse else X[:300]
    S = make_candidate_sets(y[:300], 2, random_state=0)
    est = make().fit(X, S)
    back = weaklabel.load(est.save(tmp_path / "m.npz"))
    assert type(back) is type(est) and back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))


def test_choose_alpha_from_candidate_sets_alone(digits):
    """GridSearchCV on CandidateSets: KFold by default, scored by the fraction of
    predictions inside the held-out candidate sets (no true label used)."""
    from sklearn.model_selection import GridSearchCV

    X, y = digits
    S = make_candidate_sets(y[:900], 3, random_state=0)
    search = GridSearchCV(PRODEN(), {"alpha": [1e-3, 10.0]}, cv=3).fit(X[:900], S)
    assert search.best_params_["alpha"] == 1e-3                  # alpha=10 predicts nearly one class
    assert search.best_score_ > 0.9 > search.cv_results_["mean_test_score"][1]


def test_batch_speed_benchmark_rows_on_digits():
    from weaklabel.experiments import _speed as speed

    lines = []
    rows = speed.run_partial_batch(["digits"], repeats=1, out=lines.append)
    assert [r["method"] for r in rows][:2] == ["scikit-learn LogisticRegression, expanded 1/|S|", "PRODEN"]
    assert rows[0]["ratio"] == 1.0 and all(r["seconds"] > 0 for r in rows)
    by = {r["method"]: r["accuracy"] for r in rows}
    assert by["PRODEN"] > by["scikit-learn LogisticRegression, expanded 1/|S|"] + 0.03     # 0.904 vs 0.834
    assert lines[0].startswith("digits (dense 1400 x 64, 10 classes")


