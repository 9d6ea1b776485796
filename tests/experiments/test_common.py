"""What the reproductions share (experiments/_common.py): grid points and summaries, and the
grids-at-an-edge table, counted by each report from its own choices, gathered by the docs
build into the deviations page, never typed."""

import sys
from pathlib import Path

import pytest

from weaklabel.experiments import registry
from weaklabel.experiments._common import grid_edge_row, grid_edge_table, grid_edges_from_cells, numeric_grid

ROOT = Path(__file__).resolve().parents[2]
STORES = ROOT / "docs" / "reproductions" / "stores"
#: the reproductions that choose hyper-parameters from a grid
WITH_GRIDS = ("partial-labels", "pll-realworld", "cspa-linear", "cspa-kernel", "bandit-sets", "mms-artificial",
              "mms-realworld", "m3n-hmc", "uma-real")


def test_a_row_counts_each_end_and_names_where():
    row = grid_edge_row("r", "L: alpha", [0.1, 1.0, 10.0],
                        [("a", 0.1), ("b", 0.1), ("a", 1.0), ("c", 10.0), ("d", "10.0")])
    assert row == ["r", "L: alpha", "0.1 ... 10 (3 values)", 5, "2 (a, b)", "2 (c, d)"]
    assert grid_edge_row("r", "p", [1.0], [("a", 1.0)]) is None          # one value has no edge
    assert grid_edge_row("r", "p", ["1.0", "balanced", "1000.0"], [("x", "balanced")])[4:] == ["0", "0"]


def test_symbolic_points_have_no_place_at_an_end():
    assert numeric_grid([0.5, "1/(2(K-1))", 0.1, 0.1]) == [0.1, 0.5]


def test_cells_with_a_grid_of_dicts_or_of_values():
    rows = [({"method": "m", "dataset": "d1", "grid": [{"alpha": 0.1, "k": 1}, {"alpha": 1.0, "k": 1}]},
             {"chosen": {"alpha": 0.1, "k": 1}}),
            ({"method": "m", "dataset": "d2", "grid": [{"alpha": 0.1, "k": 1}, {"alpha": 1.0, "k": 1}]},
             {"chosen": {"alpha": 1.0, "k": 1}}),
            ({"method": "svm", "dataset": "d1", "grid": [1.0, 10.0, 100.0]}, {"chosen": {"C": 100.0}}),
            ({"method": "self", "dataset": "d1"}, {"chosen": {"alpha": 3.0}})]      # chooses inside fit: no grid
    out = {r[1]: r for r in grid_edges_from_cells("x", rows)}
    assert set(out) == {"m: alpha", "svm: C"}                          # k has one value: no edge
    assert out["m: alpha"][4:] == ["1 (d1)", "1 (d2)"] and out["svm: C"][4:] == ["0", "1 (d1)"]
    assert grid_edge_table([None, out["svm: C"]]).rows == [out["svm: C"]]


@pytest.mark.slow
@pytest.mark.parametrize("name", WITH_GRIDS)
def test_every_report_with_a_grid_ends_with_its_edges(name, tmp_path):
    snap = STORES / f"{name}.json.gz"
    summary = registry.get(name).run(tmp_path, snapshot=snap)
    table = [t for t in summary.tables if t.name == "grid_edges"]
    assert table and table[0].rows, name
    for row in table[0].rows:
        assert row[0] == name and row[3] > 0


def test_vw_gets_a_grid_over_its_learning_rate_update_rule_and_exploration(tmp_path):
    """Vowpal Wabbit, the peer of the bandit tables, is tuned over as many points as CSPA."""
    from weaklabel.experiments import bandit_sets, cspa

    for grids, ours in ((cspa.LINEAR_GRID, "cspa"), (cspa.KERNEL_GRID, "cspa"), (bandit_sets.GRID, "cspa")):
        vw = grids["vw"]
        assert {"cb_type", "learning_rate", "epsilon"} <= set(vw) and len(vw["epsilon"]) > 1
        assert len(cspa.grid_points(vw)) >= len(cspa.grid_points(grids[ours]))


def test_the_kernel_vw_runs_at_its_own_widths_and_the_others_at_the_plans():
    from weaklabel.experiments import cspa

    class Ctx:
        plan = cspa.kernel_plan(datasets=["vowel"], repeats=1)

        def cell(self, fn, stage, **config):
            return config

    cells = cspa.table_cells(Ctx(), cspa.KERNEL)
    widths = {m: sorted({c["g"] for c in cells if c["method"] == m}) for m in {c["method"] for c in cells}}
    assert widths.pop("vw") == sorted(cspa.KERNEL_GRID["vw"]["g"]) != Ctx.plan["g"]
    assert all(g == Ctx.plan["g"] for g in widths.values())
    assert all("g" not in c["params"] for c in cells)
    n_vw = sum(c["method"] == "vw" for c in cells)
    assert n_vw == len(cspa.grid_points(cspa.KERNEL_GRID["vw"]))


def test_the_docs_build_gathers_every_reports_edges_into_the_deviations_page(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import weaklabel_docs

    docs = tmp_path / "docs"
    (docs / "reproductions" / "stores").mkdir(parents=True)
    for name in ("bandit-sets", "obd"):                       # one with grids, one without
        (docs / "reproductions" / "stores" / f"{name}.json.gz").write_bytes((STORES / f"{name}.json.gz").read_bytes())
    weaklabel_docs.render_snapshots(docs)
    text = (docs / "reproductions" / "generated" / "grid_edges.md").read_text()
    assert "| bandit-sets | CSPA: beta |" in text and "| bandit-sets | VW --cb_explore: learning_rate |" in text
    assert "obd" not in text
    assert "generated/grid_edges.md" in (ROOT / "docs" / "reproductions" / "deviations.md").read_text()


def test_grid_points_are_the_product_in_sorted_key_order_and_summaries_are_plain_numbers():
    from weaklabel.experiments._common import fmt_params, grid_points, make_learner, mean_std

    assert grid_points({"eta": [1, 2], "alpha": [0.1]}) == [{"alpha": 0.1, "eta": 1}, {"alpha": 0.1, "eta": 2}]
    assert grid_points({}) == [{}]
    m, s = mean_std([1.0, 2.0, 3.0])
    assert (m, s) == (2.0, 1.0) and mean_std([4.0]) == (4.0, 0.0)
    assert fmt_params({"eta": 0.5, "rule": "avg"}) == "eta=0.5, rule=avg"
    est = make_learner("avg-pegasos", {"alpha": 0.01})
    assert est.get_params()["alpha"] == 0.01 and est.get_params()["max_iter"] == 1       # the papers' one pass

