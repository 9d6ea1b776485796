"""Online learners at the machine's limit: rows per second of one pass, beside the limits.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/online_limits.py [--repeats 3] [--figure PATH]

Measured in one run, BLAS pinned to one thread (threadpoolctl as well as the variable):
rows/s of one ``fit`` pass of each online learner on dense float64, dense float32 and sparse
rows; the same run's rate of reading the data (``X.sum()``) and of scoring it by one BLAS
product (``X @ W``, the limit a per-row learner cannot beat); scikit-learn's ``Perceptron``
and ``SGDClassifier``, one pass each; and ``partial_fit`` on 100-row chunks against one
``fit`` pass.  The speed targets, checked as ratios of this run:

- dense float64: >= 4x scikit-learn's Perceptron and >= 0.6x ``X @ W`` for the four
  candidate-label learners, CSPA and Banditron; diagonal Confidit >= 2x and >= 0.3x;
- dense float32: >= 1.5x the float64 path;
- ``partial_fit`` on 100-row chunks: at most 1.5x one ``fit`` pass;
- full-matrix Confidit: no per-call copy of its matrices (its short calls journal their
  updates; the run prints its chunks against one pass, and what a copy a call would add).

With ``--figure`` it draws rows/s per learner with the limits as lines (the performance
page's figure).
"""

import argparse

from threadpoolctl import threadpool_limits

from weaklabel.experiments import _speed as speed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--figure", default=None, help="write the figure (PNG) here")
    args = ap.parse_args()
    with threadpool_limits(limits=1):
        rows = speed.run_online_limits(repeats=args.repeats)
    rate = {(r["what"], r["form"]): r["rows_per_s"] for r in rows}
    sk, xw = rate[("sklearn Perceptron", "dense float64")], rate[("X @ W (one BLAS product)", "dense float64")]
    print("\nTargets (ratios of this run; x sklearn and x (X @ W) from timings taken in turn with each learner's):")
    print(f"{'learner':22s} {'x sklearn':>10s} {'x (X @ W)':>10s} {'f32 / f64':>10s} {'chunks / fit':>13s}")
    for label, _, _ in speed.LIMIT_LEARNERS:
        f64, f32 = rate[(label, "dense float64")], rate[(label, "dense float32")]
        dense = next(r for r in rows if r["what"] == label and r["form"] == "dense float64")
        x_sk, x_xw = dense["sk_ratio"], dense["xw_ratio"]          # timed in turn with the learner
        chunks = next(r["fit_ratio"] for r in rows if r["what"] == label and r["form"].startswith("partial_fit"))
        need_sk, need_xw = (2.0, 0.3) if label.startswith("Confidit") else (4.0, 0.6)
        ok = x_sk >= need_sk and x_xw >= need_xw and f32 / f64 >= 1.5 and chunks <= 1.5
        print(f"{label:22s} {x_sk:9.2f}x {x_xw:9.2f}x {f32 / f64:9.2f}x {chunks:12.2f}x  "
              f"{'meets every target' if ok else 'misses a target'}")
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        labels = [lab for lab, _, _ in speed.LIMIT_LEARNERS]
        forms = ["dense float64", "dense float32", "sparse"]
        fig, ax = plt.subplots(figsize=(9.5, 4.2))
        pos = np.arange(len(labels))
        for j, form in enumerate(forms):
            ax.bar(pos + (j - 1) * 0.27, [rate[(lab, form)] / 1e6 for lab in labels], 0.27, label=form)
        ax.axhline(xw / 1e6, color="k", ls="--", lw=1, label="X @ W, dense float64 (the limit)")
        ax.axhline(sk / 1e6, color="tab:red", ls=":", lw=1.2, label="sklearn Perceptron, dense float64")
        ax.set_xticks(pos)
        ax.set_xticklabels(labels, rotation=15, fontsize=8)
        ax.set_ylabel("million rows per second (one pass)")
        ax.set_title("Online learners on USPS (dense) and sector (sparse), one core, BLAS on one thread",
                     fontsize=9)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.figure, dpi=110)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
