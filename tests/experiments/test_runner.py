"""Sweeps on Dask: a real LocalCluster with 2 worker processes on loopback."""

import os
import signal
import threading
import time

import numpy as np
import pytest

from weaklabel.experiments import cspa
from weaklabel.experiments.runner import Cell, probe_cell, run_cells
from weaklabel.experiments.store import ResultStore

distributed = pytest.importorskip("distributed")


def _probe_cells(n, seconds):
    return [Cell("probe", "run", {"seed": s, "seconds": seconds}, probe_cell) for s in range(n)]


@pytest.fixture
def cluster(local_cluster):
    """The module's cluster (``local_cluster`` in tests/conftest.py)."""
    return local_cluster


@pytest.mark.slow
def test_killed_worker_loses_and_duplicates_nothing(cluster, tmp_path):
    cells = _probe_cells(40, 0.15)
    with ResultStore(tmp_path / "serial.sqlite") as serial:
        # the serial numbers without the sleep (a probe's row depends on its seed alone)
        run_cells(_probe_cells(40, 0.0), serial, progress=False)
        expected = {c["seed"]: r["value"] for c, r in serial.rows("probe")}

    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)                     # {worker address: pid}
    victim = sorted(pids.values())[0]
    path = tmp_path / "dask.sqlite"

    def kill_mid_sweep():
        deadline = time.time() + 60
        while time.time() < deadline:
            with ResultStore(path) as s:
                if s.count("probe") >= 8:
                    break
            time.sleep(0.05)
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_mid_sweep)
    with ResultStore(path) as store:
        killer.start()
        n_run = run_cells(cells, store, scheduler=cluster.scheduler_address, progress=False)
        killer.join()
        rows = store.rows("probe")
    assert n_run == 40
    got = {c["seed"]: r["value"] for c, r in rows}
    assert len(rows) == 40 and got == expected           # every row once, the serial numbers
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)                               # the worker really died mid-sweep
    with distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)           # its nanny restarted it: the cluster is whole again


def test_rerun_finishes_only_the_missing_cells(cluster, tmp_path):
    cells = _probe_cells(12, 0.0)
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert run_cells(cells[:5], store, progress=False) == 5
        assert run_cells(cells, store, scheduler=cluster.scheduler_address, progress=False) == 7
        assert run_cells(cells, store, scheduler=cluster.scheduler_address, progress=False) == 0
        assert store.count("probe") == 12


@pytest.mark.slow
def test_real_cells_on_a_local_cluster_match_serial(cluster, tmp_path):
    """The CSPA cells give the serial numbers in the cluster's worker processes; ``--jobs 2``
    starts its own LocalCluster and gives the serial numbers too (on probe cells, which
    import no learner: a start's imports are the cost, not what is tested)."""
    cfgs = [{"dataset": "vehicle", "part": "all", "scaling": "none", "method": m, "params": p, "seed": s,
             "rounds": 300} for s in range(3) for m, p in (("cspa", {"beta": 0.3}), ("banditron", {"gamma": 0.1}))]
    cells = [Cell("cspa-linear", "run", c, cspa.online_cell) for c in cfgs]
    with ResultStore(tmp_path / "a.sqlite") as a, ResultStore(tmp_path / "b.sqlite") as b:
        run_cells(cells, a, progress=False)
        run_cells(cells, b, scheduler=cluster.scheduler_address, progress=False)
        ra = sorted((repr(sorted(c.items())), r["ratio"]) for c, r in a.rows("cspa-linear"))
        rb = sorted((repr(sorted(c.items())), r["ratio"]) for c, r in b.rows("cspa-linear"))
    assert ra == rb and len(ra) == 6
    assert np.isfinite([r for _, r in ra]).all()
    probes = _probe_cells(6, 0.0)
    with ResultStore(tmp_path / "c.sqlite") as c, ResultStore(tmp_path / "d.sqlite") as d:
        assert run_cells(probes, c, progress=False) == 6
        assert run_cells(probes, d, jobs=2, progress=False) == 6
        assert {q["seed"]: r["value"] for q, r in c.rows("probe")} == {q["seed"]: r["value"] for q, r in d.rows("probe")}


def test_interrupted_sweep_leaves_a_consistent_store(cluster, tmp_path):
    """A Ctrl-C while results arrive: the rows stored so far are whole, and a rerun adds the rest."""
    cells = _probe_cells(10, 0.0)
    path = tmp_path / "c.sqlite"

    class Interrupting(ResultStore):
        def put(self, *args):
            if self.count("probe") == 4:
                raise KeyboardInterrupt
            super().put(*args)

    with Interrupting(path) as store, pytest.raises(KeyboardInterrupt):
        run_cells(cells, store, scheduler=cluster.scheduler_address, progress=False)
    with ResultStore(path) as store:
        assert store.count("probe") == 4
        assert run_cells(cells, store, scheduler=cluster.scheduler_address, progress=False) == 6
        values = {c["seed"]: r["value"] for c, r in store.rows("probe")}
    assert sorted(values) == list(range(10))
    with ResultStore(tmp_path / "serial.sqlite") as serial:
        run_cells(cells, serial, progress=False)
        assert values == {c["seed"]: r["value"] for c, r in serial.rows("probe")}


@pytest.mark.slow
def test_the_local_cluster_is_quiet_and_single_threaded(tmp_path, monkeypatch):
    """--jobs N: no dashboard, worker logs at ERROR, one BLAS thread per worker and glibc's
    own memory trimming (Dask's MALLOC_TRIM_THRESHOLD_ left out), checked in a worker."""
    import contextlib
    import logging
    import os

    from weaklabel.experiments.runner import WORKER_ENV, glibc_malloc_defaults, local_cluster_options

    opts = local_cluster_options(2)
    assert opts["dashboard_address"] is None and opts["silence_logs"] == logging.ERROR
    assert opts["threads_per_worker"] == 1 and opts["env"] == WORKER_ENV
    before = os.environ.get("MALLOC_TRIM_THRESHOLD_")          # Dask leaves its value here once a cluster started
    with contextlib.ExitStack() as stack:
        with glibc_malloc_defaults():
            lc = stack.enter_context(distributed.LocalCluster(**{**opts, "n_workers": 1}))
            lc2 = stack.enter_context(distributed.LocalCluster(**{**opts, "n_workers": 1}))
        client, client2 = stack.enter_context(distributed.Client(lc)), stack.enter_context(distributed.Client(lc2))
        names = [*WORKER_ENV, "MALLOC_TRIM_THRESHOLD_"]
        env = client.submit(lambda: {k: os.environ.get(k) for k in names}, pure=False).result()
        assert env == {**WORKER_ENV, "MALLOC_TRIM_THRESHOLD_": None}
        assert os.environ.get("MALLOC_TRIM_THRESHOLD_") == before       # this process's environment put back
        ports = [c.scheduler_info()["services"].get("dashboard") for c in (client, client2)]
        assert 8787 not in ports and ports[0] != ports[1]              # two clusters on one host never collide


def test_the_progress_bar_does_not_count_the_first_cell_in_its_rate():
    """The first cell compiles the kernels; the ETA must come from the cells after it."""
    import io

    from tqdm import tqdm

    from weaklabel.experiments.runner import Progress

    bar = Progress(tqdm(total=10, file=io.StringIO(), mininterval=0))
    time.sleep(0.6)                                          # a slow first cell
    bar.update(1)
    for _ in range(3):
        time.sleep(0.01)
        bar.update(1)
    d = bar.bar.format_dict
    assert d["n"] == 4 and d["elapsed"] < 0.3               # the first cell's 0.6 s is not in the clock
    rate = d["rate"] or d["n"] / d["elapsed"]
    assert (d["total"] - d["n"]) / rate < 1.0               # 6 cells left at ~0.01 s: well under a second
    bar.close()
