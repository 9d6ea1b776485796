"""The readers and loaders against generated hostile files, each read in a forked child under
a memory cap and a timeout: a model file (``weaklabel.load``), svmlight candidate files, VW
bandit logs (``--cb`` and ``cb_adf``), result snapshots, long vote tables, and the command
line reading them.  Asserted: the contract only (a result, or one ValueError / TypeError /
FileNotFoundError on one line; never a crash, a hang or an allocation beyond the cap)."""

import gzip
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import weaklabel
from weaklabel.bandit.logs import read_vw_cb, read_vw_cb_adf
from weaklabel.experiments.snapshot import Snapshot
from weaklabel.partial import Perceptron
from weaklabel.sources import votes_from_long

from ._guard import run_guarded

FAST = settings(max_examples=5, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
DEEP = settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))

NUMBERS = st.sampled_from(["0", "1", "-1", "1e308", "1e400", "nan", "inf", "18446744073709551615", "9" * 40,
                           "0.5", "", "x", "2147483653", "1048575"])
#: pieces of the formats' own syntax, recombined into lines
TOKENS = st.sampled_from(["|", "| ", ":", "1:0:0.5", "2:-1:1e-300", "0:0:0", "shared", "|ns", "|ns:2", " ", ",",
                          "0,1", "qid:1", "#", "\t"])
LINES = st.lists(st.one_of(NUMBERS, TOKENS).map(str), min_size=0, max_size=12).map(
    lambda parts: " ".join(parts) if len(parts) % 3 else "".join(parts))
TEXTS = st.lists(LINES, min_size=0, max_size=6).map("\n".join)


def _check(outcome):
    problem = outcome.problem()
    assert not problem, problem


def _model_bytes(tmp_path):
    X = np.random.default_rng(0).random((30, 3))
    path = tmp_path / "m.npz"
    Perceptron(random_state=0).fit(X, np.arange(30) % 3).save(path)
    return path.read_bytes()


def _model_mutation(data, blob):
    """A model file cut, flipped or spliced."""
    kind = data.draw(st.sampled_from(["cut", "flip", "splice", "random"]))
    if kind == "cut":
        return blob[: data.draw(st.integers(0, len(blob)))]
    if kind == "flip":
        i = data.draw(st.integers(0, len(blob) - 1))
        return blob[:i] + bytes([blob[i] ^ data.draw(st.integers(1, 255))]) + blob[i + 1:]
    if kind == "splice":
        i = data.draw(st.integers(0, len(blob)))
        return blob[:i] + data.draw(st.binary(max_size=64)) + blob[i:]
    return data.draw(st.binary(max_size=256))


def _read_all(text, path):
    path.write_text(text)
    for read in (lambda: weaklabel.load_candidate_svmlight(str(path)), lambda: read_vw_cb(io.StringIO(text)),
                 lambda: read_vw_cb_adf(io.StringIO(text))):
        try:
            read()
        except (ValueError, TypeError):
            pass                                  # allowed; anything else escapes to the outcome


def _snapshot_bytes(data):
    """A snapshot body: JSON of any shape, or a real layout with hostile pieces, gzip'ed or not."""
    body = data.draw(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                                  lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4),
                                                                                               inner, max_size=3),
                                  max_leaves=10))
    if data.draw(st.booleans()):
        body = {"experiment": "toy", "plan": data.draw(st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
                "rows": {"run": [[{"seed": 1}, body]]}}
    raw = json.dumps(body).encode()
    return gzip.compress(raw) if data.draw(st.booleans()) else raw


def _long_table(data):
    import pandas as pd

    n = data.draw(st.integers(0, 6))
    values = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=True), st.text(max_size=3), st.none())
    return pd.DataFrame({"item": data.draw(st.lists(values, min_size=n, max_size=n)),
                         "worker": data.draw(st.lists(values, min_size=n, max_size=n)),
                         "label": data.draw(st.lists(values, min_size=n, max_size=n))})


def _probe_load(tmp_path, data):
    bad = _model_mutation(data, _model_bytes(tmp_path))
    path = tmp_path / "bad.npz"
    path.write_bytes(bad)
    _check(run_guarded(lambda: weaklabel.load(path)))


def _probe_text(tmp_path, data):
    text = data.draw(TEXTS)
    _check(run_guarded(lambda: _read_all(text, tmp_path / "f.txt")))


def _probe_snapshot(tmp_path, data):
    path = tmp_path / "s.json.gz"
    path.write_bytes(_snapshot_bytes(data))
    _check(run_guarded(lambda: Snapshot.read(path)))


def _probe_long(data):
    frame = _long_table(data)
    _check(run_guarded(lambda: votes_from_long(frame, item="item", worker="worker", label="label")))


#: hostile extras of ``weaklabel reproduce uma-toy --quick`` (a 4-second run when they pass)
REPRODUCE_ARGS = st.lists(st.sampled_from([["--repeats", "0"], ["--repeats", "-3"], ["--repeats", str(10**9)],
                                           ["--repeats", "x"], ["--jobs", "0"], ["--jobs", str(10**6)],
                                           ["--dataset", "nope"], ["--unlabelled-givens"],
                                           ["--scheduler", "garbage"], ["--scheduler", "tcp://host:99999"],
                                           ["--scheduler", ""], ["--jobs", "2", "--scheduler", "tcp://h:1"]]),
                          max_size=2).map(lambda parts: [a for p in parts for a in p])
#: ``weaklabel speed`` with at least one hostile argument (a valid call would time for minutes)
SPEED_ARGS = st.tuples(st.sampled_from([[], ["--suite", "bandit"], ["--suite", "bags"], ["--suite", "partial-batch"],
                                        ["--suite", "structured"], ["--suite", "nope"]]),
                       st.sampled_from([["--dataset", "nope"], ["--dataset", "usps"], ["--dataset", ""],
                                        ["--dataset", "../../etc/passwd"], ["--repeats", "0"],
                                        ["--repeats", str(10**9)]])).map(
    lambda t: t[0] + t[1]).filter(lambda a: a not in (["--dataset", "usps"], ["--suite", "bandit", "--dataset", "usps"]))


def _probe_cli(tmp_path, data):
    """``weaklabel predict``, ``evaluate``, ``fit`` and ``report --snapshot`` on hostile model,
    data and snapshot files, ``reproduce`` seeded from a hostile snapshot with hostile options,
    and ``speed`` with hostile options: exit 0 or 1-2 with one line, never a traceback."""
    from weaklabel.cli import main

    model = tmp_path / "m.npz"
    model.write_bytes(_model_bytes(tmp_path) if data.draw(st.booleans()) else _model_mutation(data, _model_bytes(tmp_path)))
    svm = tmp_path / "d.svm"
    svm.write_text(data.draw(TEXTS))
    snap = tmp_path / "s.json.gz"
    snap.write_bytes(_snapshot_bytes(data))
    command = data.draw(st.sampled_from(["predict", "evaluate", "fit", "report", "reproduce", "speed"]))
    extra = data.draw(st.sampled_from([[], ["--pad"], ["--index-base", "0"]]))
    args = {"predict": ["predict", "--model", str(model), "--data", str(svm), *extra],
            "evaluate": ["evaluate", "--model", str(model), "--data", str(svm), *extra],
            "fit": ["fit", "--method", data.draw(st.sampled_from(["avg-pegasos", "cspa", "proden"])), "--train",
                    str(svm), "--model", str(tmp_path / "new.npz"), *extra[1:]],
            "report": ["report", "uma-toy", "--snapshot", str(snap), "--out", str(tmp_path / "r")],
            "reproduce": ["reproduce", "uma-toy", "--quick", "--no-progress", "--from-snapshot", str(snap),
                          "--out", str(data.draw(st.sampled_from([tmp_path / "run", svm]))),
                          *data.draw(REPRODUCE_ARGS)],
            "speed": ["speed", *data.draw(SPEED_ARGS)]}[command]

    def probe():
        res = CliRunner().invoke(main, args)
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            raise res.exception
        if "Traceback" in res.output:
            raise RuntimeError(f"a traceback: {res.output[-300:]}")
    _check(run_guarded(probe))


@FAST
@given(data=st.data())
def test_load_keeps_the_contract(tmp_path_factory, data):
    _probe_load(tmp_path_factory.mktemp("load"), data)


@FAST
@given(data=st.data())
def test_text_readers_keep_the_contract(tmp_path_factory, data):
    _probe_text(tmp_path_factory.mktemp("text"), data)


@FAST
@given(data=st.data())
def test_snapshot_reader_keeps_the_contract(tmp_path_factory, data):
    _probe_snapshot(tmp_path_factory.mktemp("snap"), data)


@FAST
@given(data=st.data())
def test_long_vote_tables_keep_the_contract(data):
    _probe_long(data)


@FAST
@given(data=st.data())
def test_the_command_line_keeps_the_contract(tmp_path_factory, data):
    _probe_cli(tmp_path_factory.mktemp("cli"), data)


@pytest.mark.hostile_deep
@pytest.mark.parametrize("probe", ["load", "text", "snapshot", "long", "cli"])
@DEEP
@given(data=st.data())
def test_readers_keep_the_contract_deep(tmp_path_factory, probe, data):
    folder = tmp_path_factory.mktemp(probe)
    {"load": lambda: _probe_load(folder, data), "text": lambda: _probe_text(folder, data),
     "snapshot": lambda: _probe_snapshot(folder, data), "long": lambda: _probe_long(data),
     "cli": lambda: _probe_cli(folder, data)}[probe]()


RETURNS = st.sampled_from([None, 0, 1, -1, -2, 2**63, 2**64, 10**6, 1.5, float("nan"), "spam", True, [1], b"x"])


def _probe_lfs(data):
    """Labeling functions that return anything (huge, negative, NaN, strings, lists) or raise,
    keyword and regex functions built from hostile words and patterns, over hostile records."""
    from weaklabel.sources import apply_lfs, keyword, labeling_function, regex

    texts = data.draw(st.lists(st.one_of(st.text(max_size=8), st.none(), st.integers(), st.binary(max_size=4)),
                               max_size=6))
    answer = data.draw(RETURNS)
    fails = data.draw(st.booleans())

    @labeling_function()
    def odd(text):
        if fails:
            raise RuntimeError("inside the function")
        return answer

    words = data.draw(st.lists(st.text(max_size=4), max_size=3))
    pattern = data.draw(st.sampled_from(["(", "[a-", "spam", "", ".*", "(a+)+$"]))
    field = data.draw(st.sampled_from([None, "text", "class", "my text"]))

    def probe():
        lfs = [odd, keyword(words or [""], 1, field=field), regex(pattern, 0, field=field)]
        apply_lfs(lfs, texts)
    _check(run_guarded(probe))


@FAST
@given(data=st.data())
def test_labeling_functions_keep_the_contract(data):
    _probe_lfs(data)


@pytest.mark.hostile_deep
@DEEP
@given(data=st.data())
def test_labeling_functions_keep_the_contract_deep(data):
    _probe_lfs(data)
