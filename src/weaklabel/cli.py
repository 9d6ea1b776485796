"""The ``weaklabel`` command."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import click

#: the most repeats a command takes: a plan's cells are made before any runs
MAX_REPEATS = 1000
#: the most local worker processes ``reproduce --jobs`` starts (a cluster: ``--scheduler``)
MAX_JOBS = 4 * (os.cpu_count() or 1)


class _ExperimentChoice(click.Choice):
    """The registered experiments, read when the command runs (so one registered later,
    e.g. by a test or a plug-in, is a valid choice too).
    """

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
@click.option("--repeats", type=click.IntRange(min=1, max=MAX_REPEATS), default=None,
              help="How many repeats, splits or runs (each reproduction's own default; see its report).")
@click.option("--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=1, show_default=True,
              help="1 runs serially; N > 1 starts a local Dask cluster of N worker processes (at most four per "
                   "core; --scheduler for more).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the cells on a running Dask scheduler (e.g. tcp://10.0.0.5:8786) instead.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder (default: results/NAME[-quick]). Holds results.sqlite, report.md, CSV and PNGs.")
@click.option("--dataset", "datasets_", multiple=True,
              help="Only these datasets (repeatable; rejected by reproductions without a choice of datasets).")
@click.option("--unlabelled-givens", is_flag=True,
              help="visual-sudoku only: add the setting with no label on any given cell (the same as --dataset "
                   "labelled-givens --dataset unlabelled-givens).")
@click.option("--from-snapshot", "seed", type=click.Path(dir_okay=False, exists=True), default=None,
              metavar="FILE", help="First copy this snapshot's rows (e.g. docs/reproductions/stores/NAME.json.gz) "
                                   "into the store, so that only the cells it lacks are computed.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def reproduce(name, quick, repeats, jobs, scheduler, out, datasets_, unlabelled_givens, seed, no_progress):
    """Run (or resume) a paper reproduction and write its tables and plots.

    Finished cells are kept in OUT/results.sqlite: rerunning skips them, so a killed
    run resumes where it stopped. Only this process writes the store, also when the
    cells run on Dask workers; a cell whose worker dies is rerun on another.
    """
    from .experiments import registry
    from .experiments.html import versions
    from .experiments.store import ResultStore

    exp = registry.get(name)
    if unlabelled_givens:
        if name != "visual-sudoku":
            raise ValueError(f"--unlabelled-givens applies to visual-sudoku only; got {name!r}.")
        datasets_ = tuple(dict.fromkeys((*(datasets_ or ("labelled-givens",)), "unlabelled-givens")))
    if scheduler is not None:
        if jobs != 1:
            raise ValueError("--jobs starts a local cluster and --scheduler uses a running one; pass one of them.")
        _check_scheduler(scheduler)
    out = Path(out) if out else Path("results") / (name + ("-quick" if quick else ""))
    summary = exp.run(out, quick=quick, repeats=repeats, jobs=jobs, scheduler=scheduler, progress=not no_progress,
                      datasets=list(datasets_) or None, seed=seed)
    with ResultStore(out / "results.sqlite") as store:        # what produced this store
        cmd = ["weaklabel", "reproduce", name] + (["--quick"] if quick else []) + \
            (["--repeats", str(repeats)] if repeats else []) + (["--jobs", str(jobs)] if jobs != 1 else []) + \
            (["--scheduler", scheduler] if scheduler else []) + ["--out", str(out)] + \
            [a for d in datasets_ for a in ("--dataset", d)] + (["--from-snapshot", str(seed)] if seed else [])
        store.log_run(" ".join(cmd), versions())
    click.echo(_short_summary(summary))
    click.echo(f"\nThe whole report ({len(summary.tables)} tables, {len(summary.figures)} figures): {summary.report}")


def _short_summary(summary):
    """What a terminal shows after a run: the title and the first table, not the whole
    report (which can run to hundreds of lines).
    """
    from .experiments.render import table_markdown

    parts = [summary.title]
    if summary.tables:
        parts.append(table_markdown(summary.tables[0]))
    return "\n\n".join(parts)


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
    and a port in 1..65535 (checked before any connection is tried).
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"--scheduler {address!r} is not an address ({exc}); use tcp://HOST:PORT.") from None
    if parts.scheme not in ("tcp", "tls", "ucx") or not parts.hostname or port is None or not 0 < port < 65536:
        raise ValueError(f"--scheduler must look like tcp://HOST:PORT with a port in 1..65535; got {address!r}.")


_BASES = {"auto": "auto", "0": True, "1": False}


def _read_svm(path, n_features=None, index_base="auto"):
    from .labels import load_candidate_svmlight

    return load_candidate_svmlight(path, n_features=n_features, zero_based=_BASES[index_base])


def _read_svm_for(est, model, path, index_base, pad):
    """An svmlight file for a fitted model: its feature count must be the model's. A file
    whose largest index is below it is refused unless ``pad`` (its last features zero).
    """
    expected = _flat_model(est, model, path)
    X, S = _read_svm(path, index_base=index_base)
    if X.shape[1] > expected:
        raise ValueError(f"{path} has {X.shape[1]} features but {model} was trained on {expected}; wrong file or "
                         "a shifted index base (--index-base 0 or 1).")
    if X.shape[1] < expected:
        if not pad:
            raise ValueError(f"{path} has {X.shape[1]} features but {model} was trained on {expected}. If the file's "
                             "last features are zero on every line, pass --pad; if its indices start at another "
                             "base than the training file's, pass --index-base 0 or 1.")
        if index_base == "auto" and not _uses_index_zero(path):
            # a 0-based file without feature 0 reads as 1-based, every feature shifted by one, and
            # padding would hide it: the base must be said
            raise ValueError(f"{path} never uses feature index 0, so --index-base auto reads it 1-based; padded to "
                             f"{model}'s {expected} features, a 0-based file would be read shifted by one feature. "
                             "Pass --index-base 0 or 1 with --pad.")
        import scipy.sparse as sp

        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], expected))
    return X, S


def _uses_index_zero(path):
    """Whether an svmlight file names feature 0 (what scikit-learn's "auto" reads as 0-based)."""
    from .labels import load_candidate_svmlight

    X, _ = load_candidate_svmlight(path, zero_based=True)
    return bool(X.nnz) and int(X.indices.min()) == 0


_INDEX_BASE_HELP = ("Feature indices of the svmlight file: 0-based (scikit-learn's dump_svmlight_file), 1-based "
                    "(LIBSVM), or auto: 0-based if the file uses index 0, else 1-based.")


def _flat_model(est, model, data):
    """The model's feature count for an svmlight file; a structured model (which reads
    examples of nodes, not rows) is one clear error instead of an AttributeError.
    """
    if type(est).__module__.startswith("weaklabel.sources"):
        raise ValueError(f"{model} holds a {type(est).__name__}, a label model: it predicts from the votes of "
                         f"{est.n_sources_} sources, not from features, so the command line does not run it; in "
                         f"Python, weaklabel.load({str(model)!r}).predict(L) with L the votes.")
    if type(est).__module__.startswith("weaklabel.structured") or not hasattr(est, "n_features_in_"):
        raise ValueError(f"{model} holds a {type(est).__name__}, which labels the nodes of structured examples: "
                         f"give --data an .npz of X (and Y to evaluate), as `weaklabel fit --graph` reads, not the "
                         f"svmlight file {data}.")
    return est.n_features_in_


def _method_help():
    # plain text: listing the presets here would import every learner just to print --help
    return ("A learner preset of weaklabel.presets (`weaklabel fit --list` shows each with its input). Inputs by kind: "
            "candidate-set learners read svmlight label sets; bandit learners exact labels as their oracle; "
            "uma / label-a-little (noisy) labels; mms / cl-svm candidate sets or --bags; the M3N learners an .npz "
            "of X and Y with --graph.")


@main.command()
@click.option("--method", default=None, metavar="NAME", help=_method_help())
@click.option("--train", "train", type=click.Path(dir_okay=False), default=None,
              help='svmlight file (labels may be candidate sets: "2,5 1:0.3 7:1.0"), or .npz for the M3N learners.')
@click.option("--param", "params", multiple=True, help="Estimator parameter key=value (repeatable), e.g. alpha=0.01.")
@click.option("--model", type=click.Path(dir_okay=False), default=None, help="Where to write the model (.npz).")
@click.option("--n-features", type=click.IntRange(min=1), default=None,
              help="The number of features, when the file's largest index is far beyond its data (otherwise such "
                   "an index is refused, before any allocation).")
@click.option("--confusion", type=click.Path(dir_okay=False, exists=True), default=None,
              help="uma, corrected-logistic: the confusion matrix C[p, q] = P(noisy p | true q), a text file "
                   "(np.loadtxt) or .npy.")
@click.option("--bags", "bags_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help='mms / cl-svm: a JSON file {"bag_of": [...], "labelings": [[[...], ...], ...]} (the file\'s '
                   "labels are then ignored).")
@click.option("--graph", default=None, help="M3N learners: chain, sudoku or grid:HxW.")
@click.option("--progress", "progress_every", type=click.IntRange(min=1), default=None, metavar="N",
              help="Online learners: learn the file once in its order (partial_fit) and print the progressive "
                   "validation loss every N rows, as Vowpal Wabbit does, instead of the default fit.")
@click.option("--list", "list_", is_flag=True, help="List the learner presets with what each reads, and exit.")
@click.option("--index-base", type=click.Choice(["auto", "0", "1"]), default="auto", show_default=True,
              help=_INDEX_BASE_HELP)
@click.option("--scale", type=click.Choice(["none", "maxabs", "std"]), default="none", show_default=True,
              help="Divide each feature by its largest absolute value (maxabs) or its standard deviation (std) on "
                   "the training file, before the learner; the scales are saved in the model, so predict and "
                   "evaluate apply them. Neither centres, so sparse files stay sparse.")
def fit(method, train, params, model, n_features, confusion, bags_file, graph, progress_every, list_, index_base,
        scale):
    """Train a learner on a file and save it."""
    from .presets import INPUTS, NEEDS_CONFUSION, PRESETS, get

    if list_:
        for name, p in PRESETS.items():
            click.echo(f"{name:18s} {p.kind:13s} {p.description}")
        click.echo("")
        for kind, text in INPUTS.items():
            click.echo(f"{kind:13s} reads: {text}")
        return
    missing = [flag for flag, v in (("--method", method), ("--train", train), ("--model", model)) if v is None]
    if missing:
        raise ValueError(f"fit needs {', '.join(missing)} (or --list to see the learners).")
    preset = get(method)
    kind = preset.kind
    _reject_flags(method, kind, confusion=confusion, bags=bags_file, graph=graph, progress=progress_every)
    if scale != "none" and (kind == "structured" or progress_every is not None):
        raise ValueError(f"--scale does not apply to {'the M3N learners' if kind == 'structured' else '--progress'} "
                         "(it scales the rows of an svmlight file before a whole fit).")
    est = preset.make(**_parse_params(params))
    if kind == "structured":
        X, Y, label_prob = _read_structured(train)
        est.set_params(graph=_graph(graph, X.shape[1]))
        est.fit(X, Y, label_prob=label_prob)
        est.save(model)
        click.echo(f"trained {type(est).__name__} on {X.shape[0]} examples of {X.shape[1]} nodes, "
                   f"{est.n_states_} states; model written to {model}")
        return
    X, S = _read_svm(train, n_features=n_features, index_base=index_base)
    exact = preset.exact_labels or kind == "noisy" or (kind == "bandit" and not (S.sizes > 1).any())
    if exact and (S.sizes > 1).any():
        raise ValueError(f"{method} needs exact labels, but {train} has candidate sets with several labels.")
    if scale != "none":
        from .scaling import FeatureScaled

        inner = est
        est = FeatureScaled(inner, scaling=scale)
    if method in NEEDS_CONFUSION:
        if confusion is None:
            raise ValueError(f"{method} needs --confusion FILE (C[p, q] = P(noisy p | true q)); uma-identity and "
                             "logistic assume C = I.")
        (est.estimator if scale != "none" else est).set_params(confusion=_read_matrix(confusion))
    if kind == "bags" and bags_file is not None:
        target = _read_bags(bags_file, X.shape[0])
    elif exact:
        target = S.classes_[S.mask.argmax(axis=1)]
    else:
        target = S
    if progress_every is not None:
        from .metrics import progressive_validation

        res = progressive_validation(est, X, target, print_every=progress_every, out=click.echo)
        click.echo(f"progressive validation loss: {res.loss:.4f} over {X.shape[0]} rows (one pass, in order)")
    else:
        est.fit(X, target)
    est.save(model)
    base = {"0": "0-based", "1": "1-based"}.get(index_base) or (
        "0-based: the file uses index 0" if _uses_index_zero(train) else
        "1-based: the file never uses index 0; pass --index-base 0 if it was written 0-based")
    name = type(est).__name__ if scale == "none" else f"{type(est.estimator_).__name__} (features / {scale})"
    click.echo(f"trained {name} on {X.shape[0]} samples x {X.shape[1]} features ({base}), "
               f"{len(est.classes_)} classes; model written to {model}")


def _reject_flags(method, kind, *, confusion, bags, graph, progress):
    """Flags that do not apply to this learner are one clear error, not silently ignored."""
    from .presets import NEEDS_CONFUSION

    wrong = []
    if confusion is not None and method not in NEEDS_CONFUSION:
        wrong.append(f"--confusion ({', '.join(NEEDS_CONFUSION)} only)")
    if bags is not None and kind != "bags":
        wrong.append("--bags (mms, cl-svm only)")
    if graph is not None and kind != "structured":
        wrong.append("--graph (the M3N learners only)")
    if progress is not None and kind not in ("partial", "bandit"):
        wrong.append("--progress (the online partial-label and bandit learners only)")
    if kind == "structured" and graph is None:
        raise ValueError(f"{method} needs --graph (chain, sudoku or grid:HxW).")
    if wrong:
        raise ValueError(f"{method} does not take {'; '.join(wrong)}.")


def _read_matrix(path):
    import numpy as np

    return np.load(path) if str(path).endswith(".npy") else np.loadtxt(path, ndmin=2)


def _read_bags(path, n_rows):
    import json

    from .labels import BagCandidates

    with open(path) as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not a JSON file of bags ({exc}).") from None
    if not isinstance(data, dict) or not {"bag_of", "labelings"} <= set(data):
        raise ValueError(f"{path} must hold a JSON object with keys bag_of and labelings.")
    B = BagCandidates(data["bag_of"], [list(lab) for lab in data["labelings"]])
    if B.n_rows != n_rows:
        raise ValueError(f"{path} describes {B.n_rows} rows but the svmlight file has {n_rows}; they must match.")
    return B


def _read_structured(path, need_y=True):
    import numpy as np

    if not str(path).endswith(".npz"):
        raise ValueError(f"the M3N learners read an .npz file with arrays X and Y (and optionally label_prob); "
                         f"got {path}.")
    with np.load(path, allow_pickle=False) as z:
        if "X" not in z or (need_y and "Y" not in z):
            need = "X and Y" if need_y else "X"
            raise ValueError(f"{path} must hold arrays {need}; it holds {', '.join(z.files) or 'nothing'}.")
        return z["X"], (z["Y"] if "Y" in z else None), (z["label_prob"] if "label_prob" in z else None)


def _graph(spec, n_nodes):
    from .structured import chain_graph, grid_graph, sudoku_graph

    if spec == "chain":
        return chain_graph(n_nodes)
    if spec == "sudoku":
        return sudoku_graph()
    if spec.startswith("grid:"):
        try:
            h, w = (int(v) for v in spec[5:].lower().split("x"))
        except ValueError:
            raise ValueError(f"--graph grid:HxW needs two integers, e.g. grid:4x5; got {spec!r}.") from None
        return grid_graph(h, w)
    raise ValueError(f"--graph must be chain, sudoku or grid:HxW; got {spec!r}.")


@main.command()
@click.option("--model", required=True, type=click.Path(dir_okay=False, exists=False))
@click.option("--data", required=True, type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write predictions here (one per line).")
@click.option("--index-base", type=click.Choice(["auto", "0", "1"]), default="auto", show_default=True,
              help=_INDEX_BASE_HELP)
@click.option("--pad", is_flag=True, help="Accept a file with fewer features than the model (its last features "
                                          "zero everywhere) instead of refusing it.")
def predict(model, data, out, index_base, pad):
    """Predict labels for an svmlight file (labels in the file are ignored), or node labels for
    an .npz of X (M3N models; one line per example).
    """
    from . import load

    est = load(model)
    if str(data).endswith(".npz"):                       # structured: one line of node labels per example
        X, _, _ = _read_structured(data, need_y=False)
        pred = est.predict(X)
        text = "\n".join(" ".join(str(v) for v in row) for row in pred.tolist()) + "\n"
    else:
        X, _ = _read_svm_for(est, model, data, index_base, pad)
        pred = est.predict(X)
        text = "\n".join(str(v) for v in pred.tolist()) + "\n"
    if out:
        Path(out).write_text(text)
        click.echo(f"{pred.shape[0]} predictions written to {out}")
    else:
        click.echo(text, nl=False)


@main.command()
@click.option("--model", required=True, type=click.Path(dir_okay=False))
@click.option("--data", required=True, type=click.Path(dir_okay=False))
@click.option("--index-base", type=click.Choice(["auto", "0", "1"]), default="auto", show_default=True,
              help=_INDEX_BASE_HELP)
@click.option("--pad", is_flag=True, help="Accept a file with fewer features than the model (its last features "
                                          "zero everywhere) instead of refusing it.")
def evaluate(model, data, index_base, pad):
    """Score a model on an svmlight file: accuracy (exact labels) or ambiguous 0-1 loss (candidate sets);
    on an .npz of X and Y (M3N models), the share of annotated nodes predicted right.
    """
    from . import load
    from .metrics import ambiguous_zero_one_loss

    est = load(model)
    if str(data).endswith(".npz"):
        X, Y, _ = _read_structured(data)
        click.echo(f"examples: {X.shape[0]}")
        click.echo(f"node accuracy (annotated nodes): {est.score(X, Y):.4f}")
        return
    X, S = _read_svm_for(est, model, data, index_base, pad)
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
@click.option("--snapshot", "snapshot_in", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Render from this snapshot (the plan and the rows; no store needed) into --out DIR, as the "
                   "documentation build does.")
@click.option("--write-snapshot", "snapshot_out", type=click.Path(dir_okay=False), default=None,
              help="With --out: also write the plan and the stored rows the report reads to this gzip JSON "
                   "file (what the documentation renders its reproduction pages from).")
def report(name_or_store, out, html_out, snapshot_in, snapshot_out):
    """Re-render a run's report, or write it as one HTML page.

    \b
    weaklabel report NAME --out DIR          rewrite DIR's tables and plots from DIR/results.sqlite
    weaklabel report NAME --out DIR --write-snapshot docs/reproductions/stores/NAME.json.gz
    weaklabel report NAME --snapshot docs/reproductions/stores/NAME.json.gz --out DIR
                                             render a snapshot's tables and plots into DIR
    weaklabel report STORE --html OUT.html   one page for a results.sqlite (or its folder)
    """
    if snapshot_out is not None and out is None:
        raise ValueError("--write-snapshot needs --out DIR (the folder of the run to snapshot).")
    if snapshot_in is not None and out is None:
        raise ValueError("--snapshot needs --out DIR (where to write the rendered report).")
    if snapshot_in is not None and (snapshot_out is not None or html_out is not None):
        raise ValueError("--snapshot renders a snapshot; it does not combine with --write-snapshot or --html.")
    if html_out is None and out is None:
        raise ValueError("pass --out DIR (re-render a reproduction) or --html OUT.html (one page for a store).")
    if snapshot_in is not None:
        from .experiments import registry

        registry.get(name_or_store).run(out, snapshot=snapshot_in)
        click.echo(f"report: {Path(out) / 'report.md'}")
        return
    if out is not None:
        from .experiments import registry

        exp = registry.get(name_or_store)
        if not (Path(out) / "results.sqlite").exists():
            raise FileNotFoundError(f"no results.sqlite in {out}; run `weaklabel reproduce {name_or_store} --out "
                                    f"{out}` first.")
        summary = exp.run(out, progress=False, execute=False)
        click.echo(f"report: {summary.report}")
        if snapshot_out is not None:
            snap = exp.write_snapshot(out, snapshot_out)
            click.echo(f"snapshot: {snapshot_out} ({len(snap)} rows)")
    if html_out is not None:
        from .experiments.html import write_html

        store = Path(out) if (out is not None and not Path(name_or_store).exists()) else Path(name_or_store)
        page = write_html(store, html_out)
        click.echo(f"html: {page}")


@main.command()
@click.option("--suite", type=click.Choice(["partial", "partial-batch", "bandit", "bags", "structured"]),
              default="partial",
              show_default=True,
              help="partial: candidate-label learners vs scikit-learn's Perceptron; partial-batch: PRODEN, CLPL "
                   "and PL-KNN vs scikit-learn's LogisticRegression on the expanded sets (lost, birdsong, "
                   "italian); bandit: bandit learners vs "
                   "scikit-learn's PA-1 SGD pass and Vowpal Wabbit --cbify; bags: MMS's exact search on bags "
                   "of 10 over 200 classes, and MMS on 100,000 instances vs LinearSVC(crammer_singer); structured: "
                   "Viterbi vs numpy, LPMILM3N on Sudoku, MILM3N on 10,000 chains of lengths 5-100 vs the same "
                   "nodes in chains of one length.")
@click.option("--repeats", type=click.IntRange(min=1, max=MAX_REPEATS), default=3, show_default=True)
@click.option("--dataset", "datasets_", multiple=True,
              help="usps and/or sector (default both); partial-batch: lost, birdsong, italian or digits.")
def speed(suite, repeats, datasets_):
    """Speed: one pass of each learner beside its peers, measured side by side (ratios)."""
    from .experiments import _speed as speed

    _check_speed_datasets(suite, datasets_)
    names = tuple(datasets_) or ("usps", "sector")
    if suite == "partial-batch":
        speed.run_partial_batch(tuple(datasets_) or ("lost", "birdsong", "italian"), repeats=repeats, out=click.echo)
        return
    if suite == "structured":
        speed.run_structured(out=click.echo)
        return
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


def _check_speed_datasets(suite, datasets_):
    """Refuse a ``--dataset`` the suite does not run on, before any loading or timing."""
    if not datasets_:
        return
    if suite in ("bags", "structured"):
        raise ValueError(f"--dataset does not apply to --suite {suite}: it times fixed problems; got "
                         f"{list(datasets_)}.")
    from . import datasets as ds
    from .experiments.cspa import LINEAR_DATA
    from .experiments.pll_realworld import DATASETS as PLL_SETS

    known = {"partial": ds.list_datasets(), "bandit": list(LINEAR_DATA), "partial-batch": [*PLL_SETS, "digits"]}[suite]
    unknown = [d for d in datasets_ if d not in known]
    if unknown:
        raise ValueError(f"--dataset {unknown[0]!r} is not one --suite {suite} runs on; choose from {sorted(known)}.")


if __name__ == "__main__":  # pragma: no cover
    main()
