"""Speed: one pass of each candidate-label learner vs scikit-learn's Perceptron.

Run:  python benchmarks/partial_speed.py [--repeats 3]
Prints examples/second for each learner on dense USPS and sparse sector, and the
ratio ours / scikit-learn, measured side by side in this one run.
Target: every learner >= 1.5x scikit-learn on both datasets.
"""

import argparse

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--datasets", nargs="+", default=["usps", "sector"])
    args = ap.parse_args()
    rows = speed.run(args.datasets, repeats=args.repeats)
    worst = min(rows, key=lambda r: r["ratio"])
    print(f"\nslowest ratio: {worst['method']} on {worst['dataset']}: {worst['ratio']:.2f}x "
          f"({'meets' if worst['ratio'] >= 1.5 else 'BELOW'} the 1.5x target)")
