"""Which labels are wrong: weaklabel.noisy.label_issues against cleanlab's find_label_issues.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/label_issues.py [--sets digits optdigits] [--levels 4 8]

Class-conditional noise (``weaklabel.simulate.confusion_family``, the family of uma-real's
noise (b)) flips the training labels of scikit-learn's digits and of optdigits (uma-real's
first set, pixels / 16). Both rankers see the same 5-fold out-of-fold probabilities of the
same model (``CorrectedLogistic(alpha=1e-4)``, multinomial logistic regression): cleanlab's
``find_label_issues`` (ranked by self-confidence) returns the rows it flags; weaklabel ranks
every row by ``P(label wrong | x, label)`` under the estimated confusion. Printed, side by
side in one run: the share of true flips among the top ``k`` rows of each ranking, for
``k`` = the number of rows cleanlab flags (so both are judged on the same count) and the
recall there, and the seconds. cleanlab comes from the compare extra.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold

from weaklabel.datasets import load
from weaklabel.noisy import CorrectedLogistic, label_issues
from weaklabel.simulate import confusion_family, noisy_labels


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=["digits", "optdigits"])
    ap.add_argument("--levels", nargs="+", type=int, default=[4, 8])
    args = ap.parse_args()
    from cleanlab.filter import find_label_issues

    warnings.simplefilter("ignore")
    print(f"{'set':10s} {'level':>5s} {'flipped':>8s} {'k':>6s} {'weaklabel P@k':>14s} {'cleanlab P@k':>13s} "
          f"{'weaklabel R@k':>14s} {'cleanlab R@k':>13s} {'s ours':>7s} {'s cleanlab':>10s}")
    for name in args.sets:
        d = load(name)
        X = d.X_train / 16.0 if name == "optdigits" else d.X_train
        y = d.y_train
        for level in args.levels:
            C = confusion_family(10, level, random_state=0)
            noisy = noisy_labels(y, C, random_state=1)
            flips = noisy != y
            start = time.perf_counter()
            ours = label_issues(X, noisy)
            t_ours = time.perf_counter() - start
            start = time.perf_counter()
            proba = np.zeros((y.size, 10))
            for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, noisy):
                proba[test] = CorrectedLogistic(alpha=1e-4).fit(X[train], noisy[train]).predict_proba(X[test])
            flagged = find_label_issues(noisy, proba, return_indices_ranked_by="self_confidence")
            t_cl = time.perf_counter() - start
            k = len(flagged)
            mine = ours.top(k)
            print(f"{name:10s} {level:5d} {flips.mean():8.2f} {k:6d} {flips[mine].mean():14.3f} "
                  f"{flips[flagged].mean():13.3f} {flips[mine].sum() / flips.sum():14.3f} "
                  f"{flips[flagged].sum() / flips.sum():13.3f} {t_ours:7.1f} {t_cl:10.1f}")


if __name__ == "__main__":
    main()
