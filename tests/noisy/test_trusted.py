"""TrustedKFold (noisy/_trusted.py): folds that hold out only trusted rows, for choosing a weight
by cross-validation on them."""

import numpy as np
import pytest

from weaklabel.noisy import CorrectedLogistic
from weaklabel.simulate import confusion_family, noisy_labels


def test_trusted_kfold_holds_out_only_trusted_rows():
    from weaklabel.noisy import TrustedKFold

    mask = np.zeros(50, dtype=bool)
    mask[5:25] = True
    y = np.repeat([0, 1], 25)
    seen = []
    for train, test in TrustedKFold(mask, 4, random_state=0).split(np.zeros((50, 2)), y):
        assert mask[test].all() and test.size == 5
        assert np.array_equal(np.union1d(train, test), np.arange(50)) and not np.intersect1d(train, test).size
        seen.append(test)
    assert np.array_equal(np.sort(np.concatenate(seen)), np.arange(5, 25))
    # row indices work as the mask does
    by_index = [t.tolist() for _, t in TrustedKFold(np.arange(5, 25), 4, random_state=0).split(np.zeros((50, 2)), y)]
    assert by_index == [t.tolist() for t in seen]
    with pytest.raises(ValueError, match="at least n_splits=4 trusted rows"):
        next(TrustedKFold(np.array([1, 2]), 4).split(np.zeros((50, 2))))
    with pytest.raises(ValueError, match="50 rows"):
        next(TrustedKFold(np.ones(10, dtype=bool)).split(np.zeros((50, 2))))
    with pytest.raises(ValueError, match="n_splits"):
        TrustedKFold(mask, 1)


def test_grid_search_over_trusted_weight_with_trusted_kfold(digits):
    """GridSearchCV with TrustedKFold slices `trusted` per split and scores on clean rows."""
    from sklearn.model_selection import GridSearchCV

    from weaklabel.noisy import TrustedKFold

    X, y = digits
    rng = np.random.RandomState(0)
    X, y = X[:600], y[:600]
    C = confusion_family(10, 4, random_state=0)
    yn = noisy_labels(y, C, random_state=1)
    mask = rng.rand(600) < 0.1
    yn[mask] = y[mask]
    search = GridSearchCV(CorrectedLogistic(confusion=C, alpha=1e-2), {"trusted_weight": [1.0, "balanced"]},
                          cv=TrustedKFold(mask, 3, random_state=0)).fit(X, yn, trusted=mask)
    assert search.best_params_["trusted_weight"] in (1.0, "balanced")
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
