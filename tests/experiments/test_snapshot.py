"""Snapshots of result stores (experiments/snapshot.py): exactly the rows a report reads, rendered
as the docs build renders them, seeding a run, and hostile files refused."""

import json

import pytest
from click.testing import CliRunner

from weaklabel.experiments import registry


@pytest.mark.slow
def test_a_snapshot_holds_exactly_the_rows_its_report_reads_and_renders_the_same_report(toy, tmp_path):
    from weaklabel.cli import main
    from weaklabel.experiments.engine import Snapshot

    out = tmp_path / "run"
    toy.run(out, repeats=5, progress=False)
    toy.run(out, repeats=3, progress=False)           # the store keeps 5 cells; the plan reads 3
    snap_file = tmp_path / "toy.json.gz"
    res = CliRunner().invoke(main, ["report", "toy", "--out", str(out), "--write-snapshot", str(snap_file)])
    assert res.exit_code == 0, res.output
    assert "(3 rows)" in res.output
    snap = Snapshot.read(snap_file)
    assert len(snap) == 3 and snap.plan == {"repeats": 3, "scale": 2.0}
    again = toy.run(tmp_path / "from-snapshot", snapshot=snap_file)
    assert (tmp_path / "from-snapshot" / "report.md").read_text() == (out / "report.md").read_text()
    assert again.table("mean").value("n") == 3
    (tmp_path / "bad.json.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not a readable weaklabel snapshot"):
        Snapshot.read(tmp_path / "bad.json.gz")
    with pytest.raises(ValueError, match="snapshot of 'toy', not of 'uma-toy'"):
        registry.get("uma-toy").run(tmp_path / "x", snapshot=snap_file)
    res = CliRunner().invoke(main, ["report", "toy", "--write-snapshot", str(snap_file)])
    assert res.exit_code == 2 and "--write-snapshot needs --out" in res.output
    res = CliRunner().invoke(main, ["report", "toy", "--snapshot", str(snap_file)])
    assert res.exit_code == 2 and "--snapshot needs --out" in res.output


def test_report_renders_a_snapshot_as_the_docs_build_does(toy, tmp_path):
    """``weaklabel report NAME --snapshot FILE --out DIR`` writes the same report.md as the
    run it was taken from, with no store in DIR."""
    from weaklabel.cli import main

    out = tmp_path / "run"
    toy.run(out, repeats=4, progress=False)
    snap_file = tmp_path / "toy.json.gz"
    toy.write_snapshot(out, snap_file)
    res = CliRunner().invoke(main, ["report", "toy", "--snapshot", str(snap_file), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "report.md").read_text() == (out / "report.md").read_text()
    assert not (tmp_path / "r" / "results.sqlite").exists()
    res = CliRunner().invoke(main, ["report", "uma-toy", "--snapshot", str(snap_file), "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "snapshot of 'toy', not of 'uma-toy'" in res.output


@pytest.mark.slow
def test_a_run_seeded_from_a_snapshot_computes_only_the_cells_it_lacks(toy, tmp_path, monkeypatch):
    """``reproduce --from-snapshot``: the snapshot's rows go into the new store first, so a
    wider plan computes only the new cells, and the report equals a run from scratch."""
    import weaklabel.experiments.engine as engine
    from weaklabel.experiments.engine import Snapshot
    from weaklabel.experiments.store import ResultStore

    out = tmp_path / "run"
    toy.run(out, repeats=3, progress=False)
    snap_file = tmp_path / "toy.json.gz"
    toy.write_snapshot(out, snap_file)
    seeded = tmp_path / "seeded"
    with ResultStore(seeded / "results.sqlite") as store:
        assert len(Snapshot.read(snap_file).seed(store)) == 3
        assert Snapshot.read(snap_file).seed(store) == []            # never a duplicate
    computed = []
    real = engine.run_cells

    def counting(cells, store, **kw):
        computed.extend(c.config["seed"] for c in cells if c.key not in store.done_keys(c.experiment))
        return real(cells, store, **kw)

    monkeypatch.setattr(engine, "run_cells", counting)
    toy.run(seeded, repeats=5, progress=False, seed=snap_file)
    assert computed == [3, 4]
    toy.run(tmp_path / "scratch", repeats=5, progress=False)
    assert (seeded / "report.md").read_text() == (tmp_path / "scratch" / "report.md").read_text()
    with pytest.raises(ValueError, match="snapshot of 'toy', not of 'uma-toy'"):
        registry.get("uma-toy").run(tmp_path / "x", seed=snap_file, progress=False)


@pytest.mark.parametrize("body, match", [
    (b"", "not a readable weaklabel snapshot"),
    ("truncated", "not a readable weaklabel snapshot"),
    (b'{"experiment": "toy", "plan": {}, "rows": []}', "rows must map stages"),
    (b'{"experiment": "toy", "plan": {}, "rows": {"run": [[{"seed": 1}]]}}', "not a list of \\[config, result\\]"),
    (b'{"experiment": "toy", "plan": {}, "rows": {"run": []}}', "holds no rows"),
    (b'[1, 2]', "not an object with experiment, plan and rows"),
])
def test_a_hostile_snapshot_is_one_line_naming_the_file(tmp_path, toy, body, match):
    """A truncated file gave "Aborted!", ``rows: []`` a traceback, a snapshot without rows
    empty tables with exit 0."""
    import gzip

    from weaklabel.cli import main
    from weaklabel.experiments.engine import Snapshot

    path = tmp_path / "s.json.gz"
    if body == "truncated":
        toy.run(tmp_path / "run", repeats=2, progress=False)
        toy.write_snapshot(tmp_path / "run", path)
        path.write_bytes(path.read_bytes()[:-12])
    else:
        path.write_bytes(gzip.compress(body) if body else b"")
    with pytest.raises(ValueError, match=match):
        Snapshot.read(path)
    res = CliRunner().invoke(main, ["report", "toy", "--snapshot", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and str(path) in res.output and "Traceback" not in res.output


def test_a_gzip_bomb_is_not_inflated_past_the_cap(tmp_path, monkeypatch):
    import gzip

    from weaklabel.experiments import snapshot
    from weaklabel.experiments.engine import Snapshot

    monkeypatch.setattr(snapshot, "MAX_SNAPSHOT_BYTES", 2**20)
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b" " * (8 * 2**20)))          # 8 MiB of blanks in a few kB
    with pytest.raises(ValueError, match="inflates to more than 1 MiB"):
        Snapshot.read(path)


def test_seeding_copies_only_the_cells_a_run_asks_for_and_recomputes_rows_it_cannot_summarise(toy, tmp_path):
    """Rows of a snapshot that no cell could have produced are never copied; a copied row the
    report cannot read (a result of the wrong kind) is computed again instead of breaking
    every later report of the store."""
    import gzip

    from weaklabel.experiments.store import ResultStore

    toy.run(tmp_path / "run", repeats=3, progress=False)
    good = tmp_path / "good.json.gz"
    toy.write_snapshot(tmp_path / "run", good)
    body = json.loads(gzip.decompress(good.read_bytes()))
    stage = next(iter(body["rows"]))
    body["rows"][stage].append([{"experiment": "toy", "seed": 99, "scale": -1.0, "stage": stage}, {"value": 1.0}])
    body["rows"][stage][0][1] = {"value": "not a number"}
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(gzip.compress(json.dumps(body).encode()))
    out = tmp_path / "seeded"
    summary = toy.run(out, repeats=3, progress=False, seed=bad)
    assert summary.table("mean").value("n") == 3
    with ResultStore(out / "results.sqlite", read_only=True) as store:
        configs = [c for c, _ in store.rows("toy")]
        results = [r for _, r in store.rows("toy")]
    assert all(c["seed"] != 99 for c in configs) and len(configs) == 3
    assert all(isinstance(r["value"], float) for r in results)


@pytest.mark.slow
def test_a_snapshot_whose_plan_asks_for_millions_of_cells_is_refused_quickly(tmp_path, toy):
    import gzip

    from weaklabel.experiments.engine import Snapshot

    toy.run(tmp_path / "run", repeats=2, progress=False)
    path = tmp_path / "s.json.gz"
    toy.write_snapshot(tmp_path / "run", path)
    body = json.loads(gzip.decompress(path.read_bytes()))
    body["plan"]["repeats"] = 10**7
    path.write_bytes(gzip.compress(json.dumps(body).encode()))
    with pytest.raises(ValueError, match="asks for more than 100,020 cells while the snapshot holds 2 rows"):
        toy.run(tmp_path / "o", snapshot=Snapshot.read(path).path)
