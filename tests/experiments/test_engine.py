"""The experiment engine: a new experiment is one module (here, one test) and nothing else."""

import json

import numpy as np
import pytest
from click.testing import CliRunner


@pytest.mark.slow
def test_a_registered_experiment_runs_from_python_and_the_cli(toy, tmp_path):
    summary = toy.run(tmp_path / "py", quick=True, progress=False)
    values = summary.table("values").column("value")
    assert values == [2.0 * np.random.RandomState(s).standard_normal() for s in range(3)]     # the toy's cells
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


