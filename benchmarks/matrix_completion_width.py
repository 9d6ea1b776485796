"""MatrixCompletion at width: 500 sources x 20 classes and 1,000 x 50, fitted from sparse
votes, with the seconds and the peak memory of the fit (tracemalloc, numpy's allocations
included), beside the size a dense (sources x classes)^2 overlap matrix would take.

``OPENBLAS_NUM_THREADS=1 python benchmarks/matrix_completion_width.py`` (one core).
"""

import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp

from weaklabel.sources import MajorityVote, MatrixCompletion


def votes(n, m, K, coverage, accuracy=0.7, seed=0):
    """Sparse votes (class + 1) of m sources, each voting on `coverage` of the rows."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, K, n)
    k = rng.binomial(n * m, coverage)
    cells = np.unique(rng.randint(0, n * m, k))
    rows, cols = cells // m, cells % m
    right = rng.rand(cells.size) < accuracy
    cls = np.where(right, y[rows], rng.randint(0, K, cells.size))
    return sp.csr_matrix((cls + 1, (rows, cols)), shape=(n, m)), y


def main():
    print(f"{'sources x classes':>18} {'rows':>7} {'votes':>9} {'O entries':>10} {'fit s':>7} {'peak MB':>8} "
          f"{'dense O MB':>11} {'accuracy':>8} {'majority':>8}")
    for n, m, K, coverage in ((20_000, 500, 20, 0.01), (20_000, 1000, 50, 0.005)):
        L, y = votes(n, m, K, coverage)
        tracemalloc.start()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = MatrixCompletion(max_iter=200).fit(L, n_classes=K)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"{f'{m} x {K}':>18} {n:>7} {L.nnz:>9} {model._O_sum.nnz:>10} {seconds:>7.1f} {peak:>8.0f} "
              f"{(m * K) ** 2 * 8 / 2**20:>11.0f} {model.score(L, y):>8.3f} "
              f"{MajorityVote().fit(L, n_classes=K).score(L, y):>8.3f}")


if __name__ == "__main__":
    main()
