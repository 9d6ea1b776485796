"""The one module that reaches past numba (_intrinsics.py): LLVM's prefetch hints, which change no
result, and class-major weights on a cache line."""

import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.test_online import LEARNERS, _state, _stream  # noqa: F401
from weaklabel.bandit import Confidit


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_dense_passes_keep_the_weights_class_major_on_a_cache_line_and_learn_the_same_off_it(est):
    """For dense rows the weights are kept in F order (a pass updates their class-major view in
    place) starting on a 64-byte boundary; weights off the boundary (as a pickle or a user
    may leave them) are learnt on an aligned copy, to the same numbers."""
    from weaklabel._intrinsics import ALIGN
    from weaklabel._intrinsics import address as _address

    chunks = _stream(est, np.float64)
    a = pickle.loads(pickle.dumps(est)).partial_fit(*chunks[0], classes=np.arange(4))
    names = [k for k in ("_W", "_W_cur", "_acc", "_A_diag") if k in a.__dict__ and a.__dict__[k].size
             and not (k == "_W" and "_W_cur" in a.__dict__)]
    for k in names:
        assert a.__dict__[k].flags.f_contiguous and _address(a.__dict__[k]) % ALIGN == 0, k
    b = pickle.loads(pickle.dumps(a))
    for k in names:                          # the same values, 16 bytes off the boundary
        v = b.__dict__[k]
        buf = np.empty(v.size + ALIGN // 8)
        skip = (-_address(buf) % ALIGN) // 8 + 2
        off = buf[skip:skip + v.size].reshape(v.shape[1], v.shape[0]).T
        off[...] = v
        b.__dict__[k] = off
        assert _address(off) % ALIGN == 16
    for X, t in chunks[1:]:
        a.partial_fit(X, t)
        b.partial_fit(X, t)
    assert _state(a) == _state(b)


@pytest.mark.parametrize("est", [e for e in LEARNERS if not isinstance(e, Confidit) or e.diagonal], ids=repr)
def test_an_unpickled_model_has_its_class_major_weights_on_a_cache_line(est):
    """pickle keeps the F order, not the address: unpickling puts the class-major arrays back
    on a 64-byte boundary, with the same values (a model sent to a Dask worker streams at
    full speed)."""
    from weaklabel._intrinsics import ALIGN
    from weaklabel._intrinsics import address as _address

    a = pickle.loads(pickle.dumps(est)).partial_fit(*_stream(est, np.float64)[0], classes=np.arange(4))
    for _ in range(3):                          # any of numpy's addresses on the way back
        b = pickle.loads(pickle.dumps(a))
        for k, v in b.__dict__.items():
            if isinstance(v, np.ndarray) and v.ndim == 2 and v.flags.f_contiguous and not v.flags.c_contiguous:
                assert _address(v) % ALIGN == 0, k
                np.testing.assert_array_equal(v, a.__dict__[k])
    assert _state(b) == _state(a)


def test_hardware_hints_live_in_one_module():
    """LLVM intrinsics (llvmlite, numba's ``intrinsic``) appear only in weaklabel._intrinsics,
    where each has a plain fallback; no kernel anywhere else reaches past numba."""
    import re

    src = Path(__file__).resolve().parents[1] / "src" / "weaklabel"
    pattern = re.compile(r"^\s*(from llvmlite|import llvmlite|from numba\.extending import .*\bintrinsic\b)", re.M)
    offenders = [str(f.relative_to(src)) for f in src.rglob("*.py")
                 if f.name != "_intrinsics.py" and pattern.search(f.read_text())]
    assert not offenders, offenders
    assert pattern.search((src / "_intrinsics.py").read_text())


def test_prefetch_hints_change_nothing_compiled_or_as_python():
    """A numba function with the hints returns what the same function returns as Python, where
    the hints are no-ops (numba's ``py_func``)."""
    from numba import njit

    from weaklabel._intrinsics import prefetch, prefetch_row

    def total(X, W):
        s = 0.0
        for i in range(X.shape[0]):
            prefetch_row(X, min(i + 1, X.shape[0] - 1))
            prefetch(W, i % W.shape[0], 0)
            for j in range(X.shape[1]):
                s += X[i, j] * W[i % W.shape[0], j % W.shape[1]]
        return s

    rng = np.random.RandomState(0)
    X, W = rng.randn(50, 37), np.asfortranarray(rng.randn(9, 5))
    W3 = rng.randn(9, 5, 2)
    assert njit(total)(X, W) == total(X, W)
    assert njit(total)(X, W3[:, :, 0].copy()) == total(X, W3[:, :, 0].copy())


def test_aligned_class_major_is_an_equal_f_ordered_copy_on_a_cache_line():
    from weaklabel._intrinsics import ALIGN, address, aligned_class_major

    for shape, dtype in (((7, 3), np.float64), ((1, 1), np.float64), ((64, 10), np.float32)):
        a = np.random.RandomState(1).randn(*shape).astype(dtype)
        b = aligned_class_major(a)
        np.testing.assert_array_equal(a, b)
        assert b.flags.f_contiguous and b.dtype == dtype and address(b) % ALIGN == 0
        assert not np.shares_memory(a, b)
