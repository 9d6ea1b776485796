"""Scale: label models on 1e6 rows x 1,000 sources x 50 classes of sparse votes.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/sources_scale.py [--rows 1000000] [--sources 1000]
      [--classes 50] [--coverage 0.01]

Simulates sources that each vote on about ``coverage`` of the rows (a random share of them
right, accuracy drawn in [0.3, 0.9], wrong votes spread over the other classes), stores the
votes as CSR (``class + 1``), and prints, measured in this one run on one core (the kernels
are single-threaded; BLAS pinned to one thread): the seconds of ``fit`` of each label model,
their accuracy, the accuracy after ``partial_fit`` over 10 chunks, the size of the votes and
how much the process's resident memory grew during ``fit`` (sampled). Targets: fit in under 2 minutes; ``partial_fit`` within 0.01 of
``fit``'s accuracy; memory O(votes) (no rows x sources or rows x classes array in ``fit``).
"""

import argparse
import sys
import threading
import time

import numpy as np
import scipy.sparse as sp

from weaklabel.sources import DawidSkene, MajorityVote, PrecisionVote


def simulate(n, m, K, coverage, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n).astype(np.int32)
    per = max(1, int(round(coverage * n)))
    accuracy = rng.uniform(0.3, 0.9, m)
    rows = np.concatenate([rng.choice(n, per, replace=False) for _ in range(m)]).astype(np.int32)
    src = np.repeat(np.arange(m, dtype=np.int32), per)
    right = rng.random(rows.size) < accuracy[src]
    wrong = (y[rows] + rng.integers(1, K, rows.size)) % K          # another class, uniformly
    vote = np.where(right, y[rows], wrong).astype(np.int64) + 1
    L = sp.csr_matrix((vote, (rows, src)), shape=(n, m))
    L.sum_duplicates()
    return L, y


def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


class PeakRSS:
    """The largest resident memory of this process while the block runs, sampled every 5 ms
    (numba's arrays are invisible to tracemalloc, not to the resident set)."""

    def __enter__(self):
        self.start = self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())

    @property
    def extra(self):
        return self.peak - self.start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sources", type=int, default=1000)
    ap.add_argument("--classes", type=int, default=50)
    ap.add_argument("--coverage", type=float, default=0.01)
    ap.add_argument("--chunks", type=int, default=10)
    args = ap.parse_args()
    n, m, K = args.rows, args.sources, args.classes
    warm, _ = simulate(2000, 20, K, 0.3, seed=1)                  # compile the kernels outside the timings
    for make in (MajorityVote, DawidSkene, PrecisionVote):
        make().fit(warm, n_classes=K).partial_fit(warm).predict(warm)
    L, y = simulate(n, m, K, args.coverage)
    covered = np.diff(L.indptr) > 0
    votes_mb = (L.data.nbytes + L.indices.nbytes + L.indptr.nbytes) / 2**20
    print(f"{n:,} rows x {m:,} sources x {K} classes: {L.nnz:,} votes ({votes_mb:.0f} MB as CSR), "
          f"{covered.mean():.3f} of the rows covered; resident memory before fitting: {rss_mb():.0f} MB")
    print(f"{'model':14s} {'fit s':>8s} {'iter':>5s} {'accuracy':>9s} {'partial_fit':>12s} {'gap':>7s} "
          f"{'fit +MB':>8s}")
    ok = True
    for name, make in (("MajorityVote", MajorityVote), ("DawidSkene", DawidSkene), ("PrecisionVote", PrecisionVote)):
        with PeakRSS() as mem:
            start = time.perf_counter()
            model = make().fit(L, n_classes=K)
            seconds = time.perf_counter() - start
        acc = float(np.mean(model.predict(L)[covered] == y[covered]))
        chunked = make()
        for part in np.array_split(np.arange(n), args.chunks):
            chunked.partial_fit(L[part], n_classes=K)
        acc_chunked = float(np.mean(chunked.predict(L)[covered] == y[covered]))
        gap = acc - acc_chunked
        ok &= seconds < 120 and abs(gap) <= 0.01
        print(f"{name:14s} {seconds:8.1f} {getattr(model, 'n_iter_', 1):5d} {acc:9.4f} {acc_chunked:12.4f} "
              f"{gap:+7.4f} {mem.extra:8.0f}")
    print("targets (fit < 120 s, |gap| <= 0.01):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
