"""The reproduction harness on small slices of the real code path."""

import json

import numpy as np
import pytest

from weaklabel.experiments import partial_labels
from weaklabel.experiments.runner import Cell, run_cells
from weaklabel.experiments.store import ResultStore, config_key


def _cfg(method, seed, size=2, params=None, dataset="dermatology", rounds=358):
    pre = partial_labels.DATASETS[dataset][1]
    return {"dataset": dataset, "preprocess": pre, "set_size": size, "rounds": rounds,
            "method": method, "params": params or ({"alpha": 0.01} if "pegasos" in method else {"eta": 1.0}),
            "seed": seed}


def test_online_cell_learns_dermatology():
    """Chance is 5/6 error; the paper's learners reach far below it in one pass."""
    finals = {m: np.mean([partial_labels.online_cell(_cfg(m, s))["final"] for s in range(3)])
              for m in ("perceptron", "avg-perceptron", "max-perceptron", "avg-pegasos")}
    assert finals["perceptron"] < 0.25
    assert finals["avg-perceptron"] < 0.35
    assert finals["max-perceptron"] < 0.45
    assert finals["avg-pegasos"] < 0.45
    res = partial_labels.online_cell(_cfg("avg-perceptron", 0))
    curve = np.asarray(res["curve"])
    assert curve[-1] < curve[len(curve) // 10]              # the error falls as rounds go by
    assert res["checkpoints"][-1] == 358 and res["final"] == curve[-1]


def test_online_cell_larger_sets_are_harder():
    e2 = np.mean([partial_labels.online_cell(_cfg("avg-perceptron", s, size=2))["final"] for s in range(3)])
    e4 = np.mean([partial_labels.online_cell(_cfg("avg-perceptron", s, size=4))["final"] for s in range(3)])
    assert e2 < e4


def test_same_seed_same_sets_across_learners():
    a = partial_labels.online_cell(_cfg("perceptron", 5))
    b = partial_labels.online_cell(_cfg("perceptron", 5))
    assert a == b


_kill = {"at": 3}


def _flaky(config):
    if config["i"] == _kill["at"]:
        raise RuntimeError("killed")
    return {"value": config["i"] * 2}


def test_store_resumes_without_loss_or_duplicates(tmp_path):
    cells = [Cell("exp", "eval", {"i": i}, _flaky) for i in range(6)]
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(RuntimeError, match="killed"):
            run_cells(cells, store, progress=False)
        assert store.count() == 3                             # cells 0-2 kept
        _kill["at"] = None
        n = run_cells(cells, store, progress=False)
        assert n == 3                                         # only the missing ones ran
        assert store.count() == 6
        assert run_cells(cells, store, progress=False) == 0
        values = sorted(r["value"] for _, r in store.rows("exp"))
        assert values == [0, 2, 4, 6, 8, 10]
    assert config_key({"a": 1, "b": 2}) == config_key({"b": 2, "a": 1})


def test_processes_give_the_same_results(tmp_path, local_cluster):
    """The cells run in the worker processes of a Dask cluster (the suite's: `--jobs 2` starting
    its own is tested in tests/experiments/test_dask_runner.py) give the serial numbers."""
    cells = [Cell("exp", "eval", _cfg(m, s, rounds=100), partial_labels.online_cell)
             for m in ("perceptron", "max-pegasos") for s in range(2)]
    with ResultStore(tmp_path / "serial.sqlite") as a, ResultStore(tmp_path / "par.sqlite") as b:
        run_cells(cells, a, jobs=1, progress=False)
        run_cells(cells, b, scheduler=local_cluster.scheduler_address, progress=False)
        assert a.rows("exp") == b.rows("exp")


@pytest.mark.slow
def test_quick_reproduction_returns_numbers_and_writes_report(tmp_path):
    summary = partial_labels.run(tmp_path, quick=True, repeats=2, datasets=["ecoli"], progress=False)
    table = summary.table("final_errors")
    assert len(table.rows) == 3 * 6                                   # set sizes 2, 4, 6 x six learners
    assert set(table.column("repeats")) == {2} and set(table.column("rounds")) == {300}
    errors = {(r["set_size"], r["method"]): r["mean_error"] for r in table.where(dataset="ecoli")}
    # 8 classes: chance is 7/8 error; every learner is below it, the exact-label ones by far
    assert max(errors.values()) < 0.8 and errors[(2, "perceptron")] < 0.6
    # candidate sets of 6 cost the Avg learners more than sets of 2
    assert errors[(6, "avg-perceptron")] > errors[(2, "avg-perceptron")]
    wide = summary.table("summary")
    assert wide.value("Avg Perceptron", dataset="ecoli", **{"set size": 6}).mean == errors[(6, "avg-perceptron")]
    text = summary.report.read_text()
    assert "| ecoli | 2 | 300 |" in text and "| ecoli | 6 | 300 |" in text
    assert (tmp_path / "ecoli.png").stat().st_size > 10_000
    assert (tmp_path / "final_errors.csv").read_text().count("\n") == 1 + 3 * 6
    assert json.loads((tmp_path / "plan.json").read_text())["plan"]["repeats"] == 2
    with ResultStore(tmp_path / "results.sqlite") as store:
        n = store.count()
    # rerun: nothing new is computed, the same numbers; re-rendering from the store alone gives them too
    again = partial_labels.run(tmp_path, quick=True, repeats=2, datasets=["ecoli"], progress=False)
    with ResultStore(tmp_path / "results.sqlite") as store:
        assert store.count() == n
    assert again.table("final_errors").rows == table.rows
    assert partial_labels.run(tmp_path, execute=False, progress=False).table("final_errors").rows == table.rows


