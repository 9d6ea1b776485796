"""The one place where a kernel talks to the hardware directly: LLVM's prefetch hint.

Kept where a benchmark shows it pays: the sketch kernels of :class:`~weaklabel.bandit.SketchedConfidit`
visit a class's features scattered over a large array (two cache lines a feature, each a
miss), and a hint 12 features ahead took a sector pass from 1.04 s to 0.74 s (the performance
page).  The dense passes' hint for the next row paid 0.89x to 1.34x, mostly under 15 %, and
was dropped.

A hint changes no value.  Its plain fallback is the Python function itself, which does
nothing: ``NUMBA_DISABLE_JIT=1`` runs every kernel with it, and
``tests/test_numba_python_mode.py`` checks that the kernels compute there exactly what the
compiled ones (with the hint) compute.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = ["prefetch"]


def prefetch(arr, i, j):
    """A hint that ``arr[i, j]`` (2-D) or ``arr[i, j, 0]`` (3-D) will soon be read and written.

    Compiled, LLVM's ``prefetch`` (write, keep in all cache levels); as Python, nothing.
    """


@intrinsic
def _llvm_prefetch(typingctx, arr, i, j):
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
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
        # (address, write = 1, locality = 3: keep in every cache level, data cache = 1)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@overload(prefetch)
def _prefetch_compiled(arr, i, j):
    return lambda arr, i, j: _llvm_prefetch(arr, i, j)
