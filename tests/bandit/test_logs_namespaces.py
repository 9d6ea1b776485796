"""VW logs with several namespaces, and rewards as floats."""

import io

import numpy as np
import pytest

from weaklabel import BanditFeedback
from weaklabel.bandit.logs import read_vw_cb, write_vw_cb


def test_every_namespace_is_read_as_vw_names_it():
    log = read_vw_cb(io.StringIO("1:2:0.4 |user a b |item c:0.5\n2:0:0.6 | x:1 |item:2 c:1\n"))
    assert log.feature_names == ["user^a", "user^b", "item^c", "x"]
    np.testing.assert_allclose(log.X.toarray(), [[1, 1, 0.5, 0], [0, 0, 2, 1]])     # |item:2 scales c
    buf = io.StringIO()
    write_vw_cb(buf, log.X, log.actions, log.rewards, log.propensities, feature_names=log.feature_names)
    assert buf.getvalue().splitlines()[0].endswith("|user a:1 b:1 |item c:0.5")
    back = read_vw_cb(io.StringIO(buf.getvalue()))
    assert back.feature_names == log.feature_names
    np.testing.assert_allclose(back.X.toarray(), log.X.toarray())
    np.testing.assert_array_equal(back.actions, log.actions)


def test_bad_namespaces_and_names_are_one_line():
    with pytest.raises(ValueError, match="line 1: the weight of namespace 'item' is not a number"):
        read_vw_cb(io.StringIO("1:0:0.5 |item:x c\n"))
    with pytest.raises(ValueError, match="line 1: the value of feature 'item\\^c' is not a number"):
        read_vw_cb(io.StringIO("1:0:0.5 |item c:x\n"))
    with pytest.raises(ValueError, match="without spaces"):
        write_vw_cb(io.StringIO(), np.ones((1, 1)), [0], [1.0], [0.5], feature_names=["a b"])


def test_rewards_as_floats_are_right_or_wrong():
    fb = BanditFeedback([0, 2, 1], np.array([1.0, 0.0, 1.0]))
    assert fb.correct.tolist() == [True, False, True]
    with pytest.raises(ValueError, match="found the value 0.5"):
        BanditFeedback([0, 1], [0.5, 1.0])
