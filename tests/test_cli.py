import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_digits

from weaklabel.cli import main


def _svm(path):
    rows = ["0,2 1:1 2:0", "1 1:0 2:1", "0 1:1 2:0.1", "1,2 1:0.1 2:1"] * 5
    path.write_text("\n".join(rows) + "\n")
    return path


def test_fit_predict_evaluate(tmp_path):
    r = CliRunner()
    train = _svm(tmp_path / "tr.svm")
    model = tmp_path / "m.npz"
    res = r.invoke(main, ["fit", "--method", "max-pegasos", "--train", str(train), "--param", "alpha=0.1",
                          "--param", "max_iter=3", "--model", str(model)])
    assert res.exit_code == 0, res.output
    assert "MaxPegasos" in res.output and model.exists()
    res = r.invoke(main, ["predict", "--model", str(model), "--data", str(train)])
    assert res.exit_code == 0
    assert res.output.split()[:4] == ["0", "1", "0", "1"]
    res = r.invoke(main, ["evaluate", "--model", str(model), "--data", str(train)])
    assert "ambiguous 0-1 loss: 0.0000" in res.output


def test_errors_are_one_line_and_nonzero(tmp_path):
    r = CliRunner()
    train = _svm(tmp_path / "tr.svm")
    cases = [
        (["fit", "--method", "avg-pegasos", "--train", str(tmp_path / "no.svm"), "--model", "m"], "not found"),
        (["fit", "--method", "avg-pegasos", "--train", str(train), "--param", "alpha=-2", "--model", "m"], "alpha"),
        (["fit", "--method", "pegasos", "--train", str(train), "--model", "m"], "exact labels"),
        (["predict", "--model", str(train), "--data", str(train)], "not a readable weaklabel model"),
    ]
    for args, text in cases:
        res = r.invoke(main, args)
        assert res.exit_code == 2, (args, res.output)
        assert text in res.output
        assert res.output.count("\n") == 1


def test_datasets_and_help():
    r = CliRunner()
    res = r.invoke(main, ["datasets"])
    assert res.exit_code == 0 and "ecoli" in res.output and "sector" in res.output
    for cmd in ["reproduce", "fit", "predict", "evaluate", "report", "speed", "datasets"]:
        assert r.invoke(main, [cmd, "--help"]).exit_code == 0


@pytest.mark.slow
@pytest.mark.data("lost")
def test_reproduce_then_report(tmp_path):
    r = CliRunner()
    out = tmp_path / "pll"
    res = r.invoke(main, ["reproduce", "pll-realworld", "--quick", "--repeats", "1", "--dataset", "lost",
                          "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "| lost |" in res.output and (out / "pll_realworld.png").exists()
    # a short summary and where the whole report is, not the whole report
    assert "The whole report" in res.output and str(out / "report.md") in res.output
    assert len(res.output.splitlines()) < len((out / "report.md").read_text().splitlines())
    (out / "report.md").unlink()
    res = r.invoke(main, ["report", "pll-realworld", "--out", str(out)])
    assert res.exit_code == 0 and (out / "report.md").exists()
    res = r.invoke(main, ["report", "pll-realworld", "--out", str(tmp_path / "none")])
    assert res.exit_code == 2


@pytest.mark.slow
def test_reproduce_uma_toy_quick(tmp_path):
    r = CliRunner()
    res = r.invoke(main, ["reproduce", "uma-toy", "--quick", "--repeats", "1", "--out", str(tmp_path / "t"),
                          "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "Figure 1a" in res.output


@pytest.mark.data("vehicle")
def test_bench_bandit_suite_prints_ratios():
    res = CliRunner().invoke(main, ["speed", "--suite", "bandit", "--dataset", "vehicle", "--repeats", "1"])
    assert res.exit_code == 0, res.output
    for name in ("CSPA", "SPA", "Banditron", "BPA", "Confidit (diag)", "sklearn SGD pa1"):
        assert name in res.output
    assert "x sklearn" in res.output and "slowest vs scikit-learn" in res.output


@pytest.mark.parametrize("content, match", [
    ("1 20000000:1\n", "far beyond its 1 stored values"),
    ("1 1000000000000:1\n", "could not parse"),
    ("1\n2\n", "no feature"),
    ("0.5 1:1\n1.5 1:2\n", "labels must be integer class indices"),
    ("123456789012345678901 1:1\n1 1:2\n", "line 1 holds 1.2345678901234568e+20"),
    ("1 1:nan\n0 1:2\n", "feature values must be finite numbers; line 1 holds nan"),
    ("1 1:2\n0 1:inf\n", "line 2 holds inf"),
])
def test_hostile_svmlight_files_are_one_line_before_any_allocation(tmp_path, content, match):
    train = tmp_path / "t.svm"
    train.write_text(content)
    res = CliRunner().invoke(main, ["fit", "--method", "avg-pegasos", "--train", str(train),
                                    "--model", str(tmp_path / "m.npz")])
    assert res.exit_code == 2 and match in res.output and "Traceback" not in res.output
    assert not (tmp_path / "m.npz").exists()


def test_n_features_accepts_a_wide_file_on_purpose(tmp_path):
    train = tmp_path / "t.svm"
    train.write_text("0 1:1\n1 3000:1\n")
    res = CliRunner().invoke(main, ["fit", "--method", "perceptron", "--train", str(train), "--n-features", "5000",
                                    "--model", str(tmp_path / "m.npz")])
    assert res.exit_code == 0, res.output


def test_numeric_overflow_is_one_line(tmp_path):
    train = tmp_path / "t.svm"
    train.write_text("".join(f"{i % 2} 1:{1e10 * (i + 1)} 2:{-1e10 * i}\n" for i in range(20)))
    res = CliRunner().invoke(main, ["fit", "--method", "perceptron", "--train", str(train), "--param", "eta=1e300",
                                    "--model", str(tmp_path / "m.npz")])
    assert res.exit_code == 2 and "overflowed" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:70000", "inproc://x", "127.0.0.1:8786"])
def test_bad_scheduler_addresses_are_rejected_before_connecting(tmp_path, address):
    res = CliRunner().invoke(main, ["reproduce", "uma-toy", "--quick", "--scheduler", address, "--out",
                                    str(tmp_path)])
    assert res.exit_code == 2 and "--scheduler" in res.output


def test_a_qid_field_is_read(tmp_path):
    train = tmp_path / "t.svm"
    train.write_text("0 qid:3 1:1 2:0\n1 qid:3 1:0 2:1\n0,1 qid:4 1:1 2:1\n")
    res = CliRunner().invoke(main, ["fit", "--method", "avg-perceptron", "--train", str(train),
                                    "--model", str(tmp_path / "m.npz")])
    assert res.exit_code == 0 and "3 samples x 2 features" in res.output, res.output


def test_jobs_and_scheduler_are_exclusive(tmp_path):
    res = CliRunner().invoke(main, ["reproduce", "uma-toy", "--quick", "--jobs", "2", "--scheduler",
                                    "tcp://127.0.0.1:8786", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "pass one of them" in res.output


def test_a_misspelt_param_lists_the_valid_ones(tmp_path):
    train = _svm(tmp_path / "t.svm")
    res = CliRunner().invoke(main, ["fit", "--method", "avg-pegasos", "--train", str(train), "--param", "alhpa=0.1",
                                    "--model", str(tmp_path / "m.npz")])
    assert res.exit_code == 2 and "avg-pegasos has no parameter 'alhpa'" in res.output and "alpha" in res.output


def test_the_html_page_renders_emphasis():
    from weaklabel.experiments.html import markdown_to_html

    page = markdown_to_html("Ratio of correct *proposed* labels, **bold**, a*b*c stays", ".")
    assert "<em>proposed</em>" in page and "<strong>bold</strong>" in page and "a*b*c" in page


# ---- every learner kind through `weaklabel fit` (issue 18) -----------------------------------

@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    import json

    import numpy as np
    from sklearn.datasets import dump_svmlight_file, load_digits

    from weaklabel import dump_candidate_svmlight
    from weaklabel.simulate import hidden_markov_chain, make_candidate_sets, missing_labels

    d = tmp_path_factory.mktemp("cli")
    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16.0, y[:300]
    dump_svmlight_file(X, y, str(d / "exact.svm"))
    np.savetxt(d / "C.txt", 0.9 * np.eye(10) + 0.01)
    dump_svmlight_file(X, np.where(np.arange(300) % 2 == 0, y, -1), str(d / "partly.svm"))
    dump_candidate_svmlight(X, make_candidate_sets(y, 2, random_state=0), d / "cand.svm")
    json.dump({"bag_of": (np.arange(300) // 3).tolist(), "labelings": [[y[3 * i:3 * i + 3].tolist()]
                                                                       for i in range(100)]}, open(d / "bags.json", "w"))
    Xc, Yc = hidden_markov_chain(20, length=15, n_states=4, random_state=0)
    np.savez(d / "chain.npz", X=Xc, Y=missing_labels(Yc, 0.3, random_state=0))
    return d


@pytest.mark.parametrize("args, name", [
    (["--method", "uma", "--train", "exact.svm", "--confusion", "C.txt", "--param", "max_iter=50"], "UMA"),
    (["--method", "uma-identity", "--train", "exact.svm", "--param", "max_iter=50"], "UMA"),
    (["--method", "corrected-logistic", "--train", "exact.svm", "--confusion", "C.txt"], "CorrectedLogistic"),
    (["--method", "logistic", "--train", "exact.svm", "--param", "alpha=0.01"], "CorrectedLogistic"),
    (["--method", "label-a-little", "--train", "partly.svm", "--param", "m=3", "--param", "max_iter=100",
      "--param", "random_state=0"],
     "LabelALittle"),
    (["--method", "mms", "--train", "exact.svm", "--bags", "bags.json", "--param", "max_iter=2"], "MMS"),
    (["--method", "cl-svm", "--train", "cand.svm"], "CandidateLabelSVM"),
    (["--method", "mil-m3n", "--train", "chain.npz", "--graph", "chain", "--param", "max_iter=10"], "MILM3N"),
    (["--method", "cspa", "--train", "exact.svm"], "CSPA"),
])
def test_fit_takes_every_kind_of_learner(cli_files, args, name):
    import warnings

    r = CliRunner()
    args = [str(cli_files / a) if (cli_files / a).exists() else a for a in args]
    model = cli_files / f"{name}.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = r.invoke(main, ["fit", *args, "--model", str(model)])
    assert res.exit_code == 0, res.output
    assert f"trained {name}" in res.output and model.exists()
    data = args[args.index("--train") + 1]
    res = r.invoke(main, ["evaluate", "--model", str(model), "--data", data])
    assert res.exit_code == 0, res.output
    value = float(res.output.strip().split()[-1] if "accuracy" in res.output.splitlines()[-1]
                  else res.output.split("loss:")[1].split()[0])
    assert 0.0 <= value <= 1.0


def test_fit_list_names_every_preset_and_its_input():
    from weaklabel.presets import INPUTS, PRESETS

    res = CliRunner().invoke(main, ["fit", "--list"])
    assert res.exit_code == 0
    for name in PRESETS:
        assert name in res.output
    for kind in INPUTS:
        assert f"{kind}" in res.output and "reads:" in res.output


@pytest.mark.parametrize("args, text", [
    (["--method", "uma", "--train", "exact.svm"], "uma needs --confusion"),
    (["--method", "corrected-logistic", "--train", "exact.svm"], "corrected-logistic needs --confusion"),
    (["--method", "cspa", "--train", "exact.svm", "--graph", "chain"], "does not take --graph"),
    (["--method", "avg-pegasos", "--train", "cand.svm", "--confusion", "C.txt"], "does not take --confusion"),
    (["--method", "uma-identity", "--train", "exact.svm", "--progress", "10"], "does not take --progress"),
    (["--method", "mil-m3n", "--train", "chain.npz"], "needs --graph"),
    (["--method", "mil-m3n", "--train", "exact.svm", "--graph", "chain"], ".npz"),
    (["--method", "mms", "--train", "cand.svm", "--bags", "C.txt"], "JSON"),
    (["--method", "cspa", "--train", "exact.svm", "--param", "alhpa=1"], "its parameters are beta"),
    (["--train", "exact.svm"], "fit needs --method"),
])
def test_fit_flags_that_do_not_apply_are_one_line(cli_files, args, text):
    args = [str(cli_files / a) if (cli_files / a).exists() else a for a in args]
    res = CliRunner().invoke(main, ["fit", *args, "--model", str(cli_files / "x.npz")])
    assert res.exit_code == 2, res.output
    assert text in res.output and len(res.output.strip().splitlines()) <= 3


def test_fit_progress_prints_the_running_loss(cli_files):
    res = CliRunner().invoke(main, ["fit", "--method", "avg-perceptron", "--train", str(cli_files / "cand.svm"),
                                    "--progress", "100", "--model", str(cli_files / "p.npz")])
    assert res.exit_code == 0, res.output
    lines = [ln.split() for ln in res.output.splitlines() if "since last" in ln]
    assert [int(ln[0]) for ln in lines] == [100, 200, 300]
    losses = [float(ln[2]) for ln in lines]
    assert all(0.0 <= v <= 1.0 for v in losses) and losses[-1] < 0.5       # it learns as it goes


def test_a_structured_model_on_an_svmlight_file_is_one_line(cli_files):
    """predict / evaluate with an M3N model on an svmlight file: one line naming what the
    model reads, not a 29-line AttributeError."""
    r = CliRunner()
    model = cli_files / "chain-model.npz"
    res = r.invoke(main, ["fit", "--method", "mil-m3n", "--train", str(cli_files / "chain.npz"), "--graph", "chain",
                          "--param", "max_iter=5", "--model", str(model)])
    assert res.exit_code == 0, res.output
    for cmd in ("predict", "evaluate"):
        res = r.invoke(main, [cmd, "--model", str(model), "--data", str(cli_files / "exact.svm")])
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        assert "labels the nodes of structured examples" in res.output and ".npz" in res.output
        assert len(res.output.strip().splitlines()) == 1


def test_predict_on_a_label_model_says_it_reads_votes(tmp_path):
    import numpy as np

    from weaklabel.sources import PrecisionVote

    model = tmp_path / "lm.npz"
    PrecisionVote().fit(np.array([[0, 1, 1], [1, 1, -1], [0, -1, 0]])).save(model)
    res = CliRunner().invoke(main, ["predict", "--model", str(model), "--data", str(_svm(tmp_path / "x.svm"))])
    assert res.exit_code != 0
    assert "a label model: it predicts from the votes of 3 sources" in res.output
    assert "structured" not in res.output


# ---- svmlight files as scikit-learn writes them (0-based) and as LIBSVM does (1-based), and a ----

@pytest.fixture
def files(tmp_path):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    paths = {}
    for base in (0, 1):
        for part, rows in (("train", slice(0, 1200)), ("test", slice(1200, None))):
            path = tmp_path / f"{part}{base}.svm"
            dump_svmlight_file(X[rows], y[rows], str(path), zero_based=bool(base == 0))
            paths[(part, base)] = str(path)
    return paths, X, y


def _run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output + (str(result.exception) if result.exception else "")


def test_scikit_learns_zero_based_files_are_read_as_written(files, tmp_path):
    paths, X, y = files
    model = str(tmp_path / "m.npz")
    code, out = _run("fit", "--method", "pegasos", "--train", paths[("train", 0)], "--model", model,
                     "--index-base", "0")
    assert code == 0 and "64 features (0-based)" in out, out
    code, out = _run("evaluate", "--model", model, "--data", paths[("test", 0)], "--index-base", "0")
    assert code == 0 and float(out.split("accuracy:")[1]) > 0.85, out
    # the same data written 1-based (LIBSVM) gives the same model's score under auto
    code, out1 = _run("evaluate", "--model", model, "--data", paths[("test", 1)])
    assert code == 0 and out1.split("accuracy:")[1] == out.split("accuracy:")[1], out1


def test_auto_reads_digits_zero_based_file_shifted_and_the_mismatch_is_named(files, tmp_path):
    """digits' first pixel is always 0, so the 0-based file never names index 0: auto reads it
    as 1-based, 63 columns; the model trained on 64 refuses it instead of padding."""
    paths, X, y = files
    model = str(tmp_path / "m.npz")
    assert _run("fit", "--method", "pegasos", "--train", paths[("train", 1)], "--model", model)[0] == 0
    code, out = _run("evaluate", "--model", model, "--data", paths[("test", 0)])
    assert code != 0 and "has 63 features but" in out and "trained on 64" in out and "--index-base" in out, out
    code, out = _run("fit", "--method", "pegasos", "--train", paths[("train", 0)], "--model", model)
    assert code == 0 and "never uses index 0; pass --index-base 0" in out, out


def test_a_narrower_file_is_refused_unless_padded(files, tmp_path):
    paths, X, y = files
    model = str(tmp_path / "m.npz")
    assert _run("fit", "--method", "pegasos", "--train", paths[("train", 1)], "--model", model)[0] == 0
    narrow = tmp_path / "narrow.svm"
    dump_svmlight_file(X[1200:, :60], y[1200:], str(narrow), zero_based=False)
    code, out = _run("predict", "--model", model, "--data", str(narrow))
    assert code != 0 and "has 60 features but" in out and "--pad" in out, out
    code, out = _run("predict", "--model", model, "--data", str(narrow), "--pad")
    assert code != 0 and "never uses feature index 0" in out and "--index-base 0 or 1 with --pad" in out, out
    code, out = _run("predict", "--model", model, "--data", str(narrow), "--pad", "--index-base", "1")
    assert code == 0 and len(out.split()) == len(y) - 1200


def test_padding_a_zero_based_file_without_feature_0_is_never_a_silent_shift(files, tmp_path):
    """``predict --pad`` read a 0-based file without feature 0 as 1-based, every feature one
    to the left: 27 % agreement with the right reading, exit 0."""
    paths, X, y = files
    model = str(tmp_path / "m.npz")
    assert _run("fit", "--method", "pegasos", "--train", paths[("train", 0)], "--model", model,
                "--index-base", "0")[0] == 0
    narrow = tmp_path / "narrow0.svm"
    dump_svmlight_file(X[1200:, :60], y[1200:], str(narrow), zero_based=True)     # digits' pixel 0 is always 0
    code, out = _run("predict", "--model", model, "--data", str(narrow), "--pad")
    assert code != 0 and "never uses feature index 0" in out, out
    code, right = _run("predict", "--model", model, "--data", str(narrow), "--pad", "--index-base", "0")
    assert code == 0 and len(right.split()) == len(y) - 1200
