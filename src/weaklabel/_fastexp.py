"""A vectorisable exponential for the softmax kernels.

numpy's float64 ``exp`` is vectorised only on processors with AVX-512; elsewhere (AVX2
machines, the common CPU) it calls the scalar libm ``exp`` element by element, and a
numba loop calling ``np.exp`` does the same.  A softmax over many classes spends most of
its time there.  :func:`exp_nonpositive` takes the exponential of non-positive numbers
(scores shifted by their row's maximum) with no call in the loop: ``x = k ln 2 + r``
with ``|r| <= ln 2 / 2`` (Cody & Waite's two-part ``ln 2``), ``exp(r)`` by its Taylor
polynomial of degree 13 (truncation error below ``4e-18``), and ``2^k`` added to the
exponent bits, in two loops the compiler vectorises.  Within 2 units in the last place of
libm's ``exp`` on ``[-700, 0]``.
"""

import math

import numpy as np
from numba import njit

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01        # ln 2 to 32 bits: k * _LN2_HI is exact for |k| < 2^20
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0                  # 1.5 * 2^52: x + _ROUND - _ROUND rounds x to an integer
_FLOOR = -700.0                              # exp(-700) = 9.9e-305: still a normal number
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (1.0 / math.factorial(k) for k in range(2, 14))


@njit(cache=True, nogil=True, fastmath={"contract"})
def exp_nonpositive(x, out):
    """``out = exp(x)`` for a 1-D float64 ``x`` of values ``<= 0`` (``out`` may be ``x``).

    Values below -700 give ``exp(-700)`` (about ``1e-304``) instead of a smaller number or
    0, which a sum of exponentials that holds ``exp(0) = 1`` does not see; NaN stays NaN.
    Only ``contract`` is allowed of fast-math (multiply-adds fused): the rounding trick
    must not be reassociated away.
    """
    n = x.shape[0]
    # the polynomial and the rounded exponent go to scratch arrays first: read from x and
    # written to out in one loop, the compiler must assume they overlap (they do when out is
    # x) and would not vectorise it
    p_all = np.empty(n)
    y = np.empty(n)
    for i in range(n):
        v = x[i]
        v = _FLOOR if v < _FLOOR else v
        t = v * _LOG2E + _ROUND
        t = _ROUND if t != t else t                  # NaN: k = 0, so the NaN below survives
        k = t - _ROUND
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = _C13
        p = p * r + _C12
        p = p * r + _C11
        p = p * r + _C10
        p = p * r + _C9
        p = p * r + _C8
        p = p * r + _C7
        p = p * r + _C6
        p = p * r + _C5
        p = p * r + _C4
        p = p * r + _C3
        p = p * r + _C2
        p = p * r + 1.0
        p_all[i] = p * r + 1.0
        y[i] = t
    # t's low bits hold k (two's complement): shifted by 52 they are k's exponent increment,
    # the bits of 1.5 * 2^52 shifting out of the 64
    bits, pbits, kbits = out.view(np.int64), p_all.view(np.int64), y.view(np.int64)
    for i in range(n):
        bits[i] = pbits[i] + (kbits[i] << 52)
