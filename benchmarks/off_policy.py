"""Banditron learning from someone else's log: with the logger's propensities, and without.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/off_policy.py

scikit-learn's digits (pixels / 16): the first 1,400 rows are contexts, each logged
``n_rep`` times in a shuffled stream by a logger that shows class k with probability P(k)
(uniform, or proportional to exp(-0.3 k)); the reward says whether the shown class was the
label.  Test accuracy on the other 397 rows of: Banditron fitted on the log with its
propensities (1/max(p, 0.01) weights), Banditron fitted on the same answers weighed by its
own policy's probabilities (no propensities), and the Perceptron on the 1,400 true labels.
One pass over the log, seed 0; prints a Markdown table.  The same construction is the test
``tests/bandit/test_logs.py::test_banditron_learns_off_policy_from_a_logs_propensities``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits

from weaklabel.bandit import Banditron
from weaklabel.bandit.logs import BanditLog
from weaklabel.partial import Perceptron


def logged_digits(n_rep, probs, seed=0):
    X, y = load_digits(return_X_y=True)
    X = X / 16
    rng = np.random.RandomState(seed)
    rows = rng.permutation(np.tile(np.arange(1400), n_rep))
    a = rng.choice(10, rows.size, p=probs)
    return X, y, BanditLog(sp.csr_matrix(X[rows]), a, (a == y[rows]).astype(float), probs[a])


def main():
    w = np.exp(-0.3 * np.arange(10))
    print("| log | rounds | Banditron with the propensities | Banditron with its own policy's | "
          "Perceptron on the true labels |")
    print("|---|---|---|---|---|")
    for name, n_rep, probs in (("uniform logger", 20, np.full(10, 0.1)),
                               ("skewed logger (P(k) proportional to exp(-0.3 k))", 5, w / w.sum())):
        X, y, log = logged_digits(n_rep, probs)
        test = (X[1400:], y[1400:])
        full = Perceptron(random_state=0).fit(X[:1400], y[:1400]).score(*test)
        ips = Banditron(random_state=0, max_iter=1).fit(log.X, log).score(*test)
        own = Banditron(random_state=0, max_iter=1).fit(log.X, log.feedback()).score(*test)
        print(f"| {name} | {log.X.shape[0]:,} | {ips:.3f} | {own:.3f} | {full:.3f} |")


if __name__ == "__main__":
    main()
