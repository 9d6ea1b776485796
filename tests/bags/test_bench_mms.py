"""Small slices of the MMS reproductions: the same code path as `weaklabel reproduce
mms-artificial | mms-realworld`, on subsampled data."""

import csv

import pytest

from weaklabel import datasets
from weaklabel.experiments import mms

needs = pytest.mark.skipif(not (datasets.available("satimage") and datasets.available("lost")),
                           reason="shared data not found")


@needs
def test_artificial_cell_mms_beats_its_first_round_and_cl_svm():
    cfg = {"dataset": "satimage", "split": 0, "pc": 0.25, "pa": 0.25, "L": 8, "B": 5, "n_rounds": 5,
           "max_iter": 10, "grid": [0.1, 1.0], "subsample": 2000}
    r = mms.artificial_cell(cfg)
    assert r["mean_labelings"] > 7
    assert 2 <= r["rounds"] <= 5
    assert r["mms"] > 0.75
    assert r["mms"] > r["mms-round1"] + 0.1           # CCCP's later rounds matter (paper: 5-40 %)
    assert r["mms"] > r["cl-svm"]
    assert 4.9 < r["objective"][0] <= 5.0          # w = 0: each bag loses its size (last bag smaller)


@needs
def test_run_artificial_quick_writes_tables_and_plots(tmp_path):
    md = mms.run_artificial(tmp_path, quick=True, datasets=["satimage"], progress=False)
    text = md.read_text()
    assert "## satimage" in text and "| 0.5 | 0.5 | 8 |" in text and "CCCP rounds" in text
    assert (tmp_path / "mms_artificial_satimage.png").stat().st_size > 5000
    with open(tmp_path / "accuracy.csv") as fh:
        rows = list(csv.reader(fh))
    methods = {r[4] for r in rows[1:]}
    assert {"mms", "mms-round1", "cl-svm", "1va-svm", "mc-svm"} <= methods
    # re-rendering from the store gives the same report
    assert mms.run_artificial(tmp_path, execute=False, progress=False).read_text() == text


@needs
def test_run_realworld_quick(tmp_path):
    md = mms.run_realworld(tmp_path, quick=True, repeats=1, datasets=["lost"], progress=False)
    text = md.read_text()
    assert "| lost | 1122 | 16 |" in text
    with open(tmp_path / "accuracy.csv") as fh:
        rows = {r[1]: float(r[3]) for r in list(csv.reader(fh))[1:]}
    assert set(rows) == set(mms.REAL_LEARNERS)
    assert rows["mms-tuned"] > 0.55


def test_plans_check_datasets():
    with pytest.raises(ValueError, match="not part of mms-artificial"):
        mms.art_plan(datasets=["lost"])
    with pytest.raises(ValueError, match="not part of mms-realworld"):
        mms.real_plan(datasets=["usps"])
    p = mms.art_plan()
    assert p["per_dataset"]["usps"]["splits"] == 3 and len(p["per_dataset"]["usps"]["levels"]) == 9


@needs
def test_cli_reproduce_mms_artificial_quick(tmp_path):
    from click.testing import CliRunner

    from weaklabel.cli import main

    res = CliRunner().invoke(main, ["reproduce", "mms-artificial", "--quick", "--dataset", "satimage", "--out",
                                    str(tmp_path / "a"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "MMS on artificial candidate labeling sets" in res.output
    res = CliRunner().invoke(main, ["reproduce", "mms-artificial", "--quick", "--dataset", "lost", "--out",
                                    str(tmp_path / "b")])
    assert res.exit_code == 2 and "not part of mms-artificial" in res.output


def test_speed_functions_small():
    from weaklabel.experiments import speed

    lines = []
    rows = speed.run_bag_search(M=6, C=40, Ls=(5,), scales=(0.0, 1.0), n_bags=50, out=lines.append)
    assert len(rows) == 2 and all(r["us_fast"] > 0 for r in rows)
    r = speed.run_mms(n=3000, out=lines.append)
    assert r["mms_acc"] > 0.5 and r["ratio"] > 0
    assert any("ratio MMS / LinearSVC time" in line for line in lines)
