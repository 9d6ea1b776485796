"""The benchmark scripts' own logic (their measurements run outside the suite)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def side_by_side():
    return _script("online_side_by_side")


def test_median_interval_holds_the_median_and_narrows_with_rounds(side_by_side):
    rng = np.random.default_rng(1)
    few, many = 1.0 + 0.1 * rng.standard_normal(20), 1.0 + 0.1 * rng.standard_normal(200)
    for ratios in (few, many):
        med, lo, hi = side_by_side.median_interval(ratios)
        assert med == np.median(ratios) and lo <= med <= hi
    assert np.ptp(side_by_side.median_interval(many)[1:]) < np.ptp(side_by_side.median_interval(few)[1:])


@pytest.mark.parametrize("interval, at_least, at_most, expected", [
    ((1.00, 0.95, 1.05), 0.9, None, "met"), ((0.92, 0.88, 0.96), 0.9, None, "undecided"),
    ((0.80, 0.75, 0.85), 0.9, None, "missed"), ((1.10, 1.02, 1.18), None, 1.2, "met"),
    ((1.18, 1.12, 1.25), None, 1.2, "undecided"), ((1.30, 1.25, 1.35), None, 1.2, "missed")])
def test_a_target_is_met_only_when_the_whole_interval_is_on_its_side(side_by_side, interval, at_least, at_most,
                                                                     expected):
    assert side_by_side.verdict(interval, at_least=at_least, at_most=at_most) == expected


def test_the_tables_judge_paired_rounds(side_by_side, capsys):
    """Both sides equal in every round: every target met, whatever the machine did between
    rounds; the 'now' side's passes twice as slow and its chunks four times: both missed."""
    names = [name for name, _, _ in side_by_side.LEARNERS]
    keys = [f"{n}|{f}" for n in names for f in side_by_side.FORMS]
    drift = np.linspace(1.0, 1.8, 12)                      # a machine slowing down over the run
    earlier = {k: list(drift * 0.01) for k in keys} | {f"{n}|chunks": list(drift * 0.014) for n in names}
    assert side_by_side.table({"earlier": earlier, "now": earlier}) == {}
    now = {k: [2 * t for t in v] for k, v in earlier.items()} | {f"{n}|chunks": [4 * t for t in earlier[f"{n}|chunks"]]
                                                                  for n in names}
    assert set(side_by_side.table({"earlier": earlier, "now": now}).values()) == {"missed"}
    assert "every learner meets both targets" in capsys.readouterr().out


def test_online_limits_takes_each_timing_at_its_best_round():
    """Every timing is the best of its rounds and every ratio is made from those bests."""
    best_of = _script("online_limits").best_of
    rounds = [[{"what": "AvgPegasos", "form": "dense float64", "rows": 100, "seconds": 2.0, "xw_seconds": 1.0,
                "sk_seconds": 8.0},
               {"what": "AvgPegasos", "form": "partial_fit 100", "rows": 100, "seconds": 3.0, "pass_seconds": 2.0},
               {"what": "Confidit (full)", "form": "partial_fit 1", "rows": 100, "seconds": 6.0, "pass_seconds": 2.0,
                "copy_seconds": 4.0}],
              [{"what": "AvgPegasos", "form": "dense float64", "rows": 100, "seconds": 1.0, "xw_seconds": 1.5,
                "sk_seconds": 9.0},
               {"what": "AvgPegasos", "form": "partial_fit 100", "rows": 100, "seconds": 4.0, "pass_seconds": 1.5},
               {"what": "Confidit (full)", "form": "partial_fit 1", "rows": 100, "seconds": 5.0, "pass_seconds": 2.5,
                "copy_seconds": 3.0}]]
    rows = {(r["what"], r["form"]): r for r in best_of(rounds)}
    dense = rows["AvgPegasos", "dense float64"]
    assert dense == {"what": "AvgPegasos", "form": "dense float64", "rows_per_s": 100.0, "xw_ratio": 1.0,
                     "sk_ratio": 8.0}
    assert rows["AvgPegasos", "partial_fit 100"]["fit_ratio"] == 2.0
    full = rows["Confidit (full)", "partial_fit 1"]
    assert full["fit_ratio"] == 2.5 and full["copy_ratio"] == 4.0
