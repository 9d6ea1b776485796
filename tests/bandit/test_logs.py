"""Bandit logs in VW's --cb text format: round trip, VW's own example, and VW reading ours."""

import io

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel.bandit.logs import read_vw_cb, write_vw_cb


def test_round_trip_keeps_every_value():
    rng = np.random.default_rng(0)
    X = sp.random(30, 12, density=0.3, random_state=0, format="csr") * 3.7
    a = rng.integers(0, 4, 30)
    r = rng.normal(size=30)
    p = rng.uniform(0.05, 1.0, 30)
    buf = io.StringIO()
    write_vw_cb(buf, X, a, r, p)
    log = read_vw_cb(io.StringIO(buf.getvalue()))
    assert log.X.shape[0] == 30 and log.X.shape[1] <= 12
    np.testing.assert_array_equal(log.X.toarray(), X.toarray()[:, :log.X.shape[1]])
    assert not X.toarray()[:, log.X.shape[1]:].any()                  # only trailing all-zero columns dropped
    np.testing.assert_array_equal(log.actions, a)
    np.testing.assert_array_equal(log.rewards, r)
    np.testing.assert_array_equal(log.propensities, p)


def test_reads_the_vw_wiki_example():
    text = "1:2:0.4 | a c\n3:0.5:0.2 | b d\n4:1.2:0.5 | a b c\n2:1:0.3 | b c\n3:1.5:0.7 | a d\n"
    log = read_vw_cb(io.StringIO(text))
    assert log.feature_names == ["a", "c", "b", "d"]
    np.testing.assert_array_equal(log.actions, [0, 2, 3, 1, 2])
    np.testing.assert_allclose(log.rewards, [-2, -0.5, -1.2, -1, -1.5])
    np.testing.assert_allclose(log.propensities, [0.4, 0.2, 0.5, 0.3, 0.7])
    np.testing.assert_array_equal(log.X.toarray()[2], [1, 1, 1, 0])
    fixed = read_vw_cb(io.StringIO("2:0:1 |ns b:2.5 a\n"), feature_names=["a", "b"])
    np.testing.assert_array_equal(fixed.X.toarray(), [[1.0, 2.5]])


@pytest.mark.parametrize("text, match", [("1:2 | a\n", "action:cost:probability"), ("x:1:0.5 | a\n", "not 'int"),
                                         ("1:1:0 | a\n", r"probability in \(0, 1\]"), ("0:1:0.5 | a\n", ">= 1")])
def test_bad_lines_are_named(text, match):
    with pytest.raises(ValueError, match=match):
        read_vw_cb(io.StringIO(text))


def test_vowpal_wabbit_learns_from_the_file(tmp_path):
    vw = pytest.importorskip("vowpalwabbit")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 5))
    a = rng.integers(0, 3, 40)
    path = tmp_path / "log.txt"
    write_vw_cb(path, X, a, (a == 1).astype(float), np.full(40, 1 / 3))
    model = vw.Workspace("--cb 3 --quiet")
    for line in path.read_text().splitlines():
        model.learn(line)
    pred = model.predict("| 0:0.1 1:0.2")
    model.finish()
    assert pred in (1, 2, 3)
