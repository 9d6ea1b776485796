"""Damaged stores (issue 16): one clear error naming the file, reports that never write,
and a stored row that cannot be read is computed again on the next run (which says so)."""

import os
import sqlite3

import numpy as np
import pytest
from click.testing import CliRunner

from weaklabel.cli import main
from weaklabel.experiments import registry
from weaklabel.experiments.engine import Experiment, Summary, Table
from weaklabel.experiments.store import ResultStore, StoreError


def toy_cell(config):
    return {"value": float(np.random.RandomState(config["seed"]).standard_normal())}


def _execute(ctx):
    return ctx.run([ctx.cell(toy_cell, seed=s) for s in range(4)])


def _summarize(ctx, rows):
    return Summary("toy", tables=[Table("values", "", ["seed", "value"], [[c["seed"], r["value"]] for c, r in rows])])


@pytest.fixture
def toy():
    exp = registry.register(Experiment("store-toy", "toy", lambda q, r, d: {}, _execute, _summarize))
    yield exp
    registry.unregister("store-toy")


@pytest.mark.parametrize("damage", ["garbage", "truncated", "directory", "other schema"])
def test_a_damaged_store_is_one_error_naming_the_file(tmp_path, toy, damage):
    toy.run(tmp_path / "good", progress=False)
    path = tmp_path / "bad" / "results.sqlite"
    path.parent.mkdir()
    if damage == "garbage":
        path.write_bytes(os.urandom(4096))
    elif damage == "truncated":
        path.write_bytes((tmp_path / "good" / "results.sqlite").read_bytes()[:700])
    elif damage == "directory":
        path.mkdir()
    else:
        with sqlite3.connect(path) as con:
            con.execute("CREATE TABLE results (a, b)")
    with pytest.raises(StoreError, match=str(path)):
        ResultStore(path)
    for args in (["report", str(path.parent), "--html", str(tmp_path / "x.html")],
                 ["reproduce", "store-toy", "--no-progress", "--out", str(path.parent)]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2 and "weaklabel: error:" in r.output and "Traceback" not in r.output, args


def test_an_unreadable_row_is_computed_again_and_the_run_says_so(tmp_path, toy, capsys):
    first = toy.run(tmp_path, progress=False).table("values").rows
    with sqlite3.connect(tmp_path / "results.sqlite") as con:
        key = con.execute("SELECT key FROM results ORDER BY key LIMIT 1").fetchone()[0]
        con.execute("UPDATE results SET result = 'not json' WHERE key = ?", (key,))
    # reading alone leaves the row out and writes nothing
    assert len(toy.run(tmp_path, progress=False, execute=False).table("values").rows) == 3
    again = toy.run(tmp_path, progress=False)
    assert sorted(again.table("values").rows) == sorted(first)
    assert "1 stored cell(s)" in capsys.readouterr().err
    with ResultStore(tmp_path / "results.sqlite") as store:
        assert store.count() == 4 and not store.unreadable    # replaced, not duplicated


def test_reports_open_the_store_read_only(tmp_path, toy):
    toy.run(tmp_path, progress=False)
    path = tmp_path / "results.sqlite"
    with ResultStore(path) as s:                 # leave no WAL behind, as a finished run does
        s._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = path.read_bytes()
    with ResultStore(path, read_only=True) as store:
        assert store.count() == 4
        with pytest.raises(sqlite3.OperationalError):
            store.put("k", "e", "s", {}, {}, 0.0)
    r = CliRunner().invoke(main, ["report", str(tmp_path), "--html", str(tmp_path / "page.html")])
    assert r.exit_code == 0, r.output
    assert path.read_bytes() == before
    with pytest.raises(StoreError, match="no results store"):
        ResultStore(tmp_path / "nope.sqlite", read_only=True)


def test_a_row_lacking_a_field_is_computed_again(tmp_path, toy, capsys):
    first = toy.run(tmp_path, progress=False).table("values").rows
    with sqlite3.connect(tmp_path / "results.sqlite") as con:
        key = con.execute("SELECT key FROM results ORDER BY key LIMIT 1").fetchone()[0]
        con.execute("UPDATE results SET result = '{\"other\": 1}' WHERE key = ?", (key,))
    with pytest.raises(ValueError, match="lacks the field 'value'"):
        toy.run(tmp_path, progress=False, execute=False)          # a report names it; it does not write
    again = toy.run(tmp_path, progress=False)
    assert sorted(again.table("values").rows) == sorted(first)
    assert "lacked the field 'value'" in capsys.readouterr().err


def test_a_cell_whose_bytes_are_not_utf8_is_computed_again(tmp_path, toy, capsys):
    """A bit flip that leaves a stored result's bytes invalid UTF-8 once made every later
    run fail with "Could not decode to UTF-8 column 'result'"; it is one unreadable row,
    recomputed, like any other."""
    first = toy.run(tmp_path, progress=False).table("values").rows
    with sqlite3.connect(tmp_path / "results.sqlite") as con:
        key = con.execute("SELECT key FROM results ORDER BY key LIMIT 1").fetchone()[0]
        con.execute("UPDATE results SET result = CAST(X'7B2276616C7565223A20FF7D' AS TEXT) WHERE key = ?", (key,))
    assert len(toy.run(tmp_path, progress=False, execute=False).table("values").rows) == 3
    again = toy.run(tmp_path, progress=False)
    assert sorted(again.table("values").rows) == sorted(first)
    assert "1 stored cell(s)" in capsys.readouterr().err
    with ResultStore(tmp_path / "results.sqlite") as store:
        assert store.count() == 4 and not store.unreadable


def test_a_store_with_zeroed_pages_names_the_file(tmp_path, toy):
    toy.run(tmp_path, progress=False)
    path = tmp_path / "results.sqlite"
    with ResultStore(path) as s:
        s._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 2 * page
    data[page:] = bytes(len(data) - page)               # every page after the first zeroed
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=str(path)):
        with ResultStore(path) as store:
            store.rows("store-toy")
    r = CliRunner().invoke(main, ["reproduce", "store-toy", "--no-progress", "--out", str(tmp_path)])
    assert r.exit_code == 2 and str(path) in r.output and "Traceback" not in r.output
