"""Optional packages (_extras.py): the learners import and fit without any of them, and a missing
one is named with its extra."""

import json

import pytest

from tests.test_architecture import _run


@pytest.fixture(scope="module")
def without_extras():
    """One interpreter without the optional packages (each start imports scikit-learn and
    numba, some 3 s): the learners fit there, then the errors naming a missing extra are
    collected.  Each part's outcome (or its error) is one field of the printed JSON, so a
    failing part fails its own test only."""
    proc = _run("""
        import json
        out = {}
        def fits():
            import numpy as np
            import weaklabel
            from weaklabel import bags, bandit, distributed, metrics, noisy, partial, simulate, structured
            from weaklabel.datasets import load
            d = load("digits")
            X, y = d.X_train[:300], d.y_train[:300]
            S = simulate.make_candidate_sets(y, set_size=2, random_state=0)
            for est in (partial.AvgPegasos(alpha=0.01), bandit.CSPA(), noisy.UMA("identity", max_iter=50)):
                est.fit(X, S if isinstance(est, partial.AvgPegasos) else y)
                assert est.predict(X).shape == (300,)
            return sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        def missing_extras():
            from weaklabel.datasets import load
            lines = []
            try:
                load("usps", cache=False)
            except ImportError as exc:
                lines.append(str(exc))
            from weaklabel.distributed import fit_parameter_mixing
            from weaklabel.partial import AvgPerceptron
            try:
                fit_parameter_mixing(AvgPerceptron(), object(), object(), client=None)
            except ImportError as exc:
                lines.append(str(exc))
            return lines
        for name, part in (("fits", fits), ("missing_extras", missing_extras)):
            try:
                out[name] = part()
            except Exception as exc:
                out[name] = "error: " + repr(exc)
        print(json.dumps(out))
    """)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_every_learner_imports_and_fits_without_extras(without_extras):
    assert without_extras["fits"] == []             # none of the blocked packages was imported


@pytest.mark.data("usps")
def test_missing_extra_is_named(without_extras):
    lines = without_extras["missing_extras"]
    assert isinstance(lines, list), lines
    assert 'pip install "weaklabel[hdf5]"' in lines[0]
    assert 'pip install "weaklabel[dask]"' in lines[1]
