"""Speed and accuracy: KernelPRODEN's label-free selection against GridSearchCV doing the same.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/kernel_pll_speed.py [--datasets ...]
Data: split 0 of pll-realworld (80 % train, 20 % test) for lost and birdsong.  Prints, side
by side in one run, seconds per fit, the ratio to KernelPRODEN() with its defaults (nine
(gamma, alpha) pairs fitted on 75 % of the rows, chosen by the held-out candidate likelihood,
then one refit), and test accuracy against the true labels, for: GridSearchCV over the same
nine pairs of a Nystroem -> StandardScaler -> PRODEN pipeline (3-fold, scored by the held-out
candidate likelihood: what a user would otherwise write); linear PRODEN; and an RBF SVC on the
TRUE labels (the ceiling, not a competitor).
"""

import argparse

from threadpoolctl import threadpool_limits

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["lost", "birdsong"])
    args = ap.parse_args()
    with threadpool_limits(limits=1):
        speed.run_kernel_pll(args.datasets)
