"""Label models on votes: plain-numpy references of every EM step, dense = sparse, chunked
fits, bad votes, saved models."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import weaklabel
from weaklabel.sources import DawidSkene, MajorityVote, MatrixCompletion, PrecisionVote, check_votes, votes_from_long


def _votes(seed, n, m, K, coverage=0.4):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, K, n)
    acc = rng.uniform(0.55, 0.95, m)
    L = np.where(rng.rand(n, m) < acc, y[:, None], rng.randint(0, K, (n, m)))
    L[rng.rand(n, m) > coverage] = -1
    return L, y


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), K=st.integers(2, 5))
def test_dense_and_sparse_votes_give_the_same_model(seed, K):
    L, _ = _votes(seed, 60, 7, K)
    L[0, 0] = 0
    dense = DawidSkene().fit(L, n_classes=K)
    S = sp.csr_matrix(np.where(L >= 0, L + 1, 0))
    for fmt in ("csr", "csc", "coo"):
        sparse = DawidSkene().fit(S.asformat(fmt), n_classes=K)
        np.testing.assert_allclose(sparse.confusions_, dense.confusions_, atol=1e-12)
        np.testing.assert_allclose(sparse.predict_proba(S), dense.predict_proba(L), atol=1e-12)
    mv = MajorityVote().fit(L, n_classes=K)
    np.testing.assert_array_equal(mv.predict_proba(L), MajorityVote().fit(S, n_classes=K).predict_proba(S))


def test_one_sided_sources_are_modelled_not_trusted_blindly():
    """Sources that vote one class or abstain (most labeling functions): the abstain is an
    outcome of the model, so the label model beats majority vote where the one-sided
    sources disagree with a good two-sided one."""
    rng = np.random.RandomState(0)
    n = 3000
    y = rng.randint(0, 2, n)
    good = np.where(rng.rand(n) < 0.8, y, 1 - y)
    spam1 = np.where((y == 1) & (rng.rand(n) < 0.5), 1, -1)
    spam2 = np.where((y == 1) & (rng.rand(n) < 0.4), 1, np.where(rng.rand(n) < 0.05, 1, -1))
    ham = np.where((y == 0) & (rng.rand(n) < 0.3), 0, -1)
    L = np.c_[good, spam1, spam2, ham]
    mv, ds = MajorityVote().fit(L).score(L, y), DawidSkene().fit(L).score(L, y)
    assert ds > mv + 0.02, (ds, mv)
    assert DawidSkene().fit(L).confusions_[1, 2, 1] > 0.4        # spam1 abstains on most true spam too


def test_known_labels_anchor_the_fit():
    L, y = _votes(3, 400, 5, 3, coverage=0.5)
    gold = np.full(400, -1)
    gold[:40] = y[:40]
    model = DawidSkene().fit(L, gold)
    # predict is inductive (the model's posterior, not the pinned label), so the known rows
    # are mostly, not always, predicted as given
    assert np.mean(model.predict(L)[:40] == y[:40]) >= 0.85
    assert model.score(L, y) >= DawidSkene().fit(L).score(L, y) - 0.01
    with pytest.raises(ValueError, match="y must have shape"):
        DawidSkene().fit(L, gold[:10])
    with pytest.raises(ValueError, match="class indices in 0..2"):
        DawidSkene().fit(L, np.full(400, 5))


def test_partial_fit_over_chunks_comes_close_to_fit():
    L, y = _votes(1, 6000, 8, 3)
    full = DawidSkene().fit(L).score(L, y)
    chunked = DawidSkene()
    for _ in range(2):
        for rows in np.array_split(np.arange(6000), 10):
            chunked.partial_fit(L[rows], n_classes=3)
    assert abs(chunked.score(L, y) - full) <= 0.01
    mv = MajorityVote()
    for rows in np.array_split(np.arange(6000), 10):
        mv.partial_fit(L[rows], n_classes=3)
    np.testing.assert_allclose(mv.class_balance_, MajorityVote().fit(L).class_balance_)


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote, MatrixCompletion])
def test_bad_votes_leave_a_fitted_model_unchanged(make):
    L, y = _votes(2, 300, 5, 3)
    model = make().fit(L)
    before = {k: np.copy(v) for k, v in model.__dict__.items() if k.endswith("_") and isinstance(v, np.ndarray)}
    proba = model.predict_proba(L)
    for bad, match in ((L[:, :4], "4 sources .*fitted with 5"), (np.where(L == 2, 7, L), "class 7"),
                       (L.astype(float) + 0.5, "integers")):
        for call in (model.partial_fit, model.predict_proba):
            with pytest.raises(ValueError, match=match):
                call(bad)
    with pytest.raises(ValueError, match="fitted 3"):
        model.partial_fit(L, n_classes=4)
    for k, v in before.items():
        np.testing.assert_array_equal(model.__dict__[k], v)
    np.testing.assert_array_equal(model.predict_proba(L), proba)


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote, MatrixCompletion])
def test_save_load_round_trip_and_continue(make, tmp_path):
    L, y = _votes(4, 500, 6, 3)
    model = make().fit(L[:400])
    model.save(tmp_path / "m.npz")
    back = weaklabel.load(tmp_path / "m.npz")
    assert type(back) is make
    np.testing.assert_array_equal(back.predict_proba(L), model.predict_proba(L))
    model.partial_fit(L[400:])
    back.partial_fit(L[400:])
    np.testing.assert_array_equal(back.predict_proba(L), model.predict_proba(L))


@pytest.mark.filterwarnings("ignore:weaklabel.noisy.DawidSkene is deprecated:FutureWarning")
def test_the_two_dawid_skene_models_keep_their_own_files(tmp_path):
    """noisy.DawidSkene (annotations, transductive) and sources.DawidSkene (votes with
    abstains, inductive) share a name; their files name different kinds."""
    from weaklabel.noisy import DawidSkene as CrowdDawidSkene

    L, _ = _votes(5, 200, 4, 2, coverage=0.9)
    L[(L < 0).all(axis=1), 0] = 0
    CrowdDawidSkene().fit(L).save(tmp_path / "crowd.npz")
    DawidSkene().fit(L).save(tmp_path / "votes.npz")
    assert type(weaklabel.load(tmp_path / "crowd.npz")) is CrowdDawidSkene
    assert type(weaklabel.load(tmp_path / "votes.npz")) is DawidSkene


def test_rows_without_votes_get_the_class_balance():
    L = np.array([[0, -1], [0, 0], [1, 1], [-1, -1], [0, -1]])
    for model in (MajorityVote().fit(L), DawidSkene().fit(L), PrecisionVote().fit(L), MatrixCompletion().fit(L)):
        np.testing.assert_allclose(model.predict_proba(L)[3], model.class_balance_)
    assert MajorityVote(tie_break="prior").fit(L).predict(np.array([[0, 1]])).tolist() == [0]   # to the larger class


def _one_sided(seed, n=4000, K=3, spec=((0.95, 0.3), (0.7, 0.4), (0.5, 0.5))):
    """Labeling functions that each vote one class or abstain: per class, one per
    (precision, coverage) of ``spec``, their false votes spread over the other classes."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, K, n)
    cols = []
    for c in range(K):
        for precision, coverage in spec:
            fire = np.where(y == c, rng.rand(n) < coverage,
                            rng.rand(n) < coverage * (1 - precision) / precision / (K - 1))
            cols.append(np.where(fire, c, -1))
    return np.column_stack(cols), y


def test_precision_vote_weighs_one_sided_sources_by_their_precision():
    L, y = _one_sided(0)
    model = PrecisionVote().fit(L)
    true_precision = np.array([np.mean(y[L[:, j] >= 0] == L[L[:, j] >= 0, j][0]) for j in range(L.shape[1])])
    fitted = model.precision_[np.arange(L.shape[1]), np.repeat(np.arange(3), 3)]
    # EM's posteriors ignore the abstains, so the precisions are biased, not wrong in order
    assert np.abs(fitted - true_precision).max() < 0.2
    for c in range(3):
        assert fitted[3 * c] > fitted[3 * c + 1] > fitted[3 * c + 2]
    assert model.score(L, y) > MajorityVote().fit(L).score(L, y) + 0.03
    # a source that never voted a class keeps the prior's precision there
    np.testing.assert_allclose(model.precision_[0, 1:], 30 / 40)


def test_precision_vote_needs_overlaps_between_sources():
    """With two sources per class whose votes rarely meet, EM has little to go on: under a
    weak prior it drifts below majority vote; the default prior (as strong as 40 votes)
    keeps it at majority vote or above."""
    L, y = _one_sided(0, spec=((0.9, 0.3), (0.6, 0.5)))
    mv = MajorityVote().fit(L).score(L, y)
    assert PrecisionVote(prior_right=5, prior_wrong=2).fit(L).score(L, y) < mv - 0.05
    assert PrecisionVote().fit(L).score(L, y) >= mv


@pytest.mark.slow
def test_precision_vote_partial_fit_over_chunks_comes_close_to_fit():
    L, y = _one_sided(1, n=20000)
    full = PrecisionVote().fit(L).score(L, y)
    chunked = PrecisionVote()
    for rows in np.array_split(np.arange(L.shape[0]), 10):
        chunked.partial_fit(L[rows], n_classes=3)
    assert abs(chunked.score(L, y) - full) <= 0.01, (chunked.score(L, y), full)
    np.testing.assert_array_equal(chunked.n_votes_, PrecisionVote().fit(L).n_votes_)


@pytest.mark.filterwarnings("ignore:weaklabel.noisy.DawidSkene is deprecated:FutureWarning")
def test_dawid_skene_ignoring_abstains_is_the_classic_crowd_model():
    """``abstain="ignore"``: confusions conditioned on voting, as Dawid & Skene's original
    model (and noisy.DawidSkene) has them."""
    from weaklabel.noisy import DawidSkene as CrowdDawidSkene

    L, y = _votes(6, 300, 5, 3, coverage=0.6)
    L[(L < 0).all(axis=1), 0] = 0
    ours = DawidSkene(abstain="ignore", prior=0.01, prior_diagonal=0.0, prior_class=1e-9, tol=0.0,
                      max_iter=29).fit(L)            # + the final M-step and predict_proba's E-step = 30
    crowd = CrowdDawidSkene(prior=0.01, tol=0.0, max_iter=30).fit(L)
    np.testing.assert_allclose(ours.predict_proba(L), crowd.posterior_, atol=1e-6)


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote, MatrixCompletion])
def test_scikit_learn_checks_that_apply_to_vote_matrices(make):
    """The label models take votes, not features, so scikit-learn's checks that feed float
    features do not apply; the parameter checks do, and clone / refit must agree."""
    from sklearn.base import clone
    from sklearn.utils.estimator_checks import (
        check_get_params_invariance,
        check_no_attributes_set_in_init,
        check_parameters_default_constructible,
        check_set_params,
    )

    name = make.__name__
    for check in (check_parameters_default_constructible, check_no_attributes_set_in_init, check_get_params_invariance,
                  check_set_params):
        check(name, make())
    L, y = _votes(7, 200, 5, 3)
    model = make().fit(L)
    params = model.get_params()
    twin = clone(model).fit(L)
    np.testing.assert_array_equal(twin.predict_proba(L), model.predict_proba(L))
    assert model.get_params() == params                     # fit leaves the parameters as given
    with pytest.raises(TypeError, match="positional|takes 1 positional"):
        make(1.0)                                           # keyword-only constructors


def test_sparse_votes_of_the_caller_are_left_as_they_were():
    L = sp.csr_matrix((np.array([3, 1, 0, 2]), (np.array([0, 0, 1, 2]), np.array([1, 0, 0, 1]))), shape=(3, 2))
    L.data[2] = 0                                          # an explicit zero: an abstain
    L.has_sorted_indices = False
    L.indices[:2] = [1, 0]                                 # unsorted within row 0
    L.data[:2] = [3, 1]
    before = (L.data.copy(), L.indices.copy(), L.indptr.copy())
    votes, K = check_votes(L)
    assert votes.src.tolist() == [0, 1, 1] and votes.cls.tolist() == [0, 2, 1] and K == 3
    for a, b in zip(before, (L.data, L.indices, L.indptr)):
        np.testing.assert_array_equal(a, b)
    dup = sp.coo_matrix((np.array([1, 2]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    with pytest.raises(ValueError, match="two votes of source 1 on row 0"):
        check_votes(dup)


# ---- set votes ("one of A, B", "not C") ------------------------------------------------------


def test_majority_vote_shares_a_set_vote_among_its_classes():
    L = np.array([[0, 3, -1], [4, 4, 1], [3, -1, -1]])          # 3 = one of {0, 1}, 4 = not 0
    model = MajorityVote(sets=[[0, 1], [1, 2]]).fit(L, n_classes=3)
    np.testing.assert_allclose(model.predict_proba(L), [[0.75, 0.25, 0], [0, 2 / 3, 1 / 3], [0.5, 0.5, 0]])
    mask = MajorityVote(sets=np.array([[True, True, False], [False, True, True]])).fit(L)
    np.testing.assert_allclose(mask.predict_proba(L), model.predict_proba(L))


def test_set_votes_help_and_save(tmp_path):
    """A source that can only say "not class 0" still carries evidence."""
    import weaklabel

    rng = np.random.RandomState(3)
    y = rng.randint(0, 3, 3000)
    weak = np.where(rng.rand(3000) < 0.55, y, rng.randint(0, 3, 3000))
    not0 = np.where((y != 0) & (rng.rand(3000) < 0.8), 3, -1)
    L = np.c_[weak, np.where(rng.rand(3000) < 0.55, y, rng.randint(0, 3, 3000)), not0]
    with_sets = DawidSkene(sets=[[1, 2]]).fit(L, n_classes=3)
    without = DawidSkene().fit(L[:, :2], n_classes=3)
    assert with_sets.score(L, y) > without.score(L[:, :2], y) + 0.03
    path = with_sets.save(tmp_path / "sets.npz")
    np.testing.assert_array_equal(weaklabel.load(path).predict_proba(L), with_sets.predict_proba(L))


@pytest.mark.parametrize("sets, n_classes, match", [
    ([[0, 1]], None, "needs n_classes"),
    ([[0, 5]], 3, r"sets\[0\] must list class indices in 0..2"),
    ([[]], 3, "names 0 of the 3 classes"),
    ([[0, 1, 2]], 3, "names 3 of the 3 classes"),
    (np.array([[True, False]]), 3, "mask over 2 classes but n_classes=3"),
])
def test_bad_sets_are_one_line(sets, n_classes, match):
    from weaklabel.sources._votes import check_sets

    with pytest.raises(ValueError, match=match):
        check_sets(sets, n_classes)


def test_models_without_set_votes_refuse_them():
    L = np.array([[0, 3], [1, 2]])
    for model in (PrecisionVote(), MatrixCompletion()):
        with pytest.raises(ValueError, match="holds class 3 .*n_classes=3"):
            model.fit(L, n_classes=3)
    with pytest.raises(ValueError, match="holds 5 .*3 classes and 2 set votes"):
        DawidSkene(sets=[[0, 1], [1, 2]]).fit(np.array([[0, 5]]), n_classes=3)


@pytest.mark.slow
def test_held_out_vote_score_equals_a_loop_and_selects_in_grid_search():
    from sklearn.model_selection import GridSearchCV

    from weaklabel.sources import held_out_vote_score

    L, y = _one_sided(2)
    model = PrecisionVote().fit(L)
    logs = []
    for i in range(L.shape[0]):
        voted = np.flatnonzero(L[i] >= 0)
        if voted.size < 2:
            continue
        for j in voted:
            rest = L[i:i + 1].copy()
            rest[0, j] = -1
            logs.append(np.log(max(model.predict_proba(rest)[0, L[i, j]], 1e-12)))
    assert held_out_vote_score(model, L) == pytest.approx(np.mean(logs), rel=1e-12)
    assert model.score(L) == held_out_vote_score(model, L)          # score without labels
    search = GridSearchCV(PrecisionVote(), {"prior_right": [0.5, 5.0, 50.0]}, cv=3).fit(L, n_classes=3)
    assert search.best_params_["prior_right"] in (0.5, 5.0, 50.0)
    with pytest.raises(ValueError, match="no row with two votes"):
        held_out_vote_score(model, np.array([[0, -1, -1, -1, -1, -1, -1, -1, -1]]))


# ---- the collapse guard, the EM starts, majority vote's tie-breaks -----------------------

def _collapsing_votes(seed=0, n=3000):
    """Crowd-style votes where Dawid-Skene's maximum likelihood, abstains ignored, puts every
    row in one class: one-sided sources (each votes one class or abstains)."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    cols = [np.where((y == c) & (rng.rand(n) < 0.4), c, -1) for c in (0, 1) for _ in range(4)]
    return np.column_stack(cols), y


def test_a_collapsed_fit_warns_and_falls_back_to_majority_vote(tmp_path):
    from weaklabel.sources import LabelModelWarning, held_out_vote_score

    L, y = _collapsing_votes()
    with pytest.warns(LabelModelWarning, match=r"put 1\d\d\.\d% of the covered rows in class \d, where majority"):
        kept = DawidSkene(abstain="ignore", on_collapse="warn").fit(L)
    assert kept.collapsed_ and np.unique(kept.predict(L[(L >= 0).any(axis=1)])).size == 1
    with pytest.warns(LabelModelWarning, match="replaced by majority vote"):
        safe = DawidSkene(abstain="ignore").fit(L)
    mv = MajorityVote().fit(L)
    covered = (L >= 0).any(axis=1)
    np.testing.assert_allclose(safe.predict_proba(L)[covered], mv.predict_proba(L)[covered])
    np.testing.assert_array_equal(safe.predict(L)[covered], mv.predict(L)[covered])     # ties as MajorityVote()
    assert safe.score(L, y) == mv.score(L, y)
    # the label-free score never prefers the collapsed model
    assert held_out_vote_score(kept, L) == -np.inf
    assert np.isfinite(held_out_vote_score(safe, L))
    # the fallback is part of the model file
    import weaklabel

    loaded = weaklabel.load(safe.save(tmp_path / "ds.npz"))
    assert loaded.collapsed_ and np.array_equal(loaded.predict_proba(L), safe.predict_proba(L))


def test_grid_search_on_held_out_votes_never_picks_a_collapsed_model():
    import warnings

    from sklearn.model_selection import GridSearchCV

    from weaklabel.sources import LabelModelWarning

    L, _ = _collapsing_votes(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelModelWarning)
        warnings.simplefilter("ignore", UserWarning)
        search = GridSearchCV(DawidSkene(on_collapse="warn"), {"abstain": ["ignore", "evidence"]}, cv=3).fit(L)
    assert search.best_params_ == {"abstain": "evidence"}


def test_no_warning_where_majority_vote_agrees_on_one_class():
    """Almost every row in one class is no collapse when majority vote says so too."""
    import warnings

    from weaklabel.sources import LabelModelWarning

    rng = np.random.RandomState(2)
    y = (rng.rand(4000) < 0.03).astype(int)
    L = np.column_stack([np.where(rng.rand(4000) < 0.9, y, 1 - y) for _ in range(5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelModelWarning)
        for model in (DawidSkene(), PrecisionVote(), MatrixCompletion(), DawidSkene(abstain="ignore")):
            assert not model.fit(L).collapsed_


def test_known_labels_choose_the_start_and_anchor_the_fit():
    L, y = _one_sided(3)
    gold = np.full(y.size, -1)
    gold[:50] = y[:50]
    for model in (DawidSkene(), PrecisionVote()):
        fitted = model.fit(L, gold)
        assert fitted.start_ in ("majority", "prior")
        assert fitted.score(L[50:], y[50:]) >= MajorityVote().fit(L).score(L[50:], y[50:])


@pytest.mark.parametrize("policy, expected", [("lowest", [0, 1, 1, 0]), ("abstain", [0, 1, -1, -1]),
                                              ("prior", [0, 1, 1, 1])])
def test_majority_vote_tie_break_policies(policy, expected):
    L = np.array([[0, 0, -1], [1, -1, 1], [-1, -1, -1], [1, 0, -1], [1, 1, 1], [1, 1, 1]])
    model = MajorityVote(tie_break=policy).fit(L)
    assert model.predict(L[:4]).tolist() == expected
    assert model.predict(L[:4], abstain=True)[2] == -1


def test_majority_vote_random_ties_are_seeded_and_spread():
    L = np.tile([[0, 1]], (400, 1))
    first = MajorityVote(random_state=3).fit(L).predict(L)
    assert np.array_equal(first, MajorityVote(random_state=3).fit(L).predict(L))
    assert 0.4 < first.mean() < 0.6
    assert not np.array_equal(first, MajorityVote(random_state=4).fit(L).predict(L))


def test_label_model_score_counts_covered_rows_only():
    L = np.array([[0, 0], [1, 1], [-1, -1]])
    model = PrecisionVote().fit(L)
    assert model.score(L, [0, 1, 1]) == 1.0 and model.score(L, [0, 1, 0]) == 1.0
    with pytest.raises(ValueError, match="no row of L has both a vote and a known label"):
        model.score(L, [-1, -1, 0])


@pytest.mark.parametrize("params, match", [({"tie_break": "coin"}, "tie_break"), ({"on_collapse": "ignore"}, "on_collapse")])
def test_bad_policies_are_refused_and_a_fitted_model_unchanged(params, match):
    L = np.array([[0, 0, -1], [1, -1, 1], [1, 0, 1]])
    model = (MajorityVote() if "tie_break" in params else DawidSkene()).fit(L)
    before = model.predict_proba(L)
    with pytest.raises(ValueError, match=match):
        model.set_params(**params).fit(L)
    np.testing.assert_array_equal(model.predict_proba(L), before)


def test_a_flat_fit_is_a_collapse_that_the_label_free_selection_never_prefers():
    """A prior as precise as the base rate gives every vote no weight: from that start every
    posterior is flat (and here the other start collapses onto one class). The guard warns,
    the model predicts as majority vote, and the held-out vote score (which a flat model
    would otherwise win on conflicting votes) is -inf for the kept fit."""
    from weaklabel.sources import LabelModelWarning, held_out_vote_score

    rng = np.random.RandomState(6)
    y = rng.randint(0, 2, 2000)
    L = np.column_stack([np.where(rng.rand(2000) < 0.5, np.where(rng.rand(2000) < a, y, 1 - y), -1)
                         for a in (0.8, 0.7, 0.6, 0.55)])
    with pytest.warns(LabelModelWarning, match="flat posterior|collapsed onto one class"):
        model = PrecisionVote(prior_right=1, prior_wrong=1).fit(L)
    assert model.collapsed_
    np.testing.assert_array_equal(model.predict(L), MajorityVote().fit(L).predict(L))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelModelWarning)
        kept = PrecisionVote(prior_right=1, prior_wrong=1, on_collapse="warn").fit(L)
    assert held_out_vote_score(kept, L) == -np.inf


@pytest.mark.parametrize("value", [2**63 + 5, 2**64 - 1])
def test_sparse_uint64_votes_beyond_the_classes_are_refused_not_wrapped(value):
    """uint64 values >= 2**63 became negative classes when cast (the kernels then wrote out
    of bounds)."""
    L = sp.csr_matrix((np.array([value, 1], dtype=np.uint64), (np.array([0, 1]), np.array([0, 0]))), shape=(2, 2))
    with pytest.raises(ValueError, match="beyond the 1048576 classes allowed"):
        check_votes(L)
    model = DawidSkene().fit(np.array([[0, 1], [1, 1]]))
    before = model.confusions_.copy()
    with pytest.raises(ValueError, match="beyond the 1048576 classes allowed"):
        model.fit(L)
    np.testing.assert_array_equal(model.confusions_, before)


def test_one_vote_for_a_far_class_is_refused_before_anything_is_allocated():
    """One vote for class 29,999: DawidSkene's and MatrixCompletion's parameters would take
    tens of GiB, refused at once with the class count named; PrecisionVote and majority
    vote, O(sources x classes), fit without a classes x classes table."""
    import tracemalloc

    L = np.full((50, 2), -1)
    L[:, 0] = np.random.RandomState(0).randint(0, 3, 50)
    L[0, 1] = 29_999
    for model in (DawidSkene(), MatrixCompletion()):
        with pytest.raises(ValueError, match="30000 classes would take .* GiB.*number the classes 0 .. K-1"):
            model.fit(L)
    tracemalloc.start()
    PrecisionVote().fit(L).predict(L)
    MajorityVote().fit(L).predict(L)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**30, peak                      # a 30,000 x 30,000 table is 7.2 GB


def test_majority_vote_weights_near_the_float_limit_give_shares_not_nan():
    L = np.array([[0, 1], [1, 1]])
    P = MajorityVote(weights=[1e308, 1e308]).fit(L).predict_proba(L)
    np.testing.assert_allclose(P, MajorityVote().fit(L).predict_proba(L))


def test_crafted_label_model_files_outside_what_a_fit_leaves_are_refused(tmp_path):
    """Checksums recomputed, as a careful attacker would: a non-finite count of rows seen
    (every later partial_fit then blamed the user's data), an unnormalised balance, an
    all-zero mu beside overlaps that hold votes."""
    import io

    from tests.test_persist import _edited, _members, _meta, _write

    L = np.array([[0, 1, 1], [1, 1, -1], [0, -1, 0], [1, 0, 1]] * 10)
    for make in (DawidSkene, PrecisionVote):
        path = make().fit(L).save(tmp_path / f"{make.__name__}.npz")
        for bad in (float("nan"), float("inf"), -1.0):
            crafted = _write(tmp_path / "crafted.npz", _members(path), meta=_edited(_meta(path), n_seen=bad))
            with pytest.raises(ValueError, match="inconsistent model|n_seen|non-finite"):
                weaklabel.load(crafted)
    path = MatrixCompletion().fit(L).save(tmp_path / "mc.npz")
    arrays = {k[:-4]: np.load(io.BytesIO(v)) for k, v in _members(path).items() if k.endswith(".npy")}
    for change, match in (({"class_balance": arrays["class_balance"] * 3}, "sum to 1"),
                          ({"mu": arrays["mu"] * 0}, "all zero")):
        with pytest.raises(ValueError, match=match):
            weaklabel.load(_write(tmp_path / "crafted.npz", _members(path), arrays=change))
    assert weaklabel.load(path).predict(L).shape == (40,)        # the fit's own file loads


@pytest.mark.parametrize("make", [DawidSkene, PrecisionVote])
def test_on_many_rows_the_starts_are_compared_on_a_sample_and_one_runs_on_every_row(make, monkeypatch):
    L, y = _votes(12, 30_000, 6, 3, coverage=0.4)
    model = make()
    sizes = []
    em = model._em

    def counted(votes, *args):
        sizes.append(votes.n_rows)
        return em(votes, *args)

    monkeypatch.setattr(model, "_em", counted)
    model.fit(L)
    assert sorted(sizes) == [20_000, 20_000, 30_000]
    assert model.score(L, y) >= MajorityVote().fit(L).score(L, y)


@pytest.mark.parametrize("make", [MajorityVote, DawidSkene, PrecisionVote])
def test_label_models_fit_and_predict_a_long_table_as_crowd_kit_aggregators_do(make):
    pd = pytest.importorskip("pandas")
    from weaklabel.sources import MatrixCompletion

    rng = np.random.RandomState(1)
    truth = {f"item{i}": rng.choice(["cat", "dog", "owl"]) for i in range(300)}
    rows = []
    for item, label in truth.items():
        for w in rng.choice(8, 4, replace=False):
            answer = label if rng.rand() < 0.8 else rng.choice(["cat", "dog", "owl"])
            rows.append((item, f"w{w}", answer))
    table = pd.DataFrame(rows, columns=["task", "worker", "label"])
    model = make().fit(table)
    assert model.class_labels_.tolist() == ["cat", "dog", "owl"] and len(model.workers_) == 8
    labels = model.predict(table)
    assert isinstance(labels, pd.Series) and labels.index.name == "item"
    assert np.mean([labels[i] == truth[i] for i in labels.index]) > 0.9
    proba = model.predict_proba(table)
    assert list(proba.columns) == ["cat", "dog", "owl"] and np.allclose(proba.sum(axis=1), 1)
    v = votes_from_long(table)
    np.testing.assert_allclose(proba.to_numpy(), make().fit(v.L, n_classes=3).predict_proba(v.L))
    # known labels as a mapping of items to labels
    some = {i: truth[i] for i in list(truth)[:30]}
    assert make().fit(table, some).predict(table).size == 300
    # a worker the fit never saw is refused, the model left as it was
    before = model.predict_proba(table)
    with pytest.raises(ValueError, match="worker 'stranger' did not answer in the fit"):
        model.predict(pd.DataFrame([("item0", "stranger", "cat")], columns=["task", "worker", "label"]))
    pd.testing.assert_frame_equal(model.predict_proba(table), before)
    with pytest.raises(ValueError, match="fitted on a vote matrix, not a long table"):
        MatrixCompletion().fit(v.L, n_classes=3).predict(table)
