"""Every classifier's defaults at the scale a user's file holds.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/feature_scale.py

Test accuracy with true labels (the candidate-set learners get singleton sets, the bandit
learners the one-bit feedback ``fit`` simulates from them) of each learner built with no
argument, on scikit-learn's digits (first 1,400 rows to train, the other 397 to test) as
``load_digits`` returns them (pixels 0-16) and divided by 16, and on LIBSVM's pendigits
(0-100) as it is and standardised (``StandardScaler`` fitted on the training part).
``SGDClassifier()`` is the reference a scikit-learn user would otherwise pick.  For the
learners with a ``row_scale`` parameter the last column repeats the raw-pendigits fit with
``row_scale=1.0``: the regularisation taken on X as it is, the papers' setting (and every
default before row_scale existed).  Seed 0 everywhere; prints a Markdown table.
"""

import warnings

from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler

from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.bandit import BPA, CSPA, SPA, Banditron, Confidit, SketchedConfidit
from weaklabel.datasets import load
from weaklabel.noisy import UMA, CorrectedLogistic
from weaklabel.partial import (CLPL, PLKNN, PRODEN, AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos,
                               Perceptron)

LEARNERS = {
    "SGDClassifier()": lambda **k: SGDClassifier(random_state=0, **k),
    **{c.__name__: (lambda c=c: lambda **k: c(random_state=0, **k))()
       for c in (Perceptron, AvgPerceptron, MaxPerceptron, Pegasos, AvgPegasos, MaxPegasos, CSPA, SPA, BPA, Banditron,
                 Confidit, SketchedConfidit, MMS, CandidateLabelSVM)},
    "CLPL": lambda **k: CLPL(**k), "PRODEN": lambda **k: PRODEN(**k), "PLKNN": lambda **k: PLKNN(**k),
    'UMA(confusion="identity")': lambda **k: UMA(confusion="identity", **k),
    'CorrectedLogistic(confusion="identity")': lambda **k: CorrectedLogistic(confusion="identity", **k),
}


def main():
    warnings.simplefilter("ignore")
    X, y = load_digits(return_X_y=True)
    p = load("pendigits")
    ss = StandardScaler().fit(p.X_train)
    data = {"digits 0-16": (X[:1400], y[:1400], X[1400:], y[1400:]),
            "digits 0-1": (X[:1400] / 16, y[:1400], X[1400:] / 16, y[1400:]),
            "pendigits 0-100": (p.X_train, p.y_train, p.X_test, p.y_test),
            "pendigits standardised": (ss.transform(p.X_train), p.y_train, ss.transform(p.X_test), p.y_test)}
    print("| learner | " + " | ".join(data) + " | pendigits 0-100, row_scale=1.0 |")
    print("|---" * (len(data) + 2) + "|")
    for name, make in LEARNERS.items():
        cells = [f"{make().fit(a, b).score(c, d):.3f}" for a, b, c, d in data.values()]
        est = make()
        if "row_scale" in est.get_params():
            a, b, c, d = data["pendigits 0-100"]
            cells.append(f"{make(row_scale=1.0).fit(a, b).score(c, d):.3f}")
        else:
            cells.append("")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
