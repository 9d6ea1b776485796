"""row_scale: the warning for rows far from unit norm, and model files keep the scale."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits

import weaklabel
from weaklabel.bags import MMS, CandidateLabelSVM
from weaklabel.bandit import Confidit, SketchedConfidit
from weaklabel.partial import AvgPegasos, Pegasos


@pytest.mark.parametrize("make", [lambda **k: Pegasos(max_iter=1, **k), lambda **k: Confidit(max_iter=1, **k),
                                  lambda **k: SketchedConfidit(max_iter=1, **k), lambda **k: MMS(max_iter=1, **k),
                                  lambda **k: CandidateLabelSVM(**k)])
def test_a_fixed_row_scale_warns_when_rows_are_far_from_unit_norm(make):
    X, y = load_digits(return_X_y=True)
    X, y = X[:200], y[:200]
    with pytest.warns(weaklabel.DataScaleWarning, match="root mean squared norm of 6"):
        make(row_scale=1.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", weaklabel.DataScaleWarning)
        make().fit(X, y)                                   # "auto": no warning
        make(row_scale=1.0).fit(X / 60, y)                 # about unit norm: none
        est = make(row_scale=60.0).fit(X, y)
    assert est.row_scale_ == 60.0


@pytest.mark.parametrize("cls", [AvgPegasos, Confidit, MMS, CandidateLabelSVM])
def test_model_files_keep_the_row_scale(cls, tmp_path):
    X, y = load_digits(return_X_y=True)
    est = cls(random_state=0).fit(X[:300], y[:300])
    est.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    assert back.row_scale_ == est.row_scale_
    np.testing.assert_array_equal(back.predict(X[300:]), est.predict(X[300:]))


def test_bad_row_scale_is_refused_and_leaves_the_model_as_it_was():
    X, y = load_digits(return_X_y=True)
    est = Pegasos(max_iter=1).fit(X[:100], y[:100])
    coef = est.coef_.copy()
    for bad in (0.0, -1.0, "big", np.inf):
        with pytest.raises((ValueError, TypeError), match="row_scale"):
            est.set_params(row_scale=bad).fit(X[:100], y[:100])
        np.testing.assert_array_equal(est.coef_, coef)
