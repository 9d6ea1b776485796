"""Speed of MMS: its exact loss-augmented search, and training at 10^5 instances.

Run:  python benchmarks/mms_speed.py [--n 100000]
Prints, measured in one run: microseconds per bag of the exact most-violating-labeling
search on bags of 10 instances over 200 classes (with and without the canonical
tie-breaking pass, beside the size of the space it covers), then MMS's training time on
100,000 synthetic instances in bags of 5 with L = 10 (target: under 2 minutes on 2
cores) beside scikit-learn's LinearSVC(crammer_singer) on the same instances with their
true labels, as a ratio.
"""

import argparse

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="instances for the training-time run")
    ap.add_argument("--search-bags", type=int, default=2000, help="random bags per search row")
    args = ap.parse_args()
    speed.run_bag_search(n_bags=args.search_bags)
    speed.run_mms(n=args.n)
