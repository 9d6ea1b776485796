"""Dawid & Skene's EM against a loop-by-loop numpy reference, and the annotator simulator."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weaklabel.noisy import DawidSkene
from weaklabel.simulate import annotators, confusion_family

# the class is deprecated (weaklabel.sources.DawidSkene); its tests stay until it goes
pytestmark = pytest.mark.filterwarnings("ignore:weaklabel.noisy.DawidSkene is deprecated:FutureWarning")


def _reference_em(A, gold, K, prior, prior_diag, n_iter):
    """Dawid & Skene (1979), written from the paper with loops; C[j][p, q] = P(j says p | q)."""
    n, m = A.shape
    T = np.zeros((n, K))
    for i in range(n):
        for j in range(m):
            if A[i, j] >= 0:
                T[i, A[i, j]] += 1
        T[i] = T[i] / T[i].sum() if T[i].sum() else np.full(K, 1.0 / K)
        if gold[i] >= 0:
            T[i] = np.eye(K)[gold[i]]
    for _ in range(n_iter):
        pi = T.mean(axis=0)
        C = np.zeros((m, K, K))
        for j in range(m):
            for q in range(K):
                for p in range(K):
                    C[j, p, q] = prior + prior_diag * (p == q) + sum(T[i, q] for i in range(n) if A[i, j] == p)
                C[j, :, q] /= C[j, :, q].sum()
        for i in range(n):
            if gold[i] >= 0:
                continue
            w = pi.copy()
            for j in range(m):
                if A[i, j] >= 0:
                    w = w * C[j, A[i, j], :]
            T[i] = w / w.sum()
    return T, C, pi


@given(seed=st.integers(0, 10_000), K=st.integers(2, 4), m=st.integers(1, 4), gold_share=st.sampled_from([0.0, 0.2]))
@settings(max_examples=30, deadline=None)
def test_em_equals_the_reference(seed, K, m, gold_share):
    rng = np.random.default_rng(seed)
    n = 25
    y = rng.integers(0, K, n)
    Cs = [confusion_family(K, int(rng.integers(0, 6)), random_state=int(rng.integers(1 << 30))) for _ in range(m)]
    A = annotators(y, Cs, p_missing=0.3, random_state=seed)
    gold = np.where(rng.random(n) < gold_share, y, -1)
    ds = DawidSkene(prior=0.1, prior_diagonal=0.5, max_iter=7, tol=0.0).fit(A, gold=gold, n_classes=K)
    T, C, pi = _reference_em(A, gold, K, 0.1, 0.5, ds.n_iter_)
    np.testing.assert_allclose(ds.posterior_, T, rtol=1e-9, atol=1e-12)
    # the stored matrices are those of the last M-step (the posterior after it is one E-step on)
    T_prev, C_prev, pi_prev = _reference_em(A, gold, K, 0.1, 0.5, ds.n_iter_ - 1)
    pi_ref = T_prev.mean(axis=0)
    np.testing.assert_allclose(ds.class_prior_, pi_ref, rtol=1e-9, atol=1e-12)   # a class of no mass: ~1e-301 against 0
    np.testing.assert_allclose(ds.confusions_, C, rtol=1e-9, atol=1e-12)


def test_em_finds_the_good_annotator_and_gold_anchors():
    y = np.arange(900) % 3
    good, poor = 0.9 * np.eye(3) + 0.1 / 3, 0.45 * np.eye(3) + 0.55 / 3
    A = annotators(y, [good, poor, poor, poor], p_missing=0.1, random_state=1)
    ds = DawidSkene().fit(A)
    vote = np.array([np.bincount(r[r >= 0], minlength=3).argmax() for r in A])
    assert (ds.predict() == y).mean() > (vote == y).mean() + 0.03
    acc = np.diagonal(ds.confusions_, axis1=1, axis2=2).mean(axis=1)      # true 0.93 and 0.63
    assert abs(acc[0] - 0.933) < 0.05 and np.all(np.abs(acc[1:] - 0.633) < 0.08)
    assert ds.converged_ and np.isfinite(ds.log_likelihood_)
    gold = np.where(np.arange(900) < 60, y, -1)
    anchored = DawidSkene().fit(A, gold=gold)
    np.testing.assert_array_equal(anchored.predict()[:60], y[:60])
    assert np.allclose(anchored.posterior_[:60].max(axis=1), 1.0)


def test_simulated_annotators_keep_one_annotation_per_row():
    y = np.arange(500) % 4
    Cs = [np.eye(4)] * 3
    A = annotators(y, Cs, p_missing=[0.9, 0.9, 0.9], random_state=0)
    assert ((A >= 0).sum(axis=1) >= 1).all()
    said = A >= 0
    assert np.array_equal(A[said], np.broadcast_to(y[:, None], A.shape)[said])   # identity annotators are right
    assert 0.6 < (~said).mean() < 0.7                  # 0.9 - 0.9**3 / 3 = 0.657 expected


@pytest.mark.parametrize("A, gold, match", [
    (np.array([1, 2]), None, "2-D"),
    (np.array([[0, -1], [-1, -1]]), None, "no annotation and no gold"),
    (np.array([[0, -2], [1, 1]]), None, "below -1"),
    (np.array([[0.5, 1], [1, 1]]), None, "class indices"),
    (np.array([[0, 1], [1, 1]]), np.array([0]), "gold must have shape"),
    (np.array([[0, 0], [0, 0]]), None, "at least 2 classes"),
])
def test_bad_annotations_are_named(A, gold, match):
    with pytest.raises((ValueError, TypeError), match=match):
        DawidSkene().fit(A, gold=gold)


def test_failed_fit_leaves_the_fitted_model_unchanged():
    y = np.arange(300) % 3
    A = annotators(y, [0.8 * np.eye(3) + 0.2 / 3] * 3, random_state=0)
    ds = DawidSkene().fit(A)
    before = {k: np.copy(v) for k, v in ds.__dict__.items() if k.endswith("_")}
    bad = [(dict(annotations=np.where(A == 2, 5, A), n_classes=3), "class 5, but n_classes=3"),
           (dict(annotations=np.vstack([A, [-1, -1, -1]])), "no annotation and no gold"),
           (dict(annotations=A, gold=np.full(300, 7), n_classes=3), "class 7")]
    for kwargs, match in bad:
        with pytest.raises(ValueError, match=match):
            ds.fit(**kwargs)
        for k, v in before.items():
            np.testing.assert_array_equal(ds.__dict__[k], v)


def test_absurd_class_indices_and_sizes_are_refused_before_allocating():
    """One typo label of 1e9 once asked for 1.31 TiB (a MemoryError); a fractional
    n_classes was silently cut. Both are one ValueError, and a fitted model is unchanged."""
    y = np.arange(300) % 3
    A = annotators(y, [0.8 * np.eye(3) + 0.2 / 3] * 3, random_state=0)
    ds = DawidSkene().fit(A)
    before = ds.posterior_.copy()
    typo = A.copy()
    typo[5, 1] = 10**9
    with pytest.raises(ValueError, match="far beyond the 4 distinct classes"):
        ds.fit(typo)
    with pytest.raises(ValueError, match="GiB"):
        ds.fit(typo, n_classes=10**9 + 1)
    for bad in (2.7, True, "3"):
        with pytest.raises(ValueError, match="n_classes must be an integer"):
            ds.fit(A, n_classes=bad)
    np.testing.assert_array_equal(ds.posterior_, before)
    assert DawidSkene().fit(A, n_classes=np.int64(4)).posterior_.shape == (300, 4)


def test_it_warns_that_it_moved():
    with pytest.warns(FutureWarning, match="weaklabel.sources.DawidSkene"):
        DawidSkene()
