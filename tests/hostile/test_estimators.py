"""Every public estimator against generated hostile inputs, each call in a forked child under
a memory cap and a timeout (:mod:`._guard`).  Asserted: the contract only.  A call returns,
or raises one ValueError / TypeError whose message is one line; it never crashes, hangs or
allocates beyond the cap, and a call that fails on a fitted model leaves it as it was."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from weaklabel.calibration import SoftmaxCalibrated
from weaklabel.noisy import UMA, CorrectedLogistic
from weaklabel.partial import CLPL, PLKNN, PRODEN, AvgPegasos, AvgPerceptron, KernelPRODEN, MaxPegasos, \
    MaxPerceptron, MLPPRODEN, Pegasos, Perceptron
from weaklabel.scaling import FeatureScaled
from weaklabel.sources import DawidSkene, EndModel, MajorityVote, MatrixCompletion, PrecisionVote

from ._guard import call_keeps_model, run_guarded
from ._inputs import bag_inputs, graph_examples, labels, matrices, votes

RNG = np.random.default_rng(0)
X0 = RNG.random((40, 4))
Y0 = np.arange(40) % 3
L0 = RNG.integers(-1, 3, (40, 3))

#: (name, a fresh estimator, the kind of its weak labels); every public learner of a matrix of rows
LEARNERS = [
    ("AvgPerceptron", lambda: AvgPerceptron(random_state=0), "labels"),
    ("MaxPerceptron", lambda: MaxPerceptron(random_state=0), "labels"),
    ("AvgPegasos", lambda: AvgPegasos(random_state=0), "labels"),
    ("MaxPegasos", lambda: MaxPegasos(random_state=0), "labels"),
    ("Perceptron", lambda: Perceptron(random_state=0), "labels"),
    ("Pegasos", lambda: Pegasos(random_state=0), "labels"),
    ("PRODEN", lambda: PRODEN(max_iter=5), "labels"),
    ("CLPL", lambda: CLPL(), "labels"),
    ("PLKNN", lambda: PLKNN(), "labels"),
    ("CSPA", lambda: CSPA(random_state=0), "labels"),
    ("Banditron", lambda: Banditron(random_state=0), "labels"),
    ("BPA", lambda: BPA(random_state=0), "labels"),
    ("Confidit", lambda: Confidit(), "labels"),
    ("SketchedConfidit", lambda: SketchedConfidit(sketch_size=2), "labels"),
    ("SPA", lambda: SPA(), "labels"),
    ("CorrectedLogistic", lambda: CorrectedLogistic(max_iter=20), "labels"),
    ("UMA", lambda: UMA(confusion=np.eye(3), max_iter=5), "labels"),
    ("FeatureScaled", lambda: FeatureScaled(estimator=Perceptron(random_state=0)), "labels"),
    ("SoftmaxCalibrated", lambda: SoftmaxCalibrated(estimator=Perceptron(random_state=0)), "labels"),
]
SLOW_LEARNERS = [
    ("MLPPRODEN", lambda: MLPPRODEN(hidden_units=4, max_iter=3, random_state=0), "labels"),
    ("KernelPRODEN", lambda: KernelPRODEN(n_components=8, max_iter=5, random_state=0), "labels"),
]
LABEL_MODELS = [
    ("MajorityVote", MajorityVote), ("PrecisionVote", PrecisionVote), ("DawidSkene", DawidSkene),
    ("MatrixCompletion", MatrixCompletion),
]

FAST = settings(max_examples=4, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
DEEP = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _fitted(make):
    est = make()
    est.fit(X0, Y0)
    return est


def _check(outcome):
    problem = outcome.problem()
    assert not problem, problem


def _learner_probe(make, method, data):
    X = data.draw(matrices())
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    y = data.draw(labels(n))
    est = _fitted(make)                                    # fitted (and compiled) before the fork

    def probe():
        if method == "predict":
            est.predict(X)
        elif method == "partial_fit":
            call_keeps_model(est, "partial_fit", X, y)
        else:
            call_keeps_model(est, "fit", X, y)
    _check(run_guarded(probe))


@pytest.mark.parametrize("method", ["fit", "partial_fit", "predict"])
@pytest.mark.parametrize("name, make, _", LEARNERS, ids=[n for n, _, _ in LEARNERS])
@FAST
@given(data=st.data())
def test_learners_keep_the_contract(name, make, _, method, data):
    if method == "partial_fit" and not hasattr(make(), "partial_fit"):
        return
    _learner_probe(make, method, data)


def _model_probe(cls, method, data):
    L = data.draw(votes())
    model = cls().fit(L0)

    def probe():
        if method == "predict":
            model.predict_proba(L)
        else:
            call_keeps_model(model, method, L)
    _check(run_guarded(probe))


@pytest.mark.parametrize("method", ["fit", "partial_fit", "predict"])
@pytest.mark.parametrize("name, cls", LABEL_MODELS, ids=[n for n, _ in LABEL_MODELS])
@FAST
@given(data=st.data())
def test_label_models_keep_the_contract(name, cls, method, data):
    if method == "partial_fit" and not hasattr(cls(), "partial_fit"):
        return
    _model_probe(cls, method, data)


@pytest.mark.slow
@FAST
@given(data=st.data())
def test_the_end_model_keeps_the_contract(data):
    X = data.draw(matrices())
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    L = data.draw(votes(max_rows=max(n, 0)))
    end = EndModel().fit(X0, L0)

    def probe():
        call_keeps_model(end, "fit", X, L)
    _check(run_guarded(probe))


def _bags_probe(make, method, data):
    from weaklabel.simulate import bags

    X = data.draw(matrices())
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    est = make().fit(X0[:20], bags(Y0[:20], bag_size=4, n_labelings=3, random_state=0))
    B = bags(np.arange(max(n, 4))[:max(n, 4)] % 3, bag_size=2, n_labelings=2, random_state=1) if n else []

    def probe():
        if method == "predict":
            est.predict(X)
        else:
            call_keeps_model(est, "fit", X, B)
    _check(run_guarded(probe))


def _structured_probe(make, method, data):
    """Chains of symbols (the hidden Markov chain's form): hostile symbol arrays (any dtype,
    NaN, 2**63, negative, empty, two dimensions) and hostile label sequences."""
    from weaklabel.simulate import hidden_markov_chain

    Xs, Ys = hidden_markov_chain(12, length=6, n_states=3, random_state=0)
    est = make().fit(list(Xs), list(Ys))
    X = data.draw(matrices(n_features=6))
    rows = X if isinstance(X, list) else (list(X) if hasattr(X, "shape") and not hasattr(X, "tocsr") else [X])
    Y = [data.draw(labels(len(np.atleast_1d(r)))) for r in rows] if data.draw(st.booleans()) else list(Ys[:len(rows)])

    def probe():
        if method == "predict":
            est.predict(rows)
        else:
            call_keeps_model(est, "fit", rows, Y)
    _check(run_guarded(probe))


def _structured(name, **params):
    return lambda: getattr(__import__("weaklabel.structured", fromlist=["x"]), name)(
        n_states=3, n_symbols=3, random_state=0, **params)


STRUCTURED = [("MILM3N", _structured("MILM3N", alpha=1.0, max_iter=5)),
              ("LPMILM3N", _structured("LPMILM3N", max_iter=3)),
              ("RampCCCPM3N", _structured("RampCCCPM3N", max_iter=5, n_rounds=2))]


@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", STRUCTURED, ids=[n for n, _ in STRUCTURED])
@FAST
@given(data=st.data())
def test_structured_learners_keep_the_contract(name, make, method, data):
    _structured_probe(make, method, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", STRUCTURED, ids=[n for n, _ in STRUCTURED])
@DEEP
@given(data=st.data())
def test_structured_learners_keep_the_contract_deep(name, make, method, data):
    _structured_probe(make, method, data)


def _graph_probe(make, method, data):
    """Node features and per-example graphs, the forms beyond a fixed chain of symbols:
    hostile feature values, dtypes and sizes (empty examples among them) and hostile edge
    lists, each with labels of the right sizes or hostile ones."""
    rng = np.random.default_rng(0)
    X, sizes = data.draw(graph_examples())
    pairs = isinstance(X, list) and X and isinstance(X[0], tuple)
    clean_x = [rng.random((s, 2)) for s in (3, 4, 5)]
    if pairs:
        syms = X[0][0].dtype.kind in "iu"
        clean_x = [(rng.integers(0, 3, s) if syms else x, np.array([[i, i + 1] for i in range(s - 1)]).reshape(-1, 2))
                   for s, x in zip((3, 4, 5), clean_x)]
    est = make(graph=None).fit(clean_x, [rng.integers(0, 3, s) for s in (3, 4, 5)])
    Y = [data.draw(labels(s)) for s in sizes] if data.draw(st.booleans()) else [rng.integers(0, 3, s) for s in sizes]

    def probe():
        if method == "predict":
            est.predict(X)
        else:
            call_keeps_model(est, "fit", X, Y)
    _check(run_guarded(probe))


def _graph_learner(name, **params):
    return lambda **more: getattr(__import__("weaklabel.structured", fromlist=["x"]), name)(
        n_states=3, random_state=0, **params, **more)


GRAPH_LEARNERS = [("MILM3N", _graph_learner("MILM3N", alpha=1.0, max_iter=5)),
                  ("LPMILM3N", _graph_learner("LPMILM3N", max_iter=3)),
                  ("RampCCCPM3N", _graph_learner("RampCCCPM3N", max_iter=5, n_rounds=2))]


@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", GRAPH_LEARNERS, ids=[n for n, _ in GRAPH_LEARNERS])
@FAST
@given(data=st.data())
def test_structured_learners_on_node_features_and_own_graphs_keep_the_contract(name, make, method, data):
    _graph_probe(make, method, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", GRAPH_LEARNERS, ids=[n for n, _ in GRAPH_LEARNERS])
@DEEP
@given(data=st.data())
def test_structured_learners_on_node_features_and_own_graphs_keep_the_contract_deep(name, make, method, data):
    _graph_probe(make, method, data)


BAG_LEARNERS = [("MMS", lambda: __import__("weaklabel.bags", fromlist=["MMS"]).MMS(max_iter=2, n_rounds=1,
                                                                                  random_state=0)),
                ("CandidateLabelSVM", lambda: __import__("weaklabel.bags", fromlist=["x"]).CandidateLabelSVM())]


@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", BAG_LEARNERS, ids=[n for n, _ in BAG_LEARNERS])
@FAST
@given(data=st.data())
def test_bag_learners_keep_the_contract(name, make, method, data):
    _bags_probe(make, method, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("method", ["fit", "predict"])
@pytest.mark.parametrize("name, make", BAG_LEARNERS, ids=[n for n, _ in BAG_LEARNERS])
@DEEP
@given(data=st.data())
def test_bag_learners_keep_the_contract_deep(name, make, method, data):
    _bags_probe(make, method, data)


def _hostile_bags_probe(make, data):
    """The bags themselves hostile: :class:`~weaklabel.BagCandidates` built from hostile bag
    ids and labelings (its constructor is the boundary), then a fit on what it accepts."""
    from weaklabel import BagCandidates
    from weaklabel.simulate import bags

    n = data.draw(st.integers(0, 8))
    bag_of, labelings = data.draw(bag_inputs(n))
    est = make().fit(X0[:20], bags(Y0[:20], bag_size=4, n_labelings=3, random_state=0))
    X = X0[:len(bag_of)] if hasattr(bag_of, "__len__") else X0[:n]

    def probe():
        B = BagCandidates(bag_of, labelings)
        call_keeps_model(est, "fit", X, B)
    _check(run_guarded(probe))


@pytest.mark.parametrize("name, make", BAG_LEARNERS, ids=[n for n, _ in BAG_LEARNERS])
@FAST
@given(data=st.data())
def test_hostile_bags_keep_the_contract(name, make, data):
    _hostile_bags_probe(make, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("name, make", BAG_LEARNERS, ids=[n for n, _ in BAG_LEARNERS])
@DEEP
@given(data=st.data())
def test_hostile_bags_keep_the_contract_deep(name, make, data):
    _hostile_bags_probe(make, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("method", ["fit", "partial_fit", "predict"])
@pytest.mark.parametrize("name, make, _", LEARNERS + SLOW_LEARNERS, ids=[n for n, _, _ in LEARNERS + SLOW_LEARNERS])
@DEEP
@given(data=st.data())
def test_learners_keep_the_contract_deep(name, make, _, method, data):
    if method == "partial_fit" and not hasattr(make(), "partial_fit"):
        return
    _learner_probe(make, method, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("method", ["fit", "partial_fit", "predict"])
@pytest.mark.parametrize("name, cls", LABEL_MODELS, ids=[n for n, _ in LABEL_MODELS])
@DEEP
@given(data=st.data())
def test_label_models_keep_the_contract_deep(name, cls, method, data):
    if method == "partial_fit" and not hasattr(cls(), "partial_fit"):
        return
    _model_probe(cls, method, data)


def _transformer_probe(data):
    """GaussianSupport (kernel features over a support set) fitted on hostile rows, and a
    fitted one transforming them."""
    from weaklabel.bandit import GaussianSupport

    X = data.draw(matrices())
    fitted = GaussianSupport(n_support=10).fit(X0)
    method = data.draw(st.sampled_from(["fit", "transform"]))

    def probe():
        if method == "transform":
            fitted.transform(X)
        else:
            call_keeps_model(fitted, "fit", X)
    _check(run_guarded(probe))


def _label_a_little_probe(data):
    """LabelALittle fitted on separable rows (its rough classifier needs them), then given
    hostile rows and labels."""
    from sklearn.datasets import make_blobs

    from weaklabel.noisy import LabelALittle

    Xb, yb = make_blobs(90, n_features=4, centers=3, cluster_std=0.3, random_state=0)
    est = LabelALittle(m=10, max_iter=20, random_state=0).fit(Xb, yb)
    X = data.draw(matrices())
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    y = data.draw(labels(n))
    method = data.draw(st.sampled_from(["fit", "predict"]))

    def probe():
        if method == "predict":
            est.predict(X)
        else:
            call_keeps_model(est, "fit", X, y)
    _check(run_guarded(probe))


def _splitter_probe(data):
    """TrustedKFold's folds of hostile trusted masks."""
    from weaklabel.noisy import TrustedKFold

    n = data.draw(st.integers(0, 12))
    trusted = data.draw(st.sampled_from([np.zeros(n, bool), np.ones(n, bool), np.arange(n) % 3 == 0,
                                         np.arange(n), [], np.full(n, np.nan)]))
    k = data.draw(st.sampled_from([1, 2, 5, 10**9, 0, -1, 2.5]))
    _check(run_guarded(lambda: list(TrustedKFold(trusted, k, random_state=0).split(np.zeros((n, 2))))))


@FAST
@given(data=st.data())
def test_the_support_transformer_keeps_the_contract(data):
    _transformer_probe(data)


@FAST
@given(data=st.data())
def test_label_a_little_keeps_the_contract(data):
    _label_a_little_probe(data)


@FAST
@given(data=st.data())
def test_the_trusted_splitter_keeps_the_contract(data):
    _splitter_probe(data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("probe", [_transformer_probe, _label_a_little_probe, _splitter_probe])
@DEEP
@given(data=st.data())
def test_the_other_estimators_keep_the_contract_deep(probe, data):
    probe(data)


def _parameter_mixing_probe(data):
    """``fit_parameter_mixing`` on an in-process Dask cluster (started in the guarded child):
    one hostile partition of rows or labels among clean ones, hostile classes and epochs.
    The estimator passed in is never changed (it is cloned)."""
    from weaklabel.distributed import fit_parameter_mixing

    X = data.draw(matrices())
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    y = data.draw(labels(n))
    xs, ys = [X0[:20], X], [Y0[:20], y]
    if data.draw(st.booleans()):
        xs, ys = xs[::-1], ys[::-1]
    classes = data.draw(st.sampled_from([None, None, [0, 1, 2], [], [0], [0, 0, 1], [2**63], ["a", 1]]))
    epochs = data.draw(st.sampled_from([1, 2, 0, -1, 1.5, None]))
    est = Perceptron(random_state=0)
    _on_an_in_process_cluster(est, lambda client: fit_parameter_mixing(est, xs, ys, client, epochs, classes=classes))


def _on_an_in_process_cluster(est, call):
    """``call(client)`` on an in-process Dask cluster started in the guarded child; ``est``
    (passed in, so cloned by the call) must come out unchanged."""
    from ._guard import fingerprint

    before = fingerprint(est)

    def probe():
        from distributed import Client

        with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
            try:
                call(client)
            finally:
                assert fingerprint(est) == before, "the estimator passed in changed"
    _check(run_guarded(probe))


@pytest.mark.slow
@FAST
@given(data=st.data())
def test_parameter_mixing_on_dask_keeps_the_contract(data):
    _parameter_mixing_probe(data)


@pytest.mark.hostile_deep
@DEEP
@given(data=st.data())
def test_parameter_mixing_on_dask_keeps_the_contract_deep(data):
    _parameter_mixing_probe(data)


def _partitioned_label_model_probe(name, cls, data):
    """``fit_label_model`` on an in-process Dask cluster: one hostile block of votes among
    clean ones, a hostile class count; the model passed in is never changed."""
    from weaklabel.distributed import fit_label_model

    bad = data.draw(votes())
    blocks = [L0[:20], bad, L0[20:]]
    n_classes = data.draw(st.sampled_from([None, None, 3, 1, 10**9, -2, 2.5]))
    model = cls()
    _on_an_in_process_cluster(model, lambda client: fit_label_model(model, blocks, client, n_classes=n_classes))


@pytest.mark.parametrize("name, cls", LABEL_MODELS, ids=[n for n, _ in LABEL_MODELS])
@FAST
@given(data=st.data())
def test_label_models_on_partitioned_votes_keep_the_contract(name, cls, data):
    _partitioned_label_model_probe(name, cls, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("name, cls", LABEL_MODELS, ids=[n for n, _ in LABEL_MODELS])
@DEEP
@given(data=st.data())
def test_label_models_on_partitioned_votes_keep_the_contract_deep(name, cls, data):
    _partitioned_label_model_probe(name, cls, data)


def test_what_the_harness_found_stays_fixed():
    """Inputs the harness found (each once allocated far beyond the bound or lost state):
    a CSR matrix 2**31 columns wide for an online learner and for GaussianSupport's dense
    support set, and one vote for class 29,999 under an end model; for the structured
    learners, a symbol or a label past int64 (uint64, or a float) that wrapped to a negative
    index (read out of bounds) or overflowed the cast, and one symbol or label of 2**40
    that asked for a 24 TiB table."""
    import scipy.sparse as sp

    from weaklabel import _validation
    from weaklabel.bandit import GaussianSupport

    wide = sp.csr_matrix((np.ones(2), (np.arange(2), np.full(2, 2**31 + 4))), shape=(2, 2**31 + 5))
    old, _validation.MEMORY_BUDGET = _validation.MEMORY_BUDGET, 1 << 30
    try:
        with pytest.raises(ValueError, match="Perceptron's weights over 2,147,483,653 features"):
            Perceptron().fit(wide, [1, 2])
        with pytest.raises(ValueError, match="the support set of 2 rows x 2,147,483,653 features"):
            GaussianSupport(n_support=10).fit(wide)
        with pytest.raises(ValueError, match="the end model's fit on .* over 30000 classes"):
            EndModel().fit(X0[:1], np.array([[29_999, 1, 1]]))
        from weaklabel.structured import MILM3N
        chain = MILM3N(n_states=3, n_symbols=3, max_iter=2).fit(np.array([[0, 1, 2]] * 2), np.array([[0, 1, 2]] * 2))
        for X in (np.array([[0, 1, 2**63]], dtype=np.uint64), [np.array([0, 2**64 - 1], dtype=np.uint64)],
                  [np.array([0.0, 2.0**64])]):
            with pytest.raises(ValueError, match="symbol"):
                chain.predict(X)
        with pytest.raises(ValueError, match="a unary table for X's largest symbol 1099511627776"):
            MILM3N(max_iter=2).fit(np.array([[0, 1, 2**40]]), np.array([[0, 1, 2]]))
        with pytest.raises(ValueError, match="a pairwise table for Y's largest label 1099511627776"):
            MILM3N(max_iter=2).fit(np.array([[0, 1, 2]]), np.array([[0, 1, 2**40]]))
        with pytest.raises(ValueError, match="Y holds 1.84467e[+]19, not a label"):
            MILM3N(n_states=3, max_iter=2).fit(np.ones((2, 1, 2)), [np.array([2]), np.array([2**64 - 1], np.uint64)])
    finally:
        _validation.MEMORY_BUDGET = old


OPE = ["ips", "snips", "doubly_robust", "direct_method", "clipped_ips", "switch_dr", "dr_shrinkage", "sndr",
       "diagnose", "cross_fit_rewards", "estimate_propensities"]


def _off_policy_probe(name, data):
    """The off-policy estimators on hostile logs: actions of any dtype (negative, 2**63,
    uint64, floats), propensities at 0, 1e-300, above 1 or NaN, rewards at 1e308 or NaN,
    policies as action indices or (n, K) matrices of any values, reward models of the wrong
    shape, hostile n_actions. A result is a finite estimate (or its diagnostics) or one
    line of error."""
    from weaklabel.bandit import evaluation

    n = data.draw(st.integers(0, 8))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    K = 3
    actions = data.draw(st.sampled_from([rng.integers(0, K, n), rng.integers(0, K, n).astype(np.uint64),
                                         rng.integers(0, K, n) - 4, rng.integers(0, K, n).astype(float) + 0.5,
                                         np.full(n, 2**62), rng.integers(0, K, max(n - 1, 0))]))
    p = rng.uniform(0.1, 1.0, n)
    if n:
        p[0] = data.draw(st.sampled_from([0.0, 1e-300, 1e-200, 1.5, np.nan, -0.2, 1.0]))
    r = rng.random(n)
    if n:
        r[-1] = data.draw(st.sampled_from([1e308, np.nan, -1e308, 0.0, 1.0]))
    policy = data.draw(st.sampled_from([rng.integers(0, K, n), rng.dirichlet(np.ones(K), n) if n else np.zeros((0, K)),
                                        np.full((n, K), np.nan), np.full((n, K), 1e308), rng.integers(0, 10**6, n)]))
    model = data.draw(st.sampled_from([rng.random((n, K)), rng.random((n, K + 2)), np.full((n, K), np.inf)]))
    n_actions = data.draw(st.sampled_from([None, K, 1, 10**9, -1]))
    X = data.draw(matrices(max_rows=n)) if name in ("cross_fit_rewards", "estimate_propensities") else None
    fn = getattr(evaluation, name)

    def probe():
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", evaluation.OffPolicyWarning)
            if name == "diagnose":
                fn(actions, p, policy, n_actions=n_actions)
            elif name == "cross_fit_rewards":
                fn(X, actions, r, n_actions=n_actions if n_actions is not None else K, n_splits=2)
            elif name == "estimate_propensities":
                fn(X, actions, n_actions=n_actions if n_actions is not None else K, n_splits=2)
            elif name in ("doubly_robust", "direct_method", "switch_dr", "dr_shrinkage", "sndr"):
                out = fn(actions, p, r, policy, model, n_actions=n_actions)
                assert np.isfinite(out.value), f"{name} returned {out.value}"
            else:
                out = fn(actions, p, r, policy, n_actions=n_actions)
                assert np.isfinite(out.value), f"{name} returned {out.value}"
    _check(run_guarded(probe))


@pytest.mark.parametrize("name", OPE)
@FAST
@given(data=st.data())
def test_off_policy_estimators_keep_the_contract(name, data):
    _off_policy_probe(name, data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("name", OPE)
@DEEP
@given(data=st.data())
def test_off_policy_estimators_keep_the_contract_deep(name, data):
    _off_policy_probe(name, data)
