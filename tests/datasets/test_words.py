"""The OCR words (datasets.ocr_words): English words written with letter images of the letter set."""

import numpy as np
import pytest


@pytest.mark.data("reuters", "letter")
def test_ocr_words_are_real_words_written_with_letter_images():
    from weaklabel import datasets

    X, Y, words = datasets.ocr_words("train", 40, random_state=0)
    Xt, Yt, _ = datasets.ocr_words("test", 40, random_state=1)
    d = datasets.load("letter")
    for x, y, w in zip(X, Y, words):
        assert 3 <= len(w) <= 14 and x.shape == (len(w), 16)
        assert "".join(chr(ord("a") + c) for c in y) == w
        # every letter is an image of that letter from letter's training part
        rows = [np.flatnonzero((d.X_train == row).all(axis=1)) for row in x]
        assert all(np.any(d.y_train[r] - 1 == c) for r, c in zip(rows, y))
    assert not any((d.X_train == row).all(axis=1).any() and not (d.X_test == row).all(axis=1).any()
                   for x in Xt for row in x)                 # test words use test images
    with pytest.raises(ValueError, match="split must be"):
        datasets.ocr_words("val")
