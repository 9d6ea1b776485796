"""Speed: one pass of each bandit learner vs scikit-learn's PA-1 SGD and Vowpal Wabbit.

Run:  python benchmarks/bandit_speed.py [--repeats 3]
Prints examples/second on dense USPS and sparse sector and the ratios, measured side
by side in this one run.  Targets: CSPA, SPA, Banditron and BPA >= 1.5x the
scikit-learn pass and >= 5x VW --cbify; Confidit (diag) at least as fast as VW;
SketchedConfidit (sketch 8) within 3x of diagonal Confidit's time.
VW comes from the optional extra: pip install -e ".[compare]".
"""

import argparse

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--datasets", nargs="+", default=["usps", "sector"])
    args = ap.parse_args()
    rows = speed.run_bandit(args.datasets, repeats=args.repeats)
    print()
    for r in rows:
        conf = r["method"].startswith("Confidit")
        ok_sk = conf or r["vs_sklearn"] >= 1.5
        ok_vw = r["vs_vw"] is None or r["vs_vw"] >= (1.0 if conf else 5.0)
        if "sketch" in r["method"]:
            diag = next(q for q in rows if q["dataset"] == r["dataset"] and q["method"] == "Confidit (diag)")
            ok_sk, ok_vw = r["seconds"] <= 3.0 * diag["seconds"], True
        print(f"{r['dataset']:8s} {r['method']:16s} {'meets' if ok_sk and ok_vw else 'BELOW'} its target "
              f"({r['vs_sklearn']:.2f}x sklearn" + (f", {r['vs_vw']:.1f}x VW)" if r["vs_vw"] else ")"))
