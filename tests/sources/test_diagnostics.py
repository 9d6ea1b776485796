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
    s = source_summary(L, y=gold, warn=False, as_frame=False)
    ref = _by_loops(L, gold)
    np.testing.assert_array_equal(s["n_votes"], ref["n"])
    np.testing.assert_allclose(s["overlap"], ref["overlap"] / ref["n"])
    np.testing.assert_allclose(s["conflict"], ref["conflict"] / ref["n"])
    np.testing.assert_allclose(s["accuracy_gold"], ref["right"] / ref["known"])
    np.testing.assert_allclose(s["coverage"], ref["n"] / 300)
    assert s["polarity"][5] == "2" and s["polarity"][0] == "0 1 2"
    # the same from sparse votes
    S = sp.csr_matrix(np.where(L >= 0, L + 1, 0))
    np.testing.assert_allclose(source_summary(S, y=gold, n_classes=3, warn=False, as_frame=False)["conflict"],
                               s["conflict"])


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote])
def test_believed_accuracy_is_the_mean_posterior_of_the_class_voted(make):
    rng = np.random.RandomState(1)
    y = rng.randint(0, 2, 500)
    L = np.where(rng.rand(500, 4) < [0.9, 0.8, 0.7, 0.6], y[:, None], 1 - y[:, None])
    model = make().fit(L)
    s = source_summary(L, model=model, warn=False, as_frame=False)
    T = model.predict_proba(L)
    expected = [T[np.arange(500), L[:, j]].mean() for j in range(4)]
    np.testing.assert_allclose(s["accuracy_model"], expected)
    # held out: the posterior the other three votes give each vote, by loops
    held = []
    for j in range(4):
        others = L.copy()
        others[:, j] = -1
        held.append(model.predict_proba(others)[np.arange(500), L[:, j]].mean())
    np.testing.assert_allclose(s["accuracy_held_out"], held)
    lo, hi = np.minimum(s["accuracy_model"], held), np.maximum(s["accuracy_model"], held)
    assert (s["accuracy_low"] <= lo).all() and (hi <= s["accuracy_high"]).all()


def test_the_interval_covers_a_source_that_confirms_itself():
    """A heavily weighted source dominates the posterior of its own rows: its own-vote belief
    is near 1 whatever its accuracy; from the other votes it is not, and the interval holds
    its true accuracy."""
    rng = np.random.RandomState(4)
    n = 3000
    y = rng.randint(0, 2, n)
    noisy = np.where(rng.rand(n) < 0.55, y, 1 - y)                 # right 55 % of the time
    good = [np.where(rng.rand(n) < 0.3, np.where(rng.rand(n) < 0.9, y, 1 - y), -1) for _ in range(3)]
    L = np.column_stack([noisy] + good)
    model = MajorityVote().fit(L)
    s = source_summary(L, model=model, y=y, warn=False, as_frame=False)
    assert s["accuracy_model"][0] > 0.75                          # it mostly outvotes the rest
    assert s["accuracy_low"][0] <= s["accuracy_gold"][0] <= s["accuracy_high"][0]
    assert (s["advice"] != "drop").all()


def test_advice_never_drops_a_source_above_the_median_and_drops_one_below_chance():
    rng = np.random.RandomState(5)
    n = 4000
    y = rng.randint(0, 2, n)
    L = np.column_stack([np.where(rng.rand(n) < a, y, 1 - y) for a in (0.9, 0.85, 0.8, 0.2)])
    s = source_summary(L, model=DawidSkene().fit(L), y=y, warn=False, as_frame=False)
    assert s["advice"].tolist()[:3] == ["keep"] * 3 and s["advice"][3] == "drop"
    with pytest.warns(UserWarning, match=r"source\(s\) \[3\] right less often than chance"):
        source_summary(L, model=DawidSkene().fit(L))


def test_a_data_frame_when_pandas_is_there():
    pd = pytest.importorskip("pandas")
    L = np.array([[0, 0, -1], [1, -1, 1], [1, 0, 1], [-1, -1, -1]])
    frame = source_summary(L, model=PrecisionVote().fit(L), y=[0, 1, 1, 0], warn=False)
    assert isinstance(frame, pd.DataFrame) and frame.index.name == "source" and len(frame) == 3
    assert list(frame.columns[:5]) == ["polarity", "n_votes", "coverage", "overlap", "conflict"]
    assert frame.attrs["uncovered"] == 0.25
    assert frame["polarity"].tolist() == ["0 1", "0", "1"]
    with pytest.raises(ValueError, match="as_frame must be"):
        source_summary(L, as_frame="yes")


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
