"""The kernel's Python source (numba's py_func) gives what the compiled kernel gives,
so coverage tools that cannot see inside numba still exercise the kernel's logic."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from weaklabel.linear import kernel_rows
from weaklabel.partial._kernels import RULE_AVG, RULE_MAX, RULE_MISTAKE, _candidate_epoch


@pytest.mark.parametrize("rule,pegasos", [(RULE_AVG, False), (RULE_MAX, False), (RULE_MISTAKE, False),
                                          (RULE_AVG, True), (RULE_MAX, True)])
@pytest.mark.parametrize("dense,class_major", [(True, False), (True, True), (False, False)])
@pytest.mark.parametrize("weighted", [False, True])
def test_python_source_equals_compiled(rule, pegasos, dense, class_major, weighted):
    rng = np.random.default_rng(7)
    n, d, k = 40, 6, 4
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    X[5] = 0.0
    y = rng.integers(0, k, n)
    S = rng.random((n, k)) < (0.0 if rule == RULE_MISTAKE else 0.4)
    S[np.arange(n), y] = True
    S[9] = True
    S.flags.writeable = False            # the rows a plain tuple, S read-only: as the learners hand them over
    Xc = sp.csr_matrix(X)
    order = rng.permutation(n)
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], size=n) if weighted else np.empty(0)
    outs = []
    for fn in (_candidate_epoch, _candidate_epoch.py_func):
        W = np.zeros((d, k), order="F" if class_major else "C")
        preds = np.empty(n, dtype=np.intp)
        rows = tuple(kernel_rows(X if dense else Xc))
        res = fn((W.T if class_major else W, class_major), (1.0, 0.0, 1.0), rows, S, order,
                 (rule, pegasos, 0.5, 0.05), preds, sw)
        outs.append((W * res[0], preds, res))
    assert_allclose(outs[0][0], outs[1][0], atol=1e-12)
    assert_array_equal(outs[0][1], outs[1][1])
    assert outs[0][2][2:] == outs[1][2][2:]


@pytest.mark.parametrize("shape", [(1, 2), (7, 3), (257, 10), (40, 13)])
@pytest.mark.parametrize("scale", [1.0, 0.5, 1e-90, 0.0, 3.0])
def test_folded_squared_norm_equals_numpy_scaling_then_the_norm(shape, scale):
    """Pegasos' end of a call, one kernel: the weights come out as numpy's ``W *= scale``
    leaves them (bit for bit, in either layout) and the number is ``_squared_norm`` of them."""
    from weaklabel.partial._kernels import _folded_squared_norm, _squared_norm

    rng = np.random.default_rng(sum(shape))
    W = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    expected = W.copy()
    expected *= scale
    C, F = W.copy(), np.asfortranarray(W)
    assert _folded_squared_norm(C, False, scale) == _squared_norm(expected, False)
    assert _folded_squared_norm(F.T, True, scale) == _squared_norm(expected, False)
    assert_array_equal(C, expected)
    assert_array_equal(F, expected)
    assert F.flags.f_contiguous
