"""Online learners at the machine's limit: rows per second of one pass, beside the limits.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/online_limits.py [--rounds 5] [--repeats 3] [--figure PATH]

Measured in ``--rounds`` fresh processes (this file's ``--worker`` mode), BLAS pinned to one
thread (threadpoolctl as well as the variable); every timing is the best of its rounds (a
shared machine only ever adds time, and a process's memory layout moves a dense pass for the
whole life of the process), and a ratio is that of two such bests whose rounds timed them in
turn:
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
import json
import os
import subprocess
import sys

from threadpoolctl import threadpool_limits

from weaklabel.experiments import _speed as speed


def best_of(rounds):
    """One list of rows from several rounds' lists: each timing the best of its rounds; the
    rates and ratios of each row from those bests (a ratio's two timings were taken in turn)."""
    best = {}
    for rows in rounds:
        for row in rows:
            b = best.setdefault((row["what"], row["form"]), {"what": row["what"], "form": row["form"], "rows": row["rows"]})
            for k, v in row.items():
                if k.endswith("seconds"):
                    b[k] = min(v, b.get(k, float("inf")))
    out = []
    for b in best.values():
        t = b["seconds"]
        row = {"what": b["what"], "form": b["form"], "rows_per_s": b["rows"] / t}
        if "xw_seconds" in b:                                  # the limit's time over the learner's
            row["xw_ratio"], row["sk_ratio"] = b["xw_seconds"] / t, b["sk_seconds"] / t
        if "pass_seconds" in b:                                # the chunks' time over one pass
            row["fit_ratio"] = t / b["pass_seconds"]
        if "copy_seconds" in b:                                # the chunks with a copy of the matrices a call
            row["copy_ratio"] = (t + b["copy_seconds"]) / b["pass_seconds"]
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="fresh processes, each timing everything once")
    ap.add_argument("--repeats", type=int, default=3, help="timings of each number within a round")
    ap.add_argument("--figure", default=None, help="write the figure (PNG) here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        with threadpool_limits(limits=1):
            rows = speed.run_online_limits(repeats=args.repeats, out=lambda *a: None)
        print(json.dumps(rows))
        return
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    rounds = [json.loads(subprocess.run([sys.executable, __file__, "--worker", "--repeats", str(args.repeats)],
                                        check=True, capture_output=True, text=True, env=env).stdout.splitlines()[-1])
              for _ in range(args.rounds)]
    rows = best_of(rounds)
    for r in rows:
        print(f"  {r['what']:28s} {r['form']:18s} {r['rows_per_s']:14,.0f} rows/s"
              + (f"   {r['fit_ratio']:5.2f}x one fit pass" if "fit_ratio" in r else "")
              + (f" (with a copy of the matrices a call: {r['copy_ratio']:5.2f}x)" if "copy_ratio" in r else ""))
    rate = {(r["what"], r["form"]): r["rows_per_s"] for r in rows}
    sk, xw = rate[("sklearn Perceptron", "dense float64")], rate[("X @ W (one BLAS product)", "dense float64")]
    print(f"\nTargets (best of {args.rounds} rounds; x sklearn and x (X @ W) from timings taken in turn with each learner's):")
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
