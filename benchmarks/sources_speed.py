"""Speed: the label models against crowd-kit's aggregators on real crowd answers.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/sources_speed.py [--repeats 3] [--sets product dog]

Prints the best of ``repeats`` fit seconds (numba compiled beforehand) of majority vote and
Dawid-Skene (abstains ignored, the crowd model) in weaklabel and in crowd-kit, the ratios,
and both accuracies, measured side by side in this one run on one core. crowd-kit comes from
the optional extra: pip install -e ".[compare]".
"""

import argparse
import time
import warnings

import numpy as np

from weaklabel.datasets import load_crowd
from weaklabel.sources import DawidSkene, MajorityVote


def best_of(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sets", nargs="+", default=["product", "dog"])
    args = ap.parse_args()
    import pandas as pd
    from crowdkit import aggregation as ck

    warm = load_crowd("duck")
    DawidSkene(abstain="ignore").fit(warm.L).predict(warm.L)
    MajorityVote().fit(warm.L).predict(warm.L)
    print(f"{'set':8s} {'model':12s} {'weaklabel s':>12s} {'crowd-kit s':>12s} {'ratio':>7s} {'acc ours':>9s} "
          f"{'acc ck':>7s}")
    for name in args.sets:
        data = load_crowd(name)
        coo = data.L.tocoo()
        frame = pd.DataFrame({"task": coo.row, "worker": coo.col, "label": coo.data - 1})
        for label, ours, theirs in (
                ("MV", lambda: MajorityVote().fit(data.L).predict(data.L), lambda: ck.MajorityVote().fit_predict(frame)),
                ("Dawid-Skene", lambda: DawidSkene(abstain="ignore").fit(data.L).predict(data.L),
                 lambda: ck.DawidSkene(n_iter=100).fit_predict(frame))):
            t_ours, pred = best_of(ours, args.repeats)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_ck, result = best_of(theirs, args.repeats)
            pred_ck = np.full(data.L.shape[0], -1)
            pred_ck[result.index.to_numpy(dtype=np.int64)] = result.to_numpy(dtype=np.int64)
            print(f"{name:8s} {label:12s} {t_ours:12.4f} {t_ck:12.4f} {t_ck / t_ours:6.1f}x "
                  f"{np.mean(pred == data.y):9.4f} {np.mean(pred_ck == data.y):7.4f}")


if __name__ == "__main__":
    main()
