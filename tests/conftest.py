"""Suite-wide settings and fixtures.

A test that reads a shared dataset missing from the data folder fails with one line naming
the file, the folder and ``WEAKLABEL_DATA``, never a skip and never a traceback; tests that
would find out late (in a fixture or a subprocess) carry ``@pytest.mark.data("name", ...)``.
"""

import os
import sys

import pytest
from threadpoolctl import threadpool_limits

# compiled modules are shared by the suite's processes (test workers, subprocesses, Dask workers)
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# one BLAS / OpenMP thread per test process: pytest-xdist already runs one process per core
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"
_ONE_BLAS_THREAD = threadpool_limits(limits=1)

# every figure a test draws is checked (weaklabel.experiments.render.figure_problems)
os.environ["WEAKLABEL_STRICT_FIGURES"] = "1"

_HOW = ("Set WEAKLABEL_DATA to the shared data folder (the one with MANIFEST.md; by default ../shared/data "
        "beside the repository).")

#: the suite's one Dask cluster while it is in use (see ``local_cluster``)
_CLUSTER = {}


@pytest.fixture
def local_cluster():
    """One Dask LocalCluster (two worker processes, one thread each) shared by the tests that
    need one: they are collected first, run one after another, and the cluster is closed after
    the last of them."""
    distributed = pytest.importorskip("distributed")
    if "cluster" not in _CLUSTER:
        _CLUSTER["cluster"] = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                                       dashboard_address=None, host="127.0.0.1")
    return _CLUSTER["cluster"]


def _close_cluster():
    cluster = _CLUSTER.pop("cluster", None)
    if cluster is not None:
        cluster.close()


def pytest_runtest_teardown(item, nextitem):
    if "cluster" in _CLUSTER and (nextitem is None or "local_cluster" not in nextitem.fixturenames):
        _close_cluster()


def pytest_sessionfinish(session):
    _close_cluster()


#: modules of long tests, run early so that the suite ends on short ones
_LONG = ("tests/experiments/", "tests/cli/", "tests/test_readme.py")


def pytest_collection_modifyitems(items):
    """The shared cluster's tests first, then the long modules; expected failures (scikit-learn
    checks our estimators fail by design, each with its reason) report Python's own traceback
    format, which does not parse every frame's source file."""
    items.sort(key=lambda item: 0 if "local_cluster" in item.fixturenames else 1 if item.nodeid.startswith(_LONG)
               else 2)
    for item in items:
        if item.get_closest_marker("xfail") is not None:
            item.repr_failure = lambda excinfo: excinfo.getrepr(style="native")


def pytest_runtest_setup(item):
    for mark in item.iter_markers("data"):
        from weaklabel import datasets

        missing = [name for name in mark.args if not datasets.available(name)]
        if missing:
            pytest.fail(f"shared data missing: {', '.join(missing)} not found in {datasets.data_dir()}. {_HOW}",
                        pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None:
        from weaklabel import datasets

        if call.excinfo.errisinstance(datasets.DataNotFoundError):
            report.longrepr = f"shared data missing: {call.excinfo.value}"
