"""The one place where the kernels talk to the hardware directly: prefetch hints and the
cache-line alignment of class-major weights.

Each is kept because a side-by-side benchmark shows it pays more than 15 % (USPS, one
``fit`` pass, BLAS on one thread, the performance page):

- :data:`ALIGN` / :func:`aligned_class_major`: class-major weights start on a 64-byte
  boundary.  numpy aligns to 16 bytes; off a cache line, each vector load of a class's row
  straddles two lines, and a dense bandit pass took 1.3-1.5x as long;
- :func:`prefetch_row`: a dense pass asks for the next row it visits before it works on the
  present one (1.1-1.2x on the bandit passes);
- :func:`prefetch`: SketchedConfidit's kernels visit a class's features scattered over a large
  array, two cache lines a feature; a hint 12 features ahead took a sector pass from 1.04 s
  to 0.74 s.

A hint changes no value.  Its plain fallback is the Python function itself, which does
nothing: ``NUMBA_DISABLE_JIT=1`` runs every kernel with it, and
``tests/test_numba_python_mode.py`` checks that the kernels compute there exactly what the
compiled ones (with the hints) compute.  Alignment changes no value either: a pass handed
weights off the boundary works on an aligned copy (``tests/test_online.py`` compares).
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = ["ALIGN", "aligned_class_major", "address", "prefetch", "prefetch_row"]

#: the byte boundary a pass wants class-major weights on (a cache line; AVX-512's width)
ALIGN = 64


@njit(cache=True, nogil=True)
def address(a):
    """The address of ``a``'s first element (numpy's ``a.ctypes.data`` builds a ctypes object,
    about 0.9 us; this, about 0.15 us)."""
    return a.ctypes.data


def aligned_class_major(a):
    """A copy of the 2-D float array ``a`` in F order whose data starts on an :data:`ALIGN`-byte
    boundary (numpy aligns to 16 bytes: a slice of a slightly larger buffer)."""
    n, item = a.size, a.dtype.itemsize
    buf = np.empty(n + ALIGN // item, dtype=a.dtype)
    skip = (-address(buf) % ALIGN) // item
    cm = buf[skip:skip + n].reshape(a.shape[1], a.shape[0])
    cm[...] = a.T
    return cm.T


def _llvm_prefetch(write):
    """LLVM's ``prefetch`` of ``arr[i, j]`` (2-D) or ``arr[i, j, 0]`` (3-D), for reading or writing
    (keep in every cache level, data cache)."""
    def prefetch(typingctx, arr, i, j):
        if not isinstance(arr, types.Array) or arr.ndim not in (2, 3):
            return None
        sig = types.void(arr, i, j)

        def codegen(context, builder, signature, args):
            aty = signature.args[0]
            ary = context.make_array(aty)(context, builder, args[0])
            idx = [context.cast(builder, args[1], signature.args[1], types.intp),
                   context.cast(builder, args[2], signature.args[2], types.intp)]
            if aty.ndim == 3:
                idx.append(context.get_constant(types.intp, 0))
            ptr = cgutils.get_item_pointer(context, builder, aty, ary, idx, wraparound=False)
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p],
                                                  ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, int(write)), ir.Constant(i32, 3),
                              ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen
    return intrinsic(prefetch)


_prefetch_write = _llvm_prefetch(True)
_prefetch_read = _llvm_prefetch(False)


def prefetch(arr, i, j):
    """A hint that ``arr[i, j]`` (2-D) or ``arr[i, j, 0]`` (3-D) will soon be read and written.

    Compiled, LLVM's ``prefetch`` (write, keep in all cache levels); as Python, nothing.
    """


@overload(prefetch)
def _prefetch_compiled(arr, i, j):
    return lambda arr, i, j: _prefetch_write(arr, i, j)


def _prefetch_line(X, i, j):
    """A hint that ``X[i, j]`` will soon be read; as Python, nothing."""


@overload(_prefetch_line)
def _prefetch_line_compiled(X, i, j):
    return lambda X, i, j: _prefetch_read(X, i, j)


@njit(cache=True, nogil=True)
def prefetch_row(X, i):
    """A hint that dense row ``X[i]`` (2-D, C-contiguous) will soon be read: one prefetch of each
    64-byte line of it (a function of its own, not inlined into the passes by numba)."""
    step = 64 // X.itemsize
    for j in range(0, X.shape[1], step):
        _prefetch_line(X, i, j)
