"""PLKNN (partial/_knn.py): the numpy vote it equals, exact matches and bad input, partial_fit."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from weaklabel.partial import PLKNN
from weaklabel.simulate import make_candidate_sets


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def _reference_knn(Xtr, S, Xq, k, weights):
    out = []
    for x in Xq:
        d = np.sqrt(((Xtr - x) ** 2).sum(axis=1))
        nn = np.argsort(d, kind="stable")[:k]
        w = np.ones(k) if weights == "uniform" else 1.0 / d[nn]
        votes = (w[:, None] * S[nn]).sum(axis=0) + 1e-9 * S[nn[0]]
        out.append(np.argmax(votes))
    return np.array(out)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_plknn_equals_the_numpy_vote(digits, weights):
    X, y = digits
    S = np.asarray(make_candidate_sets(y, 3, random_state=0))
    est = PLKNN(n_neighbors=7, weights=weights).fit(X[:500], S[:500])
    ref = _reference_knn(X[:500], S[:500], X[500:700], 7, weights)
    assert np.mean(est.predict(X[500:700]) == ref) > 0.99       # distance ties may order neighbours differently
    assert est.score(X[500:], y[500:]) > 0.9
    np.testing.assert_array_equal(PLKNN(n_neighbors=7, weights=weights).fit(sp.csr_matrix(X[:500]), S[:500]).predict(X[500:600]),
                                  est.predict(X[500:600]))


def test_plknn_exact_match_and_bad_input(digits):
    X, y = digits
    S = make_candidate_sets(y[:100], 2, random_state=0)
    est = PLKNN(n_neighbors=5).fit(X[:100], S)
    proba = est.predict_proba(X[:3])               # a training row votes alone for its own set
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all((proba > 0.4) == np.asarray(S[:3]))
    before = est.n_samples_fit_
    mask = np.asarray(S).copy()
    mask[0] = False
    with pytest.raises(ValueError, match="empty candidate sets"):
        est.fit(X[:50], mask[:50])
    assert est.n_samples_fit_ == before and est.predict(X[:3]).shape == (3,)


def test_plknn_partial_fit_equals_fit_on_every_row_so_far():

    from weaklabel.simulate import make_candidate_sets

    X, y = load_digits(return_X_y=True)
    S = make_candidate_sets(y, 2, random_state=0)
    whole = PLKNN(n_neighbors=5).fit(X[:600], S[:600])
    parts = PLKNN(n_neighbors=5)
    for lo in range(0, 600, 150):
        parts.partial_fit(X[lo:lo + 150], S[lo:lo + 150], classes=np.arange(10))
    assert parts.n_samples_fit_ == 600
    np.testing.assert_array_equal(parts.predict_proba(X[600:800]), whole.predict_proba(X[600:800]))
    sparse = PLKNN(n_neighbors=5).partial_fit(sp.csr_matrix(X[:300]), S[:300], classes=np.arange(10))
    sparse.partial_fit(X[300:600], S[300:600])                       # dense rows join sparse ones
    np.testing.assert_array_equal(sparse.predict(X[600:800]), whole.predict(X[600:800]))
    with pytest.raises(ValueError, match="classes must be passed"):
        PLKNN().partial_fit(X[:10], y[:10])
    before = parts.n_samples_fit_
    with pytest.raises(ValueError):
        parts.partial_fit(X[:10, :5], S[:10])                       # another width: refused, nothing added
    with pytest.raises(ValueError, match="differs"):
        parts.partial_fit(X[:10], S[:10], classes=np.arange(5))
    assert parts.n_samples_fit_ == before
