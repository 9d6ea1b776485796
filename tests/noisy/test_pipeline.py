import numpy as np
import pytest
from numpy.testing import assert_allclose

from weaklabel.noisy import LabelALittle, estimate_confusion


def test_estimate_confusion_counts_columns():
    C = estimate_confusion([0, 0, 0, 1, 2, 2], [0, 1, 1, 1, 2, 0], classes=[0, 1, 2])
    assert_allclose(C, [[1 / 3, 0, 0.5], [2 / 3, 1, 0], [0, 0, 0.5]])
    assert_allclose(C.sum(axis=0), 1.0)


def test_estimate_confusion_errors_say_what_to_label():
    with pytest.raises(ValueError, match=r"no example of classes \[2\]"):
        estimate_confusion([0, 1, 1], [0, 1, 1], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"singular.*never predicts classes \[2\].*more"):
        estimate_confusion([0, 1, 2, 2], [0, 1, 1, 1], classes=[0, 1, 2])


def _clusters(n=600, Q=4, seed=0):
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(Q) / Q
    y = rng.integers(0, Q, n)
    X = np.c_[np.cos(ang), np.sin(ang)][y] * 3 + rng.standard_normal((n, 2))
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # overlapping clusters
def test_label_a_little_learns_from_few_labels():
    X, y = _clusters()
    rng = np.random.default_rng(1)
    y_partial = np.where(rng.random(y.size) < 0.15, y, -1)
    clf = LabelALittle(m=5, max_iter=300, random_state=0).fit(X, y_partial)
    assert clf.score(X, y) > 0.85
    assert clf.confusion_.shape == (4, 4)
    assert_allclose(clf.confusion_.sum(axis=0), 1.0)
    assert (clf.noisy_labels_[y_partial != -1] == y[y_partial != -1]).all()
    assert clf.coef_.shape == (4, 2)


def test_label_a_little_errors():
    X, y = _clusters(n=100)
    with pytest.raises(ValueError, match="no labelled row"):
        LabelALittle().fit(X, np.full(100, -1))
    y_partial = np.full(100, -1)
    y_partial[:8] = y[:8]
    with pytest.raises(ValueError, match=r"labelled rows; m=10 are needed.*label at least"):
        LabelALittle(m=10).fit(X, y_partial)


def test_label_a_little_weights_reach_the_final_uma():
    import numpy as np
    import pytest

    from weaklabel.noisy import LabelALittle

    rng = np.random.default_rng(0)
    angles = np.repeat([0.0, 2.1, 4.2], 100)
    X = rng.standard_normal((300, 2)) + 6 * np.c_[np.cos(angles), np.sin(angles)]
    y = np.repeat([0, 1, 2], 100)
    yp = np.where(rng.random(300) < 0.3, y, -1)
    w = rng.integers(1, 4, 300).astype(float)
    a = LabelALittle(m=5, max_iter=200, random_state=0).fit(X, yp, sample_weight=w)
    b = LabelALittle(m=5, max_iter=200, random_state=0).fit(X, yp)
    np.testing.assert_array_equal(a.noisy_labels_, b.noisy_labels_)       # steps 1-4 unweighted
    ref = type(a.uma_)(**a.uma_.get_params()).fit(X, a.noisy_labels_, sample_weight=w)
    np.testing.assert_array_equal(a.coef_, ref.coef_)
    before = a.coef_.copy()
    with pytest.raises(ValueError, match="[Nn]egative"):
        a.fit(X, yp, sample_weight=-w)
    np.testing.assert_array_equal(a.coef_, before)
