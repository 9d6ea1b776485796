"""The reproductions' data preparation (experiments/_data.py): unit-norm rows, and the splits
and folds of the real candidate-label sets."""

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel.experiments import _data


def test_unit_norm_scales_rows_and_leaves_zero_rows_dense_or_sparse():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]])
    U = _data.unit_norm(X)
    np.testing.assert_allclose(U, [[0.6, 0.8], [0.0, 0.0], [1.0, 0.0]])
    Us = _data.unit_norm(sp.csr_matrix(X))
    assert sp.issparse(Us)
    np.testing.assert_allclose(Us.toarray(), U)


@pytest.mark.data("lost")
def test_a_split_and_a_fold_partition_the_rows_and_choose_inside_the_training_part():
    X, y, S, train, test, val, fit_part = _data.pll_split("lost", 3)
    assert np.intersect1d(train, test).size == 0 and np.union1d(train, test).size == y.size
    assert set(val) | set(fit_part) == set(train) and not set(val) & set(fit_part)
    assert abs(test.size - 0.2 * y.size) <= 1
    np.testing.assert_allclose(X[train].mean(axis=0), 0, atol=1e-8)        # standardised on the training part
    again = _data.pll_split("lost", 3)
    np.testing.assert_array_equal(again[4], test)
    tests = [_data.pll_fold("lost", k)[4] for k in range(10)]
    assert np.sort(np.concatenate(tests)).tolist() == list(range(y.size))  # every row tested once
    X, y, S, train, test, val, fit_part = _data.pll_fold("lost", 2)
    assert np.intersect1d(train, test).size == 0 and set(val) | set(fit_part) == set(train)
