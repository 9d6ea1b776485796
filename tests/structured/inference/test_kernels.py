"""The MPLP kernel (weaklabel.structured.inference._kernels) against the paper's sweeps in numpy."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st


def numpy_mplp(U, P, edges, msg, max_iter, tol):
    """MPLP as the paper writes it (Globerson & Jaakkola 2007), in numpy: each edge's two
    max-plus products, then the dual bound from all messages after the sweep; sums in the
    kernel's order (nodes, then edges), so the kernel must agree to the bit."""
    n, K = U.shape
    b = U.copy()
    for e, (u, v) in enumerate(edges):
        b[u] += msg[e, 0]
        b[v] += msg[e, 1]
    prev, out = np.inf, np.zeros(n, dtype=np.int64)
    for it in range(max_iter):
        for e, (u, v) in enumerate(edges):
            a, c = b[u] - msg[e, 0], b[v] - msg[e, 1]
            msg[e, 0] = -0.5 * a + 0.5 * (P[e] + c[None, :]).max(axis=1)
            msg[e, 1] = -0.5 * c + 0.5 * (P[e] + a[:, None]).max(axis=0)
            b[u], b[v] = a + msg[e, 0], c + msg[e, 1]
        bound = 0.0
        for i in range(n):
            bound += b[i].max()
        for e in range(len(edges)):
            bound += ((P[e] + (-msg[e, 0])[:, None]) + (-msg[e, 1])[None, :]).max()
        out = np.argmax(b, axis=1)
        en = 0.0
        for i in range(n):
            en += U[i, out[i]]
        for e, (u, v) in enumerate(edges):
            en += P[e, out[u], out[v]]
        scale = 1.0 + abs(bound)
        if bound - en <= 1e-9 * scale or prev - bound < tol * scale:
            return bound, en, it + 1, out
        prev = bound
    return bound, en, max_iter, out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_mplp_kernel_equals_the_numpy_sweeps_to_the_bit(seed):
    """The kernel's messages, bound, energy, sweeps and labels are the numpy sweeps' exactly,
    from cold and warm starts."""
    from weaklabel.structured.inference._kernels import _mplp

    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(2, 7)), int(rng.integers(2, 5))
    E = np.array([[i, j] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6], dtype=np.int64)
    E = E.reshape(-1, 2)
    U = rng.normal(size=(n, K))
    P = rng.normal(scale=rng.choice([0.3, 2.0]), size=(len(E), K, K))
    P[rng.random(P.shape) < 0.1] -= 50.0                   # near-forbidden pairs, as learned rules
    msg0 = rng.normal(scale=0.1, size=(len(E), 2, K)) * rng.integers(0, 2)    # cold or warm start
    max_iter = int(rng.integers(1, 40))
    m_ref, m_ker = msg0.copy(), msg0.copy()
    ref = numpy_mplp(U, P, E, m_ref, max_iter, 1e-9)
    out = np.zeros(n, dtype=np.int64)
    for a in (U, P, E):                # read-only, as lp_map passes them (numba's one compiled form)
        a.setflags(write=False)
    bound, en, sweeps = _mplp(U, P, E, m_ker, max_iter, 1e-9, out)
    np.testing.assert_array_equal(m_ker, m_ref)
    assert (bound, en, sweeps) == ref[:3]
    np.testing.assert_array_equal(out, ref[3])
