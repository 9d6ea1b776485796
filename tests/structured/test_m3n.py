"""MIL-M3N, LP-MIL-M3N and the ramp-loss CCCP baseline against plain-numpy references.
"""

import numpy as np
import pytest

from weaklabel import datasets
from weaklabel.simulate import hidden_markov_chain, hmc_bayes_predict, missing_labels
from weaklabel.structured import (
    LPMILM3N,
    MILM3N,
    RampCCCPM3N,
    chain_graph,
    estimate_missingness,
    sudoku_graph,
    sudoku_label_prob,
)

from . import _reference as ref


def tiny(seed, m=4, n=3, K=2, S=3, rate=0.4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, S, size=(m, n))
    Y = rng.integers(0, K, size=(m, n))
    A = np.where(rng.random((m, n)) < rate, -1, Y)
    A[0, 0] = 0
    A[1, 1] = 1
    return X, A


@pytest.mark.parametrize("solver, tol", [("bmrm", 1e-6), ("bcfw", 1e-3)])
@pytest.mark.parametrize("seed", range(4))
def test_milm3n_reaches_the_reference_optimum(seed, solver, tol):
    X, A = tiny(seed)
    P = np.full(A.shape, estimate_missingness(A))
    lam = 0.5
    est = MILM3N(alpha=lam, solver=solver, tol=tol, max_iter=5000, n_states=2, n_symbols=3,
                 random_state=seed).fit(X, A)
    assert est.converged_
    edges = chain_graph(3).edges
    J = ref.objective(est.unary_, est.pairwise_, X, A, edges, P, lam)
    assert J == pytest.approx(est.objective_[-1], rel=1e-9)
    # the solver's lower bound (BMRM's model, BCFW's dual) certifies the optimum
    assert est.lower_bound_[-1] <= J + 1e-12
    assert J - est.lower_bound_[-1] <= tol * abs(J)      # (Delta^p can be negative)
    # and a perturbed w is never better (strong convexity: w* is unique)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        du, dp = rng.normal(scale=0.05, size=est.unary_.shape), rng.normal(scale=0.05, size=est.pairwise_.shape)
        assert ref.objective(est.unary_ + du, est.pairwise_ + dp, X, A, edges, P, lam) >= J - 10 * tol * abs(J)


def test_milm3n_exact_inference_on_a_loopy_graph_matches_reference_risk():
    X, A = tiny(0, n=4)
    g = chain_graph(4)
    from weaklabel.structured import Graph
    loop = Graph(4, np.vstack([g.edges, [[0, 3]]]))
    est = MILM3N(graph=loop, inference="exact", alpha=1.0, tol=1e-5, n_states=2, n_symbols=3).fit(X, A)
    P = np.full(A.shape, estimate_missingness(A))
    J = ref.objective(est.unary_, est.pairwise_, X, A, loop.edges, P, 1.0)
    assert J == pytest.approx(est.objective_[-1], rel=1e-9)
    with pytest.raises(ValueError, match="needs chains"):
        MILM3N(graph=loop).fit(X, A)


def test_ramp_cccp_objective_never_increases():
    X, Y = hidden_markov_chain(40, length=12, n_states=4, random_state=0)
    A = missing_labels(Y, 0.3, random_state=0)
    ramp = RampCCCPM3N(alpha=0.1, n_states=4, n_symbols=4, n_rounds=4).fit(X, A)
    assert np.all(np.diff(ramp.ramp_objective_) <= 1e-9)
    assert 1 <= ramp.n_rounds_ <= 4


@pytest.mark.slow
@pytest.mark.data("sudoku")
def test_lpmilm3n_learns_sudoku_from_half_solved_puzzles():
    d = datasets.load("sudoku")
    X, S = d.X_train.astype(np.int64), d.y_train.astype(np.int64) - 1
    tr, te = np.arange(150), np.arange(9000, 9030)
    A = missing_labels(S[tr], 0.5, always=X[tr] > 0, random_state=0)
    est = LPMILM3N(graph=sudoku_graph(), random_state=0).fit(X[tr], A, label_prob=sudoku_label_prob(X[tr], 0.5))
    pred, info = est.decode(X[te])
    assert np.all(pred == S[te])                       # every unseen puzzle solved
    assert info["tight"] + info["branch_and_bound"] == len(te) and info["not_proved"] == 0
    # the learned scores are the rules: copy a given digit, differ from related cells
    U, P = est.unary_, est.pairwise_
    assert np.all(np.argmax(U[1:], axis=1) == np.arange(9))
    assert np.all(np.diag(P)[:, None] < P + np.eye(9) * 1e9)


def test_inputs_are_validated_before_any_state_changes():
    X = np.array([[1, 2, 0], [0, 1, 2]])
    Y = np.array([[0, 1, -1], [1, 0, 1]])
    est = MILM3N(alpha=1.0).fit(X, Y)
    W = est.unary_.copy()
    with pytest.raises(ValueError, match=r"Y\[0, 1\] = 3 is not a label"):
        MILM3N(n_states=2).fit(X, np.array([[0, 3, -1], [1, 0, 1]]))
    with pytest.raises(ValueError, match=r"Y\[0, 2\] = -2"):
        est.fit(X, np.array([[0, 1, -2], [1, 0, 1]]))
    with pytest.raises(ValueError, match="Y must have the shape of X"):
        est.fit(X, Y[:, :2])
    with pytest.raises(ValueError, match="names a node that does not exist"):
        from weaklabel.structured import Graph
        MILM3N(graph=Graph(3, [[0, 5]])).fit(X, Y)
    with pytest.raises(ValueError, match="self-loop"):
        from weaklabel.structured import Graph
        Graph(3, [[1, 1]])
    with pytest.raises(ValueError, match="repeat the pair"):
        from weaklabel.structured import Graph
        Graph(3, [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="outside the alphabet"):
        est.predict(np.array([[1, 7, 0]]))
    with pytest.raises(ValueError, match="outside the alphabet"):
        MILM3N(n_symbols=2).fit(X, Y)
    np.testing.assert_array_equal(est.unary_, W)
    # an example with every label missing is allowed
    MILM3N(alpha=1.0).fit(X, np.array([[0, 1, -1], [-1, -1, -1]]))
    with pytest.raises(ValueError, match="graph has 81"):
        LPMILM3N(graph=sudoku_graph()).fit(X, Y)


def test_pairwise_scale_multiplies_the_pairwise_scores_at_prediction_only():
    from weaklabel.structured.inference import viterbi

    X, Y = hidden_markov_chain(20, 8, n_states=3, random_state=0, stay=0.8, match=0.7)
    est = LPMILM3N(graph=chain_graph(8), random_state=0).fit(X, Y)
    U0, P0 = est.unary_.copy(), est.pairwise_.copy()
    for scale in (0.5, 3.0):
        pred = est.set_params(pairwise_scale=scale).predict(X)
        for i in range(5):
            y = viterbi(U0[X[i]], scale * P0).labels
            np.testing.assert_array_equal(pred[i], y)
    # training ignores it: the same fit whatever the scale
    est2 = LPMILM3N(graph=chain_graph(8), random_state=0, pairwise_scale=7.0).fit(X, Y)
    np.testing.assert_allclose(est2.pairwise_, P0)
    for bad in (0, -1.0, np.inf, "2"):
        with pytest.raises(ValueError, match="pairwise_scale must be a finite number > 0"):
            est.set_params(pairwise_scale=bad).predict(X)
        with pytest.raises(ValueError, match="The 'pairwise_scale' parameter of LPMILM3N must be a float in the range"):
            LPMILM3N(graph=chain_graph(8), pairwise_scale=bad).fit(X, Y)
    np.testing.assert_array_equal(est.unary_, U0)


def test_decode_honours_allowed_labels_and_forbidden_pairs():
    """decode(allowed=, forbidden=): a tag dictionary per node and a transition that may never
    happen, on a fitted chain model; an unsatisfiable request is reported, not hidden."""
    X, Y = hidden_markov_chain(60, length=10, n_states=3, random_state=0)
    est = MILM3N(alpha=1.0, n_states=3).fit(X, Y)
    free, _ = est.decode(X[:20])
    allowed = np.ones((20, 10, 3), dtype=bool)
    allowed[:, 0] = [False, False, True]                 # node 0 must be label 2
    forbidden = np.zeros((3, 3), dtype=bool)
    forbidden[2, 2] = True                                # 2 may never follow 2
    for method in ("viterbi", "exact", "milp"):
        out, info = est.decode(X[:20], allowed=allowed, forbidden=forbidden, method=method)
        assert (out[:, 0] == 2).all() and not ((out[:, :-1] == 2) & (out[:, 1:] == 2)).any()
        assert info["infeasible_rows"] == []
    assert (free[:, 0] != 2).any()                        # the constraint changed something
    impossible = np.zeros((10, 3), dtype=bool)
    impossible[:, 2] = True                               # every node 2, yet 2-2 forbidden
    out, info = est.decode(X[:3], allowed=impossible, forbidden=forbidden)
    assert info["infeasible_rows"] == [0, 1, 2]
    with pytest.raises(ValueError, match="no label at nodes"):
        est.decode(X[:3], allowed=np.zeros((10, 3), dtype=bool))
    with pytest.raises(ValueError, match="2 examples but X has 3"):
        est.decode(X[:3], allowed=np.ones((2, 10, 3), dtype=bool))


def test_examples_of_their_own_length_learn_and_decode_as_fixed_size_ones():
    """A list of chains of different lengths trains on the same objective as padded-free
    arrays would: equal-length lists equal the array form, models decode any length, and
    predictions come back in the form given."""
    X, Y = hidden_markov_chain(30, length=6, n_states=3, random_state=0)
    A = missing_labels(Y, 0.3, random_state=0)
    a = MILM3N(alpha=0.5, n_states=3, random_state=0).fit(X, A)
    b = MILM3N(alpha=0.5, n_states=3, random_state=0).fit(list(X), list(A))
    np.testing.assert_allclose(a.unary_, b.unary_)
    np.testing.assert_allclose(a.pairwise_, b.pairwise_)
    assert isinstance(a.predict(X), np.ndarray) and a.predict(X).shape == (30, 6)
    # cut the chains to lengths 1..6: the list form; decode equals Viterbi per example
    from weaklabel.structured.inference import viterbi
    Xr = [x[: 1 + i % 6] for i, x in enumerate(X)]
    Ar = [y[: 1 + i % 6] for i, y in enumerate(A)]
    c = MILM3N(alpha=0.5, n_states=3, random_state=0).fit(Xr, Ar)
    pred = c.predict(Xr)
    assert isinstance(pred, list) and [p.size for p in pred] == [x.size for x in Xr]
    for x, p in zip(Xr, pred):
        np.testing.assert_array_equal(p, viterbi(c.unary_[x], c.pairwise_).labels)
    # a chain model decodes chains of any length, also longer than any it was trained on
    long = [np.r_[x, x, x] for x in X[:3]]
    assert [p.size for p in a.predict(long)] == [18, 18, 18]
    assert c.score(Xr, Ar) > 0.6
    for est in (LPMILM3N(max_iter=5, random_state=0), RampCCCPM3N(alpha=0.5, n_rounds=2, random_state=0)):
        assert [p.size for p in est.fit(Xr, Ar).predict(Xr)] == [x.size for x in Xr]


def test_candidate_sets_per_node_help_where_labels_are_missing():
    """Nodes given a candidate set of 2 of 4 labels instead of no label: the learner uses them
    (its accuracy rises) and never predicts outside a training node's set more than chance."""
    rng = np.random.default_rng(0)
    X, Y = hidden_markov_chain(60, length=10, n_states=4, random_state=1)
    A = missing_labels(Y, 0.8, random_state=1)
    M = np.ones(Y.shape + (4,), dtype=bool)
    lab = A >= 0
    M[lab] = np.eye(4, dtype=bool)[A[lab]]
    other = (Y + rng.integers(1, 4, size=Y.shape)) % 4
    sets = np.zeros_like(M)
    np.put_along_axis(sets, Y[..., None], True, axis=2)
    np.put_along_axis(sets, other[..., None], True, axis=2)
    M[~lab] = sets[~lab]
    Xt, Yt = hidden_markov_chain(200, length=10, n_states=4, random_state=2)
    only_labels = MILM3N(alpha=0.1, n_states=4, random_state=0).fit(X, A)
    with_sets = MILM3N(alpha=0.1, n_states=4, random_state=0).fit(X, M)
    assert with_sets.score(Xt, Yt) > only_labels.score(Xt, Yt) + 0.02
    assert with_sets.partial_error(X, M) < only_labels.partial_error(X, M) - 0.03


def test_bad_examples_get_clear_errors_and_leave_the_model_unchanged():
    X = [np.array([0, 1, 2]), np.array([1, 2]), np.array([2, 0, 1, 1])]
    Y = [np.array([0, 1, -1]), np.array([1, 0]), np.array([0, -1, 1, 1])]
    est = MILM3N(alpha=1.0).fit(X, Y)
    W, P = est.unary_.copy(), est.pairwise_.copy()
    pred = est.predict(X)
    M = [np.ones((x.size, 2), dtype=bool) for x in X]
    M[1][1] = False
    with pytest.raises(ValueError, match="allows no label at node 1 of example 1"):
        est.fit(X, M)
    with pytest.raises(ValueError, match=r"Y\[1\] must have shape \(2,\)"):
        est.fit(X, [Y[0], Y[2], Y[1]])
    with pytest.raises(ValueError, match="Y has 2 examples but X has 3"):
        est.fit(X, Y[:2])
    with pytest.raises(ValueError, match=r"example 1's graph: edge 0 = \[0, 4\] names a node that does not exist"):
        LPMILM3N().fit([(x, np.array([[0, 1]])) for x in X[:1]] + [(X[1], np.array([[0, 4]]))], Y[:2])
    graph_X = [(X[0], np.array([[0, 1], [1, 2]])), (X[1], np.array([[0, 1]])), (X[2], np.array([[0, 3]]))]
    lp = LPMILM3N(max_iter=3, random_state=0).fit(graph_X, Y)
    Wl = lp.unary_.copy()
    with pytest.raises(ValueError, match="names a node that does not exist"):
        lp.fit([graph_X[0], (X[1], np.array([[0, 2]])), graph_X[2]], Y)    # features of 2 nodes, an edge to node 2
    with pytest.raises(ValueError, match="mixes examples with their own graph"):
        lp.fit([graph_X[0], X[1], X[2]], Y)
    with pytest.raises(ValueError, match="the estimator has a graph and X gives each example its own"):
        LPMILM3N(graph=chain_graph(3)).fit(graph_X, Y)
    with pytest.raises(ValueError, match="different numbers of node features"):
        est.fit([np.zeros((2, 3)), np.zeros((2, 4))], [np.array([0, 1]), np.array([1, 0])])
    with pytest.raises(ValueError, match="mixes symbolic examples"):
        est.fit([np.array([0, 1]), np.zeros((2, 4))], [np.array([0, 1]), np.array([1, 0])])
    with pytest.raises(ValueError, match=r"X\[1\] has no nodes"):
        est.fit([np.array([0, 1]), np.array([], dtype=int)], [np.array([0, 1]), np.array([], dtype=int)])
    with pytest.raises(ValueError, match="finite"):
        est.fit([np.array([[0.5, np.nan]]), np.array([[1.0, 2.0]])], [np.array([0]), np.array([1])])
    with pytest.raises(ValueError, match="needs chains"):
        MILM3N().fit(graph_X, Y)
    np.testing.assert_array_equal(est.unary_, W)
    np.testing.assert_array_equal(est.pairwise_, P)
    np.testing.assert_array_equal(lp.unary_, Wl)
    for a, b in zip(est.predict(X), pred):
        np.testing.assert_array_equal(a, b)


def test_decode_constraints_on_examples_of_their_own_length():
    X = [np.array([0, 1, 2]), np.array([1, 2]), np.array([2, 0, 1, 1])]
    Y = [np.array([0, 1, -1]), np.array([1, 0]), np.array([0, -1, 1, 1])]
    est = MILM3N(alpha=1.0).fit(X, Y)
    allowed = [np.ones((x.size, 2), dtype=bool) for x in X]
    allowed[2][:, 0] = False                              # example 2: label 1 everywhere
    out, info = est.decode(X, allowed=allowed)
    assert (out[2] == 1).all() and info["infeasible_rows"] == []
    forbidden = np.array([[False, True], [False, False]])  # 0 may not be followed by 1
    out, info = est.decode(X, forbidden=forbidden, method="exact")
    assert info["infeasible_rows"] == []
    for y in out:
        assert not ((y[:-1] == 0) & (y[1:] == 1)).any()
    with pytest.raises(ValueError, match="allowed has 2 examples but X has 3"):
        est.decode(X, allowed=allowed[:2])


# ---- The structured learners learn: chains from half-annotated sequences, the CCCP baseline, RBF node features. ----

@pytest.mark.parametrize("solver", ["bcfw", "bmrm"])
def test_milm3n_learns_a_chain_from_half_annotated_sequences(solver):
    # a less noisy chain than the paper's, so that structure clearly pays: reading the
    # symbol errs 30 %, the Bayes rules 19 % (Hamming) and 21 % (0/1, Viterbi)
    kw = dict(n_states=5, stay=0.8, match=0.7)
    X, Y = hidden_markov_chain(150, length=40, random_state=0, **kw)
    Xt, Yt = hidden_markov_chain(300, length=40, random_state=1, **kw)
    A = missing_labels(Y, 0.5, random_state=0)
    est = MILM3N(alpha=0.1, solver=solver, max_iter=150, n_states=5, n_symbols=5, random_state=0).fit(X, A)
    err = 1 - est.score(Xt, Yt)
    bayes = np.mean(hmc_bayes_predict(Xt, "map", **kw) != Yt)
    assert err < np.mean(Xt != Yt) - 0.06           # structure learned from half the labels (23 %)
    assert err < bayes + 0.04
    assert est.lower_bound_[-1] <= est.objective_[-1] + 1e-12
    # the partial error counts annotated nodes only: about half the test error's scale
    assert est.partial_error(X, A) < 0.7 * (1 - est.score(X, Y))


@pytest.mark.slow
def test_cccp_baseline_descends_and_learns_from_complete_labels():
    kw = dict(n_states=5, stay=0.8, match=0.7)
    X, Y = hidden_markov_chain(150, length=40, random_state=0, **kw)
    Xt, Yt = hidden_markov_chain(300, length=40, random_state=1, **kw)
    read = np.mean(Xt != Yt)
    for rate in (0.0, 0.5):
        A = missing_labels(Y, rate, random_state=0)
        cccp = RampCCCPM3N(alpha=0.1, max_iter=50, n_states=5, n_symbols=5, random_state=0, n_rounds=3).fit(X, A)
        assert np.all(np.diff(cccp.ramp_objective_) <= 1e-9) and cccp.ramp_objective_[-1] < cccp.ramp_objective_[0]
        err = 1 - cccp.score(Xt, Yt)
        # complete labels: as good as MIL-M3N; half missing: the non-convex loss stalls at
        # reading the symbol (the paper's finding that CCCP trails MIL-M3N)
        assert err < (read - 0.06 if rate == 0 else read + 0.01)


