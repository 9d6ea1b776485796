"""Run experiment cells serially or on Dask (a local cluster or a scheduler address);
skip the ones already stored."""

from __future__ import annotations

import contextlib
import os
import time

import numpy as np

from .._extras import require
from .store import config_key

__all__ = ["Cell", "run_cells", "probe_cell"]


class Cell:
    """One run: a JSON-able config and the module-level function that runs it.

    Parameters
    ----------
    experiment : str
        The experiment's name (added to the config).
    stage : str
        The stage (added to the config).
    config : dict
        The JSON-able settings; the cell's key is the hash of the config.
    fn : callable
        ``fn(config) -> dict`` at module level.
    """

    __slots__ = ("experiment", "stage", "config", "fn", "key")

    def __init__(self, experiment, stage, config, fn):
        self.experiment = experiment
        self.stage = stage
        self.config = dict(config, experiment=experiment, stage=stage)
        self.fn = fn
        self.key = config_key(self.config)


def _timed(fn, config):
    """Run one cell with BLAS pinned to one thread: a cell's numbers must not depend on how
    many cores the machine (or a Dask worker) has, and uma-real's kernel-PCA features do.
    """
    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    with threadpool_limits(limits=1):
        out = fn(config)
    return out, time.perf_counter() - t0


def probe_cell(config):
    """Sleep ``config["seconds"]`` and return a number derived from ``config["seed"]`` alone.

    A cell for testing the runners: any run of it gives the same row.

    Parameters
    ----------
    config : dict
        ``seed`` (int) and optionally ``seconds`` (float).

    Returns
    -------
    dict
        ``{"value": float}``.
    """
    time.sleep(float(config.get("seconds", 0.0)))
    rng = np.random.RandomState(int(config["seed"]))
    return {"value": float(rng.standard_normal())}


def run_cells(cells, store, *, jobs=1, scheduler=None, progress=True, desc="cells"):
    """Run every cell whose key is not in ``store``; store each result as it finishes.

    Parameters
    ----------
    cells : list of Cell
        The cells; duplicates (same key) run once.
    store : ResultStore
        Written only by this (the client) process, one transaction per cell, so a killed
        run or a Ctrl-C never leaves half a row; a rerun runs only the missing cells.
    jobs : int
        1 runs in this process; N > 1 starts a Dask ``LocalCluster`` of N worker
        processes (one thread each).
    scheduler : str or None
        Address of a running Dask scheduler (``tcp://host:8786``); overrides ``jobs``.
        Cells whose worker dies are rerun elsewhere (Dask reschedules them; a cell that
        raises is retried twice).
    progress : bool
        Show a progress bar (tqdm) on stderr.
    desc : str, default="cells"
        The progress bar's label.

    Returns
    -------
    n_run : int
        Cells run now (the rest were already stored).
    """
    done = store.done_keys()
    seen = set()
    todo = []
    for c in cells:
        if c.key not in done and c.key not in seen:
            seen.add(c.key)
            todo.append(c)
    if not todo:
        return 0
    bar = None
    if progress:
        tqdm = require("tqdm.auto", "the progress bar (pass progress=False to run without)").tqdm
        bar = Progress(tqdm(total=len(todo), desc=desc, unit="cell", leave=False))
    try:
        if scheduler is None and jobs <= 1:
            for c in todo:
                out, sec = _timed(c.fn, c.config)
                store.put(c.key, c.experiment, c.stage, c.config, out, sec)
                if bar:
                    bar.update(1)
        else:
            _run_dask(todo, store, jobs, scheduler, bar)
    finally:
        if bar:
            bar.close()
    return len(todo)


class Progress:
    """A tqdm bar whose rate (and so its ETA) starts after the first finished cell: the first
    cell pays for compiling the numba kernels (seconds to a minute), which would otherwise
    make the bar promise hours.
    """

    def __init__(self, bar):
        self.bar = bar
        self.first = True
        bar.set_postfix_str("first cell (compiling)")

    def update(self, n=1):
        bar = self.bar
        if self.first:
            self.first = False
            bar.reset(total=bar.total)              # the clock and the rate start now
            bar.n = bar.last_print_n = n
            bar.set_postfix_str("")
            bar.refresh()
        else:
            bar.update(n)

    def close(self):
        self.bar.close()


#: one BLAS thread in every worker process from its start (the cells also pin it, see _timed)
WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def local_cluster_options(jobs):
    """The ``LocalCluster`` of ``--jobs N``: N single-threaded worker processes, no dashboard
    (a second cluster on the host would fight for port 8787), worker logs at ERROR only (a
    worker's death is reported by the runner, which reruns its cell), one BLAS thread.
    """
    import logging

    # dashboard_address=None turns the dashboard off, but the scheduler still serves its
    # HTTP routes on 8787; ":0" puts them on a free port, so clusters never collide
    return {"n_workers": jobs, "threads_per_worker": 1, "processes": True, "dashboard_address": None,
            "scheduler_kwargs": {"dashboard_address": ":0"}, "silence_logs": logging.ERROR,
            "env": dict(WORKER_ENV)}


@contextlib.contextmanager
def glibc_malloc_defaults():
    """A context in which new Dask workers keep glibc's own memory trimming.

    Dask's nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (its config
    ``distributed.nanny.pre-spawn-environ``, which it also leaves in this process's
    environment), and that turns off glibc's adaptive mmap threshold: every temporary array
    above 128 KiB is then mapped afresh and faulted in page by page.  A batch fit that makes
    a few such arrays per L-BFGS step (italian: 17,500 x 90 scores) spent as much time in
    the kernel as in its own code (the partial-label reproduction page has the times).  The
    cells' fit times are meant to be the learners', so workers started in this context go
    without it (a value of the user's own, other than Dask's, is left as it is).
    """
    dask = require("dask", "running cells on Dask")
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    dask_value = env.pop("MALLOC_TRIM_THRESHOLD_", None)
    leaked = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if dask_value is not None and leaked == str(dask_value):
        del os.environ["MALLOC_TRIM_THRESHOLD_"]
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
            yield
    finally:
        if leaked is not None:
            os.environ["MALLOC_TRIM_THRESHOLD_"] = leaked


def _run_dask(todo, store, jobs, scheduler, bar):
    distributed = require("distributed", "running cells on Dask")
    Client, LocalCluster, as_completed = distributed.Client, distributed.LocalCluster, distributed.as_completed

    cluster = None
    if scheduler is None:
        with glibc_malloc_defaults():
            cluster = LocalCluster(**local_cluster_options(jobs))
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        by_key = {}
        futures = []
        for c in todo:
            fut = client.submit(_timed, c.fn, c.config, key=f"weaklabel-cell-{c.key}", pure=False, retries=2)
            by_key[fut.key] = c
            futures.append(fut)
        for fut in as_completed(futures):
            c = by_key[fut.key]
            out, sec = fut.result()
            store.put(c.key, c.experiment, c.stage, c.config, out, sec)
            if bar:
                bar.update(1)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
