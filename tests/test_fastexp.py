"""The vectorised exponential of the softmax kernels against numpy's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from weaklabel._fastexp import exp_nonpositive


@settings(max_examples=60, deadline=None)
@given(x=arrays(np.float64, st.integers(0, 300), elements=st.floats(-700.0, 0.0)))
def test_equals_numpy_within_two_units_in_the_last_place(x):
    out = np.empty_like(x)
    exp_nonpositive(x, out)
    ref = np.exp(x)
    assert np.all(np.abs(out - ref) <= 2 * np.spacing(ref))


def test_a_dense_sweep_in_place_and_the_edges():
    x = np.concatenate([np.linspace(-700.0, 0.0, 200_001), -np.log(2) / 2 + np.array([-1e-12, 0.0, 1e-12]),
                        [-0.0, -1e-300, -5e-324]])
    ref = np.exp(x)
    exp_nonpositive(x, x)                                  # in place, as the softmax calls it
    assert np.all(np.abs(x - ref) <= 2 * np.spacing(ref))
    assert x[-3:].tolist() == [1.0, 1.0, 1.0]
    low = np.array([-700.5, -745.2, -1e300, -np.inf, np.nan])
    exp_nonpositive(low, low)
    assert np.all(low[:4] == np.exp(-700.0)) and np.isnan(low[4])   # floored at exp(-700); NaN stays
