"""Small slices of the m3n-hmc reproduction: the same code path as `weaklabel reproduce m3n-hmc`,
asserting on the numbers its summary holds."""

import pytest


@pytest.mark.slow
def test_m3n_hmc_quick_slice(tmp_path):
    from weaklabel.experiments import m3n_hmc

    summary = m3n_hmc.run(tmp_path, quick=True, progress=False)
    assert "Bayes rule of the Hamming loss" in summary.intro
    assert (tmp_path / "figure1.png").stat().st_size > 5000
    results = summary.table("results")
    mil = results.where(method="milm3n")
    assert len(mil) == 4                                   # m in {20, 60} x missing rate in {0, 0.5}
    # the authors' chain (issue 17): reading the symbol errs about 30 %, the Bayes rule 20 %
    assert "0.7 to stay and 0.7 to emit" in summary.intro
    err = {(r["missing_rate"], r["m"]): r["test_error"] for r in mil}
    assert all(e < 29 for e in err.values())               # structure learned, also from half the labels
    assert err[(0.0, 60)] < 23 and err[(0.5, 60)] < err[(0.5, 20)] - 2
    # the ramp-loss CCCP baseline trails MIL-M3N with half the labels missing (the paper's finding)
    assert results.value("test_error", method="cccp", missing_rate=0.5, m=60) > err[(0.5, 60)] + 5
    with pytest.raises(ValueError, match="one chain at a time"):
        m3n_hmc.plan(datasets=("chain-0.7", "chain-0.5"))
    assert m3n_hmc.plan()["chain"] == "chain-0.7"


def test_m3n_hmc_wider_lambdas_win_only_on_a_strictly_lower_validation_error():
    from weaklabel.experiments.m3n_hmc import _merge_wide

    def res(lam, val, test):
        return {"milm3n": {"lambda": lam, "val_error": val, "test_error": test}}

    a = {"m": 10, "rate": 0.5, "repeat": 0}
    b = {"m": 10, "rate": 0.5, "repeat": 1}
    c = {"m": 10, "rate": 0.0, "repeat": 0}
    fits = [(a, res(100.0, {"10.0": 0.3, "100.0": 0.25}, 0.26)), (b, res(100.0, {"100.0": 0.25}, 0.27)),
            (c, res(10.0, {"10.0": 0.2}, 0.21))]
    wide = [(a, res(1000.0, {"1000.0": 0.24, "10000.0": 0.3}, 0.22)), (b, res(1000.0, {"1000.0": 0.25}, 0.5))]
    out = {(cfg["repeat"], cfg["rate"]): r["milm3n"] for cfg, r in _merge_wide(fits, wide)}
    assert out[(0, 0.5)]["lambda"] == 1000.0 and out[(0, 0.5)]["test_error"] == 0.22
    assert set(out[(0, 0.5)]["val_error"]) == {"10.0", "100.0", "1000.0", "10000.0"}
    assert out[(1, 0.5)]["lambda"] == 100.0 and out[(1, 0.5)]["test_error"] == 0.27   # a tie keeps the grid's
    assert out[(0, 0.0)]["lambda"] == 10.0
