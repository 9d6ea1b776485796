"""Caption labelings (weaklabel.bags.caption_labelings): the paper's Figure 2 and its rules."""

import numpy as np
import pytest

from weaklabel.bags import caption_labelings


def test_caption_labelings_figure_2():
    Z = caption_labelings(2, ["na", "nb"], "o")
    figure2 = {("na", "nb"), ("na", "o"), ("o", "nb"), ("nb", "na"), ("o", "na"), ("nb", "o")}
    assert {tuple(r) for r in Z.tolist()} == figure2 and len(Z) == 6


@pytest.mark.parametrize("F,N", [(1, 1), (1, 3), (3, 2), (3, 3), (4, 2)])
def test_caption_labelings_count_and_rules(F, N):
    from math import comb, perm

    names = list(range(N))
    Z = caption_labelings(F, names, -1)
    assert len(Z) == sum(comb(F, k) * perm(N, k) for k in range(1, min(F, N) + 1))
    for r in Z:
        named = r[r != -1]
        assert named.size >= 1 and np.unique(named).size == named.size
    assert np.unique(Z, axis=0).shape[0] == len(Z)


def test_caption_labelings_errors():
    with pytest.raises(ValueError, match="names is empty"):
        caption_labelings(2, [], "o")
    with pytest.raises(ValueError, match="null_label"):
        caption_labelings(2, ["o"], "o")
    with pytest.raises(ValueError, match="n_faces"):
        caption_labelings(0, ["a"], "o")
