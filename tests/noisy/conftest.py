"""Fixtures of the noisy-label tests."""

import pytest
from sklearn.datasets import load_digits


@pytest.fixture(scope="module")
def digits():
    """scikit-learn's digits, scaled to [0, 1]: ``(X, y)``."""
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y
