"""The suite's own settings (tests/conftest.py) hold in every test process."""


def test_blas_and_openmp_run_on_one_thread_in_a_test_process():
    """pytest-xdist runs one test process per core: a second BLAS or OpenMP thread per process
    would only make them wait for each other.  The limit must also hold for the libraries loaded
    after the conftest ran (scikit-learn's, scipy's), which threadpoolctl alone does not reach."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    import sklearn.cluster  # noqa: F401  (loads scikit-learn's OpenMP runtime)
    from threadpoolctl import threadpool_info

    pools = threadpool_info()
    assert pools and all(p["num_threads"] == 1 for p in pools), pools
