"""The staged votes and crowds: checksums, the documented repairs, one-line errors."""

import json
import lzma

import numpy as np
import pytest

from weaklabel import datasets
from weaklabel.datasets import load_crowd, load_votes
from weaklabel.datasets._sources import apply_rules
from weaklabel.sources import PrecisionVote, check_votes


@pytest.mark.slow
def test_trec_test_texts_lose_their_fine_label_and_keep_their_votes():
    raw, fixed = load_votes("trec", repair=False), load_votes("trec")
    assert raw.texts["test"][0].startswith("dist How far")
    assert fixed.texts["test"][0] == "how far is it from denver to aspen ?"
    np.testing.assert_array_equal(fixed.L["test"], raw.L["test"])
    assert fixed.repairs and (fixed.L["train"] == raw.L["train"]).all()


@pytest.mark.slow
def test_sms_votes_are_recomputed_from_the_rules_that_give_the_training_votes():
    raw, fixed = load_votes("sms", repair=False), load_votes("sms")
    np.testing.assert_array_equal(fixed.L["train"], raw.L["train"])
    changed = (fixed.L["test"] != raw.L["test"]).any(axis=1)
    assert changed.sum() == 291 and "291 of 500" in fixed.repairs[1]
    # rows with a staged spam vote are mostly ham; with a recomputed one, mostly spam
    for L, low, high in ((raw.L["test"], 0.0, 0.25), (fixed.L["test"], 0.9, 1.0)):     # 4 of 19, 18 of 19
        spam = (L == 1).any(axis=1)
        assert low <= np.mean(fixed.y["test"][spam] == 1) <= high


def test_youtube_is_read_as_staged():
    v = load_votes("youtube")
    assert v.repairs == () and v.L["train"].shape == (1686, 10) and v.classes == ("HAM", "SPAM")
    X = v.features()
    assert X["train"].shape[0] == 1686 and X["test"].shape[1] == X["train"].shape[1]
    check_votes(v.L["test"], n_classes=2, n_sources=10)


def test_apply_rules():
    import re

    L = apply_rules([(0, re.compile("a")), (1, re.compile("b"))], ["ab", "c", "b"])
    assert L.tolist() == [[0, 1], [-1, -1], [-1, 1]]


@pytest.mark.parametrize("name, shape, answers, K", [("duck", (108, 39), 4212, 2), ("dog", (807, 109), 8070, 4)])
def test_crowds_load_as_sparse_votes(name, shape, answers, K):
    c = load_crowd(name)
    assert c.L.shape == shape and c.L.nnz == answers and c.n_classes == K and (c.y >= 0).all()
    votes, k = check_votes(c.L)
    assert k == K and votes.n_votes == answers


def test_unknown_and_missing_sets_are_one_line(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown vote set 'imdb': neither a staged set \(youtube, sms, trec\) nor a folder"):
        load_votes("imdb")
    with pytest.raises(ValueError, match="unknown crowd set"):
        load_crowd("cats")
    monkeypatch.setenv("WEAKLABEL_DATA", str(tmp_path))
    with pytest.raises(datasets.DataNotFoundError, match="votes/sms/train.json.xz.*WEAKLABEL_DATA"):
        load_votes("sms")


def test_obd_columns_missing_or_ragged_are_named(tmp_path):
    """The OBD reader's own checks (the staged files pass their checksums first)."""
    from weaklabel.datasets._sources import _read_columns

    f = tmp_path / "log.csv"
    f.write_text("item_id,click\n1,0\n2,1\n")
    cols, n = _read_columns(f, ("item_id", "click"))
    assert n == 2 and cols["click"] == ("0", "1")
    with pytest.raises(ValueError, match="no column position, propensity_score in its header"):
        _read_columns(f, ("item_id", "position", "propensity_score"))
    f.write_text("item_id,click\n1,0\n2\n")
    with pytest.raises(ValueError, match="every row must have the header's 2 fields"):
        _read_columns(f, ("item_id",))
    f.write_text("")
    with pytest.raises(ValueError, match="no column item_id"):
        _read_columns(f, ("item_id",))


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
