"""Iterative parameter mixing on a local Dask cluster vs the sequential pass.

Run:  python benchmarks/mixing_bench.py [--dataset mnist-test|sector] [--epochs 5]
The data: the largest dense set here (MNIST's 10k images) or the largest sparse one
(sector's 6412 x 55197 training part), 80% to train and 20% to test, with candidate
sets of size 2 (true label + 1 distractor) for Avg Perceptron.
Prints the test accuracy and the wall time of the sequential ``max_iter=epochs`` pass
and of mixing over 1, 2 and 4 workers (one partition per worker), measured in one run.
Mixing's wall time includes shipping the model to the workers every epoch, and the
cluster start-up is excluded.
"""

import argparse
import time

import numpy as np

from weaklabel import datasets
from weaklabel.distributed import fit_parameter_mixing
from weaklabel.partial import AvgPerceptron
from weaklabel.simulate import make_candidate_sets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="mnist-test")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--kernel-g", type=float, default=None,
                    help="Use the cspa-kernel features instead: 700 Gaussian support features of width g "
                         "(e.g. --dataset letter --kernel-g 0.1), a heavier pass per row.")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    if args.kernel_g is not None:
        from weaklabel.experiments.cspa import KERNEL_DATA, stream

        part, scaling, _ = KERNEL_DATA[args.dataset]
        X, y, _ = stream(args.dataset, part, scaling, 0, 10**9, args.kernel_g)     # shuffled stream
    else:
        d = datasets.load(args.dataset)
        rng = np.random.RandomState(0)
        order = rng.permutation(d.y_train.size)
        X, y = d.X_train[order], d.y_train[order]
    n_train = int(0.8 * y.size)
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    classes = np.unique(y)
    S = make_candidate_sets(ytr, 2, classes=classes, random_state=0)
    print(f"{args.dataset}: {n_train} training rows x {X.shape[1]}, {classes.size} classes, candidate sets of "
          f"size 2, {args.epochs} epochs")
    AvgPerceptron().fit(Xtr[:50], S[:50])                       # compile outside the timing
    t0 = time.perf_counter()
    seq = AvgPerceptron(max_iter=args.epochs).fit(Xtr, S)
    t_seq = time.perf_counter() - t0
    print(f"  {'sequential':12s} accuracy {seq.score(Xte, yte):.4f}   {t_seq:7.2f} s")
    for k in args.workers:
        with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            idx = np.array_split(np.arange(n_train), k)              # rows: dense or CSR
            parts_X = [Xtr[i] for i in idx]
            parts_S = [S.mask[i] for i in idx]
            fit_parameter_mixing(AvgPerceptron(), [p[:50] for p in parts_X], [p[:50] for p in parts_S], client,
                                 1, classes=classes)          # warm the workers (imports, numba)
            t0 = time.perf_counter()
            mixed = fit_parameter_mixing(AvgPerceptron(), parts_X, parts_S, client, args.epochs, classes=classes)
            t_mix = time.perf_counter() - t0
        print(f"  {f'mixing x{k}':12s} accuracy {mixed.score(Xte, yte):.4f}   {t_mix:7.2f} s   "
              f"({t_seq / t_mix:.2f}x the sequential speed)")


if __name__ == "__main__":
    main()
