"""Labeling functions: the helpers, the decorator, applying them to texts, records,
DataFrames and Dask partitions."""

import numpy as np
import pytest

from weaklabel.sources import LabelingFunction, apply_lfs, keyword, labeling_function, regex
from weaklabel.sources import MajorityVote


TEXTS = ["Subscribe to my channel http://x.y", "love this song", "check out my video", "great song!", "meh"]


def _lfs():
    @labeling_function(name="short")
    def short(text):
        return 0 if len(text.split()) <= 2 else None

    return [keyword(["subscribe", "my channel"], 1), regex(r"https?://", 1), keyword("song", 0), short]


def test_votes_of_texts_dense_and_sparse_agree():
    L = apply_lfs(_lfs(), TEXTS, sparse=False)
    assert L.tolist() == [[1, 1, -1, -1], [-1, -1, 0, -1], [-1, -1, -1, -1], [-1, -1, 0, 0], [-1, -1, -1, 0]]
    S = apply_lfs(_lfs(), TEXTS)
    np.testing.assert_array_equal(S.toarray() - 1, L)
    assert S.nnz == 6
    assert MajorityVote().fit(S, n_classes=2).predict(S).tolist()[:2] == [1, 0]


def test_records_and_dataframes_are_read_by_field():
    pd = pytest.importorskip("pandas")
    lfs = [keyword("song", 0, field="text"), LabelingFunction(lambda r: 1 if r.stars < 2 else None, name="stars")]
    frame = pd.DataFrame({"text": TEXTS, "stars": [1, 5, 1, 4, 3]})
    L = apply_lfs(lfs, frame, sparse=False)
    assert L[:, 0].tolist() == [-1, 0, -1, 0, -1] and L[:, 1].tolist() == [1, -1, 1, -1, -1]
    records = [{"text": t} for t in TEXTS]
    assert apply_lfs(lfs[:1], records, sparse=False)[:, 0].tolist() == L[:, 0].tolist()


def test_dask_partitions_give_one_block_each_the_rows_in_order():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"text": TEXTS * 7})
    lfs = [keyword("song", 0, field="text"), regex("http", 1, field="text")]
    L = apply_lfs(lfs, dd.from_pandas(frame, npartitions=3))
    assert L.numblocks == (3, 1)                          # lazy: the votes stay with their partitions
    np.testing.assert_array_equal(L.compute().toarray(), apply_lfs(lfs, frame).toarray())
    dense = apply_lfs(lfs, dd.from_pandas(frame, npartitions=3), sparse=False)
    np.testing.assert_array_equal(dense.compute(), apply_lfs(lfs, frame, sparse=False))


def test_a_failing_function_names_its_record_and_partition():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"text": TEXTS * 7})
    L = apply_lfs([keyword("song", 0)], dd.from_pandas(frame, npartitions=3))     # no field: records are rows
    with pytest.raises(ValueError, match="failed on record 0 of partition [0-2]: TypeError"):
        L.compute()


def test_bad_functions_and_data_are_one_line():
    with pytest.raises(ValueError, match="'bad' returned 'spam'.*class index"):
        apply_lfs([LabelingFunction(lambda t: "spam", name="bad")], TEXTS)
    with pytest.raises(ValueError, match="returned True"):
        apply_lfs([lambda t: True], TEXTS)
    with pytest.raises(ValueError, match="failed on record 0: TypeError: .*Pass field="):
        apply_lfs([keyword("a", 0)], [{"text": "a"}])
    with pytest.raises(TypeError, match="not one string"):
        apply_lfs([keyword("a", 0)], "a text")
    with pytest.raises(ValueError, match="label must be a class index"):
        keyword("a", -1)
    with pytest.raises(ValueError, match="at least one labeling function"):
        apply_lfs([], TEXTS)
    with pytest.raises(TypeError, match="must be callable"):
        LabelingFunction("free")


def test_progress_bar_does_not_change_the_votes(capsys):
    np.testing.assert_array_equal(apply_lfs(_lfs(), TEXTS, progress=True).toarray(),
                                  apply_lfs(_lfs(), TEXTS).toarray())


def test_a_labeling_functions_own_error_names_the_function_and_the_record():
    from weaklabel.sources import LabelingFunctionError, apply_lfs, labeling_function

    @labeling_function()
    def lookup(text):
        return {"spam": 1}[text]

    with pytest.raises(LabelingFunctionError, match="labeling function 'lookup' failed on record 1: KeyError") as info:
        apply_lfs([lookup], ["spam", "ham"])
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize("make, match", [
    (lambda: keyword("", 1), "non-empty strings"),
    (lambda: keyword(["ok", "  "], 1), "non-empty strings"),
    (lambda: regex("(", 1), r"pattern '\(' is not a regular expression"),
    (lambda: regex("a", 2**63), "below 1048576"),
])
def test_bad_keywords_and_patterns_are_refused_when_written(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_huge_returns_and_unreadable_fields_are_named():
    import pandas as pd

    from weaklabel.sources import LabelingFunctionError, apply_lfs, labeling_function

    @labeling_function()
    def huge(text):
        return 2**63

    with pytest.raises(LabelingFunctionError, match="returned class 9223372036854775808, beyond"):
        apply_lfs([huge], ["a"])
    with pytest.raises(LabelingFunctionError, match="field='my text' is not a key of the record"):
        apply_lfs([keyword("a", 1, field="my text")], [{"text": "a"}])
    with pytest.raises(LabelingFunctionError, match="the records are texts: drop field="):
        apply_lfs([keyword("a", 1, field="class")], ["a b"])
    with pytest.raises(LabelingFunctionError, match="pandas renames a column"):
        apply_lfs([keyword("a", 1, field="class")], pd.DataFrame({"class": ["a"], "text": ["b"]}))
