"""Full-matrix Confidit where its matrices cannot be stored: sector and 20news.

Run:  python -m tests.bandit.full_confidit_ceiling sector [--runs 10] [--alpha 1.0]

``Confidit(diagonal=False)`` keeps one n_features-square matrix per class, which sector
(55,197 features, 105 classes) and 20news (56,436 features) cannot hold.  Its dual form on
the stream's Gram matrix (:func:`tests.bandit._reference.dual_confidit_pass`, tested equal
to the kernel) can: this script runs it on the cspa-linear protocol's streams (the same
orders, seeds 0 .. runs-1) over SketchedConfidit's eta grid and prints the ratio of right
proposals, mean and std over the runs, per eta.  It is the accuracy any approximation of
full Confidit (diagonal, sketched) aims at; docs/reproductions/bandit.md quotes it.
"""

import argparse
import time

import numpy as np

from weaklabel.experiments.cspa import LINEAR_DATA, LINEAR_GRID, stream

from ._reference import dual_confidit_pass

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=sorted(LINEAR_DATA))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--eta", type=float, nargs="+", default=LINEAR_GRID["confidit-sketch"]["eta"])
    args = ap.parse_args()
    part, scaling, _ = LINEAR_DATA[args.dataset]
    for eta in args.eta:
        t0 = time.perf_counter()
        ratios = []
        for seed in range(args.runs):
            X, y, K = stream(args.dataset, part, scaling, seed, 10**9)
            Gram = X @ X.T
            Gram = Gram.toarray() if hasattr(Gram, "toarray") else np.asarray(Gram)
            ratios.append(100 * dual_confidit_pass(Gram, K, y, eta=eta, alpha=args.alpha)[1].mean())
        print(f"{args.dataset} full Confidit (dual form) alpha={args.alpha:g} eta={eta:g}: "
              f"{np.mean(ratios):.2f} +- {np.std(ratios):.2f} over {args.runs} runs "
              f"[{', '.join(f'{r:.2f}' for r in ratios)}] ({time.perf_counter() - t0:.0f} s)", flush=True)
