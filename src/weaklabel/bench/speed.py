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
from ..partial import METHODS
from ..simulate import make_candidate_sets

DATASETS = {"usps": "dense", "sector": "sparse"}


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
        for method, cls in METHODS.items():
            params = {"alpha": 1e-4} if "pegasos" in method else {}
            target = y if method in ("perceptron", "pegasos") else S
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
        UMA(C, max_iter=2, classes=classes).fit(X[:50], y[:50]) if classes.size <= 50 else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            est = UMA(C, max_iter=max_iter, classes=classes).fit(X, y)
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

    from ..bandit import BPA, CSPA, SPA, Banditron, Confidit
    from .cspa import LINEAR_DATA, stream_data
    from .peers import have_vw, vw_cbify_pass, vw_features

    learners = {"CSPA": lambda: CSPA(beta=0.3), "SPA": lambda: SPA(), "Banditron": lambda: Banditron(gamma=0.05),
                "BPA": lambda: BPA(gamma=0.05), "Confidit (diag)": lambda: Confidit(eta=1.0, diagonal=True)}
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
            out(f"  {label:30s} {n / t:12,.0f} ex/s   {t:.3f} s {r['vs_sklearn']:6.2f}x sklearn {vw_txt}")
    return rows
