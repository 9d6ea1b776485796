"""Peers the benchmarks compare against that are not dependencies of the library.

Vowpal Wabbit comes from the optional ``compare`` extra (``pip install
weaklabel[compare]``); without it the VW columns read "n/a".
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

VW_MISSING = "n/a (pip install weaklabel[compare])"


def have_vw():
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        return False
    return True


def vw_features(X):
    """One VW feature string per row: ``"f12:0.3 f40:1"``.

    Features are named with strings: with bare integer names, ``--cbify``'s per-action
    offsets merge neighbouring features and VW falls to chance.
    """
    out = []
    if sp.issparse(X):
        X = X.tocsr()
        for i in range(X.shape[0]):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            out.append(" ".join(f"f{j}:{v:.9g}" for j, v in zip(X.indices[lo:hi], X.data[lo:hi])))
    else:
        X = np.asarray(X)
        full = None        # one %-format for rows without zeros: the same text, formatted in C
        for row in X:
            nz = np.flatnonzero(row)
            if nz.size == row.size:
                if full is None:
                    full = " ".join(f"f{j}:%.9g" for j in range(row.size))
                out.append(full % tuple(row.tolist()))
            else:
                out.append(" ".join(f"f{j}:{row[j]:.9g}" for j in nz))
    return out


def vw_options(epsilon, learning_rate=0.5, cb_type="mtr"):
    """VW's exploration and learning options: ``--epsilon``, ``-l`` and ``--cb_type``
    (VW's own defaults are a learning rate of 0.5 and ``mtr``).
    """
    return f"--epsilon {float(epsilon)} -l {float(learning_rate)} --cb_type {cb_type}"


def vw_cbify_pass(features, y_idx, n_classes, epsilon, seed, order=None, learning_rate=0.5, cb_type="mtr"):
    """One pass of ``vw --cbify K --epsilon E -l LR --cb_type T`` over the rows in ``order``.

    Each example is built with its true label, learnt, and then its prediction is
    read: that is the action VW played for it (``predict`` alone would sample an
    extra, independent draw).  Returns the bool array "played action was right".
    """
    import vowpalwabbit

    order = np.arange(len(features)) if order is None else order
    ws = vowpalwabbit.Workspace(f"--cbify {int(n_classes)} {vw_options(epsilon, learning_rate, cb_type)} --quiet "
                                f"--random_seed {int(seed)}")
    correct = np.empty(len(order), dtype=bool)
    try:
        for r, i in enumerate(order):
            label = int(y_idx[i]) + 1
            ex = ws.example(f"{label} |f {features[i]}")
            ws.learn(ex)
            correct[r] = ex.get_multiclass_prediction() == label
            ws.finish_example(ex)
    finally:
        ws.finish()
    return correct


def vw_cb_explore_pass(features, S, n_classes, epsilon, seed, order=None, learning_rate=0.5, cb_type="mtr"):
    """One pass of ``vw --cb_explore K --epsilon E -l LR --cb_type T`` over the rows in ``order``, with
    several acceptable labels per row (``S``, bool (n, K)).

    ``--cbify`` takes one right label only (a documented Vowpal Wabbit limit), so the contextual-bandit loop
    is run by hand, as VW's documentation does it: VW gives its distribution over the
    actions, one action is drawn from it (with our seeded generator), its cost is 0 if the
    action is acceptable and 1 otherwise, and VW learns ``action:cost:probability``.
    Returns the bool array "played action was acceptable".
    """
    import vowpalwabbit

    order = np.arange(len(features)) if order is None else order
    rng = np.random.default_rng(seed)
    ws = vowpalwabbit.Workspace(f"--cb_explore {int(n_classes)} {vw_options(epsilon, learning_rate, cb_type)} --quiet "
                                f"--random_seed {int(seed)}")
    right = np.empty(len(order), dtype=bool)
    try:
        for r, i in enumerate(order):
            pmf = np.asarray(ws.predict(f"|f {features[i]}"), dtype=float)
            pmf = pmf / pmf.sum()
            a = int(rng.choice(pmf.size, p=pmf))
            right[r] = bool(S[i, a])
            ws.learn(f"{a + 1}:{0.0 if right[r] else 1.0}:{pmf[a]:.9g} |f {features[i]}")
    finally:
        ws.finish()
    return right
