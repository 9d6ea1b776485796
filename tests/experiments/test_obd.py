"""The obd reproduction on the staged Open Bandit Dataset sample: the same code path, a
quick slice, with the assertions its published table rests on."""

import numpy as np
import pytest

from weaklabel.datasets import load_obd
from weaklabel.experiments import obd


@pytest.mark.slow
def test_the_logs_load_with_their_propensities_and_positions():
    rnd, bts = load_obd("random", "men"), load_obd("bts", "men")
    assert rnd.n_items == bts.n_items == 34 and rnd.actions.size == bts.actions.size == 10_000
    np.testing.assert_allclose(rnd.propensities, 1 / 34, rtol=1e-3)           # uniform over the items
    assert (bts.propensities > 0).all() and (bts.propensities <= 1).all()
    assert set(np.unique(bts.positions)) == {0, 1, 2} and int(bts.rewards.sum()) == 69
    assert bts.X.shape == (10_000, len(bts.feature_names))
    with pytest.raises(ValueError, match="unknown OBD campaign"):
        load_obd("bts", "kids")


@pytest.mark.slow
def test_the_random_rate_from_the_bts_log_on_men():
    res = obd.campaign_cell({"dataset": "men", "bootstrap": 5, "seed": 0})
    assert res["on_policy"] == pytest.approx(0.0046)
    est = res["estimates"]
    # the published table: every estimate within the two logs' joint interval; IPS 0.00301
    assert all(e["within_joint"] for e in est.values())
    assert est["ips"]["value"] == pytest.approx(0.00301, abs=5e-6)
    assert est["clipped_ips"]["value"] <= est["ips"]["value"] + 1e-12
    assert 0.2 < est["dr_shrinkage"]["relative_error"] < 0.3
    assert res["ess"] > 100 and not res["warnings"]


@pytest.mark.slow
def test_learned_policies_are_estimated_on_the_second_half_with_their_weights_read():
    res = obd.learned_cell({"dataset": "men", "explore": 0.1})
    assert res["clicks_fit"] == 42 and res["clicks_test"] == 27
    for pol in res["policies"].values():
        for est in ("snips", "doubly_robust"):
            assert pol[est]["low"] <= pol[est]["value"] <= pol[est]["high"]
        assert pol["ess"] < 100            # the published table: too small a sample to beat the random logger
        assert not (pol["snips"]["above_random"] or pol["doubly_robust"]["above_random"])


@pytest.mark.slow
def test_the_bts_rate_from_the_random_log_on_men():
    """The other direction: BTS's week-averaged item shares as the target, read off its log."""
    res = obd.reverse_cell({"dataset": "men", "bootstrap": 3, "seed": 0})
    assert res["on_policy"] == pytest.approx(0.0069)
    assert res["unsupported"] == 0.0 and not res["warnings"] and res["ess"] > 2000   # the random log supports every item
    est = res["estimates"]
    assert all(e["covers"] for e in est.values())          # the published table: every interval covers
    assert est["ips"]["value"] == pytest.approx(0.00566, abs=5e-6)
    assert est["clipped_ips"]["value"] == pytest.approx(est["ips"]["value"])   # weights <= 7.5: nothing clipped


def test_position_frequencies_are_each_positions_item_shares():
    F = obd._position_frequencies(np.array([0, 1, 1, 2, 0]), np.array([0, 0, 0, 1, 2]), 3)
    np.testing.assert_allclose(F, [[1 / 3, 2 / 3, 0], [0, 0, 1], [1, 0, 0]])


@pytest.mark.slow
def test_position_by_position_both_directions_on_men():
    res = obd.position_cell({"dataset": "men"})
    assert sorted(res) == [f"{d}|{p}" for d in ("BTS from random", "random from BTS") for p in range(3)]
    assert sum(c["clicks"] for k, c in res.items() if k.startswith("random from")) == 69    # the BTS log's clicks
    # the published table: position 2 of BTS from the random log within 3 %, position 1 missed by all
    assert res["BTS from random|1"]["estimates"]["ips"]["relative_error"] == pytest.approx(0.03, abs=0.005)
    assert not any(e["covers"] for n, e in res["BTS from random|0"]["estimates"].items() if n != "direct_method")
