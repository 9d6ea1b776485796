"""The one registry of experiments, read by the command line, ``report`` and the tests.

Every module of :mod:`weaklabel.experiments` that defines ``EXPERIMENTS`` (a list of
:class:`~weaklabel.experiments.engine.Experiment`) is found and registered on first use,
so a new reproduction is one new module and nothing else.  Tests and user code may
also :func:`register` an experiment directly.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["register", "unregister", "get", "names"]

_EXPERIMENTS = {}
_discovered = False

# the engine's own modules, which hold no experiment
_INFRASTRUCTURE = {"engine", "registry", "runner", "store", "html", "results", "render", "snapshot"}


def _discover():
    global _discovered
    if _discovered:
        return
    from .. import experiments as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or info.name in _INFRASTRUCTURE:
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for exp in getattr(module, "EXPERIMENTS", ()):
            _EXPERIMENTS.setdefault(exp.name, exp)
    _discovered = True


def register(experiment):
    """Add an experiment to the registry, replacing one of the same name.

    Parameters
    ----------
    experiment : Experiment
        The experiment.

    Returns
    -------
    Experiment
        The same experiment.
    """
    _discover()
    _EXPERIMENTS[experiment.name] = experiment
    return experiment


def unregister(name):
    """Remove an experiment from the registry (for tests that add a temporary one).

    Parameters
    ----------
    name : str
        Its name; an unknown name is ignored.
    """
    _discover()
    _EXPERIMENTS.pop(name, None)


def names():
    """Return the registered experiment names, in registration order.

    Returns
    -------
    list of str
        The names ``weaklabel reproduce`` accepts.
    """
    _discover()
    return list(_EXPERIMENTS)


def get(name):
    """Return the experiment called ``name``.

    Parameters
    ----------
    name : str
        Its name.

    Returns
    -------
    Experiment
        The experiment.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).
    """
    _discover()
    if name not in _EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose from {', '.join(_EXPERIMENTS)}.")
    return _EXPERIMENTS[name]
