"""svmlight files as scikit-learn writes them (0-based) and as LIBSVM does (1-based), and a
model read against a file of another width."""

import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_digits

from weaklabel.cli import main


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
