import numpy as np
import pytest
from numpy.testing import assert_allclose

from weaklabel.metrics import accuracy, ambiguous_zero_one_loss, progressive_error_curve


def test_ambiguous_loss():
    assert ambiguous_zero_one_loss([[0, 1], [2], [1, 2]], [1, 0, 9]) == pytest.approx(2 / 3)
    assert ambiguous_zero_one_loss([[0, 1], [2]], [0, 2], normalize=False) == 0


def test_progressive_curve_is_running_mean():
    y = np.array([0, 1, 1, 0])
    p = np.array([1, 1, 0, 0])
    assert_allclose(progressive_error_curve(y, p), [1, 0.5, 2 / 3, 0.5])
    assert_allclose(progressive_error_curve(y, p, checkpoints=[2, 4]), [0.5, 0.5])
    with pytest.raises(ValueError, match="checkpoints must lie in 1..4"):
        progressive_error_curve(y, p, checkpoints=[0])
    with pytest.raises(ValueError, match="must match"):
        progressive_error_curve(y, p[:3])
    assert accuracy(y, p) == 0.5
