"""Suite-wide test settings.

Shared data: a test that reads a dataset missing from the data folder fails with one line,
the same everywhere: ``shared data missing: <the loader's message naming the file, the
folder and WEAKLABEL_DATA>``, never a skip and never a traceback.  Tests that would find
out late (inside a fixture or a subprocess) carry ``@pytest.mark.data("name", ...)`` so
the check runs before them.
"""

import gc
import os
import sys

# Bytecode is written and shared: the suite's Python processes (pytest's workers, and the
# subprocesses, dask workers and process pools some tests start) read the compiled modules and
# pytest's rewritten test modules one of them wrote, instead of each compiling the sources again.
# An environment with PYTHONDONTWRITEBYTECODE set (this machine image has it) would
# otherwise make every one of them recompile weaklabel (about a second a process) and every
# worker rewrite the asserts of all the test modules (about 4 s).  ``__pycache__`` is ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# BLAS and OpenMP on one thread in each test process: pytest-xdist already runs one process per
# core, and two threads per process on two cores only make the processes wait for each other
# (the suite took 1.8 times as long).  The variables hold for the libraries loaded later (this
# module imports none: scikit-learn loads on a test process's first use) and for the processes
# the tests start; threadpoolctl limits those a plugin may already have loaded.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"

# The garbage collector's youngest generation is collected every 50,000 allocations, not 700.
# numba's compiler allocates millions of short-lived objects (its IR, types and LLVM wrappers):
# with Python's thresholds, compiling a structured, a sketched-Confidit and a float32 CSPA kernel
# in one process ran 16 full collections, each walking everything compiled before it, and took
# 15 % more processor time (36 s against 30 s, four alternated runs each).  Cyclic garbage waits a little longer; nothing
# the tests check depends on when it is collected.
SUITE_GC_THRESHOLDS = (50_000, 20, 10)
gc.set_threshold(*SUITE_GC_THRESHOLDS)

import pytest  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

_ONE_BLAS_THREAD = threadpool_limits(limits=1)

# every figure a test draws is checked (legend holds every series, labels, nothing covered
# or cut off): weaklabel.experiments.render.figure_problems
os.environ["WEAKLABEL_STRICT_FIGURES"] = "1"

_HOW = ("Set WEAKLABEL_DATA to the shared data folder (the one with MANIFEST.md; by default ../shared/data "
        "beside the repository).")


#: the suite's one Dask cluster while it is in use (see ``local_cluster``)
_CLUSTER = {}


@pytest.fixture
def local_cluster():
    """One Dask LocalCluster (two worker processes on loopback, one thread each) shared by the
    tests that need one.  Each start costs its worker processes their imports (scikit-learn,
    numba, weaklabel: some 9 s of processor time), and an idle cluster takes the test
    processes' cores for its heartbeats (a fifth of a core), so the tests that use it run one
    after another (``pytest_collection_modifyitems`` puts them first) and the cluster is closed
    after the last of them (``pytest_runtest_teardown``).  A test that kills a worker waits for
    its nanny to restart it, so the cluster stays whole."""
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
    """Close the shared cluster once the next test does not use it."""
    if "cluster" in _CLUSTER and (nextitem is None or "local_cluster" not in nextitem.fixturenames):
        _close_cluster()


def pytest_sessionfinish(session):
    """Close the shared cluster, then move every live object out of the garbage collector's
    reach: pytest's last cleanup collects garbage five times to surface exceptions raised in
    finalizers, and each pass would walk the whole heap of a test process (numba's compiled
    kernels, scikit-learn, every module), about a second in all.  Objects that become garbage
    after this point are still collected."""
    _close_cluster()
    gc.freeze()


#: modules of long tests, run first (``pytest_collection_modifyitems``)
_LONG = ("tests/experiments/", "tests/cli/", "tests/test_readme.py")


def _native_failure_repr(excinfo):
    return excinfo.getrepr(style="native")


def pytest_collection_modifyitems(items):
    """Expected failures (``xfail``: scikit-learn's checks our estimators fail by design, each
    with its reason) report their traceback in Python's own format.  pytest's default format
    parses the source file of every frame (scikit-learn's ``estimator_checks.py`` is some 5,000
    lines) to show the statements: about half a second an expected failure, some 40 s of the
    suite's processor time for 98 reports read only with ``-rx``.  Real failures keep
    pytest's format.

    The tests on the shared Dask cluster (``local_cluster``) come first, in their order, so
    that they run one after another in one test process (pytest-xdist hands each process a
    run of consecutive tests to start with) and share one cluster start.  Then the modules of
    long tests (reproduction slices, the command line's runs, the pages' examples), so that
    the suite ends on short tests and neither test process waits long for the other."""
    def rank(item):
        if "local_cluster" in item.fixturenames:
            return 0
        return 1 if item.nodeid.startswith(_LONG) else 2

    items.sort(key=rank)               # stable: each group keeps its order
    for item in items:
        if item.get_closest_marker("xfail") is not None:
            item.repr_failure = _native_failure_repr


def pytest_collection_finish(session):
    """Once the tests are collected, every module, class and function the suite imported stays
    alive to its end: ``gc.freeze()`` moves them out of the garbage collector's generations, so
    that its full collections during the tests walk only what the tests allocate."""
    gc.freeze()


def _datasets():
    """weaklabel.datasets, imported when a test process first needs it: pytest-xdist's
    controller, which runs no test, then starts its test processes without first importing
    scikit-learn (about 3 s)."""
    from weaklabel import datasets

    return datasets


def pytest_runtest_setup(item):
    for mark in item.iter_markers("data"):
        datasets = _datasets()
        missing = [name for name in mark.args if not datasets.available(name)]
        if missing:
            pytest.fail(f"shared data missing: {', '.join(missing)} not found in {datasets.data_dir()}. {_HOW}",
                        pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(_datasets().DataNotFoundError):
        report.longrepr = f"shared data missing: {call.excinfo.value}"
