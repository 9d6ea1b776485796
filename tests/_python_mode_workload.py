"""Run every numba kernel of weaklabel once on tiny data and print what it computed.

tests/test_numba_python_mode.py calls ``run()`` in its own process (compiled kernels) and
runs this file as a script under ``NUMBA_DISABLE_JIT=1``, with ``numba.njit`` wrapped to
record which kernels ran, so each kernel's Python reading (what a debugger or a reader steps
through) is tested against the compiled one.  The script prints one JSON object:
{"called": [...], "defined": [...], "results": {...}}.
"""

import collections
import json
import os
import warnings

RECORD = os.environ.get("NUMBA_DISABLE_JIT") == "1"
defined, called = set(), collections.Counter()
if RECORD:
    import numba

    def _njit(*args, **kwargs):
        def deco(fn):
            name = f"{fn.__module__}.{fn.__qualname__}"
            defined.add(name)

            def wrapper(*a, **k):
                called[name] += 1
                return fn(*a, **k)
            wrapper.py_func = fn
            return wrapper
        return deco(args[0]) if args and callable(args[0]) and not kwargs else deco

    numba.njit = numba.jit = _njit

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

out = {}


def keep(name, value):
    out[name] = np.round(np.asarray(value, dtype=float), 8).ravel().tolist()


def run():
    """Every kernel's workload; returns {name: rounded numbers}."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _workload()
    return dict(out)


def _workload():
    from weaklabel._validation import check_X_values
    from weaklabel.bags import MMS, most_violating_labeling  # noqa: F401
    from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
    from weaklabel.noisy import UMA, CorrectedLogistic
    from weaklabel.partial import CLPL, PRODEN, AvgPegasos, MaxPerceptron
    from weaklabel.simulate import bags as sim_bags
    from weaklabel.simulate import hidden_markov_chain, make_candidate_sets, missing_labels, sudoku_puzzles
    from weaklabel.sources import DawidSkene, MajorityVote, PrecisionVote
    from weaklabel.structured import LPMILM3N, MILM3N, RampCCCPM3N, grid_graph
    from weaklabel.structured.inference import energy, exact_map, lp_map

    rng = np.random.RandomState(0)
    X = rng.rand(40, 5)
    y = rng.randint(0, 3, 40)
    S = make_candidate_sets(y, 2, random_state=0)
    check_X_values(X)
    from weaklabel._validation import _row_norms_in_range, _scan_values
    keep("scan_values", _scan_values(np.array([1.0, -3.0, 0.5, np.nan, 2.0])))
    vals = np.array([1.0, -3.0, 0.0, 1e-150, 0.0, 2.0, np.inf, 7.0])
    none, none32 = np.empty((0, 0)), np.empty((0, 0), np.float32)
    keep("row_norms", _row_norms_in_range(vals, np.array([0, 3, 5, 8]), 1e200, 1e-100, none))
    keep("row_norms32", _row_norms_in_range(vals.astype(np.float32), np.array([0, 3, 5, 8]), 1e200, 1e-100, none32))
    rows4 = np.array([[1.0, -3.0], [0.0, 1e-150], [np.inf, 7.0], [2.0, 0.5]])
    keep("dense_row_norms", _row_norms_in_range(rows4.ravel(), np.arange(0, 9, 2), 1e200, 1e-100, rows4))
    keep("dense_row_norms32", _row_norms_in_range(rows4.ravel().astype(np.float32), np.arange(0, 9, 2), 1e200, 1e-100,
                                                  rows4.astype(np.float32)))
    for i, M in enumerate((X, sp.csr_matrix(X))):
        keep(f"avgpegasos{i}", AvgPegasos(max_iter=2, random_state=0).fit(M, S, sample_weight=np.ones(40)).coef_)
        keep(f"maxperceptron{i}", MaxPerceptron(max_iter=2, random_state=0).fit(M, S).decision_function(M))
        keep(f"confidit{i}", Confidit(max_iter=1, random_state=0).fit(M, y).coef_)
        keep(f"confidit_diag{i}", Confidit(max_iter=1, diagonal=True, random_state=0).fit(M, y).coef_)
        # the intercept read as an implicit constant feature (no appended column)
        keep(f"intercept{i}", np.concatenate([
            AvgPegasos(max_iter=1, fit_intercept=True, random_state=0).fit(M, S).intercept_,
            Confidit(max_iter=1, diagonal=True, fit_intercept=True, random_state=0).fit(M, y).intercept_,
            CSPA(max_iter=1, fit_intercept=True, random_state=0).fit(M, y).intercept_,
            CorrectedLogistic(fit_intercept=True).partial_fit(M, y, classes=np.arange(3)).intercept_]))
        sk = SketchedConfidit(max_iter=1, sketch_size=2, random_state=0).fit(M, S)
        keep(f"sketched{i}", sk.coef_)
        keep(f"sketched_log{i}", SketchedConfidit(sketch_size=2).partial_fit_feedback(
            M, y, y == rng.randint(0, 3, 40), classes=np.arange(3)).coef_)
        for sel in ("error", "confusion", "random"):
            keep(f"uma_{sel}{i}", UMA(confusion="identity", max_iter=20, selection=sel, random_state=0).fit(M, y).coef_)
        keep(f"uma_alpha{i}", UMA(confusion="identity", max_iter=20, alpha=0.1, random_state=0).fit(M, y).coef_)
    # the kernels also take feature-major weights on dense rows (the estimators keep them
    # class-major there): the pass then works on a class-major copy, written back
    from weaklabel.linear import kernel_rows
    from weaklabel.partial._kernels import RULE_AVG, _candidate_epoch
    from weaklabel.simulate import make_candidate_sets as _sets
    Wf = np.zeros((5, 3))
    _candidate_epoch((Wf, False), (1.0, 0.0, 1.0), tuple(kernel_rows(X)), _sets(y, 2, random_state=0).mask,
                     np.arange(40), (RULE_AVG, False, 1.0, 1.0), np.empty(40, np.intp), np.empty(0))
    keep("feature_major_dense", Wf)
    # a dense pass that checks each row as it reads it, stopping at a NaN row (then the
    # exact check names it and the model is put back)
    Xn = X.copy()
    Xn[30, 2] = np.nan
    for est in (MaxPerceptron(random_state=0).fit(X, S), CSPA(random_state=0).fit(X, y),
                Confidit(diagonal=True, random_state=0).fit(X, y)):
        try:
            est.partial_fit(Xn, y)
        except ValueError:
            keep(f"row_check_{type(est).__name__}", est.coef_)
    # full Confidit's short partial_fit call: its matrix updates journaled, written at the end
    full = Confidit(diagonal=False, random_state=0).fit(X, y).partial_fit(X[:6], y[:6])
    keep("confidit_journal", np.append(full.coef_, full._A_inv[:, :2, :2]))
    keep("proden", PRODEN(max_rounds=2).fit(X, S).predict_proba(X))
    from weaklabel.partial import candidate_likelihood_loss
    Z = rng.randn(40, 3) * 3
    loss, G = candidate_likelihood_loss(Z, S.mask, rng.rand(40) + 0.1)
    keep("cc_loss", np.append(G.ravel(), loss))
    keep("clpl", CLPL(max_iter=5).fit(X, S).coef_)
    # an odd number of dense rows (the pass once scored rows in pairs; kept as a plain case)
    keep("cspa_odd", CSPA(max_iter=1, shuffle=False, random_state=0).fit(X[:39], y[:39]).coef_)
    for cls in (CSPA, SPA, Banditron, BPA):
        keep(cls.__name__, cls(max_iter=2, random_state=0).fit(X, y).coef_)
        keep(cls.__name__ + "_sets", cls(max_iter=1, random_state=0).fit(X, S).coef_)
    keep("mms", MMS(max_iter=1, n_rounds=2, random_state=0).fit(X, sim_bags(y, 2, 2, random_state=0)).coef_)
    keep("corrected_sgd", CorrectedLogistic().partial_fit(X, y, classes=np.arange(3)).coef_)
    trusted = np.arange(y.size) < 10
    keep("corrected_lbfgs", CorrectedLogistic(confusion=np.full((3, 3), 0.1) + 0.7 * np.eye(3), max_iter=5)
         .fit(X, y, trusted=trusted).coef_)
    L = rng.randint(-1, 3, (40, 4))
    for m in (DawidSkene(), PrecisionVote(), MajorityVote()):
        keep(type(m).__name__, m.fit(L).predict_proba(L))
    keep("ds_partial", DawidSkene().partial_fit(L, n_classes=3).predict_proba(L))
    Xs, Ys = hidden_markov_chain(6, length=8, n_states=3, random_state=0)
    A = missing_labels(Ys, 0.3, random_state=0)
    for solver in ("bcfw", "bmrm"):
        keep(f"milm3n_{solver}", MILM3N(n_states=3, n_symbols=3, max_iter=2, solver=solver, random_state=0)
             .fit(Xs, A).predict(Xs))
    from weaklabel.simulate import node_candidate_sets

    M = node_candidate_sets(Ys, 3, n_distractors=1, missing_rate=0.25, random_state=0)
    keep("milm3n_sets", MILM3N(n_states=3, n_symbols=3, max_iter=2, random_state=0)
         .fit(Xs, M, label_prob=0.75).predict(Xs))
    keep("ramp", RampCCCPM3N(n_states=3, n_symbols=3, max_iter=2, n_rounds=1, random_state=0).fit(Xs, A).predict(Xs))
    Xg = rng.randn(8, 4, 3)
    Yg = np.where(rng.rand(8, 4) < 0.25, -1, (Xg[:, :, 0] > 0).astype(int))
    keep("lpmilm3n", LPMILM3N(graph=grid_graph(2, 2), max_iter=3, random_state=0, pairwise_scale=2.0)
         .fit(Xg, Yg).predict(Xg))
    g = grid_graph(3, 3)
    U, P = rng.randn(9, 3), rng.randn(len(g.edges), 3, 3)
    keep("lp_map", lp_map(U, P, g.edges).labels)
    keep("exact_map", exact_map(U, P, g.edges).labels)
    keep("energy", energy(U, P, g.edges, np.zeros(9, dtype=int)))
    # a frustrated odd cycle: the LP relaxation is not tight, so decoding and branch and bound run
    cycle = np.array([[0, 1], [1, 2], [0, 2], [2, 3], [3, 4], [2, 4]])
    Uc = 0.01 * rng.randn(5, 2)
    Pc = np.repeat(np.array([[0.0, 1.0], [1.0, 0.0]])[None], len(cycle), axis=0)
    keep("lp_map_frustrated", lp_map(Uc, Pc, cycle).labels)
    keep("exact_map_frustrated", exact_map(Uc, Pc, cycle).labels)
    keep("sudoku", sudoku_puzzles(1, random_state=0)[0])


if __name__ == "__main__":
    run()
    print(json.dumps({"called": sorted(called), "defined": sorted(defined), "results": out}))
