"""The toy experiment the engine's tests register (a fixture), and its cell."""

import numpy as np
import pytest

from weaklabel.experiments import registry
from weaklabel.experiments.engine import Experiment, Figure, MeanStd, Series, Summary, Table


def toy_cell(config):
    """Module level, so it also runs on Dask workers."""
    rng = np.random.RandomState(config["seed"])
    return {"value": float(config["scale"] * rng.standard_normal())}


def _plan(quick, repeats, datasets):
    return {"repeats": repeats or (3 if quick else 20), "scale": 2.0}


def _execute(ctx):
    return ctx.run([ctx.cell(toy_cell, seed=s, scale=ctx.plan["scale"]) for s in range(ctx.plan["repeats"])])


def _summarize(ctx, rows):
    values = [r["value"] for _, r in rows]
    table = Table("values", "Values", ["seed", "value"], [[c["seed"], r["value"]] for c, r in rows],
                  formats={"value": ".4f"})
    mean = Table("mean", "Mean", ["n", "value"], [[len(values), MeanStd(float(np.mean(values)),
                                                                          float(np.std(values)))]],
                 formats={"value": ".3f"})
    fig = Figure("values", "Values by seed", [Series("value", [c["seed"] for c, _ in rows], values)],
                 xlabel="seed", ylabel="value")
    return Summary("A toy experiment", "Draws of a scaled normal.", [table, mean], [fig])


@pytest.fixture
def toy():
    exp = registry.register(Experiment("toy", "A toy experiment", _plan, _execute, _summarize))
    yield exp
    registry.unregister("toy")
