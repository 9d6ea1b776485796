"""A label model over votes that never reach the client: DawidSkene by distributed EM.

Run:  python benchmarks/sources_cluster.py [--rows 10_000_000] [--sources 1000] [--classes 20]
      [--coverage 0.01] [--partitions 40] [--memory-limit 4GB]

Votes are generated on the workers, one partition at a time, by a seeded function of the
partition's number (sources of accuracy 0.55-0.9 voting on ``--coverage`` of the rows), so
no process ever holds more than its partitions; a ``LocalCluster`` of 2 worker processes
with ``--memory-limit`` each fits :class:`weaklabel.sources.DawidSkene` through
:func:`weaklabel.distributed.fit_label_model`. Printed, from one run: the distributed fit's
time beside the single-process fit on a tenth of the partitions (in the client process)
scaled by ten; the peak resident memory of the client and of each worker; and the fit again
with one worker killed after the third EM step, its partitions recomputed from their
lineage, against the first fit (the largest difference of the confusion matrices). BLAS is
pinned to one thread in every process.
"""

import argparse
import os
import resource
import signal
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def votes_of_partition(i, rows, sources, classes, coverage):
    """The CSR votes (class + 1) of partition ``i``: each source votes on ``coverage`` of the
    rows, right with its own accuracy, else a uniformly drawn wrong class."""
    import scipy.sparse as sp

    acc = np.random.default_rng(12345).uniform(0.55, 0.9, sources)      # the same sources everywhere
    rng = np.random.default_rng(i)
    y = rng.integers(0, classes, rows)
    nnz = rng.binomial(rows * sources, coverage)
    flat = np.unique(rng.integers(0, rows * sources, nnz))       # a source votes at most once per row
    r, s = np.divmod(flat, sources)
    nnz = flat.size
    right = rng.random(nnz) < acc[s]
    wrong = (y[r] + rng.integers(1, classes, nnz)) % classes
    cls = np.where(right, y[r], wrong)
    return sp.csr_matrix((cls + 1, (r, s)), shape=(rows, sources), dtype=np.int64)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--sources", type=int, default=1000)
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("--coverage", type=float, default=0.01)
    ap.add_argument("--partitions", type=int, default=40)
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--max-iter", type=int, default=100)
    args = ap.parse_args()

    import dask
    import dask.array as da
    import scipy.sparse as sp
    from distributed import Client, LocalCluster

    from weaklabel.distributed import PartitionedVotes
    from weaklabel.sources import DawidSkene

    per = args.rows // args.partitions
    spec = (per, args.sources, args.classes, args.coverage)
    meta = sp.csr_matrix((0, args.sources), dtype=np.int64)
    L = da.concatenate([da.from_delayed(dask.delayed(votes_of_partition)(i, *spec), shape=(per, args.sources),
                                        dtype=np.int64, meta=meta) for i in range(args.partitions)], axis=0)
    print(f"{per * args.partitions:,} rows x {args.sources} sources x {args.classes} classes, coverage "
          f"{args.coverage} (about {per * args.partitions * args.sources * args.coverage:,.0f} votes), "
          f"{args.partitions} partitions")

    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        t0 = time.perf_counter()
        votes = PartitionedVotes(L, client, n_classes=args.classes)
        model = DawidSkene(max_iter=args.max_iter).fit(votes)
        t_cluster = time.perf_counter() - t0
        workers_mb = client.run(peak_rss_mb)

        class KillOnce(PartitionedVotes):
            calls = 0

            def map_sum(self, fn):
                KillOnce.calls += 1
                if KillOnce.calls == 4:
                    os.kill(sorted(self.client.run(os.getpid).values())[0], signal.SIGKILL)
                return super().map_sum(fn)

        again = DawidSkene(max_iter=args.max_iter).fit(KillOnce(L, client, n_classes=args.classes))
        diff = float(np.abs(again.confusions_ - model.confusions_).max())
        client_mb = peak_rss_mb()

    tenth = max(1, args.partitions // 10)
    local = sp.vstack([votes_of_partition(i, *spec) for i in range(tenth)]).tocsr()
    t0 = time.perf_counter()
    DawidSkene(max_iter=args.max_iter).fit(local, n_classes=args.classes)
    t_local = (time.perf_counter() - t0) * args.partitions / tenth

    print(f"DawidSkene on the cluster: {t_cluster:.1f} s ({model.n_iter_} EM iterations, start {model.start_})")
    print(f"one process on a tenth of the partitions, scaled by {args.partitions / tenth:g}: {t_local:.1f} s")
    print(f"peak resident memory during the cluster fits: client {client_mb:.0f} MB; "
          + ", ".join(f"worker {i} {mb:.0f} MB" for i, mb in enumerate(workers_mb.values()))
          + f" (limit {args.memory_limit} each)")
    print(f"a worker killed after the third EM step: largest difference of the confusions {diff:.1e}, "
          f"{again.n_iter_} iterations")


if __name__ == "__main__":
    main()
