"""The user's own data in: long tables of answers, WRENCH-layout folders, candidate-label
.mat files; a long table passed as votes is refused with a message naming the long form."""

import json
import lzma

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from weaklabel.datasets import load_mat, load_votes
from weaklabel.sources import DawidSkene, MajorityVote, PrecisionVote, votes_from_long


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


def test_load_votes_reads_a_users_folder(tmp_path):
    rows = {str(i): {"label": i % 2, "weak_labels": [i % 2, -1, 1], "data": {"text": f"t{i}"}} for i in range(6)}
    (tmp_path / "train.json").write_text(json.dumps(rows))
    with lzma.open(tmp_path / "test.json.xz", "wt") as fh:
        json.dump({"0": {"label": 1, "weak_labels": [1, 1, -1], "data": {"text": "x"}}}, fh)
    (tmp_path / "label.json").write_text(json.dumps({"0": "ham", "1": "spam"}))
    v = load_votes(tmp_path)
    assert v.L["train"].shape == (6, 3) and v.L["valid"].shape == (0, 3) and v.L["test"].tolist() == [[1, 1, -1]]
    assert v.classes == ("ham", "spam") and v.texts["train"][2] == "t2"
    assert PrecisionVote().fit(v.L["train"]).predict(v.L["test"]).tolist() == [1]


@pytest.mark.parametrize("content, match", [
    ({"0": {"label": 1}}, "no 'weak_labels'"),
    ({"0": {"label": 1, "weak_labels": [1, -1]}, "1": {"label": 0, "weak_labels": [0]}}, "same number"),
    ({"0": {"label": 1, "weak_labels": [-2]}}, "classes are >= 0"),
    ({"0": {"label": "x", "weak_labels": [1]}}, "must be integers"),
])
def test_bad_vote_folders_are_one_line_errors(tmp_path, content, match):
    (tmp_path / "train.json").write_text(json.dumps(content))
    with pytest.raises(ValueError, match=match):
        load_votes(tmp_path)


def test_a_folder_without_training_votes_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no train.json"):
        load_votes(tmp_path)


@pytest.mark.parametrize("labels_first, sparse", [(True, True), (False, False), (True, False)])
def test_load_mat_reads_either_orientation(tmp_path, labels_first, sparse):
    rng = np.random.RandomState(0)
    X = rng.randn(7, 4)
    y = np.array([0, 1, 2, 1, 0, 2, 1])
    T = np.eye(3)[y]
    S = T.copy()
    S[:, 0] = 1
    if labels_first:
        T, S = T.T, S.T
    if sparse:
        T, S = sp.csc_matrix(T), sp.csc_matrix(S)
    path = tmp_path / "set.mat"
    scipy.io.savemat(path, {"data": X, "target": T, "partial_target": S})
    d = load_mat(path)
    np.testing.assert_allclose(d.X_train, X)
    assert d.y_train.tolist() == y.tolist() and d.S_train.mask.shape == (7, 3) and d.S_train.mask[:, 0].all()


def test_load_mat_without_target_and_bad_files(tmp_path):
    path = tmp_path / "nolabels.mat"
    scipy.io.savemat(path, {"data": np.ones((3, 2)), "partial_target": np.array([[1, 0], [1, 1], [0, 1]])})
    assert load_mat(path).y_train.tolist() == [-1, -1, -1]
    bad = tmp_path / "bad.mat"
    scipy.io.savemat(bad, {"data": np.ones((3, 2)), "partial_target": np.zeros((4, 2))})
    with pytest.raises(ValueError, match="no side of the 3 samples"):
        load_mat(bad)
    empty = tmp_path / "empty.mat"
    scipy.io.savemat(empty, {"data": np.ones((2, 2)), "partial_target": np.array([[1, 0], [0, 0]])})
    with pytest.raises(ValueError, match="sample 1 has an empty candidate set"):
        load_mat(empty)
    (tmp_path / "text.mat").write_text("not matlab")
    with pytest.raises(ValueError, match="not a MATLAB .mat file"):
        load_mat(tmp_path / "text.mat")
    with pytest.raises(FileNotFoundError, match="no candidate-label file"):
        load_mat(tmp_path / "absent.mat")


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
