"""One-pass throughput of the candidate-label learners beside scikit-learn's Perceptron.

Measured side by side in one run on the same data: examples per second of one pass
(best of ``repeats`` timings, after a warm-up that compiles the kernels), and the
ratio ours / scikit-learn.  The candidate-set learners get candidate sets of size 2
(true label + 1 uniform distractor); Perceptron/Pegasos get the true labels.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp

from .. import datasets
from .. import presets
from ..simulate import make_candidate_sets

DATASETS = {"usps": "dense", "sector": "sparse"}


def _timed_fit(fn, repeats):
    """(best seconds of ``repeats`` calls of ``fn``, the estimator of the last call), warnings off."""
    t, est = np.inf, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            t0 = time.perf_counter()
            est = fn()
            t = min(t, time.perf_counter() - t0)
    return t, est


def _interleaved_best(fns, repeats):
    """The best time of each of ``fns`` over ``repeats`` rounds, each round timing them in turn."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def _best_time(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(names=("usps", "sector"), repeats=3, out=print):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Perceptron as SkPerceptron

    rows = []
    for name in names:
        d = datasets.load(name)
        X = sp.csr_matrix(d.X_train) if DATASETS.get(name) == "sparse" else np.ascontiguousarray(d.X_train)
        y = d.y_train
        n = y.size
        S = make_candidate_sets(y, 2, random_state=0)
        sk = SkPerceptron(max_iter=1, tol=None, shuffle=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t_sk = _best_time(lambda sk=sk, X=X, y=y: sk.fit(X, y), repeats)
        out(f"{name} ({'CSR' if sp.issparse(X) else 'dense'} {X.shape[0]} x {X.shape[1]}, {np.unique(y).size} classes)")
        out(f"  {'scikit-learn Perceptron':28s} {n / t_sk:12,.0f} ex/s   1.00x")
        for method in presets.names("partial"):
            cls = presets.get(method).cls
            params = {"max_iter": 1, "shuffle": False, **({"alpha": 1e-4} if "pegasos" in method else {})}
            target = y if presets.get(method).exact_labels else S
            cls(**params).fit(X[:50], target[:50])                     # compile outside the timing
            t = _best_time(lambda cls=cls, params=params, X=X, target=target: cls(**params).fit(X, target), repeats)
            ratio = t_sk / t
            rows.append({"dataset": name, "method": method, "ex_per_s": n / t, "sklearn_ex_per_s": n / t_sk,
                         "ratio": ratio})
            out(f"  {method:28s} {n / t:12,.0f} ex/s {ratio:6.2f}x")
    return rows


def run_uma(names=("letter", "sector9"), max_iter=300, out=print):
    """UMA seconds per iteration vs one ``X.T @ Y`` aggregation (numpy) on the same data.

    Features and noisy labels come from the uma-real protocol (run 0, noise a). Prints
    the ratio (target <= 2x) and the time of a full fit (max_iter=1500 in the
    reproduction; here ``max_iter`` iterations, scaled).
    """
    import warnings

    from ..noisy import UMA
    from . import uma as uma_bench

    rows = []
    for name in names:
        r = uma_bench._prepare_run({"dataset": name, "run": 0, "noise": "a", "max_iter": 1500,
                                    "conf_fraction": 0.05})
        X, y, C, classes = r["Xtr"], r["y_noisy"], r["C"], r["classes"]
        Y = np.zeros((y.size, classes.size))
        Y[np.arange(y.size), np.searchsorted(classes, y)] = 1.0
        t_floor = _best_time(lambda X=X, Y=Y: X.T @ Y, 5)
        UMA(confusion=C, max_iter=2, classes=classes).fit(X[:50], y[:50]) if classes.size <= 50 else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            est = UMA(confusion=C, max_iter=max_iter, classes=classes).fit(X, y)
            total = time.perf_counter() - t0
        per_iter = total / max(1, est.n_iter_)
        ratio = per_iter / t_floor
        rows.append({"dataset": name, "shape": X.shape, "per_iter": per_iter, "floor": t_floor, "ratio": ratio,
                     "n_iter": est.n_iter_, "total": total})
        out(f"{name} ({'CSR' if sp.issparse(X) else 'dense'} {X.shape[0]} x {X.shape[1]}, {classes.size} classes): "
            f"UMA {per_iter * 1e3:.1f} ms/iteration, X.T @ Y {t_floor * 1e3:.1f} ms, ratio {ratio:.2f}x "
            f"({'meets' if ratio <= 2 else 'ABOVE'} the 2x target); {est.n_iter_} iterations in {total:.1f} s")
    return rows


def run_bandit(names=("usps", "sector"), repeats=3, out=print):
    """One pass of each bandit learner vs scikit-learn's PA-1 SGD pass and VW --cbify.

    Rows are the cspa-linear protocol's (min-max to [-1, 1] where raw, unit norm), in
    file order.  scikit-learn: ``SGDClassifier(loss="hinge", learning_rate="pa1",
    max_iter=1)`` on the full labels (one-vs-rest: the same order of work).  VW:
    ``--cbify K --epsilon 0.05`` through its Python API on the same rows, the example
    strings built before the timing.  Best of ``repeats`` timings each.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    from ..bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
    from ._data import stream_data
    from .cspa import LINEAR_DATA
    from ._peers import have_vw, vw_cbify_pass, vw_features

    learners = {"CSPA": lambda: CSPA(beta=0.3), "SPA": lambda: SPA(), "Banditron": lambda: Banditron(gamma=0.05, average=False),
                "BPA": lambda: BPA(gamma=0.05), "Confidit (diag)": lambda: Confidit(eta=1.0, diagonal=True),
                "Confidit (sketch 8)": lambda: SketchedConfidit(eta=1.0, sketch_size=8)}
    rows = []
    for name in names:
        X, y, K = stream_data(name, *LINEAR_DATA[name][:2])
        n = y.size
        sk = SGDClassifier(loss="hinge", learning_rate="pa1", max_iter=1, tol=None, shuffle=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t_sk = _best_time(lambda sk=sk: sk.fit(X, y), repeats)
        t_vw = None
        if have_vw():
            feats = vw_features(X)
            t_vw = _best_time(lambda: vw_cbify_pass(feats, y, K, 0.05, 0), repeats)
        out(f"{name} ({'CSR' if sp.issparse(X) else 'dense'} {n} x {X.shape[1]}, {K} classes)")
        out(f"  {'sklearn SGD pa1 (full labels)':30s} {n / t_sk:12,.0f} ex/s   {t_sk:.3f} s")
        if t_vw is not None:
            out(f"  {'VW --cbify':30s} {n / t_vw:12,.0f} ex/s   {t_vw:.3f} s")
        else:
            out("  VW --cbify: not installed (pip install weaklabel[compare])")
        for label, make in learners.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make().partial_fit(X[:50], y[:50], classes=np.arange(K))  # compile outside the timing
            t = _best_time(lambda make=make: make().partial_fit(X, y, classes=np.arange(K)), repeats)
            r = {"dataset": name, "method": label, "ex_per_s": n / t, "seconds": t, "vs_sklearn": t_sk / t,
                 "vs_vw": (t_vw / t) if t_vw else None}
            rows.append(r)
            vw_txt = f"{r['vs_vw']:7.1f}x VW" if t_vw else ""
            extra = ""
            if label == "Confidit (sketch 8)":
                diag = next(q["seconds"] for q in rows if q["dataset"] == name and q["method"] == "Confidit (diag)")
                extra = f"  ({t / diag:.1f}x the diagonal's time)"
            out(f"  {label:30s} {n / t:12,.0f} ex/s   {t:.3f} s {r['vs_sklearn']:6.2f}x sklearn {vw_txt}{extra}")
    return rows


def _bag_search_problem(rng, M, C, L, scale):
    """Scores and L candidate vectors of one bag: a random 'true' vector and L-1 copies with
    1..M elements changed, as the paper's generator makes them.
    """
    scores = rng.normal(scale=scale, size=(M, C)) if scale > 0 else np.zeros((M, C))
    true = rng.integers(0, C, size=M)
    pool = rng.choice(C, size=min(C, M + 3), replace=False)
    Z = [true]
    while len(Z) < L:
        z = true.copy()
        k = rng.integers(1, M + 1)
        pos = rng.choice(M, k, replace=False)
        z[pos] = rng.choice(pool, k)
        if not any(np.array_equal(z, q) for q in Z):
            Z.append(z)
    return scores, np.asarray(Z)


def run_bag_search(M=10, C=200, Ls=(10, 50), scales=(0.0, 0.1, 1.0, 10.0), n_bags=2000, out=print, seed=0):
    """Time of MMS's exact most-violating-labeling search on bags of ``M`` instances over
    ``C`` classes (microseconds per bag), beside the size of the space it searches exactly.
    """
    from ..bags import most_violating_labeling

    rng = np.random.default_rng(seed)
    most_violating_labeling(*_bag_search_problem(rng, M, C, 3, 1.0))          # compile
    rows = []
    out(f"MMS exact search, bags of {M} instances over {C} classes ({n_bags} random bags per row)")
    out(f"{'L':>4} {'score scale':>11} {'us/bag':>8} {'us/bag canonical':>17} {'prod(|U_m|+1)':>14}  C^M")
    for L in Ls:
        for scale in scales:
            probs = [_bag_search_problem(rng, M, C, L, scale) for _ in range(n_bags)]
            space = np.mean([np.prod([np.unique(Z[:, m]).size + 1 for m in range(M)]) for _, Z in probs])
            t_fast = _best_time(lambda: [most_violating_labeling(scores, Z, canonical=False) for scores, Z in probs], 2)
            t_can = _best_time(lambda: [most_violating_labeling(scores, Z) for scores, Z in probs], 2)
            row = {"L": L, "scale": scale, "us_fast": 1e6 * t_fast / n_bags, "us_canonical": 1e6 * t_can / n_bags,
                   "space": float(space)}
            rows.append(row)
            out(f"{L:>4} {scale:>11g} {row['us_fast']:>8.1f} {row['us_canonical']:>17.1f} {space:>14.3g}  "
                f"{float(C) ** M:.3g}")
    return rows


def mms_speed_data(n=100_000, n_features=20, n_classes=10, bag_size=5, n_labelings=10, seed=0):
    """The speed set: ``n`` synthetic instances (scikit-learn's make_classification, features
    standardised and divided by sqrt(n_features), as LIBSVM's scaled sets), bagged by the
    paper's generator with P_c = P_a = 0.25.
    """
    from sklearn.datasets import make_classification

    from ..simulate import bags

    X, y = make_classification(n_samples=n, n_features=n_features, n_informative=15, n_redundant=2,
                               n_classes=n_classes, n_clusters_per_class=1, class_sep=1.5, random_state=seed)
    X = (X - X.mean(0)) / X.std(0) / np.sqrt(n_features)
    B = bags(y, bag_size=bag_size, n_labelings=n_labelings, p_correlated=0.25, p_ambiguous=0.25, random_state=seed)
    return X, y, B


def run_mms(n=100_000, out=print, seed=0):
    """MMS training time on ``n`` instances (bags of 5, L = 10) beside scikit-learn's
    ``LinearSVC(multi_class="crammer_singer")`` on the same instances with their true labels.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from ..bags import MMS

    X, y, B = mms_speed_data(n=n, seed=seed)
    MMS(max_iter=1, n_rounds=1, random_state=0).fit(X[:500], B.subset(np.arange(100))[0])   # compile
    t0 = time.perf_counter()
    mms = MMS(random_state=seed).fit(X, B)
    t_mms = time.perf_counter() - t0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t0 = time.perf_counter()
        cs = LinearSVC(multi_class="crammer_singer", random_state=seed).fit(X, y)
        t_cs = time.perf_counter() - t0
    out(f"MMS on {n} instances ({B.n_bags} bags of 5, L = {int(B.n_labelings.max())}, {X.shape[1]} features, "
        f"{B.n_classes} classes): {t_mms:.1f} s, {mms.n_rounds_} CCCP rounds x {mms.max_iter} passes, "
        f"training accuracy on the true labels {mms.score(X, y):.3f}  "
        f"({'meets' if t_mms < 120 else 'ABOVE'} the 2-minute target)")
    out(f"scikit-learn LinearSVC(crammer_singer) on the true labels: {t_cs:.1f} s, accuracy {cs.score(X, y):.3f}")
    out(f"ratio MMS / LinearSVC time: {t_mms / t_cs:.2f}")
    return {"n": n, "mms_s": t_mms, "cs_s": t_cs, "ratio": t_mms / t_cs, "mms_acc": mms.score(X, y),
            "cs_acc": cs.score(X, y), "rounds": mms.n_rounds_}


def _numpy_viterbi(U, P):
    n, K = U.shape
    delta = U[0].copy()
    back = np.zeros((n, K), dtype=np.int64)
    for t in range(1, n):
        cand = delta[:, None] + P
        back[t] = np.argmax(cand, axis=0)
        delta = cand[back[t], np.arange(K)] + U[t]
    y = np.zeros(n, dtype=np.int64)
    y[-1] = int(np.argmax(delta))
    for t in range(n - 1, 0, -1):
        y[t - 1] = back[t, y[t]]
    return y


def run_structured(out=print, repeats=200, n_train=500, tau=0.5, n_test=100, n_other=100, n_chains=10_000):
    """Viterbi on a 100-long, 30-state chain beside a plain-numpy Viterbi; lp_map and the
    exact decoder on Sudoku instances; LPMILM3N training time on ``n_train`` partially
    annotated Sudokus (``tau`` of the empty cells unlabelled) and its solved share (%) on
    ``n_test`` unseen puzzles of the same source and ``n_other`` of another.
    """
    from ..simulate import missing_labels, sudoku_puzzles
    from ..structured import LPMILM3N, sudoku_graph, sudoku_label_prob
    from ..structured.inference import exact_map, lp_map, viterbi

    rng = np.random.default_rng(0)
    U, P = rng.normal(size=(100, 30)), rng.normal(size=(30, 30))
    viterbi(U, P)
    t_ours = _best_time(lambda: [viterbi(U, P) for _ in range(repeats)], 3) / repeats
    t_np = _best_time(lambda: [_numpy_viterbi(U, P) for _ in range(repeats)], 3) / repeats
    assert np.array_equal(viterbi(U, P).labels, _numpy_viterbi(U, P))
    out(f"viterbi, 100 nodes x 30 states: {1e6 * t_ours:.0f} us; plain numpy {1e6 * t_np:.0f} us; "
        f"ratio {t_np / t_ours:.1f}x")
    d = datasets.load("sudoku")
    X, solutions = d.X_train.astype(np.int64), d.y_train.astype(np.int64) - 1
    g = sudoku_graph()
    Uc = np.zeros((81, 9))
    Uc[X[0] > 0, X[0][X[0] > 0] - 1] = 1.0
    lp_map(Uc, -np.eye(9), g.edges)
    t_lp = _best_time(lambda: [lp_map(np.where(X[i][:, None] > 0, np.eye(10)[X[i]][:, 1:], 0.0), -np.eye(9),
                                      g.edges) for i in range(20)], 2) / 20
    out(f"lp_map on a Sudoku given as unary constraints (81 nodes, 810 edges): {1000 * t_lp:.1f} ms per puzzle")
    tr = np.arange(n_train)
    A = missing_labels(solutions[tr], tau, always=X[tr] > 0, random_state=0)
    LPMILM3N(graph=sudoku_graph(), max_iter=1).fit(X[:20], A[:20], label_prob=sudoku_label_prob(X[:20], tau))
    t0 = time.perf_counter()
    est = LPMILM3N(graph=sudoku_graph(), random_state=0).fit(X[tr], A, label_prob=sudoku_label_prob(X[tr], tau))
    t_fit = time.perf_counter() - t0
    te = np.arange(8999, 8999 + n_test)
    t0 = time.perf_counter()
    solved = 0
    for i in te:
        y = exact_map(est.unary_[X[i]], est.pairwise_, g.edges).labels
        solved += np.array_equal(y, solutions[i])
    t_dec = (time.perf_counter() - t0) / te.size
    out(f"LPMILM3N on {n_train} Sudokus (tau = {tau}): {t_fit:.1f} s to train ({est.max_iter} passes; target "
        f"under 60 s); {solved}/{te.size} unseen puzzles solved, {1000 * t_dec:.1f} ms per puzzle (target under 50)")
    solved = 100.0 * solved / te.size
    Xo, So = sudoku_puzzles(n_other, random_state=12345)
    t0 = time.perf_counter()
    pred, info = est.decode(Xo)
    t_other = (time.perf_counter() - t0) / Xo.shape[0]
    solved_other = int(np.all(pred == So - 1, axis=1).sum())
    out(f"  the same model on {n_other} puzzles from another source (25-77 givens): {solved_other}/{n_other} solved, "
        f"{info['branch_and_bound']} needed branch and bound, {1000 * t_other:.1f} ms per puzzle")
    ragged = run_variable_length(out=out, n_chains=n_chains)
    return {"variable_length_fit_ratio": ragged["fit_ratio"], "variable_length_decode_ratio": ragged["decode_ratio"],
            "viterbi_ratio": t_np / t_ours, "lp_ms": 1000 * t_lp, "fit_s": t_fit, "solved": solved,
            "decode_ms": 1000 * t_dec, "solved_other": 100.0 * solved_other / n_other,
            "decode_other_ms": 1000 * t_other}


def run_variable_length(out=print, n_chains=10_000, lengths=(5, 100), n_states=30, passes=3, seed=0):
    """MILM3N (BCFW, Viterbi) on ``n_chains`` chains of lengths drawn uniformly from
    ``lengths`` against the same nodes cut into chains of one length, ``passes`` BCFW passes
    each (the same work per node), and the time of decoding both.  Returns the ratios
    (target: training on chains of their own lengths at most 1.5x the fixed-length time).
    """
    import warnings

    from ..simulate import markov_chains_of_lengths, missing_labels
    from ..structured import MILM3N

    rng = np.random.default_rng(seed)
    lens = rng.integers(lengths[0], lengths[1] + 1, size=n_chains)
    Xr, Yr = markov_chains_of_lengths(lens, n_states, random_state=seed)
    Ar = [missing_labels(y, 0.5, random_state=i) for i, y in enumerate(Yr)]
    N = int(lens.sum())
    L = int(round(N / n_chains))
    m = N // L
    Xf = np.concatenate(Xr)[: m * L].reshape(m, L)
    Af = np.concatenate(Ar)[: m * L].reshape(m, L)

    def fit(X, A):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")              # the fixed number of passes stops before tol
            return MILM3N(alpha=1e-3, max_iter=passes, tol=1e-12, n_states=n_states, n_symbols=n_states,
                          random_state=0).fit(X, A)

    fit(Xf[:50], Af[:50])
    fit(Xr[:50], Ar[:50])                                # compile both paths
    t_fixed = _best_time(lambda: fit(Xf, Af), 1)
    t_ragged = _best_time(lambda: fit(Xr, Ar), 1)
    est = fit(Xf, Af)
    d_fixed = _best_time(lambda: est.predict(Xf), 2)
    d_ragged = _best_time(lambda: est.predict(Xr), 2)
    out(f"MILM3N, {passes} BCFW passes, {n_states} states: {n_chains:,} chains of lengths {lengths[0]}-{lengths[1]} "
        f"({N:,} nodes) {t_ragged:.2f} s; the same nodes as {m:,} chains of length {L}: {t_fixed:.2f} s; ratio "
        f"{t_ragged / t_fixed:.2f}x (target at most 1.5x)")
    out(f"  decoding them: {d_ragged:.2f} s against {d_fixed:.2f} s; ratio {d_ragged / d_fixed:.2f}x")
    return {"fit_ratio": t_ragged / t_fixed, "decode_ratio": d_ragged / d_fixed, "fit_s": t_ragged,
            "fit_fixed_s": t_fixed}


def _noisy_problem(name):
    """(X_train, noisy y_train, X_test, y_test, C) of uma-real's run 0 under class-conditional
    noise (b), or of scikit-learn's digits with 35 % noise for ``"digits"``.
    """
    if name == "digits":
        from sklearn.datasets import load_digits

        from ..simulate import confusion_family, noisy_labels

        X, y = load_digits(return_X_y=True)
        C = confusion_family(10, 4, random_state=0)
        return X[:1400] / 16, noisy_labels(y[:1400], C, random_state=1), X[1400:] / 16, y[1400:], C
    from . import uma

    r = uma._prepare_run({"dataset": name, "run": 0, "noise": "b", "max_iter": 1500, "conf_fraction": 0.05})
    return r["Xtr"], r["y_noisy"], r["Xte"], r["yte"], r["C"]


def run_noisy(names=("optdigits", "reuters", "sector9"), alpha=1e-4, repeats=3, tol=1e-6, out=print):
    """Fit time and test accuracy of loss-corrected logistic regression beside scikit-learn's
    LogisticRegression on the same noisy labels (the same objective: ``C = 1 / (alpha n)``,
    the same L-BFGS tolerance), one pass of ``partial_fit`` over 10 chunks, and cleanlab's
    CleanLearning around that LogisticRegression when cleanlab is installed.  Best of
    ``repeats`` timings; returns one dict per (dataset, method).
    """
    from sklearn.linear_model import LogisticRegression

    from ..noisy import CorrectedLogistic

    rows = []
    for name in names:
        Xtr, yn, Xte, yte, C = _noisy_problem(name)
        n = yn.size
        classes = np.unique(yte)
        max_iter = 1000

        def sk():
            return LogisticRegression(C=1.0 / (alpha * n), tol=tol, max_iter=max_iter).fit(Xtr, yn)

        def ours(confusion="identity", correction="forward"):
            return CorrectedLogistic(confusion=confusion, correction=correction, alpha=alpha, tol=tol, max_iter=max_iter,
                                     classes=classes).fit(Xtr, yn)

        def streamed():
            est = CorrectedLogistic(confusion=C, alpha=alpha, classes=classes)
            for chunk in np.array_split(np.arange(n), 10):
                est.partial_fit(Xtr[chunk], yn[chunk])
            return est

        def cleanlab():
            from cleanlab.classification import CleanLearning

            return CleanLearning(LogisticRegression(C=1.0 / (alpha * n), tol=tol, max_iter=max_iter),
                                 seed=0, verbose=False).fit(Xtr, np.searchsorted(classes, yn))

        methods = [("scikit-learn LogisticRegression (noisy labels)", sk),
                   ("CorrectedLogistic identity", ours), ("CorrectedLogistic forward", lambda: ours(C)),
                   ("CorrectedLogistic backward", lambda: ours(C, "backward")),
                   ("CorrectedLogistic partial_fit, 1 pass / 10 chunks", streamed)]
        try:
            import cleanlab as _cleanlab  # noqa: F401
        except ImportError:
            pass
        else:
            methods.append(("cleanlab CleanLearning(LogisticRegression)", cleanlab))
        streamed()                                                 # compile the SGD kernel outside the timing
        out(f"{name} ({'CSR' if sp.issparse(Xtr) else 'dense'} {Xtr.shape[0]} x {Xtr.shape[1]}, {classes.size} "
            f"classes, alpha={alpha:g}, L-BFGS tol {tol:g})")
        base = None
        for label, fn in methods:
            t, est = _timed_fit(fn, repeats)
            pred = est.predict(Xte)
            if "cleanlab" in label:
                pred = classes[pred]
            acc = float(np.mean(pred == yte))
            base = t if base is None else base
            rows.append({"dataset": name, "method": label, "seconds": t, "ratio": t / base, "accuracy": acc})
            out(f"  {label:50s} {t:8.2f} s  {t / base:6.2f}x  test accuracy {acc:.3f}")
    return rows


def _partial_problem(name):
    """(X_train, S_train, X_test, y_test) for the batch partial-label benchmark: split 0 of
    pll-realworld's protocol, or scikit-learn's digits with 3-label candidate sets.
    """
    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        S = make_candidate_sets(y, 3, random_state=0)
        return X[:1400] / 16.0, S[:1400], X[1400:] / 16.0, y[1400:]
    from ._data import pll_split

    X, y, S, train, test, _, _ = pll_split(name, 0)
    return X[train], S[train], X[test], y[test]


def run_partial_batch(names=("lost", "birdsong", "italian"), repeats=3, out=print):
    """Fit time and test accuracy of the batch partial-label learners (PRODEN, CLPL, PL-KNN)
    beside scikit-learn's LogisticRegression (lbfgs) on the expanded data (one copy of each
    row per candidate label, weighted 1/|S|), each at one setting (alpha=1e-3, C=1, k=10).
    Best of ``repeats``; returns one dict per (dataset, method).
    """
    from sklearn.linear_model import LogisticRegression

    from ..partial import CLPL, PLKNN, PRODEN

    rows = []
    for name in names:
        Xtr, S, Xte, yte = _partial_problem(name)
        mask = np.asarray(S.mask if hasattr(S, "mask") else S)
        classes = S.classes_ if hasattr(S, "classes_") else np.arange(mask.shape[1])
        rep_rows, rep_labels = np.nonzero(mask)
        weight = 1.0 / mask.sum(axis=1)[rep_rows]

        def sk():
            return LogisticRegression(C=1.0, max_iter=500).fit(Xtr[rep_rows], classes[rep_labels],
                                                               sample_weight=weight)

        methods = [("scikit-learn LogisticRegression, expanded 1/|S|", sk),
                   ("PRODEN", lambda: PRODEN(alpha=1e-3).fit(Xtr, S)),
                   ("CLPL", lambda: CLPL(alpha=1e-3).fit(Xtr, S)),
                   ("PL-KNN (fit + predict)", lambda: _fit_predict(PLKNN(n_neighbors=10), Xtr, S, Xte))]
        PRODEN(max_rounds=1, max_iter=1).fit(Xtr[:50], mask[:50])      # compile the loss kernel outside the timing
        out(f"{name} ({'CSR' if sp.issparse(Xtr) else 'dense'} {Xtr.shape[0]} x {Xtr.shape[1]}, {classes.size} "
            f"classes, avg set size {mask.sum(axis=1).mean():.2f})")
        base = None
        for label, fn in methods:
            t, est = _timed_fit(fn, repeats)
            acc = float(np.mean(est.predict(Xte) == yte))
            base = t if base is None else base
            rows.append({"dataset": name, "method": label, "seconds": t, "ratio": t / base, "accuracy": acc})
            out(f"  {label:50s} {t:8.2f} s  {t / base:6.2f}x  test accuracy {acc:.3f}")
    return rows


def _fit_predict(est, Xtr, S, Xte):
    est.fit(Xtr, S)
    est.predict(Xte)
    return est


def run_kernel_pll(names=("lost", "birdsong"), out=print):
    """Fit time and test accuracy of :class:`~weaklabel.partial.KernelPRODEN` with its defaults
    (the kernel width and penalty chosen inside ``fit`` on held-out candidate sets) beside
    what a user would otherwise write: ``GridSearchCV`` over the same nine (gamma, alpha)
    pairs of a ``Nystroem -> StandardScaler -> PRODEN`` pipeline, 3-fold, scored by the
    held-out candidate likelihood; linear PRODEN (alpha=1e-3); and, as the ceiling, an RBF
    ``SVC`` (C=10, gamma="scale") on the TRUE training labels.  One fit each (they take
    seconds to minutes); returns one dict per (dataset, method).
    """
    from sklearn.kernel_approximation import Nystroem
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from ..metrics import candidate_log_loss_score
    from ..partial import PRODEN, KernelPRODEN
    from ..partial._kernel_proden import ALPHAS, GAMMA_FACTORS, _variance
    from ._data import pll_split

    rows = []
    for name in names:
        X, y, S, train, test, _, _ = pll_split(name, 0)
        Xtr, Str, Xte, yte = X[train], S[train], X[test], y[test]
        scale = 1.0 / (Xtr.shape[1] * _variance(Xtr))
        pipe = make_pipeline(Nystroem(n_components=500, random_state=0), StandardScaler(), PRODEN())
        grid = {"nystroem__gamma": [f * scale for f in GAMMA_FACTORS], "proden__alpha": list(ALPHAS)}
        methods = [("KernelPRODEN() (selection inside fit)", lambda: KernelPRODEN(random_state=0).fit(Xtr, Str)),
                   ("GridSearchCV(Nystroem, scaler, PRODEN), 3-fold, same 9 pairs",
                    lambda: GridSearchCV(pipe, grid, scoring=candidate_log_loss_score,
                                         cv=KFold(3, shuffle=True, random_state=0)).fit(Xtr, Str)),
                   ("PRODEN(alpha=1e-3), linear", lambda: PRODEN(alpha=1e-3).fit(Xtr, Str)),
                   ("RBF SVC on the TRUE labels (ceiling)", lambda: SVC(C=10.0).fit(Xtr, y[train]))]
        out(f"{name} (split 0 of pll-realworld: {Xtr.shape[0]} training rows x {Xtr.shape[1]} features)")
        rows += _fits_side_by_side(name, methods, Xte, yte, out)
    return rows


def _fits_side_by_side(name, methods, Xte, yte, out):
    """One timed fit of each ``(label, fit)`` in turn: seconds, the ratio to the first and the
    test accuracy, printed and returned as one dict per method."""
    rows, base = [], None
    for label, fn in methods:
        t, est = _timed_fit(fn, 1)
        acc = float(np.mean(est.predict(Xte) == yte))
        base = t if base is None else base
        rows.append({"dataset": name, "method": label, "seconds": t, "ratio": t / base, "accuracy": acc})
        out(f"  {label:62s} {t:8.1f} s  {t / base:6.2f}x  test accuracy {acc:.3f}")
    return rows


#: the online learners of the machine-limit benchmark: (name, preset, labels the learner takes)
LIMIT_LEARNERS = (("AvgPerceptron", "avg-perceptron", "sets"), ("MaxPerceptron", "max-perceptron", "sets"),
                  ("AvgPegasos", "avg-pegasos", "sets"), ("MaxPegasos", "max-pegasos", "sets"),
                  ("CSPA", "cspa", "labels"), ("Banditron", "banditron", "labels"),
                  ("Confidit (diagonal)", "confidit", "labels"))


def run_online_limits(name="usps", sparse_name="sector", repeats=3, batch=100, out=print):
    """Rows per second of one pass of each online learner on dense float64, dense float32 and
    sparse rows, beside the limits measured in the same run: reading the data (``X.sum()``)
    and scoring it by one BLAS product (``X @ W``), and scikit-learn's ``Perceptron`` and
    ``SGDClassifier`` (one pass each).  Then the cost of ``partial_fit`` on ``batch``-row
    chunks against one ``fit`` pass.  Call it with BLAS pinned to one thread.

    Returns
    -------
    list of dict
        One row per (learner or limit, data form): ``rows`` and ``seconds`` (the best time of
        the rows), and the times taken in turn with it that its ratios need: ``xw_seconds``
        and ``sk_seconds`` (``X @ W`` and scikit-learn's ``Perceptron`` beside a dense
        float64 pass), ``pass_seconds`` (one ``fit`` pass beside ``partial_fit`` chunks) and
        ``copy_seconds`` (full Confidit: what copying its matrices at every call adds).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.linear_model import SGDClassifier

    d = datasets.load(name)
    X64 = np.ascontiguousarray(d.X_train, dtype=np.float64)
    y = d.y_train
    classes = np.unique(y)
    S = make_candidate_sets(y, 2, random_state=0)
    forms = {"dense float64": X64, "dense float32": X64.astype(np.float32)}
    ds = datasets.load(sparse_name)
    Xs, ys = sp.csr_matrix(ds.X_train, dtype=np.float64), ds.y_train
    Ss = make_candidate_sets(ys, 2, random_state=0)
    results = []

    def record(what, form, n, t):
        results.append({"what": what, "form": form, "rows": n, "seconds": t})
        out(f"  {what:28s} {form:14s} {n / t:14,.0f} rows/s")

    out(f"{name}: {X64.shape[0]} x {X64.shape[1]} dense, {classes.size} classes; {sparse_name}: "
        f"{Xs.shape[0]} x {Xs.shape[1]} CSR ({Xs.nnz / Xs.shape[0]:.0f} nonzeros a row)")
    for form, X in forms.items():
        n = X.shape[0]
        W = np.zeros((X.shape[1], classes.size), dtype=X.dtype)
        record("X.sum() (reading X)", form, n, _best_time(lambda X=X: X.sum(), repeats))
        record("X @ W (one BLAS product)", form, n, _best_time(lambda X=X, W=W: X @ W, repeats))
    for form, X, yy in (("dense float64", X64, y), ("sparse", Xs, ys)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            record("sklearn Perceptron", form, X.shape[0], _best_time(
                lambda X=X, yy=yy: SkPerceptron(max_iter=1, tol=None, shuffle=False).fit(X, yy), repeats))
            record("sklearn SGDClassifier", form, X.shape[0], _best_time(
                lambda X=X, yy=yy: SGDClassifier(max_iter=1, tol=None, shuffle=False).fit(X, yy), repeats))
    W64 = np.zeros((X64.shape[1], classes.size))
    for label, preset, takes in LIMIT_LEARNERS:
        cls = presets.get(preset).cls
        params = {"max_iter": 1, "shuffle": False}
        if preset == "confidit":
            params["diagonal"] = True
        for form, X, target in (("dense float64", X64, S if takes == "sets" else y),
                                ("dense float32", forms["dense float32"], S if takes == "sets" else y),
                                ("sparse", Xs, Ss if takes == "sets" else ys)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cls(**params).fit(X[:50], target[:50])                     # compile outside the timing
                if form != "dense float64":
                    t = _best_time(lambda cls=cls, X=X, target=target: cls(**params).fit(X, target), repeats)
                    record(label, form, X.shape[0], t)
                    continue
                # the ratios to the limits from timings taken in turn with the learner's (a shared
                # machine's speed drifts within a run; interleaving keeps each ratio's two sides
                # under the same conditions)
                t, t_xw, t_sk = _interleaved_best([
                    lambda cls=cls, X=X, target=target: cls(**params).fit(X, target), lambda: X64 @ W64,
                    lambda: SkPerceptron(max_iter=1, tol=None, shuffle=False).fit(X64, y)], repeats)
            record(label, form, X.shape[0], t)
            results[-1].update(xw_seconds=t_xw, sk_seconds=t_sk)
    out(f"partial_fit on {batch}-row chunks of {name} against one fit pass (dense float64):")

    def sk_chunks():
        est = SkPerceptron(max_iter=1, tol=None, shuffle=False)
        for lo in range(0, X64.shape[0], batch):
            est.partial_fit(X64[lo:lo + batch], y[lo:lo + batch], classes=classes)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t_fit = _best_time(lambda: SkPerceptron(max_iter=1, tol=None, shuffle=False).fit(X64, y), repeats)
        t_chunks = _best_time(sk_chunks, repeats)
    results.append({"what": "sklearn Perceptron", "form": f"partial_fit {batch}", "rows": X64.shape[0],
                    "seconds": t_chunks, "pass_seconds": t_fit})
    out(f"  {'sklearn Perceptron':28s} {t_chunks / t_fit:5.2f}x one fit pass (for reference)")
    for label, preset, takes in LIMIT_LEARNERS:
        cls = presets.get(preset).cls
        params = {"max_iter": 1, "shuffle": False, **({"diagonal": True} if preset == "confidit" else {})}
        target = S if takes == "sets" else y

        def chunks(cls=cls, target=target, params=params):
            est = cls(**params)
            for lo in range(0, X64.shape[0], batch):
                est.partial_fit(X64[lo:lo + batch], target[lo:lo + batch], classes=classes)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_fit, t_chunks = _interleaved_best(
                [lambda cls=cls, target=target, params=params: cls(**params).fit(X64, target), chunks], repeats)
        results.append({"what": label, "form": f"partial_fit {batch}", "rows": X64.shape[0], "seconds": t_chunks,
                        "pass_seconds": t_fit})
        out(f"  {label:28s} {t_chunks / t_fit:5.2f}x one fit pass")
    results += _full_confidit_chunks(X64[:3000], y[:3000], classes, repeats, out)
    return results


def _full_confidit_chunks(X, y, classes, repeats, out):
    """Full-matrix Confidit's ``partial_fit`` on 1-, 10- and 100-row chunks against one ``fit``
    pass, beside what copying its matrices at each call (the rollback before the journal)
    would add."""
    from ..bandit import Confidit

    make = lambda: Confidit(diagonal=False, max_iter=1, shuffle=False)        # noqa: E731
    make().fit(X[:50], y[:50])
    t_fit = _best_time(lambda: make().fit(X, y), repeats)
    A_inv = make().fit(X[:50], y[:50])._A_inv
    t_copy = _best_time(lambda: A_inv.copy(), repeats)
    out(f"full Confidit on the first {X.shape[0]} rows: one fit pass {t_fit * 1e3:.0f} ms; a copy of its matrices "
        f"({A_inv.nbytes / 1e6:.1f} MB) {t_copy * 1e3:.2f} ms")
    rows = []
    for batch in (1, 10, 100):
        def chunks(batch=batch):
            est = make()
            for lo in range(0, X.shape[0], batch):
                est.partial_fit(X[lo:lo + batch], y[lo:lo + batch], classes=classes)

        t = _best_time(chunks, max(1, repeats // 3))
        calls = -(-X.shape[0] // batch)
        rows.append({"what": "Confidit (full)", "form": f"partial_fit {batch}", "rows": X.shape[0], "seconds": t,
                     "pass_seconds": t_fit, "copy_seconds": calls * t_copy})
        out(f"  {batch:4d}-row chunks: {t / t_fit:5.2f}x one fit pass (with a copy of the matrices a call: "
            f"{(t + calls * t_copy) / t_fit:5.2f}x)")
    return rows


def run_mlp_pll(names=("lost", "birdsong"), out=print):
    """Fit time and test accuracy of :class:`~weaklabel.partial.MLPPRODEN` with its defaults
    (penalty, input noise, passes and the linear start's penalty chosen inside ``fit`` on
    held-out candidate sets), and with the start's penalty and the noise given as they were
    before they were chosen (what the choices cost), beside what a user
    would otherwise write: scikit-learn's ``MLPClassifier`` of the same size (256 ReLU units,
    Adam, early stopping) on one copy of each row per candidate label, weighted ``1/|S|``;
    :class:`~weaklabel.partial.KernelPRODEN` with its defaults; and, as the ceiling, the same
    ``MLPClassifier`` on the TRUE training labels.  One fit each on split 0 of
    pll-realworld; returns one dict per (dataset, method).
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    from ..partial import KernelPRODEN, MLPPRODEN
    from ._data import pll_split

    def expanded(Xtr, Str):
        mask = Str.mask
        rows, labels = np.nonzero(mask)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return MLPClassifier((256,), early_stopping=True, random_state=0).fit(
                Xtr[rows], Str.classes_[labels], sample_weight=1.0 / mask.sum(axis=1)[rows])

    rows_out = []
    for name in names:
        X, y, S, train, test, _, _ = pll_split(name, 0)
        Xtr, Str, Xte, yte = X[train], S[train], X[test], y[test]
        methods = [("MLPPRODEN() (selection inside fit)", lambda: MLPPRODEN(random_state=0).fit(Xtr, Str)),
                   ("MLPPRODEN(init_alpha=1e-4, input_noise=0)",
                    lambda: MLPPRODEN(init_alpha=1e-4, input_noise=0.0, random_state=0).fit(Xtr, Str)),
                   ("sklearn MLPClassifier(256), expanded sets weighted 1/|S|", lambda: expanded(Xtr, Str)),
                   ("KernelPRODEN() (selection inside fit)", lambda: KernelPRODEN(random_state=0).fit(Xtr, Str)),
                   ("sklearn MLPClassifier(256) on the TRUE labels (ceiling)",
                    lambda: MLPClassifier((256,), early_stopping=True, random_state=0).fit(Xtr, y[train]))]
        out(f"{name} (split 0 of pll-realworld: {Xtr.shape[0]} training rows x {Xtr.shape[1]} features)")
        rows_out += _fits_side_by_side(name, methods, Xte, yte, out)
    return rows_out
