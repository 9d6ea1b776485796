"""The experiment engine: a new experiment is one module (here, one test) and nothing else."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from weaklabel.experiments import registry
from weaklabel.experiments.engine import Experiment, Figure, MeanStd, Series, Summary, Table, to_markdown


def toy_cell(config):
    """Module level, so it also runs on Dask workers."""
    rng = np.random.RandomState(config["seed"])
    return {"value": float(config["scale"] * rng.standard_normal())}


def _plan(quick, repeats, datasets):
    return {"repeats": repeats or (3 if quick else 20), "scale": 2.0}


def _execute(ctx):
    return ctx.run([ctx.cell(toy_cell, seed=s, scale=ctx.plan["scale"]) for s in range(ctx.plan["repeats"])])


def _summarize(ctx, rows):
    values = [r["value"] for _, r in rows]
    table = Table("values", "Values", ["seed", "value"], [[c["seed"], r["value"]] for c, r in rows],
                  formats={"value": ".4f"})
    mean = Table("mean", "Mean", ["n", "value"], [[len(values), MeanStd(float(np.mean(values)),
                                                                          float(np.std(values)))]],
                 formats={"value": ".3f"})
    fig = Figure("values", "Values by seed", [Series("value", [c["seed"] for c, _ in rows], values)],
                 xlabel="seed", ylabel="value")
    return Summary("A toy experiment", "Draws of a scaled normal.", [table, mean], [fig])


@pytest.fixture
def toy():
    exp = registry.register(Experiment("toy", "A toy experiment", _plan, _execute, _summarize))
    yield exp
    registry.unregister("toy")


@pytest.mark.slow
def test_a_registered_experiment_runs_from_python_and_the_cli(toy, tmp_path):
    summary = toy.run(tmp_path / "py", quick=True, progress=False)
    values = summary.table("values").column("value")
    assert values == [toy_cell({"seed": s, "scale": 2.0})["value"] for s in range(3)]
    assert summary.table("mean").value("n") == 3

    from weaklabel.cli import main

    out = tmp_path / "cli"
    res = CliRunner().invoke(main, ["reproduce", "toy", "--quick", "--no-progress", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "report.md").read_text() == (tmp_path / "py" / "report.md").read_text()
    csv = (out / "mean.csv").read_text().splitlines()
    assert csv[0] == "n,value,value std"
    assert float(csv[1].split(",")[1]) == pytest.approx(np.mean(values))
    assert (out / "values.png").stat().st_size > 5_000
    assert json.loads((out / "plan.json").read_text()) == {"experiment": "toy", "plan": {"repeats": 3, "scale": 2.0}}
    res = CliRunner().invoke(main, ["report", "uma-toy", "--out", str(out)])      # another experiment's folder
    assert res.exit_code == 2 and "holds a run of 'toy', not of 'uma-toy'" in res.output
    res = CliRunner().invoke(main, ["report", "toy", "--out", str(out)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["reproduce", "toy", "--quick", "--dataset", "x", "--out", str(out)])
    assert res.exit_code == 2 and "--dataset does not apply to toy" in res.output


def test_markdown_renders_numbers_with_formats_and_bold():
    t = Table("t", "T", ["a", "b"], [[1, 0.12345], [2, MeanStd(0.5, 0.25)]], formats={"b": ".2f"}, bold={(0, 1)})
    md = to_markdown(Summary("S", tables=[t]))
    assert "| 1 | **0.12** |" in md and "| 2 | 0.50 +- 0.25 |" in md
    with pytest.raises(KeyError, match="2 rows"):
        Table("t", "", ["a"], [[1], [1]]).value("a", a=1)


def test_every_paper_reproduction_is_registered():
    assert set(registry.names()) >= {
        "partial-labels", "pll-realworld", "uma-toy", "uma-real", "cspa-linear", "cspa-kernel", "cspa-beta",
        "mms-artificial", "mms-realworld", "m3n-hmc", "sudoku", "visual-sudoku"}
    with pytest.raises(ValueError, match="unknown experiment 'nope'"):
        registry.get("nope")


def test_one_legend_holds_every_series_of_every_panel_and_problems_are_found():
    """A learner drawn in one panel only (Confidit full on segment) is in the legend; a panel
    without an x label, and a legend over a panel, are reported."""
    import matplotlib.pyplot as plt

    from weaklabel.experiments.engine import Figure, Series, draw_figure, figure_problems

    series = [Series("CSPA", [1, 2], [0.5, 0.6], panel="vehicle"), Series("CSPA", [1, 2], [0.4, 0.7], panel="segment"),
              Series("Confidit (full)", [1, 2], [0.8, 0.9], panel="segment")]
    fig = Figure("f", "two panels", series, xlabel="rounds", ylabel="accuracy")
    f = draw_figure(fig)
    try:
        assert sorted(t.get_text() for t in f.legends[0].get_texts()) == ["CSPA", "Confidit (full)"]
        assert figure_problems(f, fig) == []
        f.axes[1].set_xlabel("")
        f.legends[0].set_bbox_to_anchor((0.5, 0.5), transform=f.transFigure)     # over the panels
        found = figure_problems(f, fig)
        assert "panel 'segment' has no x label" in found
        assert any(p.startswith("the legend covers panel") for p in found)
    finally:
        plt.close(f)


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
    import json

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
    import json

    from weaklabel.experiments.engine import Snapshot

    toy.run(tmp_path / "run", repeats=2, progress=False)
    path = tmp_path / "s.json.gz"
    toy.write_snapshot(tmp_path / "run", path)
    body = json.loads(gzip.decompress(path.read_bytes()))
    body["plan"]["repeats"] = 10**7
    path.write_bytes(gzip.compress(json.dumps(body).encode()))
    with pytest.raises(ValueError, match="asks for more than 100,020 cells while the snapshot holds 2 rows"):
        toy.run(tmp_path / "o", snapshot=Snapshot.read(path).path)
