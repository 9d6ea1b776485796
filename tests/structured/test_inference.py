"""Exactness of the max-sum inference functions against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel import datasets
from weaklabel.structured import chain_graph, grid_graph, sudoku_graph
from weaklabel.structured.inference import brute_force, energy, exact_map, milp_map, lp_map, viterbi


def numpy_viterbi(U, P):
    """Plain-numpy Viterbi (the benchmark's reference too)."""
    n, K = U.shape
    delta = U[0].copy()
    back = np.zeros((n, K), dtype=int)
    for t in range(1, n):
        cand = delta[:, None] + P[t - 1]
        back[t] = np.argmax(cand, axis=0)
        delta = cand[back[t], np.arange(K)] + U[t]
    y = np.zeros(n, dtype=int)
    y[-1] = int(np.argmax(delta))
    for t in range(n - 1, 0, -1):
        y[t - 1] = back[t, y[t]]
    return y, float(delta.max())


@st.composite
def chain_problem(draw):
    n = draw(st.integers(1, 6))
    K = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    shared = draw(st.booleans())
    P = rng.normal(size=(K, K)) if shared else rng.normal(size=(max(n - 1, 0), K, K))
    return rng.normal(size=(n, K)), P


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(chain_problem())
def test_viterbi_equals_brute_force(prob):
    U, P = prob
    r = viterbi(U, P)
    y, v = r.labels, r.value
    assert r.certified and r.bound == v
    b = brute_force(U, P)
    vb = b.value
    assert v == pytest.approx(vb, abs=1e-9)
    assert energy(U, P, None, y) == pytest.approx(v, abs=1e-9)
    if U.shape[0] > 1:
        Pf = P if P.ndim == 3 else np.broadcast_to(P, (U.shape[0] - 1,) + P.shape)
        yn, vn = numpy_viterbi(U, Pf)
        assert np.array_equal(y, yn) and vn == pytest.approx(v)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_lp_map_is_exact_on_chains_and_trees(seed, tree):
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(2, 7)), int(rng.integers(2, 4))
    E = np.array([[rng.integers(0, i), i] for i in range(1, n)]) if tree else chain_graph(n).edges
    U, P = rng.normal(size=(n, K)), rng.normal(size=(n - 1, K, K))
    b = brute_force(U, P, E)
    vb = b.value
    r = lp_map(U, P, E)
    assert r.bound >= vb - 1e-9
    assert r.certified and r.bound == pytest.approx(vb, abs=1e-7)
    assert r.value == pytest.approx(vb, abs=1e-9)
    assert r.gap == pytest.approx(0.0, abs=1e-7) and r.nodes == 0


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_lp_bound_and_exact_map_on_loopy_graphs(seed):
    rng = np.random.default_rng(seed)
    n, K = 5, 3
    E = np.array([[i, j] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6]).reshape(-1, 2)
    U, P = rng.normal(size=(n, K)), rng.normal(scale=rng.choice([0.3, 2.0]), size=(len(E), K, K))
    b = brute_force(U, P, E)
    vb = b.value
    r = lp_map(U, P, E)
    assert r.bound >= vb - 1e-9                   # an upper bound, always
    assert r.value <= vb + 1e-9
    if r.certified:
        assert r.value == pytest.approx(vb, abs=1e-7)
    e = exact_map(U, P, E)
    y, v = e.labels, e.value
    assert v == pytest.approx(vb, abs=1e-9) and e.certified and e.bound == e.value
    assert energy(U, P, E, y) == pytest.approx(v)
    if not r.certified:                               # the integer program too
        mi = milp_map(U, P, E)
        assert mi.value == pytest.approx(vb, abs=1e-7) and mi.certified


def numpy_mplp(U, P, edges, msg, max_iter, tol):
    """MPLP as the paper writes it (Globerson & Jaakkola 2007), in numpy: each edge's two
    max-plus products, then the dual bound from all messages after the sweep; sums in the
    kernel's order (nodes, then edges), so the kernel must agree to the bit."""
    n, K = U.shape
    b = U.copy()
    for e, (u, v) in enumerate(edges):
        b[u] += msg[e, 0]
        b[v] += msg[e, 1]
    prev, out = np.inf, np.zeros(n, dtype=np.int64)
    for it in range(max_iter):
        for e, (u, v) in enumerate(edges):
            a, c = b[u] - msg[e, 0], b[v] - msg[e, 1]
            msg[e, 0] = -0.5 * a + 0.5 * (P[e] + c[None, :]).max(axis=1)
            msg[e, 1] = -0.5 * c + 0.5 * (P[e] + a[:, None]).max(axis=0)
            b[u], b[v] = a + msg[e, 0], c + msg[e, 1]
        bound = 0.0
        for i in range(n):
            bound += b[i].max()
        for e in range(len(edges)):
            bound += ((P[e] + (-msg[e, 0])[:, None]) + (-msg[e, 1])[None, :]).max()
        out = np.argmax(b, axis=1)
        en = 0.0
        for i in range(n):
            en += U[i, out[i]]
        for e, (u, v) in enumerate(edges):
            en += P[e, out[u], out[v]]
        scale = 1.0 + abs(bound)
        if bound - en <= 1e-9 * scale or prev - bound < tol * scale:
            return bound, en, it + 1, out
        prev = bound
    return bound, en, max_iter, out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_mplp_kernel_equals_the_numpy_sweeps_to_the_bit(seed):
    """The kernel's messages, bound, energy, sweeps and labels are the numpy sweeps' exactly,
    from cold and warm starts."""
    from weaklabel.structured.inference._kernels import _mplp

    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(2, 7)), int(rng.integers(2, 5))
    E = np.array([[i, j] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6], dtype=np.int64)
    E = E.reshape(-1, 2)
    U = rng.normal(size=(n, K))
    P = rng.normal(scale=rng.choice([0.3, 2.0]), size=(len(E), K, K))
    P[rng.random(P.shape) < 0.1] -= 50.0                   # near-forbidden pairs, as learned rules
    msg0 = rng.normal(scale=0.1, size=(len(E), 2, K)) * rng.integers(0, 2)    # cold or warm start
    max_iter = int(rng.integers(1, 40))
    m_ref, m_ker = msg0.copy(), msg0.copy()
    ref = numpy_mplp(U, P, E, m_ref, max_iter, 1e-9)
    out = np.zeros(n, dtype=np.int64)
    for a in (U, P, E):                # read-only, as lp_map passes them (numba's one compiled form)
        a.setflags(write=False)
    bound, en, sweeps = _mplp(U, P, E, m_ker, max_iter, 1e-9, out)
    np.testing.assert_array_equal(m_ker, m_ref)
    assert (bound, en, sweeps) == ref[:3]
    np.testing.assert_array_equal(out, ref[3])


def test_grid_frustrated_problem_needs_branching():
    # a 3-cycle of "must differ" with 2 labels: LP is not tight; exact_map still exact
    E = np.array([[0, 1], [1, 2], [0, 2]])
    P = -np.eye(2)
    U = np.array([[0.1, 0], [0, 0.05], [0, 0]])
    r = lp_map(U, P, E)
    assert not r.certified and r.bound > r.value
    e = exact_map(U, P, E)
    vb = brute_force(U, P, E).value
    assert e.value == pytest.approx(vb) and not e.info["tight_at_root"] and e.certified and e.nodes > 0
    mi = milp_map(U, P, E)
    assert mi.value == pytest.approx(vb) and mi.certified and mi.info["n_binary"] > 0


@pytest.mark.slow
def test_exact_map_decodes_hard_sudokus_under_soft_learned_like_rules():
    # Scores shaped like a trained LPMILM3N (givens favoured by ~11, a same-digit pair
    # penalised by ~1.3 with 0.01 noise, one row of small preferences shared by the empty
    # cells, as the symbol-indexed unary of the model has it).  The LP is loose on these
    # puzzles.  Searching from the LP labeling's score (the former exact_map) explores
    # every labeling that breaks a rule or two; the deepening target proves the MAP.
    from weaklabel.simulate import sudoku_puzzles
    from weaklabel.structured.inference import _adjacency
    from weaklabel.structured.inference._kernels import _beliefs, _dfbb

    rng = np.random.default_rng(3)
    X, Y = sudoku_puzzles(8, givens=(30, 36), random_state=7)
    g = sudoku_graph()
    P = 1.33 + 0.01 * rng.standard_normal((9, 9)) - 1.33 * np.eye(9)
    budget = 100_000
    new_nodes, old_nodes = [], []
    for x, sol in zip(X, Y):
        U = np.tile(rng.uniform(0, 0.1, size=9), (81, 1))
        U[x > 0] = -5.0
        U[x > 0, x[x > 0] - 1] = 6.5
        r = lp_map(U, P, g.edges)
        if r.certified:
            continue
        e = exact_map(U, P, g.edges, max_nodes=budget)
        y, v = e.labels, e.value
        assert e.certified and v >= energy(U, P, g.edges, sol - 1) - 1e-9
        assert np.array_equal(y + 1, sol)
        new_nodes.append(e.nodes)
        msg = r.info["messages"]                          # the former search, same budget
        ue = np.ascontiguousarray(P - msg[:, 0, :, None] - msg[:, 1, None, :])
        out = r.labels.copy()
        _, done, used = _dfbb(_beliefs(U, g.edges, msg), ue, g.edges, *_adjacency(g.edges, 81), r.value, budget, out)
        old_nodes.append(used)
    assert len(new_nodes) >= 4
    assert sum(new_nodes) < sum(old_nodes) / 5, (new_nodes, old_nodes)


@pytest.mark.data("sudoku")
def test_lp_map_solves_valid_sudokus_given_as_unary_constraints():
    d = datasets.load("sudoku")
    g = sudoku_graph()
    rng = np.random.default_rng(0)
    for i in rng.choice(len(d.X_train), 30, replace=False):
        x, sol = d.X_train[i], d.y_train[i]
        U = np.zeros((81, 9))
        U[x > 0, x[x > 0] - 1] = 1.0                # givens as unary constraints
        r = lp_map(U, -np.eye(9), g.edges)
        labels, bound, tight = r.labels, r.bound, r.certified
        assert tight and bound == pytest.approx((x > 0).sum())
        assert np.array_equal(labels + 1, sol)


def test_inputs_are_checked():
    with pytest.raises(ValueError, match="names a node that does not exist"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 3]])
    with pytest.raises(ValueError, match="self-loop"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[1, 1]])
    with pytest.raises(ValueError, match="repeat the pair"):
        lp_map(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="pairwise must have shape"):
        lp_map(np.zeros((3, 2)), np.zeros((3, 3)), [[0, 1]])
    with pytest.raises(ValueError, match="viterbi needs the chain"):
        viterbi(np.zeros((3, 2)), np.zeros((2, 2)), [[0, 2], [1, 2]])
    with pytest.raises(ValueError, match="finite"):
        viterbi(np.full((2, 2), np.nan), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="brute_force"):
        brute_force(np.zeros((30, 3)), np.zeros((3, 3)))
    assert grid_graph(2, 2).n_edges == 4


def _constrained_reference(U, P, E, A, F):
    """The best labeling that keeps every constraint, by enumeration (None if none does)."""
    import itertools

    n, K = U.shape
    best, arg = -np.inf, None
    for y in itertools.product(range(K), repeat=n):
        y = np.array(y)
        if not A[np.arange(n), y].all() or (E.shape[0] and F[np.arange(E.shape[0]), y[E[:, 0]], y[E[:, 1]]].any()):
            continue
        v = U[np.arange(n), y].sum() + sum(P[e][y[a], y[b]] for e, (a, b) in enumerate(E))
        if v > best + 1e-12:
            best, arg = v, y
    return arg, best


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_every_method_honours_decode_constraints(seed, loopy):
    """Allowed labels per node and forbidden pairs per edge, imposed on the potentials: every
    exact method returns the constrained MAP, or, when no labeling keeps the constraints, a
    labeling that breaks one (which satisfies() reports)."""
    from weaklabel.structured.inference import check_constraints, constrain, satisfies

    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 4))
    E = grid_graph(2, 3).edges if loopy else chain_graph(int(rng.integers(2, 6))).edges
    n = int(E.max()) + 1
    U, P = rng.normal(size=(n, K)), rng.normal(size=(E.shape[0], K, K))
    A = rng.random((n, K)) < 0.7
    A[np.arange(n), rng.integers(0, K, n)] = True
    A, F = check_constraints(A, rng.random((K, K)) < 0.25, n, E.shape[0], K)
    ref, best = _constrained_reference(U, P, E, A, F)
    Uc, Pc = constrain(U, P, E.shape[0], A, F)
    methods = [exact_map, milp_map] + ([] if loopy else [viterbi])
    for f in methods:
        r = f(Uc, Pc, E)
        if ref is None:
            assert not satisfies(r.labels, E, A, F)
        else:
            assert satisfies(r.labels, E, A, F), f.__name__
            assert energy(U, P, E, r.labels) == pytest.approx(best, abs=1e-9), f.__name__
    r = lp_map(Uc, Pc, E)
    if r.certified and ref is not None:
        assert energy(U, P, E, r.labels) == pytest.approx(best, abs=1e-9)


def test_constraint_shapes_are_checked():
    from weaklabel.structured.inference import check_constraints

    with pytest.raises(ValueError, match=r"no label at nodes \[1\]"):
        check_constraints(np.array([[True, False], [False, False]]), None, 2, 1, 2)
    with pytest.raises(ValueError, match=r"shape \(2, 2\) or \(2,\)"):
        check_constraints(np.ones((3, 2), dtype=bool), None, 2, 1, 2)
    with pytest.raises(ValueError, match="bool mask"):
        check_constraints(None, np.zeros((2, 2)), 2, 1, 2)
    with pytest.raises(ValueError, match=r"\(2, 2\) or \(1, 2, 2\)"):
        check_constraints(None, np.zeros((3, 3), dtype=bool), 2, 1, 2)
