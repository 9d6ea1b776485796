"""numpydoc validation of every public object of weaklabel, found by walking the package.

A module is public when no part of its dotted name starts with an underscore; its public
objects are the names of its ``__all__`` (or, without one, the classes and functions it
defines whose names do not start with an underscore), and a public class's public
methods and properties, wherever in weaklabel they are defined.  Each object is validated
once, under the module that defines it.
"""

import importlib
import inspect
import pkgutil
import warnings

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import weaklabel  # noqa: E402

# The checks we do not hold ourselves to (five, as skglm's gate): a See Also section, an
# Examples section and an extended summary on every object; the "type only" first line of
# a single return (we name returns, ``score : float``, as scikit-learn does); a summary
# that fits on one line.
IGNORE = {"SA01", "EX01", "ES01", "RT02", "SS06"}


def _private(dotted):
    return any(part.startswith("_") for part in dotted.split(".")[1:])


def public_objects():
    """Dotted names of every public class, function, method and property of weaklabel."""
    names = set()
    for info in pkgutil.walk_packages(weaklabel.__path__, "weaklabel."):
        if _private(info.name):
            continue
        module = importlib.import_module(info.name)
        exported = getattr(module, "__all__", None)
        if exported is None:
            exported = [n for n, v in vars(module).items() if not n.startswith("_")
                        and (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == module.__name__]
        for n in exported:
            obj = getattr(module, n)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue                        # constants and data
            if not getattr(obj, "__module__", "").startswith("weaklabel"):
                continue
            canonical = f"{obj.__module__}.{obj.__qualname__}"
            full = canonical if not _private(canonical) else f"{info.name}.{n}"
            names.add(full)
            if not inspect.isclass(obj):
                continue
            for attr in dir(obj):
                if attr.startswith("_"):
                    continue
                value = inspect.getattr_static(obj, attr)
                if not (inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))):
                    continue
                owner = next(c for c in obj.__mro__ if attr in vars(c))
                if owner.__module__.startswith("weaklabel"):
                    names.add(f"{full}.{attr}")
    return sorted(names)


def test_the_discovery_finds_the_public_api():
    names = public_objects()
    assert len(names) > 400, f"only {len(names)} public objects found: is the discovery broken?"
    for expected in ("weaklabel.partial.AvgPegasos.fit", "weaklabel.sources.DawidSkene.predict_proba",
                     "weaklabel.metrics.candidate_log_loss", "weaklabel.experiments.engine.Experiment.run",
                     "weaklabel.bandit.evaluation.Estimate.interval", "weaklabel.structured.solvers.bcfw"):
        assert expected in names, expected


@pytest.mark.slow
def test_every_public_object_passes_numpydoc_validation():
    failures = []
    for name in public_objects():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")             # deprecated classes warn when inspected
            result = numpydoc_validate.validate(name)
        failures += [f"{name}: {code} {msg}" for code, msg in result["errors"] if code not in IGNORE]
    assert not failures, f"{len(failures)} numpydoc findings:\n" + "\n".join(failures[:60])
