"""Named learner presets (presets.py): the registry, the papers' protocol and parameters on top."""

import pytest

from weaklabel import presets


@pytest.mark.parametrize("name", presets.names("partial") + presets.names("bandit"))
def test_paper_preset_is_one_pass_in_order(name):
    est = presets.make(name, paper=True)
    assert est.get_params()["max_iter"] == 1 and est.get_params()["shuffle"] is False
    assert presets.make(name, paper=True, max_iter=3).get_params()["max_iter"] == 3   # an explicit value wins
    default = presets.make(name)
    assert default.get_params()["max_iter"] == 20 and default.get_params()["shuffle"] is True
    if "average" in default.get_params():
        assert default.get_params()["average"] is True and est.get_params()["average"] is False


def test_every_preset_makes_a_fresh_estimator_of_its_kind_with_its_own_parameters():
    from sklearn.base import clone

    for name in presets.names():
        p = presets.get(name)
        est = presets.make(name)
        assert est is not presets.make(name)                        # a new estimator each time
        assert clone(est).get_params() == est.get_params()
        assert presets.names(p.kind).count(name) == 1
    assert presets.make("bpa-m0").get_params()["correct_margin"] == 0
    assert set(presets.names()) == set().union(*(presets.names(k) for k in presets.INPUTS))


def test_an_unknown_preset_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown learner 'nope'; choose from .*avg-perceptron"):
        presets.get("nope")
