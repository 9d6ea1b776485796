"""The online engine's one ``partial_fit`` route (:mod:`weaklabel._online`): a call that fails
leaves the model as it was (bad rows, overflows, unknown labels, the generator's draws), the
weights' layouts, and models streaming in threads at once.
"""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from weaklabel import BanditFeedback
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron
from weaklabel.simulate import make_candidate_sets

LEARNERS = [AvgPerceptron(random_state=0), MaxPerceptron(fit_intercept=True, random_state=0),
            AvgPegasos(alpha=0.01, random_state=0), MaxPegasos(alpha=0.01, random_state=0), Perceptron(),
            Pegasos(alpha=0.01), CSPA(random_state=0), SPA(random_state=0), Banditron(random_state=0),
            Banditron(average=False, gamma=0.3, random_state=0), BPA(random_state=0),
            Confidit(diagonal=True, random_state=0), Confidit(diagonal=False, random_state=0)]


def _stream(est, dtype, seed=0, n=90, d=7, chunk=13):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 4
    X = (rng.randn(n, d) + 2.0 * np.eye(4, d)[y]).astype(dtype)
    exact = isinstance(est, (Perceptron, Pegasos))
    target = y if exact or est.__module__.startswith("weaklabel.bandit") else make_candidate_sets(y, 2,
                                                                                                   random_state=seed)
    return [(X[lo:lo + chunk], target[lo:lo + chunk]) for lo in range(0, n, chunk)]


def _state(est):
    """Every attribute, pickled: equal bytes mean an identical estimator.  A generator counts by
    its state (a copy of it holds a seed sequence of its own), and the exploring bandit
    learners' uniforms drawn ahead for partial_fit (the block, its generator and the position
    in it) by the next uniforms they give: a rolled-back call may leave a block drawn ahead,
    never a different next uniform (see ``_BanditLearner._uniforms``)."""
    d = dict(est.__dict__)
    if "_u_ahead" in d:
        stream = copy.deepcopy(est)._uniforms(10_000, False)
        d = {k: v for k, v in d.items() if k not in ("_u_ahead", "_rng", "_u_next")} | {"uniforms ahead": stream}
    return {k: pickle.dumps(v.get_state() if isinstance(v, np.random.RandomState) else v) for k, v in d.items()}


def test_a_call_that_leaves_a_matrix_non_finite_raises_and_leaves_the_model(monkeypatch):
    """Diagonal Confidit's variances are written in place and not covered by the weights'
    check: the check after the call reads them."""
    import weaklabel.bandit._learners as learners

    chunks = _stream(Confidit(diagonal=True), np.float64)
    est = Confidit(diagonal=True, random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    est.partial_fit(*chunks[1])
    before = _state(est)
    real = learners._confidit_diag_dense_pass

    def poisoned(state, *args):
        out = real(state, *args)
        state[1][0, 0] = np.inf                  # the diagonals (class-major view)
        return out

    monkeypatch.setattr(learners, "_confidit_diag_dense_pass", poisoned)
    with pytest.raises(ValueError, match="non-finite values in A_diag"):
        est.partial_fit(*chunks[2])
    assert _state(est) == before


@pytest.mark.parametrize("shape", [(1, 2), (7, 3), (257, 10), (40, 13)])
def test_pegasos_squared_norm_is_the_same_number_in_either_layout(shape):
    """Pegasos keeps ``||W||^2`` from the weights after every call; a saved model comes back
    feature-major while the original is class-major, so the sum must not depend on the
    layout (each class's sum in order, then the classes in order): equal to the bit."""
    from weaklabel.partial._kernels import _squared_norm

    rng = np.random.default_rng(sum(shape))
    W = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    F = np.asfortranarray(W)
    assert _squared_norm(W, False) == _squared_norm(F.T, True)
    np.testing.assert_allclose(_squared_norm(W, False), np.sum(W * W), rtol=1e-12)


def test_streams_in_threads_keep_their_own_labels_and_generators():
    """Models streaming in threads at once (Dask's threaded scheduler) map their own
    predictions to their own labels, and each exploring model's generator is its own (the
    same proposals as the same stream run alone)."""
    import threading

    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y = np.arange(60) % 3
    labels = {"positions": y, "shifted": y + 10, "words": np.array(["a", "b", "c"])[y]}
    alone = {}
    for name, t in labels.items():
        est = Banditron(random_state=1).partial_fit(X[:3], t[:3], classes=np.unique(t))
        alone[name] = [est.partial_fit(X[i:i + 3], t[i:i + 3]).proposals_.copy() for i in range(3, 60, 3)]
    errors = []

    def stream(name, t):
        try:
            for _ in range(20):
                est = Banditron(random_state=1).partial_fit(X[:3], t[:3], classes=np.unique(t))
                for k, i in enumerate(range(3, 60, 3)):
                    est.partial_fit(X[i:i + 3], t[i:i + 3])
                    assert set(est.predictions_) <= set(np.unique(t))
                    np.testing.assert_array_equal(est.proposals_, alone[name][k])
        except Exception as e:                      # reported below, in the main thread
            errors.append((name, e))

    threads = [threading.Thread(target=stream, args=item) for item in labels.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_a_stream_switching_between_dense_and_sparse_rows_learns_what_either_form_learns(est):
    """Dense rows keep the weights class-major, sparse rows feature-major: a stream that
    alternates the forms converts them at each switch and learns what a stream of one form
    learns (the two forms' passes sum in different orders: equal to 1e-9)."""
    chunks = _stream(est, np.float64)
    classes = np.arange(4)
    mixed = pickle.loads(pickle.dumps(est))
    sparse = pickle.loads(pickle.dumps(est))
    for k, (X, t) in enumerate(chunks):
        mixed.partial_fit(X if k % 2 else sp.csr_matrix(X), t, classes=classes)
        sparse.partial_fit(sp.csr_matrix(X), t, classes=classes)
        assert mixed._W.flags.f_contiguous == bool(k % 2) or mixed._W.shape[1] == 1
    np.testing.assert_allclose(mixed.coef_, sparse.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(mixed.predictions_, sparse.predictions_)


CANDIDATE_LEARNERS = [AvgPerceptron(random_state=0), MaxPerceptron(fit_intercept=True, random_state=0),
                      AvgPegasos(alpha=0.01, random_state=0), MaxPegasos(alpha=0.01, random_state=0)]


@pytest.mark.parametrize("est", CANDIDATE_LEARNERS, ids=repr)
@pytest.mark.parametrize("dtype, bad, message", [(np.float64, np.nan, r"contains NaN \(first at row 11\)"),
                                                 (np.float64, 1e-150, "underflows"),
                                                 (np.float32, np.inf, r"contains infinity \(first at row 11\)")])
def test_a_call_that_meets_a_bad_row_names_it_and_leaves_the_model(est, dtype, bad, message, monkeypatch):
    """A row out of range late in the chunk (met by the pass, which checks dense rows as it
    reads them) gives the exact check's message and leaves the model
    as it was; the next good call continues as on a model that never saw the bad one."""
    chunks = _stream(est, dtype)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    twin = pickle.loads(pickle.dumps(est))
    X, S = chunks[1]
    Xbad = X.copy()
    Xbad[11] = 0.0
    Xbad[11, 3] = bad
    before = _state(est)
    with pytest.raises(ValueError, match=message):
        est.partial_fit(Xbad, S, classes=np.arange(4))
    assert _state(est) == before
    est.partial_fit(X, S)
    twin.partial_fit(X, S)
    assert _state(est) == _state(twin)


@pytest.mark.parametrize("est", CANDIDATE_LEARNERS, ids=repr)
def test_an_overflow_of_the_candidate_learners_weights_is_undone(est, monkeypatch):
    """Weights made non-finite by the pass: the call raises the engine's overflow error and
    puts the weights back (they are written in place)."""
    import weaklabel.partial._online as online

    chunks = _stream(est, np.float64)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    real = online._candidate_epoch

    def poisoned(weights, *args):
        out = real(weights, *args)
        weights[0][1, 2] = np.inf
        return out

    monkeypatch.setattr(online, "_candidate_epoch", poisoned)
    with pytest.raises(FloatingPointError, match="overflowed"):
        est.partial_fit(*chunks[1])
    assert _state(est) == before


def test_other_classes_are_refused_and_every_form_of_the_same_sets_learns_the_same(monkeypatch):
    """Other classes than the fitted ones are refused (model unchanged); a mask and label
    lists of the same sets learn what CandidateSets learn."""
    from weaklabel import CandidateSets

    chunks = _stream(AvgPerceptron(), np.float64)
    est = AvgPerceptron(random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    with pytest.raises(ValueError, match="differs from the classes"):
        est.partial_fit(*chunks[1], classes=np.arange(5))
    assert _state(est) == before
    X, S = chunks[1]
    as_mask, as_lists = pickle.loads(pickle.dumps(est)), pickle.loads(pickle.dumps(est))
    as_mask.partial_fit(X, np.asarray(S.mask))
    as_lists.partial_fit(X, [list(np.flatnonzero(r)) for r in S.mask])
    est.partial_fit(X, S)
    assert _state(est) == _state(as_mask) == _state(as_lists)
    wider = CandidateSets(np.hstack([S.mask, np.zeros((X.shape[0], 1), bool)]), classes=np.arange(5))
    with pytest.raises(ValueError):
        pickle.loads(pickle.dumps(est)).partial_fit(X, wider)


BANDIT_LEARNERS = [CSPA(random_state=0), SPA(random_state=0), Banditron(random_state=0),
                   Banditron(average=False, gamma=0.3, random_state=0), BPA(random_state=0)]


@pytest.mark.parametrize("est", BANDIT_LEARNERS, ids=repr)
def test_an_overflow_of_the_bandit_learners_weights_is_undone_with_its_draws(est, monkeypatch):
    """Weights made non-finite by a bandit pass raise the engine's overflow error, and the
    weights, the averaging sums and the generator are put back; the next call gives what the
    untouched twin gives."""

    chunks = _stream(est, np.float64)
    est = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    twin = pickle.loads(pickle.dumps(est))
    before = _state(est)
    import weaklabel.bandit._learners as learners

    real = learners.RULE_PASSES

    def poisoning(rule_pass):
        def poisoned(weights, *args):
            out = rule_pass(weights, *args)
            mean = args[-1][2]                 # averaged: the mean the pass wrote, which predicts
            (mean if mean.size else weights[0])[1, 2] = np.inf
            return out
        return poisoned

    monkeypatch.setattr(learners, "RULE_PASSES", tuple(poisoning(p) for p in real))
    with pytest.raises(FloatingPointError, match="overflowed"):
        est.partial_fit(*chunks[1], classes=np.arange(4))
    assert _state(est) == before
    monkeypatch.setattr(learners, "RULE_PASSES", real)
    est.partial_fit(*chunks[1])
    twin.partial_fit(*chunks[1])
    assert _state(est) == _state(twin)


def test_an_unknown_label_is_named_and_the_model_kept():
    chunks = _stream(Banditron(), np.float64)
    est = Banditron(random_state=0).partial_fit(*chunks[0], classes=np.arange(4))
    before = _state(est)
    X, y = chunks[1]
    with pytest.raises(ValueError, match=r"label\(s\) \[7\] that are not in classes"):
        est.partial_fit(X, np.where(np.arange(y.size) == 3, 7, y))
    assert _state(est) == before


# ---- Early stopping and verbose output of the online learners (one engine for all twelve). ----

ONLINE = [Perceptron, Pegasos, AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, CSPA, SPA, BPA, Banditron,
          Confidit, SketchedConfidit]


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] / 16, y[:600]


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_early_stopping_holds_rows_out_and_stops_when_the_held_out_score_stalls(cls, digits):
    X, y = digits
    est = cls(early_stopping=True, validation_fraction=0.2, n_iter_no_change=2, tol=0.0, max_iter=200,
              random_state=0).fit(X, y)
    assert est.n_iter_ < 200
    assert est.validation_scores_.shape == (est.n_iter_,)
    scores = est.validation_scores_
    best = np.maximum.accumulate(scores)
    # it stopped at the first pass that ended n_iter_no_change passes without a gain over the best so far
    assert (scores[-2:] <= best[-3]).all()
    seen = np.unique(est.prediction_rows_)
    assert seen.size == 480                                          # the 120 held-out rows were never learnt
    held = np.setdiff1d(np.arange(600), seen)
    assert est.validation_scores_[-1] == pytest.approx(np.mean(est.predict(X[held]) == y[held]))


def test_candidate_sets_score_the_held_out_rows_by_their_sets(digits):
    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = AvgPegasos(early_stopping=True, max_iter=50, random_state=0).fit(X, S)
    held = np.setdiff1d(np.arange(600), est.prediction_rows_)
    assert est.validation_scores_[-1] == pytest.approx(est.score(X[held], S[held]))


def test_without_early_stopping_nothing_is_held_out_and_verbose_prints_each_pass(digits, capsys):
    X, y = digits
    a = AvgPegasos(max_iter=3, random_state=0).fit(X, y)
    assert np.unique(a.prediction_rows_).size == 600 and not hasattr(a, "validation_scores_")
    b = CSPA(max_iter=3, random_state=0, verbose=1, early_stopping=True, validation_fraction=0.5).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[0].startswith("CSPA pass 1:") and "held-out score" in out[0]
    assert b.n_iter_ == 3


def test_bad_settings_and_logs_are_refused_and_leave_the_model_as_it_was(digits):
    X, y = digits
    est = CSPA(max_iter=2, random_state=0).fit(X, y)
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="validation_fraction"):
        est.set_params(early_stopping=True, validation_fraction=1.5).fit(X, y)
    with pytest.raises(ValueError, match="at least 1 held out"):
        est.set_params(validation_fraction=0.001).fit(X[:50], y[:50])
    with pytest.raises(ValueError, match="a log gives only the answers"):
        est.set_params(validation_fraction=0.1).fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("cls", [Perceptron, AvgPegasos, CSPA, Banditron, Confidit], ids=lambda c: c.__name__)
def test_class_weight_multiplies_each_rows_step(cls, digits):
    """class_weight equals sample_weight set to each row's class weight ("balanced" to
    n / (K n_k)), and a candidate set takes the mean weight of its candidates."""
    X, y = digits
    w = {k: 1.0 + k for k in range(10)}
    a = cls(class_weight=w, max_iter=2, random_state=0).fit(X, y)
    b = cls(max_iter=2, random_state=0).fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    counts = np.bincount(y, minlength=10)
    c = cls(class_weight="balanced", max_iter=2, random_state=0).fit(X, y)
    d = cls(max_iter=2, random_state=0).fit(X, y, sample_weight=600 / (10 * counts[y]))
    np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-12, atol=1e-12)


def test_class_weight_of_a_candidate_set_is_the_mean_of_its_candidates(digits):
    X, y = digits
    S = make_candidate_sets(y, 2, random_state=0)
    w = {k: 1.0 + k for k in range(10)}
    a = AvgPegasos(class_weight=w, max_iter=2, random_state=0).fit(X, S)
    sw = (S.mask * np.arange(1.0, 11.0)).sum(axis=1) / S.mask.sum(axis=1)     # the mean of 1 + k over the set
    b = AvgPegasos(max_iter=2, random_state=0).fit(X, S, sample_weight=sw)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12)


def test_class_weight_is_refused_for_logs_and_unknown_classes(digits):
    X, y = digits
    est = CSPA(max_iter=1, random_state=0).fit(X, y)
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="not among the classes"):
        est.set_params(class_weight={42: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight instead"):
        est.set_params(class_weight="balanced").fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_probability_gives_calibrated_predict_proba(cls, digits):
    X, y = digits
    assert not hasattr(cls(), "predict_proba")                      # only with probability=True
    est = cls(probability=True, random_state=0).fit(X[:450], y[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    acc = np.mean(est.predict(X[450:]) == y[450:])
    assert abs(P.max(axis=1).mean() - acc) < 0.1                    # confidence about the accuracy
    np.testing.assert_allclose(est.predict_log_proba(X[450:]), np.log(P), atol=1e-10)


def test_probability_model_files_partial_fit_and_refusals(digits, tmp_path):
    import weaklabel

    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    est = AvgPegasos(probability=True, random_state=0).fit(X, S)
    T = est.temperature_
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))
    est.partial_fit(X[:50], S[:50])
    assert est.temperature_ == T                                     # partial_fit keeps the last fit's
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="a log of bandit feedback has neither"):
        CSPA(probability=True).fit(X, BanditFeedback(y, np.ones(600, dtype=bool)))
    with pytest.raises(ValueError):
        est.fit(X, S[:10])                                           # a failed fit changes nothing
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.temperature_ == T


@pytest.mark.slow
def test_clpl_probability_and_its_model_file(digits, tmp_path):
    import weaklabel
    from weaklabel.partial import CLPL

    X, y = digits
    S = make_candidate_sets(y, 3, random_state=0)
    assert not hasattr(CLPL(), "predict_proba")
    est = CLPL(probability=True).fit(X[:450], S[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X[450:]) == y[450:])) < 0.1
    est.save(tmp_path / "c.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "c.npz").predict_proba(X[450:]), P)
    assert not hasattr(est.set_params(probability=False).fit(X[:450], S[:450]), "temperature_")


@pytest.mark.parametrize("cls", ["MMS", "CandidateLabelSVM"])
def test_bag_learners_probability_folds_over_bags(cls, digits, tmp_path):
    import weaklabel
    from weaklabel import bags
    from weaklabel.simulate import bags as simulate_bags

    X, y = digits
    B = simulate_bags(y, 3, 2, 0.0, 0.0, random_state=0)             # bags of 3 rows, 2 labelings each
    est = getattr(bags, cls)(probability=True, random_state=0).fit(X, B)
    P = est.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X) == y)) < 0.15
    est.save(tmp_path / "b.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "b.npz").predict_proba(X), P)
    assert not hasattr(getattr(bags, cls)(), "predict_proba")


def test_uma_probability_reads_noisy_labels_through_the_confusion_matrix(digits, tmp_path):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import weaklabel
    from weaklabel.noisy import UMA
    from weaklabel.simulate import noisy_labels

    X, y = digits
    C = np.full((10, 10), 0.2 / 9)
    np.fill_diagonal(C, 0.8)
    yn = noisy_labels(y, C, classes=np.arange(10), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = UMA(confusion=C, probability=True, random_state=0, max_iter=300).fit(X[:450], yn[:450])
    P = est.predict_proba(X[450:])
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[450:]))
    assert abs(P.max(axis=1).mean() - np.mean(est.predict(X[450:]) == y[450:])) < 0.15
    est.save(tmp_path / "u.npz")
    np.testing.assert_allclose(weaklabel.load(tmp_path / "u.npz").predict_proba(X[450:]), P)


@pytest.mark.parametrize("name", ["CLPL", "PRODEN", "CorrectedLogistic"])
def test_batch_learners_class_weight_is_the_sample_weight_it_stands_for(name, digits):
    from weaklabel.noisy import CorrectedLogistic
    from weaklabel.partial import CLPL, PRODEN

    make = {"CLPL": lambda **k: CLPL(**k), "PRODEN": lambda **k: PRODEN(max_rounds=3, **k),
            "CorrectedLogistic": lambda **k: CorrectedLogistic(**k)}[name]
    X, y = digits
    w = {k: 1.0 + k for k in range(10)}
    a = make(class_weight=w).fit(X, y)
    b = make().fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    if name != "CorrectedLogistic":
        S = make_candidate_sets(y, 2, random_state=0)
        c = make(class_weight=w).fit(X, S)
        d = make().fit(X, S, sample_weight=(S.mask * np.arange(1.0, 11.0)).sum(axis=1) / S.mask.sum(axis=1))
        np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="not among the classes"):
        make(class_weight={42: 1.0}).fit(X, y)


def test_batch_learners_verbose_prints_their_solver_progress(digits, capsys):
    from weaklabel.noisy import CorrectedLogistic
    from weaklabel.partial import CLPL, PRODEN

    X, y = digits
    CLPL(verbose=1, max_iter=3).fit(X, y)
    PRODEN(verbose=1, max_rounds=2).fit(X, y)
    CorrectedLogistic(verbose=1, max_iter=2, confusion="anchors").fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in out] == ["CLPL"] * 3 + ["PRODEN"] * 2 + ["CorrectedLogistic"] * 2
    CLPL(max_iter=3).fit(X, y)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", ["UMA", "MMS", "CandidateLabelSVM"])
def test_uma_and_bag_learners_class_weight_is_the_sample_weight_it_stands_for(name, digits):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from weaklabel.bags import MMS, CandidateLabelSVM
    from weaklabel.noisy import UMA

    make = {"UMA": lambda **k: UMA(confusion="identity", max_iter=100, random_state=0, **k),
            "MMS": lambda **k: MMS(max_iter=2, n_rounds=2, random_state=0, **k),
            "CandidateLabelSVM": lambda **k: CandidateLabelSVM(random_state=0, **k)}[name]
    X, y = digits
    X, y = X[:300], y[:300]
    w = {k: 1.0 + k for k in range(10)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = make(class_weight=w).fit(X, y)
        b = make().fit(X, y, sample_weight=np.array([w[k] for k in y]))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="not among the classes"):
        make(class_weight={42: 1.0}).fit(X, y)
