"""source_summary against counts made by hand, and its warnings."""

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel.sources import DawidSkene, MajorityVote, PrecisionVote, source_summary


def _by_loops(L, y):
    n, m = L.shape
    out = {k: np.zeros(m) for k in ("n", "overlap", "conflict", "right", "known")}
    for j in range(m):
        for i in range(n):
            if L[i, j] < 0:
                continue
            others = [L[i, k] for k in range(m) if k != j and L[i, k] >= 0]
            out["n"][j] += 1
            out["overlap"][j] += bool(others)
            out["conflict"][j] += any(o != L[i, j] for o in others)
            if y[i] >= 0:
                out["known"][j] += 1
                out["right"][j] += L[i, j] == y[i]
    return out


def test_counts_equal_loops_over_rows_and_sources():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 3, 300)
    L = np.where(rng.rand(300, 6) < 0.7, y[:, None], rng.randint(0, 3, (300, 6)))
    L[rng.rand(300, 6) < 0.6] = -1
    L[:, 5] = np.where(L[:, 5] == 2, 2, -1)                  # one-sided
    gold = np.where(rng.rand(300) < 0.3, y, -1)
    s = source_summary(L, y=gold, warn=False)
    ref = _by_loops(L, gold)
    np.testing.assert_array_equal(s.n_votes, ref["n"])
    np.testing.assert_allclose(s.overlap, ref["overlap"] / ref["n"])
    np.testing.assert_allclose(s.conflict, ref["conflict"] / ref["n"])
    np.testing.assert_allclose(s.accuracy_gold, ref["right"] / ref["known"])
    np.testing.assert_allclose(s.coverage, ref["n"] / 300)
    assert s.polarity[5] == (2,) and s.polarity[0] == (0, 1, 2)
    # the same from sparse votes
    S = sp.csr_matrix(np.where(L >= 0, L + 1, 0))
    np.testing.assert_allclose(source_summary(S, y=gold, n_classes=3, warn=False).conflict, s.conflict)


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote])
def test_believed_accuracy_is_the_mean_posterior_of_the_class_voted(make):
    rng = np.random.RandomState(1)
    y = rng.randint(0, 2, 500)
    L = np.where(rng.rand(500, 4) < [0.9, 0.8, 0.7, 0.6], y[:, None], 1 - y[:, None])
    model = make().fit(L)
    s = source_summary(L, model=model, warn=False)
    T = model.predict_proba(L)
    expected = [T[np.arange(500), L[:, j]].mean() for j in range(4)]
    np.testing.assert_allclose(s.accuracy_model, expected)
    assert (s.accuracy_low <= s.accuracy_model).all() and (s.accuracy_model <= s.accuracy_high).all()
    assert "accuracy_model" in s.to_dict() and "rows without a vote" in str(s)


def test_warnings_name_what_to_do():
    rng = np.random.RandomState(2)
    y = rng.randint(0, 2, 400)
    L = np.c_[np.where(rng.rand(400) < 0.9, y, 1 - y), np.where(y == 1, 1, -1)]
    with pytest.warns(UserWarning, match="1 of 2 sources are one-sided.*PrecisionVote"):
        source_summary(L, model=DawidSkene(abstain="ignore").fit(L))
    sparse = np.full((400, 2), -1)
    sparse[:100] = L[:100]
    with pytest.warns(UserWarning, match="75% of the rows have no vote"):
        source_summary(sparse)
    with pytest.raises(ValueError, match="4 sources .*fitted with 2"):
        source_summary(np.c_[L, L], model=MajorityVote().fit(L))
