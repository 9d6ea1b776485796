"""CSPA's default beta: "auto" (1/(K-1), the edge of Theorem 2's band) against 1.0.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/cspa_beta_default.py

Test accuracy of ``CSPA()`` (20 shuffled passes, features as the loaders give them) with
``beta="auto"`` and ``beta=1.0``, seeds 0 and 1, on scikit-learn's digits (first 1,400 rows to
train) and LIBSVM's pendigits, usps, satimage and letter (their own splits).  Prints a
Markdown table.
"""

import warnings

import numpy as np
from sklearn.datasets import load_digits

from weaklabel.bandit import CSPA
from weaklabel.datasets import load


def main():
    warnings.simplefilter("ignore")
    X, y = load_digits(return_X_y=True)
    sets = {"digits": (X[:1400], y[:1400], X[1400:], y[1400:])}
    for name in ("pendigits", "usps", "satimage", "letter"):
        d = load(name)
        sets[name] = (d.X_train, d.y_train, d.X_test, d.y_test)
    print("| set | classes | beta=\"auto\" (seeds 0 / 1) | beta=1.0 (seeds 0 / 1) |")
    print("|---|---|---|---|")
    for name, (a, b, c, e) in sets.items():
        cells = []
        for beta in ("auto", 1.0):
            accs = [CSPA(beta=beta, random_state=r).fit(a, b).score(c, e) for r in (0, 1)]
            cells.append(" / ".join(f"{v:.3f}" for v in accs))
        print(f"| {name} | {np.unique(b).size} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
