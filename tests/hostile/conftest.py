"""The hostile-input harness: the fast profile runs in every suite run; the deep profile
(``pytest -m hostile_deep tests/hostile``) only when asked for."""

import pytest


def pytest_collection_modifyitems(config, items):
    if "hostile_deep" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="the deep profile: pytest -m hostile_deep tests/hostile")
    for item in items:
        if "hostile_deep" in item.keywords:
            item.add_marker(skip)
