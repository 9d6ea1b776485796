"""A slice of the ocr-words reproduction: its cells, as `weaklabel reproduce ocr-words` runs them."""

import pytest


@pytest.mark.slow
@pytest.mark.data("reuters", "letter")
def test_ocr_words_slice_structure_and_candidate_sets():
    """One repeat of 150 words, the cells of `weaklabel reproduce ocr-words`: every learner reads
    letters far above chance (1/26); with the true letters the chain model beats the
    per-letter logistic regression (the bigrams of English help); the per-letter learners
    on candidate sets beat the expanded-sets baseline a user would otherwise fit."""
    from weaklabel.experiments import ocr_words

    acc = {}
    for m in ("latent-m3n", "proden", "lr-expand", "m3n-truth", "lr-truth"):
        grid = ocr_words.grid_points(ocr_words.GRID[m])
        res = ocr_words.cell({"setting": "uniform", "method": m, "repeat": 0, "grid": grid[1:2] or grid,
                              "n_train": 150, "n_test": 150})
        acc[m] = res["token_accuracy"]
        assert 0 <= res["word_accuracy"] <= res["token_accuracy"]
    assert min(acc.values()) > 0.45
    assert acc["m3n-truth"] > acc["lr-truth"] + 0.01
    assert acc["proden"] > acc["lr-expand"] + 0.02
