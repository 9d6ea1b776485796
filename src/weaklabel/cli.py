"""The ``weaklabel`` command."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import click

class _ExperimentChoice(click.Choice):
    """The registered experiments, read when the command runs (so one registered later,
    e.g. by a test or a plug-in, is a valid choice too)."""

    def __init__(self):
        super().__init__([])

    @property
    def choices(self):
        from .experiments import registry

        return tuple(registry.names())

    @choices.setter
    def choices(self, value):
        pass


class _Group(click.Group):
    """Turn expected errors into one line on stderr and exit code 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:          # e.g. `weaklabel predict ... | head`
            sys.stderr.close()
            sys.exit(0)
        except MemoryError:
            click.echo("weaklabel: error: not enough memory for this input (a feature index far beyond the data? "
                       "see --n-features).", err=True)
            sys.exit(2)
        except (ValueError, TypeError, FileNotFoundError, KeyError, OSError, ArithmeticError, sqlite3.Error) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            click.echo(f"weaklabel: error: {msg}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="weaklabel")
def main():
    """weaklabel: train classifiers from weak supervision.

    Data is read from $WEAKLABEL_DATA (default: ../shared/data beside the repository).
    """


@main.command()
def datasets():
    """List the registered datasets: shape, classes and whether they are available."""
    from . import datasets as ds

    click.echo(f"data folder: {ds.data_dir()}")
    click.echo(f"{'name':12s} {'available':9s} {'shape (train[+test] x features, classes)':44s} description")
    for name in ds.list_datasets():
        spec = ds.REGISTRY[name]
        ok = ds.available(name)
        click.echo(f"{name:12s} {'yes' if ok else 'NO':9s} {spec.shape:44s} {spec.description}")


@main.command()
@click.argument("name", type=_ExperimentChoice())
@click.option("--quick", is_flag=True, help="A small slice (under a minute) writing the same kinds of files.")
@click.option("--repeats", type=click.IntRange(min=1), default=None,
              help="How many repeats, splits or runs (each reproduction's own default; see its report).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="1 runs serially; N > 1 starts a local Dask cluster of N worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the cells on a running Dask scheduler (e.g. tcp://10.0.0.5:8786) instead.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder (default: results/NAME[-quick]). Holds results.sqlite, report.md, CSV and PNGs.")
@click.option("--dataset", "datasets_", multiple=True,
              help="Only these datasets (repeatable; rejected by reproductions without a choice of datasets).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def reproduce(name, quick, repeats, jobs, scheduler, out, datasets_, no_progress):
    """Run (or resume) a paper reproduction and write its tables and plots.

    Finished cells are kept in OUT/results.sqlite: rerunning skips them, so a killed
    run resumes where it stopped. Only this process writes the store, also when the
    cells run on Dask workers; a cell whose worker dies is rerun on another.
    """
    from .experiments import registry
    from .experiments.html import versions
    from .experiments.store import ResultStore

    exp = registry.get(name)
    if scheduler is not None:
        if jobs != 1:
            raise ValueError("--jobs starts a local cluster and --scheduler uses a running one; pass one of them.")
        _check_scheduler(scheduler)
    out = Path(out) if out else Path("results") / (name + ("-quick" if quick else ""))
    summary = exp.run(out, quick=quick, repeats=repeats, jobs=jobs, scheduler=scheduler, progress=not no_progress,
                      datasets=list(datasets_) or None)
    with ResultStore(out / "results.sqlite") as store:        # what produced this store
        cmd = ["weaklabel", "reproduce", name] + (["--quick"] if quick else []) + \
            (["--repeats", str(repeats)] if repeats else []) + (["--jobs", str(jobs)] if jobs != 1 else []) + \
            (["--scheduler", scheduler] if scheduler else []) + ["--out", str(out)] + \
            [a for d in datasets_ for a in ("--dataset", d)]
        store.log_run(" ".join(cmd), versions())
    click.echo(f"report: {summary.report}")
    click.echo(summary.report.read_text())


def _parse_params(items):
    params = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--param must look like key=value; got {item!r}.")
        k, v = item.split("=", 1)
        for conv in (int, float):
            try:
                v = conv(v)
                break
            except ValueError:
                continue
        else:
            if v.lower() in ("true", "false"):
                v = v.lower() == "true"
            elif v.lower() == "none":
                v = None
        params[k.strip()] = v
    return params


def _check_scheduler(address):
    """A Dask scheduler address the runner can reach: SCHEME://HOST:PORT with a TCP-like scheme
    and a port in 1..65535 (checked before any connection is tried)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"--scheduler {address!r} is not an address ({exc}); use tcp://HOST:PORT.") from None
    if parts.scheme not in ("tcp", "tls", "ucx") or not parts.hostname or port is None or not 0 < port < 65536:
        raise ValueError(f"--scheduler must look like tcp://HOST:PORT with a port in 1..65535; got {address!r}.")


def _read_svm(path, n_features=None):
    from .labels import load_candidate_svmlight

    return load_candidate_svmlight(path, n_features=n_features)


class _PresetChoice(click.Choice):
    """The learner presets, read when the command runs (importing them loads the learners)."""

    def __init__(self):
        super().__init__([])

    @property
    def choices(self):
        from .presets import names

        return tuple(names())

    @choices.setter
    def choices(self, value):
        pass


@main.command()
@click.option("--method", required=True, type=_PresetChoice(),
              help="A learner preset (weaklabel.presets): candidate-set learners take the file's label sets; "
                   "bandit learners take exact labels as the oracle of their own proposals.")
@click.option("--train", "train", required=True, type=click.Path(dir_okay=False),
              help='svmlight file; labels may be candidate sets: "2,5 1:0.3 7:1.0".')
@click.option("--param", "params", multiple=True, help="Estimator parameter key=value (repeatable), e.g. alpha=0.01.")
@click.option("--model", required=True, type=click.Path(dir_okay=False), help="Where to write the model (.npz).")
@click.option("--n-features", type=click.IntRange(min=1), default=None,
              help="The number of features, when the file's largest index is far beyond its data (otherwise such "
                   "an index is refused, before any allocation).")
def fit(method, train, params, model, n_features):
    """Train a learner on an svmlight file and save it."""
    from .presets import get

    preset = get(method)
    est = preset.make(**_parse_params(params))
    X, S = _read_svm(train, n_features=n_features)
    if (preset.exact_labels or preset.kind == "bandit") and (S.sizes > 1).any():
        raise ValueError(f"{method} needs exact labels, but {train} has candidate sets with several labels.")
    if preset.kind == "bandit":
        est.fit(X, S.classes_[S.mask.argmax(axis=1)])
    else:
        est.fit(X, S)
    est.save(model)
    click.echo(f"trained {type(est).__name__} on {X.shape[0]} samples x {X.shape[1]} features, "
               f"{len(est.classes_)} classes; model written to {model}")


@main.command()
@click.option("--model", required=True, type=click.Path(dir_okay=False, exists=False))
@click.option("--data", required=True, type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write predictions here (one per line).")
def predict(model, data, out):
    """Predict labels for an svmlight file (labels in the file are ignored)."""
    from . import load

    est = load(model)
    X, _ = _read_svm(data, n_features=est.n_features_in_)
    pred = est.predict(X)
    text = "\n".join(str(v) for v in pred.tolist()) + "\n"
    if out:
        Path(out).write_text(text)
        click.echo(f"{pred.size} predictions written to {out}")
    else:
        click.echo(text, nl=False)


@main.command()
@click.option("--model", required=True, type=click.Path(dir_okay=False))
@click.option("--data", required=True, type=click.Path(dir_okay=False))
def evaluate(model, data):
    """Score a model on an svmlight file: accuracy (exact labels) or ambiguous 0-1 loss (candidate sets)."""
    from . import load
    from .metrics import ambiguous_zero_one_loss

    est = load(model)
    X, S = _read_svm(data, n_features=est.n_features_in_)
    pred = est.predict(X)
    amb = ambiguous_zero_one_loss(S, pred)
    click.echo(f"samples: {X.shape[0]}")
    if (S.sizes == 1).all():
        click.echo(f"accuracy: {1.0 - amb:.4f}")
    else:
        click.echo(f"ambiguous 0-1 loss: {amb:.4f}  (mean candidate set size {S.sizes.mean():.2f})")


@main.command()
@click.argument("name_or_store")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Folder of an earlier reproduce run: rewrite its report.md, CSV and PNGs.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None,
              help="Write one self-contained HTML page (tables, embedded plots, commands, versions).")
def report(name_or_store, out, html_out):
    """Re-render a run's report, or write it as one HTML page.

    \b
    weaklabel report NAME --out DIR          rewrite DIR's tables and plots from DIR/results.sqlite
    weaklabel report STORE --html OUT.html   one page for a results.sqlite (or its folder)
    """
    if html_out is None and out is None:
        raise ValueError("pass --out DIR (re-render a reproduction) or --html OUT.html (one page for a store).")
    if out is not None:
        from .experiments import registry

        exp = registry.get(name_or_store)
        if not (Path(out) / "results.sqlite").exists():
            raise FileNotFoundError(f"no results.sqlite in {out}; run `weaklabel reproduce {name_or_store} --out "
                                    f"{out}` first.")
        summary = exp.run(out, progress=False, execute=False)
        click.echo(f"report: {summary.report}")
    if html_out is not None:
        from .experiments.html import write_html

        store = Path(out) if (out is not None and not Path(name_or_store).exists()) else Path(name_or_store)
        page = write_html(store, html_out)
        click.echo(f"html: {page}")


@main.command()
@click.option("--suite", type=click.Choice(["partial", "bandit", "bags"]), default="partial", show_default=True,
              help="partial: candidate-label learners vs scikit-learn's Perceptron; bandit: bandit learners vs "
                   "scikit-learn's PA-1 SGD pass and Vowpal Wabbit --cbify; bags: MMS's exact search on bags "
                   "of 10 over 200 classes, and MMS on 100,000 instances vs LinearSVC(crammer_singer).")
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--dataset", "datasets_", multiple=True, help="usps and/or sector (default both).")
def speed(suite, repeats, datasets_):
    """Speed: one pass of each learner beside its peers, measured side by side (ratios)."""
    from .experiments import speed

    names = tuple(datasets_) or ("usps", "sector")
    if suite == "bags":
        speed.run_bag_search(out=click.echo)
        speed.run_mms(out=click.echo)
        return
    if suite == "bandit":
        rows = speed.run_bandit(names, repeats=repeats, out=click.echo)
        worst = min(rows, key=lambda r: r["vs_sklearn"])
        click.echo(f"slowest vs scikit-learn: {worst['method']} on {worst['dataset']} at {worst['vs_sklearn']:.2f}x")
        return
    rows = speed.run(names, repeats=repeats, out=click.echo)
    worst = min(rows, key=lambda r: r["ratio"])
    click.echo(f"slowest: {worst['method']} on {worst['dataset']} at {worst['ratio']:.2f}x scikit-learn")


if __name__ == "__main__":  # pragma: no cover
    main()
