"""Speed: loss-corrected logistic regression beside scikit-learn's LogisticRegression.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/noisy_speed.py [--datasets ...]
Data: uma-real's run 0 under class-conditional noise (b): optdigits after kernel PCA
(3823 x 640, dense), Reuters R8 TF-IDF and sector's 9 largest classes (sparse); "digits"
is scikit-learn's bundled set.  Prints, side by side in one run, seconds per fit (best of
3), the ratio to one LogisticRegression fit of the same objective (target: a
CorrectedLogistic fit within 1.5x), and test accuracy; also one partial_fit pass over 10
chunks and cleanlab's CleanLearning around the same LogisticRegression (if installed).
"""

import argparse

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["optdigits", "reuters", "sector9"])
    ap.add_argument("--alpha", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-6, help="L-BFGS gradient tolerance of both (default 1e-6)")
    args = ap.parse_args()
    speed.run_noisy(args.datasets, alpha=args.alpha, repeats=args.repeats, tol=args.tol)
