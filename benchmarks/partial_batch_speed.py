"""Speed: the batch partial-label learners beside scikit-learn's LogisticRegression.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/partial_batch_speed.py [--datasets ...]
Data: split 0 of pll-realworld (80% train, 20% test) for lost, birdsong and italian; "digits"
is scikit-learn's bundled set with 3-label candidate sets.  Prints, side by side in one run,
seconds per fit (best of --repeats), the ratio to scikit-learn's LogisticRegression (lbfgs)
fitted on the expanded data (one copy of each row per candidate label, weighted 1/|S|: what
a user would otherwise do), and test accuracy against the true labels.  One setting each
(alpha=1e-3, C=1, k=10): the reproduction chooses them; this times one fit.
"""

import argparse

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["lost", "birdsong", "italian"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    speed.run_partial_batch(args.datasets, repeats=args.repeats)
