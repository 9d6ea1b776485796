"""Speed and accuracy: MLPPRODEN against a scikit-learn network on the expanded candidate sets.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mlp_pll_speed.py [--datasets ...]
Data: split 0 of pll-realworld (80 % train, 20 % test) for lost and birdsong.  Prints, side
by side in one run, seconds per fit, the ratio to MLPPRODEN() with its defaults (the linear
start's penalty chosen among three, three network penalties trained on 90 % of the rows with
early stopping on the held-out candidate likelihood, then input noise tried at the best of
them, then one refit), and test accuracy against the true labels, for: MLPPRODEN with the
start's penalty and the noise given as before they were chosen (1e-4, none); scikit-learn's
MLPClassifier of the same size on one copy of each row per candidate label weighted 1/|S|
(what a user would otherwise write); KernelPRODEN() with its defaults; and the same
MLPClassifier on the TRUE labels (the ceiling, not a competitor).  BLAS on one thread.
"""

import argparse

from threadpoolctl import threadpool_limits

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["lost", "birdsong"])
    args = ap.parse_args()
    with threadpool_limits(limits=1):
        speed.run_mlp_pll(args.datasets)
