"""Bandit logs in VW's --cb text format: round trip, VW's own example, and VW reading ours.
"""

import io

import numpy as np
import pytest
import scipy.sparse as sp

from weaklabel import BanditFeedback, bandit
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
    fixed = read_vw_cb(io.StringIO("2:0:1 |ns b:2.5 a\n"), feature_names=["ns^a", "ns^b"])   # VW's names
    np.testing.assert_array_equal(fixed.X.toarray(), [[1.0, 2.5]])


@pytest.mark.parametrize("text, match", [
    ("1:2 | a\n", "action:cost:probability"), ("x:1:0.5 | a\n", "not 'int"),
    ("1:1:0 | a\n", r"probability in \(0, 1\]"), ("0:1:0.5 | a\n", "action must be in 1.."),
    # hostile lines (each once a NaN reward, an infinite value in X, an OverflowError, or 2 GB)
    ("1:nan:0.5 | a\n", "line 1: .*cost finite"), ("1:inf:0.5 | a\n", "cost finite"),
    ("1:1e400:0.5 | a\n", "cost finite"), ("1:0:nan | a\n", "probability"),
    ("1:0:0.5 | a:nan\n", "line 1: feature 'a' has the value 'nan'"),
    ("1:0:0.5 | a:1\n1:0:0.5 | b:inf\n", "line 2: feature 'b'"),
    ("1:0:0.5 | a:x\n", "not a number"),
    ("12345678901234567890:0:0.5 | a\n", "line 1: the action must be in 1.."),
    ("1:0:0.5 | 30000000:1\n", "far beyond its 1 stored values"),
])
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


def test_dataframe_round_trip_and_bad_columns():
    pd = pytest.importorskip("pandas")
    from weaklabel.bandit.logs import BanditLog

    rng = np.random.default_rng(0)
    X = sp.random(20, 6, density=0.4, random_state=1, format="csr")
    log = BanditLog(X, rng.integers(0, 3, 20), rng.random(20), rng.uniform(0.1, 1.0, 20), [f"w{j}" for j in range(6)])
    df = log.to_frame()
    assert list(df.columns[:3]) == ["action", "reward", "propensity"] and list(df.columns[3:]) == log.feature_names
    back = BanditLog.from_frame(df)
    assert (back.X != log.X).nnz == 0 and back.feature_names == log.feature_names
    np.testing.assert_array_equal(back.actions, log.actions)
    np.testing.assert_array_equal(back.rewards, log.rewards)
    np.testing.assert_array_equal(back.propensities, log.propensities)
    dense = pd.DataFrame({"a": [0, 2], "r": [1.0, 0.0], "p": [0.5, 0.25], "x1": [1.0, 0.0], "x2": [0.0, 3.0]})
    got = BanditLog.from_frame(dense, action="a", reward="r", propensity="p")
    np.testing.assert_array_equal(got.X.toarray(), [[1.0, 0.0], [0.0, 3.0]])
    with pytest.raises(ValueError, match="no column 'action'"):
        BanditLog.from_frame(dense)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        BanditLog.from_frame(dense.assign(p=[0.5, 0.0]), action="a", reward="r", propensity="p")
    with pytest.raises(ValueError, match="0-based action"):
        BanditLog.from_frame(dense.assign(a=[0.5, 1.0]), action="a", reward="r", propensity="p")


_LEARNERS = {"CSPA": lambda: bandit.CSPA(random_state=0), "Banditron": lambda: bandit.Banditron(random_state=0),
             "BPA": lambda: bandit.BPA(random_state=0), "Confidit": lambda: bandit.Confidit(random_state=0),
             "SketchedConfidit": lambda: bandit.SketchedConfidit(sketch_size=4, random_state=0),
             "SPA": lambda: bandit.SPA(random_state=0)}


@pytest.mark.parametrize("name", list(_LEARNERS))
def test_every_bandit_learner_fits_a_log_directly(name):
    """fit(X, log) learns the log's rounds as fit(X, log.feedback()) does, whatever form its
    two reward values take (VW's costs 0/1 -> rewards 0/-1, clicks 0/1 as floats or bools)."""
    import io

    from weaklabel.bandit.logs import BanditLog, read_vw_cb

    rng = np.random.RandomState(0)
    X = rng.randn(200, 3) + np.repeat(np.eye(3) * 3, [67, 67, 66], axis=0)
    y = np.repeat([0, 1, 2], [67, 67, 66])
    a = rng.randint(0, 3, 200)
    lines = "".join(f"{a[i] + 1}:{0 if a[i] == y[i] else 1}:0.3333 | f0:{X[i, 0]} f1:{X[i, 1]} f2:{X[i, 2]}\n"
                    for i in range(200))
    vw = read_vw_cb(io.StringIO(lines))
    fb = vw.feedback()
    np.testing.assert_array_equal(fb.correct, a == y)
    make = _LEARNERS[name]
    ref = make().fit(vw.X, vw)
    if name != "Banditron":                                # only Banditron reads the propensities
        np.testing.assert_array_equal(make().fit(vw.X, fb).coef_, ref.coef_)
    for rewards in ((a == y).astype(float), a == y, (a == y).astype(int)):
        log = BanditLog(vw.X, a, rewards, vw.propensities)
        est = make().fit(log.X, log)
        np.testing.assert_array_equal(est.coef_, ref.coef_)
    graded = BanditLog(vw.X, a, rng.rand(200), np.full(200, 1 / 3))
    before = est.coef_.copy()
    with pytest.raises(ValueError, match="at most two values"):
        est.fit(graded.X, graded)
    np.testing.assert_array_equal(est.coef_, before)


def _logged_digits(n_rep, logger_probs, seed=0):
    """digits' first 1,400 rows, each logged n_rep times (shuffled) by a logger drawing the
    shown class from ``logger_probs``: a log with the logger's propensities."""
    from sklearn.datasets import load_digits

    from weaklabel.bandit.logs import BanditLog

    X, y = load_digits(return_X_y=True)
    X = X / 16
    rng = np.random.RandomState(seed)
    rows = rng.permutation(np.tile(np.arange(1400), n_rep))
    a = rng.choice(10, rows.size, p=logger_probs)
    return X, y, BanditLog(sp.csr_matrix(X[rows]), a, (a == y[rows]).astype(float), logger_probs[a])


def test_banditron_learns_off_policy_from_a_logs_propensities():
    """A uniformly logged stream (every context shown 20 random classes) recovers the
    full-feedback learner's accuracy: Banditron weighing right answers by the logger's
    propensities reaches the Perceptron trained on the true labels (0.892 against 0.882);
    under a skewed logger, the propensities are what makes it learn (0.861 against 0.678
    with its own policy's weights).  benchmarks/off_policy.py prints the same table."""
    from weaklabel.bandit import Banditron
    from weaklabel.partial import Perceptron

    X, y, log = _logged_digits(20, np.full(10, 0.1))
    full = Perceptron(random_state=0).fit(X[:1400], y[:1400]).score(X[1400:], y[1400:])
    ips = Banditron(random_state=0, max_iter=1).fit(log.X, log).score(X[1400:], y[1400:])
    assert ips >= full - 0.02, (ips, full)
    w = np.exp(-0.3 * np.arange(10))
    X, y, skewed = _logged_digits(5, w / w.sum())
    ips = Banditron(random_state=0, max_iter=1).fit(skewed.X, skewed).score(X[1400:], y[1400:])
    own = Banditron(random_state=0, max_iter=1).fit(skewed.X, skewed.feedback()).score(X[1400:], y[1400:])
    assert ips > own + 0.1 and ips >= full - 0.04, (ips, own, full)
    with pytest.raises(ValueError, match="propensities must be"):
        Banditron().partial_fit_feedback(X[:3], [0, 1, 2], [True, False, True], classes=np.arange(10),
                                         propensities=[0.5, 0.0, 1.2])


def test_from_frame_reads_the_open_bandit_datasets_own_files_as_load_obd_does():
    """OBD's raw layout (item ids, positions 1-3, hashed text user features, an item table)
    through from_frame gives load_obd's arrays, column for column."""
    pd = pytest.importorskip("pandas")
    from weaklabel.bandit.logs import BanditLog
    from weaklabel.datasets import load_obd
    from weaklabel.datasets._registry import _resolve

    base = "logs/obd/bts/men"
    log_path, _ = _resolve(f"{base}/men.csv.xz", "obd")
    item_path, _ = _resolve(f"{base}/item_context.csv.xz", "obd")
    df = pd.read_csv(log_path, index_col=0, parse_dates=["timestamp"])
    items = pd.read_csv(item_path, index_col=0)
    log = BanditLog.from_frame(df, action="item_id", reward="click", propensity="propensity_score",
                               position="position", item_features=items)
    ref = load_obd("bts", "men")
    assert log.feature_names == ref.feature_names                 # timestamp left out, text one-hot, position last
    assert abs(log.X - ref.X).max() < 1e-12
    np.testing.assert_array_equal(log.actions, ref.actions)
    np.testing.assert_array_equal(log.positions, ref.positions)
    np.testing.assert_array_equal(log.rewards, ref.rewards)
    np.testing.assert_array_equal(log.propensities, ref.propensities)
    np.testing.assert_allclose(log.item_features, ref.item_features)
    assert log.item_feature_names[0] == "item_feature_0"


def test_from_frame_rejects_hostile_frames_with_one_line_each():
    pd = pytest.importorskip("pandas")
    from weaklabel.bandit.logs import BanditLog

    df = pd.DataFrame({"a": [0, 1], "r": [1.0, 0.0], "p": [0.5, 0.5], "x": [1.0, 2.0], "u": ["s", "t"]})
    kw = {"action": "a", "reward": "r", "propensity": "p"}
    got = BanditLog.from_frame(df, **kw)
    assert got.feature_names == ["x", "u=s", "u=t"] and got.positions is None and got.item_features is None
    for bad, match in [(df.assign(r=[np.nan, 0.0]), "'r' must be finite; row 0"),
                       (df.assign(p=[0.5, 1.5]), r"'p' must be in \(0, 1\]; row 1"),
                       (df.assign(p=[0.0, 0.5]), r"row 0 is 0.0"),
                       (df.assign(x=[1.0, np.inf]), "feature column 'x' must be finite; row 1"),
                       (df.assign(a=[-1, 0]), "non-negative integers")]:
        with pytest.raises(ValueError, match=match):
            BanditLog.from_frame(bad, **kw)
    with pytest.raises(ValueError, match="no column 'slot'"):
        BanditLog.from_frame(df, position="slot", **kw)
    with pytest.raises(ValueError, match="item_features has 1 rows"):
        BanditLog.from_frame(df, item_features=np.ones((1, 2)), **kw)
    with pytest.raises(ValueError, match="empty"):
        BanditLog.from_frame(df.iloc[:0], **kw)


def test_cb_adf_round_trip_and_vw_reads_it(tmp_path):
    from weaklabel.bandit.logs import read_vw_cb_adf, write_vw_cb_adf

    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4)) * (rng.random((30, 4)) < 0.6)
    items = rng.normal(size=(3, 2))
    a = rng.integers(0, 3, 30)
    r, p = -(a == 1).astype(float), rng.uniform(0.2, 1.0, 30)
    path = tmp_path / "log.adf"
    write_vw_cb_adf(path, X, a, r, p, items, feature_names=[f"u^f{j}" for j in range(4)],
                    item_feature_names=["item^i0", "item^i1"])
    text = path.read_text()
    assert text.count("shared |u ") + text.count("shared |\n") == 30 and text.count("\n\n") == 30
    log = read_vw_cb_adf(path)
    assert sorted(log.feature_names) == [f"u^f{j}" for j in range(4) if X[:, j].any()]
    order = [log.feature_names.index(f"u^f{j}") for j in range(4)]
    np.testing.assert_allclose(log.X.toarray()[:, order], X)
    np.testing.assert_array_equal(log.actions, a)
    np.testing.assert_allclose(log.rewards, r)
    np.testing.assert_allclose(log.propensities, p)
    np.testing.assert_allclose(log.item_features, items)
    assert log.item_feature_names == ["item^i0", "item^i1"]
    vw = pytest.importorskip("vowpalwabbit")
    model = vw.Workspace("--cb_explore_adf --quiet")
    for block in text.strip().split("\n\n"):
        model.learn(block.splitlines())
    pmf = model.predict(["shared |u f0:1", "|item i0:0.5", "|item i1:1", "|item i0:-1"])
    model.finish()
    assert len(pmf) == 3 and abs(sum(pmf) - 1) < 1e-5


@pytest.mark.parametrize("text, match", [
    ("shared | a\n| x\n| y\n", "line 1: a round must label exactly one action line"),
    ("shared | a\n0:1:0.5 | x\n0:1:0.5 | y\n", "labels 2"),
    ("shared | a\n0:1:0 | x\n| y\n", r"line 2: a label needs .*probability in \(0, 1\]"),
    ("shared | a\n0:nan:0.5 | x\n| y\n", "cost finite"),
    ("shared | a\n0:1:0.5 | x\n| y\n\nshared | b\n| x\n0:0:0.5 | z\n", "line 5: this round's actions differ"),
    ("shared | a\n0:1:0.5 | x:inf\n| y\n", "line 2: feature 'x'"),
    ("shared a\n0:1:0.5 | x\n", "line 1: expected 'shared | features'"),
    ("", "no round"),
])
def test_cb_adf_bad_rounds_are_named(text, match):
    from weaklabel.bandit.logs import read_vw_cb_adf

    with pytest.raises(ValueError, match=match):
        read_vw_cb_adf(io.StringIO(text))


def test_a_frame_with_uint64_actions_or_repeated_columns_is_refused_by_name():
    """uint64 actions of 2**63 and more wrapped to negative ones; repeated column names gave
    an AttributeError from pandas."""
    import pandas as pd

    from weaklabel.bandit.logs import BanditLog

    frame = pd.DataFrame({"action": np.array([0, 2**63 + 5], dtype=np.uint64), "reward": [1.0, 0.0],
                          "propensity": [0.5, 0.5], "x": [0.1, 0.2]})
    with pytest.raises(ValueError, match="column 'action' holds action 9223372036854775813, beyond the int64"):
        BanditLog.from_frame(frame)
    frame = pd.DataFrame([[0, 1.0, 0.5, 0.1, 0.2]], columns=["action", "reward", "propensity", "x", "x"])
    with pytest.raises(ValueError, match="column names repeat \\('x'\\)"):
        BanditLog.from_frame(frame)
    ok = BanditLog.from_frame(pd.DataFrame({"action": np.array([0, 1], dtype=np.uint64), "reward": [1.0, 0.0],
                                            "propensity": [0.5, 0.5]}))
    assert ok.actions.tolist() == [0, 1]


def test_round_trips_keep_trailing_all_zero_columns():
    """A log whose last feature columns are all zero came back narrower from a VW file."""
    from weaklabel.bandit.logs import read_vw_cb_adf, write_vw_cb_adf

    X = sp.csr_matrix(np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]]))
    items = np.array([[0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
    buf = io.StringIO()
    write_vw_cb(buf, X, [0, 1], [1.0, 0.0], [0.5, 0.5])
    log = read_vw_cb(io.StringIO(buf.getvalue()))
    assert log.X.shape == (2, 4) and (log.X != X).nnz == 0 and log.X.nnz == 2
    buf = io.StringIO()
    write_vw_cb_adf(buf, X, [0, 1], [1.0, 0.0], [0.5, 0.5], items)
    log = read_vw_cb_adf(io.StringIO(buf.getvalue()))
    assert log.X.shape == (2, 4) and np.array_equal(log.item_features, items)


def test_an_adf_log_naming_a_huge_item_feature_is_refused_before_densifying():
    """20 kB naming item feature 1048575 asked for a 9.4 GiB dense table."""
    from weaklabel.bandit.logs import read_vw_cb_adf

    actions = "".join(f"{'0:-1:0.5 ' if k == 0 else ''}| {1048575 - k}:1\n" for k in range(1200))
    with pytest.raises(ValueError, match="a dense item table of 9.4 GiB"):
        read_vw_cb_adf(io.StringIO("shared | 0:1\n" + actions))


# ---- VW logs with several namespaces, and rewards as floats. ----

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
