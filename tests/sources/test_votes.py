"""Vote matrices (sources/_votes.py): a long table of answers with any ids and labels becomes
votes, and bad votes are one-line errors naming L."""

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel.sources import DawidSkene, MajorityVote, PrecisionVote, check_votes, votes_from_long


def test_long_table_with_string_ids_and_labels_becomes_votes():
    table = {"task": ["a", "a", "b", "b", "c", "a"], "worker": [7, "w2", 7, "w3", "w2", 7],
             "label": ["yes", "no", "no", None, "yes", "no"]}
    v = votes_from_long(table)
    assert v.items.tolist() == ["a", "b", "c"] and v.classes.tolist() == ["no", "yes"]
    assert v.L.shape == (3, 2) and v.n_classes == 2 and v.workers.tolist() == [7, "w2"]
    # worker 7 answered a twice: the last answer (no) kept; w3's only row has no label
    dense = v.L.toarray() - 1
    assert dense.tolist() == [[0, 0], [0, -1], [-1, 1]]
    model = MajorityVote(tie_break="lowest").fit(v.L, n_classes=v.n_classes)
    assert v.classes[model.predict(v.L)].tolist() == ["no", "no", "yes"]


def test_long_table_from_pandas_and_triples_agree():
    pd = pytest.importorskip("pandas")
    rows = [(1, "x", 2), (1, "y", 0), (2, "x", 2), (3, "y", 1)]
    from_frame = votes_from_long(pd.DataFrame(rows, columns=["item", "worker", "label"]))
    from_rows = votes_from_long(rows)
    assert (from_frame.L != from_rows.L).nnz == 0
    assert from_frame.classes.tolist() == [0, 1, 2] and from_frame.items.tolist() == [1, 2, 3]


@pytest.mark.parametrize("data, kw, match", [
    ({"task": [1], "worker": [1]}, {}, "no column 'label'"),
    ({"item": [1], "worker": [1], "label": [None]}, {}, "no answer"),
    ([(1, 2)], {}, "triples"),
    ({"item": [1], "worker": [1], "label": ["z"]}, {"classes": ["a", "b"]}, "label 'z' is not among"),
])
def test_bad_long_tables_are_one_line_errors(data, kw, match):
    with pytest.raises(ValueError, match=match):
        votes_from_long(data, **kw)


@pytest.mark.slow
def test_a_long_table_passed_as_votes_is_refused_and_a_fitted_model_unchanged():
    rng = np.random.RandomState(0)
    L = np.column_stack([rng.randint(0, 2, 300), rng.randint(0, 3, 300)])
    model = PrecisionVote().fit(L)
    before = model.predict_proba(L)
    long_ = np.column_stack([np.repeat(np.arange(400), 3), np.tile([0, 1, 2], 400), rng.randint(0, 3, 1200)])
    with pytest.raises(ValueError, match="look like ids, not classes.*votes_from_long"):
        model.fit(long_)
    np.testing.assert_array_equal(model.predict_proba(L), before)
    DawidSkene().fit(long_, n_classes=400)           # the user says there are that many classes: accepted
    pd = pytest.importorskip("pandas")
    from weaklabel.sources import check_votes

    with pytest.raises(ValueError, match="looks like a long table.*votes_from_long"):     # where votes are expected
        check_votes(pd.DataFrame(long_, columns=["task", "worker", "label"]))


@pytest.mark.parametrize("L, kwargs, match", [
    (np.array([1, 0, -1]), {}, "2-D"),
    (np.array([[0.5, 1], [1, 0]]), {}, "row 0 holds 0.5"),
    (np.array([[0, -2], [1, 0]]), {}, "row 0 holds -2"),
    (np.array([[0, 3], [1, 0]]), {"n_classes": 3}, "class 3 .*n_classes=3"),
    (np.array([[0, 1], [1, 0]]), {"n_classes": 2.5}, "n_classes must be an integer"),
    (np.array([[True, False]]), {}, "dtype bool"),
    (sp.csr_matrix(np.array([[0.5, 1.0]])), {}, "integers"),
    (sp.csr_matrix(np.array([[-1, 1]])), {}, "negative"),
    (np.zeros((0, 3), int), {}, "at least one row"),
])
def test_bad_votes_are_one_line_naming_L(L, kwargs, match):
    with pytest.raises(ValueError, match=match):
        check_votes(L, **kwargs)
