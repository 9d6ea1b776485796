"""EndModel: every target, label-free selection inside GridSearchCV, bad votes."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from weaklabel.noisy import CorrectedLogistic
from weaklabel.partial import PRODEN
from weaklabel.sources import DawidSkene, EndModel, MajorityVote


def _data(seed=0, n=800):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 6)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    cols = []
    for acc, cov in ((0.9, 0.4), (0.8, 0.5), (0.7, 0.6), (0.65, 0.5)):
        cols.append(np.where(rng.rand(n) < cov, np.where(rng.rand(n) < acc, y, 1 - y), -1))
    return X, np.column_stack(cols), y


@pytest.mark.parametrize("target, estimator", [
    ("weighted", None), ("label", LogisticRegression()), ("proba", CorrectedLogistic()),
    ("noise-aware", CorrectedLogistic()), ("candidates", PRODEN()),
])
def test_every_target_learns_beyond_the_votes(target, estimator):
    X, L, y = _data()
    model = EndModel(estimator=estimator, target=target).fit(X[:600], L[:600])
    acc = np.mean(model.predict(X[600:]) == y[600:])
    assert acc > 0.85, acc
    assert model.predict_proba(X[600:]).shape == (200, 2)
    if target == "noise-aware":
        np.testing.assert_allclose(model.confusion_.sum(axis=0), 1.0)
        assert (np.diag(model.confusion_) > 0.7).all()


def test_weighted_target_equals_the_expanded_rows_by_hand():
    X, L, y = _data(1, 300)
    lm = MajorityVote().fit(L)
    cov = (L >= 0).any(axis=1)
    T = lm.predict_proba(L)[cov]
    r, c = np.nonzero(T > 0)
    by_hand = LogisticRegression(max_iter=1000).fit(X[cov][r], c, sample_weight=T[r, c])
    model = EndModel(label_model=MajorityVote()).fit(X, L)
    np.testing.assert_allclose(model.predict_proba(X), by_hand.predict_proba(X), atol=1e-8)


def test_label_free_selection_in_grid_search():
    X, L, y = _data(2)
    search = GridSearchCV(EndModel(label_model=DawidSkene()), {"estimator": [LogisticRegression(C=c) for c in
                                                                             (1e-4, 1.0)]}, cv=3)
    search.fit(X, L)
    assert search.best_params_["estimator"].C == 1.0          # the starved model cannot follow the labels
    assert np.mean(search.predict(X) == y) > 0.85


def test_bad_calls_leave_the_model_unchanged():
    X, L, y = _data(3, 200)
    model = EndModel().fit(X, L)
    before = model.predict_proba(X)
    with pytest.raises(ValueError, match="X has 150 rows but the votes y have 200"):
        model.fit(X[:150], L)
    with pytest.raises(ValueError, match="y \\(the votes\\)"):
        model.fit(X, L + 0.5)
    with pytest.raises(ValueError, match="cover no row"):
        model.fit(X, np.full_like(L, -1))
    with pytest.raises(ValueError, match="confusion"):
        model.set_params(target="noise-aware").fit(X, L)
    np.testing.assert_array_equal(model.predict_proba(X), before)
    model.set_params(target="weighted")
    with pytest.raises(ValueError, match="fitted with 4"):
        model.score(X, L[:, :3])


def test_end_model_trains_on_sparse_tfidf_without_densifying_and_scores_true_labels():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from weaklabel.sources import apply_lfs, keyword

    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 2000)
    pos, neg = ["free", "cash", "win", "offer"], ["meeting", "report", "team", "lunch"]
    texts = [" ".join(rng.choice(pos if c else neg, 2)) + " " + " ".join(f"w{k}" for k in rng.randint(0, 500, 6))
             for c in y]
    L = apply_lfs([keyword(["free", "cash"], 1), keyword(["win"], 1), keyword(["meeting", "team"], 0),
                   keyword(["report"], 0)], texts)
    X = TfidfVectorizer().fit_transform(texts)
    model = EndModel().fit(X, L)                             # CSR in, never densified
    assert model.score(X, y) > 0.95                          # accuracy on the true labels
    assert model.score(X, y) == np.mean(model.predict(X) == y)
    assert 0.9 < model.score(X, L) <= 1.0                     # votes: agreement with the label model
    with pytest.raises(ValueError, match="X has 10 rows but the votes y have 2000"):
        model.fit(X[:10], L)
    assert model.score(X, y) > 0.95                          # the failed fit left it as it was
