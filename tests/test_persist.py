"""Model files (:mod:`weaklabel._persist`): every estimator saves and loads what it fitted;
damaged and hostile files are refused.
"""

import hashlib
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import weaklabel
from weaklabel.noisy import UMA
from weaklabel.partial import AvgPegasos, AvgPerceptron, MaxPegasos, MaxPerceptron, Pegasos, Perceptron

rng = np.random.default_rng(0)
X = rng.standard_normal((40, 5))
y = rng.integers(0, 4, 40)


@pytest.mark.parametrize("cls", [AvgPerceptron, MaxPerceptron, AvgPegasos, MaxPegasos, Perceptron, Pegasos])
def test_round_trip_and_continue(cls, tmp_path):
    est = cls(max_iter=2, fit_intercept=True).fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    back = weaklabel.load(path)
    assert type(back) is cls and back.get_params() == est.get_params()
    assert_array_equal(back.coef_, est.coef_)
    assert_array_equal(back.intercept_, est.intercept_)
    assert_array_equal(back.predict(X), est.predict(X))
    assert back.t_ == est.t_
    # learning continues identically (Pegasos needs t_ for its step size)
    est.partial_fit(X, y)
    back.partial_fit(X, y)
    assert_array_equal(back.coef_, est.coef_)
    assert_array_equal(pickle.loads(pickle.dumps(est)).coef_, est.coef_)


def test_truncated_altered_and_foreign_files(tmp_path):
    est = AvgPegasos().fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    data = path.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or altered"):
        weaklabel.load(tmp_path / "trunc.npz")
    # rewrite the archive with changed weights but the old metadata
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with np.load(path) as z:
        W = z["W"].copy()
    W[0, 0] += 1.0
    import io

    buf = io.BytesIO()
    np.save(buf, W)
    members["W.npy"] = buf.getvalue()
    with zipfile.ZipFile(tmp_path / "alt.npz", "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    with pytest.raises(ValueError, match="does not match its checksum"):
        weaklabel.load(tmp_path / "alt.npz")
    np.savez(tmp_path / "other.npz", a=np.ones(3))
    with pytest.raises(ValueError, match="not a readable weaklabel model|no meta.json"):
        weaklabel.load(tmp_path / "other.npz")
    with pytest.raises(FileNotFoundError, match="model file not found"):
        weaklabel.load(tmp_path / "missing.npz")


def test_save_unfitted_raises(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        AvgPerceptron().save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_other_format_version_and_unknown_kind(tmp_path):
    est = AvgPerceptron().fit(X, y)
    path = tmp_path / "m.npz"
    est.save(path)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    import json

    for change, match in [({"format_version": 99}, "format version 99"), ({"kind": "Nope"}, "unknown kind 'Nope'")]:
        meta = json.loads(members["meta.json"])
        meta.update(change)
        blob = json.dumps(meta).encode()           # as another weaklabel would write it: a consistent checksum
        with zipfile.ZipFile(tmp_path / "x.npz", "w") as zf:
            for n, b in members.items():
                zf.writestr(n, blob if n == "meta.json" else hashlib.sha256(blob).hexdigest() if n == "meta.sha256"
                            else b)
        with pytest.raises(ValueError, match=match):
            weaklabel.load(tmp_path / "x.npz")


@pytest.mark.filterwarnings("ignore:weaklabel.noisy.DawidSkene is deprecated:FutureWarning")
def test_gaussian_support_and_dawid_skene_round_trip(tmp_path):
    """Every estimator saves: GaussianSupport and DawidSkene once had no save."""
    import weaklabel
    from weaklabel.bandit import GaussianSupport
    from weaklabel.noisy import DawidSkene
    from weaklabel.simulate import annotators

    rng = np.random.RandomState(0)
    X = rng.randn(50, 4)
    for center in (False, True):
        gs = GaussianSupport(n_support=20, g=2.0, center=center).fit(X)
        gs.save(tmp_path / "gs.npz")
        back = weaklabel.load(tmp_path / "gs.npz")
        np.testing.assert_array_equal(back.transform(X), gs.transform(X))
        assert back.get_params() == gs.get_params()
    y = np.arange(300) % 3
    A = annotators(y, [0.8 * np.eye(3) + 0.2 / 3] * 3, random_state=0)
    ds = DawidSkene().fit(A)
    ds.save(tmp_path / "ds.npz")
    back = weaklabel.load(tmp_path / "ds.npz")
    np.testing.assert_array_equal(back.predict(), ds.predict())
    np.testing.assert_array_equal(back.confusions_, ds.confusions_)
    assert back.n_iter_ == ds.n_iter_ and back.log_likelihood_ == ds.log_likelihood_
    with pytest.raises(Exception, match="not fitted"):
        DawidSkene().save(tmp_path / "x.npz")


def test_softmax_calibrated_saves_its_learner_inside(tmp_path):
    """SoftmaxCalibrated once had no save: its file holds the learner's own model file (checked
    as any model file is) and the temperature."""
    import weaklabel
    from weaklabel.calibration import SoftmaxCalibrated
    from weaklabel.partial import AvgPegasos
    from weaklabel.simulate import make_candidate_sets

    rng = np.random.RandomState(0)
    X = rng.randn(200, 5)
    y = rng.randint(0, 3, 200)
    est = SoftmaxCalibrated(AvgPegasos(alpha=1e-2, random_state=0), random_state=0).fit(
        X, make_candidate_sets(y, 2, random_state=0))
    est.save(tmp_path / "cal.npz")
    back = weaklabel.load(tmp_path / "cal.npz")
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.temperature_ == est.temperature_ and back.get_params()["holdout"] == est.holdout
    assert type(back.estimator).__name__ == "AvgPegasos"


def test_fortran_ordered_state_is_saved_in_c_order(tmp_path):
    """A state array that a computation left in Fortran order saves and loads."""
    import weaklabel
    from weaklabel.sources import MatrixCompletion

    L = np.array([[0, 1, 1], [1, 1, -1], [0, -1, 0], [1, 0, 1]])
    model = MatrixCompletion().fit(L)
    model.mu_ = np.asfortranarray(model.mu_)
    assert not model.mu_.flags.c_contiguous
    model.save(tmp_path / "m.npz")
    np.testing.assert_array_equal(weaklabel.load(tmp_path / "m.npz").predict_proba(L), model.predict_proba(L))


def test_loading_a_dataset_name_says_where_datasets_are():
    import weaklabel

    with pytest.raises(FileNotFoundError, match=r"model file not found: lost; .*weaklabel.datasets.load\('lost'\)"):
        weaklabel.load("lost")


# ---- Damaged and hostile model files: every outcome is one ValueError naming the file, or
# the very model that was saved; never another exception, a hang or a large allocation. ----

_RNG = np.random.RandomState(0)
X3 = _RNG.randn(40, 4)
y3 = np.arange(40) % 3


def _saved(tmp_path, est=None):
    est = est if est is not None else Perceptron().fit(X3, y3)
    path = tmp_path / "m.npz"
    est.save(path)
    return est, path


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


_NULL = object()


def _write(path, members, meta=None, arrays=None, fix_checksums=True):
    """A hostile file: the given members, with ``meta`` / ``arrays`` replaced, and (as a
    careful attacker would) checksums that match the replacements."""
    members = dict(members)
    if arrays:
        m = json.loads(members["meta.json"]) if meta is None else meta
        for k, v in arrays.items():
            buf = io.BytesIO()
            np.save(buf, v)
            members[k + ".npy"] = buf.getvalue()
            m["arrays"][k] = {"shape": list(v.shape), "dtype": str(v.dtype),
                              "sha256": hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()}
        meta = m
    if meta is _NULL:
        members["meta.json"] = b"null"
    elif meta is not None:
        members["meta.json"] = json.dumps(meta).encode()
    if fix_checksums:
        members["meta.sha256"] = hashlib.sha256(members["meta.json"]).hexdigest().encode()
    with zipfile.ZipFile(path, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return path


def _meta(path):
    return json.loads(_members(path)["meta.json"])


def _edited(meta, **state_or_params):
    meta = json.loads(json.dumps(meta))
    for k, v in state_or_params.items():
        where = "params" if k in meta["params"] else "state"
        meta[where][k] = v
    return meta


@pytest.mark.parametrize("what, edit, match", [
    ("meta.json is a list", lambda m: [1, 2], "holds a list"),
    ("meta.json is null", lambda m: _NULL, "holds a NoneType"),
    ("no params", lambda m: {k: v for k, v in m.items() if k != "params"}, "lacks 'params'"),
    ("eta = -5", lambda m: _edited(m, eta=-5.0), "'eta' parameter of Perceptron"),
    ("t = -100", lambda m: _edited(m, t=-100), "t must be an int >= 0"),
    ("n_features_in = 3", lambda m: _edited(m, n_features_in=3), "do not fit|must have shape"),
    ("unknown dtype", lambda m: {**m, "arrays": {**m["arrays"], "W": {**m["arrays"]["W"], "dtype": "nope"}}},
     "unknown dtype|malformed|does not match"),
])
def test_edited_headers_are_rejected_even_with_matching_checksums(tmp_path, what, edit, match):
    _, path = _saved(tmp_path)
    members = _members(path)
    bad = _write(tmp_path / "bad.npz", members, meta=edit(json.loads(members["meta.json"])))
    with pytest.raises(ValueError, match=match):
        weaklabel.load(bad)


def test_an_edited_header_without_a_new_checksum_is_rejected(tmp_path):
    _, path = _saved(tmp_path)
    members = _members(path)
    bad = _write(tmp_path / "bad.npz", members, meta=_edited(_meta(path), n_features_in=3), fix_checksums=False)
    with pytest.raises(ValueError, match="meta.json does not match its checksum"):
        weaklabel.load(bad)


@pytest.mark.parametrize("what, arrays, match", [
    ("W reshaped", {"W": np.zeros((2, 6))}, "do not fit|must have shape"),
    ("W one-dimensional", {"W": np.zeros(12)}, "do not fit|must have shape"),
    ("W of NaN", {"W": np.full((4, 3), np.nan)}, "not finite"),
    ("classes of the wrong length", {"classes": np.arange(5)}, "do not fit|must have shape"),
    ("classes repeated", {"classes": np.array([0, 0, 1])}, "distinct"),
])
def test_hostile_arrays_with_matching_checksums_are_rejected(tmp_path, what, arrays, match):
    _, path = _saved(tmp_path)
    bad = _write(tmp_path / "bad.npz", _members(path), arrays=arrays)
    with pytest.raises(ValueError, match=match):
        weaklabel.load(bad)


def test_uma_loader_checks_shapes(tmp_path):
    _, path = _saved(tmp_path, UMA(confusion="identity", max_iter=20).fit(X3, y3))
    bad = _write(tmp_path / "bad.npz", _members(path), meta=_edited(_meta(path), n_features_in=3))
    with pytest.raises(ValueError, match="do not fit|must have shape"):
        weaklabel.load(bad)


def test_a_member_that_inflates_beyond_its_declared_size_is_not_read(tmp_path):
    _, path = _saved(tmp_path)
    members = _members(path)
    members["W.npy"] = members["W.npy"] + b"\0" * (1 << 20)      # compresses to almost nothing
    bad = _write(tmp_path / "bad.npz", members)
    with pytest.raises(ValueError, match="inflates to"):
        weaklabel.load(bad)


def test_a_header_declaring_a_huge_array_allocates_nothing(tmp_path):
    _, path = _saved(tmp_path)
    members = _members(path)
    meta = _meta(path)
    meta["arrays"]["W"]["shape"] = [3 * 10**12]
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (3 * 10**12,)})
    members["W.npy"] = np.lib.format.magic(1, 0) + header.getvalue() + b"\0" * 96
    bad = _write(tmp_path / "bad.npz", members, meta=meta)
    with pytest.raises(ValueError):
        weaklabel.load(bad)


@pytest.mark.parametrize("kind", ["directory", "fifo", "/dev/zero", "/dev/urandom", "missing"])
def test_only_regular_files_are_opened(tmp_path, kind):
    if kind == "directory":
        path = tmp_path
    elif kind == "fifo":
        path = tmp_path / "pipe.npz"
        os.mkfifo(path)
    elif kind == "missing":
        with pytest.raises(FileNotFoundError, match="model file not found"):
            weaklabel.load(tmp_path / "nope.npz")
        return
    else:
        path = kind
    with pytest.raises(ValueError, match="not a regular file"):
        weaklabel.load(path)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_byte_flips_and_truncations(tmp_path, data):
    est, path = _saved(tmp_path)
    raw = bytearray(path.read_bytes())
    action = data.draw(st.sampled_from(["flip", "truncate", "flip many"]))
    if action == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    else:
        for _ in range(1 if action == "flip" else data.draw(st.integers(2, 20))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] ^= data.draw(st.integers(1, 255))
    bad = tmp_path / "fuzzed.npz"
    bad.write_bytes(bytes(raw))
    try:
        got = weaklabel.load(bad)
    except ValueError:
        return                                               # the one allowed failure
    np.testing.assert_array_equal(got.coef_, est.coef_)     # else: the very model that was saved
    np.testing.assert_array_equal(got.predict(X3), est.predict(X3))


def test_a_padded_checksum_is_rejected_without_reading_it(tmp_path):
    """meta.sha256 holds exactly 64 characters: a right checksum followed by padding (which
    the loader once read whole and compared only in part) is rejected by its size."""
    _, path = _saved(tmp_path)
    members = _members(path)
    members["meta.sha256"] = members["meta.sha256"] + b" " * (1 << 16)
    bad = tmp_path / "padded.npz"
    with zipfile.ZipFile(bad, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    with pytest.raises(ValueError, match="not a 64-character checksum"):
        weaklabel.load(bad)
    last = members["meta.sha256"][63:64]
    members["meta.sha256"] = members["meta.sha256"][:63] + (b"1" if last == b"0" else b"0")   # right size, wrong
    with zipfile.ZipFile(bad, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b[:64] if n == "meta.sha256" else b)
    with pytest.raises(ValueError, match="does not match its checksum"):
        weaklabel.load(bad)


def test_save_never_follows_a_planted_symlink(tmp_path):
    """save() writes through a fresh, exclusively created temporary file: a symlink planted
    at the old fixed name ``path + '.tmp'`` keeps its target intact, and the model file is a
    regular file afterwards."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    path = tmp_path / "m.npz"
    os.symlink(victim, str(path) + ".tmp")
    est = Perceptron().fit(X3, y3)
    est.save(path)
    assert victim.read_text() == "precious"
    assert path.is_file() and not path.is_symlink()
    np.testing.assert_array_equal(weaklabel.load(path).predict(X3), est.predict(X3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "m.npz.tmp", "victim.txt"]   # no temporary left


def _hostile(tmp_path, est, arrays=None, **edits):
    """``est`` saved, then rewritten with ``arrays`` / edited params or state and the
    checksums recomputed, as a careful attacker would."""
    _, path = _saved(tmp_path, est)
    meta = _edited(_meta(path), **edits) if edits else None
    return _write(tmp_path / "hostile.npz", _members(path), meta=meta, arrays=arrays)


def test_a_plknn_file_with_a_column_index_out_of_range_never_reaches_predict(tmp_path):
    """A PL-KNN file whose sparse column index is >= n_features once loaded, and predict then
    crashed the interpreter inside scikit-learn (exit 139); a negative one predicted silently."""
    import scipy.sparse as sp

    from weaklabel.partial import PLKNN
    from weaklabel.simulate import make_candidate_sets

    Xs = sp.random(40, 6, density=0.5, format="csr", random_state=0)
    est = PLKNN(n_neighbors=3).fit(Xs, make_candidate_sets(y3, 2, random_state=0))
    _, path = _saved(tmp_path, est)
    arrays = {k[:-4]: np.load(io.BytesIO(v)) for k, v in _members(path).items() if k.endswith(".npy")}
    for bad_index, match in ((6, "indices must be"), (10**6, "indices must be"), (-1, "indices must be|negative|column indices")):
        idx = arrays["X_indices"].copy()
        idx[3] = bad_index
        hostile = _write(tmp_path / "hostile.npz", _members(path), arrays={"X_indices": idx})
        with pytest.raises(ValueError, match=match):
            weaklabel.load(hostile)
    np.testing.assert_array_equal(weaklabel.load(path).predict(Xs), est.predict(Xs))


@pytest.mark.parametrize("what, arrays, match", [
    ("zero variances", lambda A: {"A_diag": np.zeros_like(A["A_diag"])}, "must be positive"),
    ("negative variances", lambda A: {"A_diag": -A["A_diag"]}, "must be positive"),
    ("weights of 1e308", lambda A: {"W": np.full_like(A["W"], 1e308)}, "beyond 1e\\+150"),
    ("NaN classes", lambda A: {"classes": np.array([0.0, np.nan, 2.0])}, "non-finite|not finite|distinct"),
])
def test_confidit_files_a_fit_could_not_have_written_are_refused(tmp_path, what, arrays, match):
    """Confidit with A_diag = 0 once loaded and the next partial_fit raised ZeroDivisionError
    in the kernel; negative variances, NaN classes and weights of 1e308 loaded too."""
    from weaklabel.bandit import Confidit

    est = Confidit(diagonal=True, random_state=0).fit(X3, y3)
    _, path = _saved(tmp_path, est)
    A = {k[:-4]: np.load(io.BytesIO(v)) for k, v in _members(path).items() if k.endswith(".npy")}
    hostile = _write(tmp_path / "hostile.npz", _members(path), arrays=arrays(A))
    with pytest.raises(ValueError, match=match):
        weaklabel.load(hostile)


def test_full_confidit_inverse_matrices_must_be_positive_definite(tmp_path):
    from weaklabel.bandit import Confidit

    est = Confidit(diagonal=False, random_state=0).fit(X3, y3)
    _, path = _saved(tmp_path, est)
    A = {k[:-4]: np.load(io.BytesIO(v)) for k, v in _members(path).items() if k.endswith(".npy")}
    hostile = _write(tmp_path / "hostile.npz", _members(path), arrays={"A_inv": -A["A_inv"]})
    with pytest.raises(ValueError, match="positive definite"):
        weaklabel.load(hostile)
    assert weaklabel.load(path).predict(X3).tolist() == est.predict(X3).tolist()


def test_a_uma_file_with_a_confusion_matrix_fit_rejects_is_refused(tmp_path):
    est = UMA(confusion=np.eye(3) * 0.8 + 0.2 / 3, max_iter=20).fit(X3, y3)
    hostile = _hostile(tmp_path, est, confusion=[[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="confusion"):
        weaklabel.load(hostile)


def _bomb(tmp_path, rows, cols, state=None):
    """A Perceptron file whose W is declared (rows, cols) of zeros, deflated to a few kB,
    checksums recomputed; ``state`` edits the header's state to match, as a careful
    attacker would."""
    _, path = _saved(tmp_path)
    members = _members(path)
    big = np.zeros((rows, cols))
    buf = io.BytesIO()
    np.save(buf, big)
    meta = _meta(path)
    meta["arrays"]["W"] = {"shape": [rows, cols], "dtype": "float64",
                           "sha256": hashlib.sha256(big.tobytes()).hexdigest()}
    meta["state"].update(state or {})
    members["W.npy"] = buf.getvalue()
    members["meta.json"] = json.dumps(meta).encode()
    members["meta.sha256"] = hashlib.sha256(members["meta.json"]).hexdigest().encode()
    bad = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bad, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    assert bad.stat().st_size < 1 << 20
    return bad


def _peak(call):
    import tracemalloc

    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_compressed_array_is_refused_before_it_is_read(tmp_path):
    """save writes arrays uncompressed, so a model file's arrays take their room in the file:
    a 1 MB file once declared a 512 MiB array and loading it used 1.8 GB and 10 s before
    the rejection. A compressed member is refused from the zip directory alone, even when
    its header agrees with the declared state."""
    bad = _bomb(tmp_path, 1 << 21, 3, state={"n_features_in": 1 << 21})     # 48 MiB, consistent header

    def load():
        with pytest.raises(ValueError, match="stored compressed"):
            weaklabel.load(bad)
    assert _peak(load) < 8 << 20


def test_the_declared_state_is_checked_before_any_array_is_read(tmp_path):
    """Every array against the kind's declared state (names, dtype kinds, shapes in terms of
    the fitted dimensions), from the header alone: a W declared 64 MiB for a 4-feature,
    3-class Perceptron is refused without reading it; so are unknown and missing arrays."""
    bad = _bomb(tmp_path, 1 << 23, 1)

    def load():
        with pytest.raises(ValueError, match=r"array W of a Perceptron must have shape \(4, 3\)"):
            weaklabel.load(bad)
    assert _peak(load) < 8 << 20
    _, path = _saved(tmp_path)
    extra = _write(tmp_path / "extra.npz", _members(path), arrays={"junk": np.zeros(3)})
    with pytest.raises(ValueError, match=r"unknown \['junk'\]"):
        weaklabel.load(extra)
    ints = _write(tmp_path / "ints.npz", _members(path), arrays={"W": np.zeros((4, 3), dtype=np.int64)})
    with pytest.raises(ValueError, match="must be of kind 'f'"):
        weaklabel.load(ints)


def test_every_loadable_kind_declares_its_saved_state():
    import importlib

    from weaklabel import _persist

    for pkg in ("bags", "bandit", "calibration", "noisy", "partial", "sources", "structured"):
        importlib.import_module(f"weaklabel.{pkg}")          # each fills the registry on import

    assert len(_persist.registered_kinds()) >= 25
    for kind in _persist.registered_kinds():
        assert callable(getattr(_persist._REGISTRY[kind], "_declared_state", None)), kind

    class Undeclared:
        pass

    with pytest.raises(TypeError, match="must declare its saved state"):
        _persist.register(Undeclared)

@pytest.mark.slow
def test_a_nested_model_file_is_read_once_per_level_and_its_depth_is_bounded(tmp_path, monkeypatch):
    """A FeatureScaled file holding a FeatureScaled file ...: each level's inner file is read
    once (it was read twice, so the time doubled with each level), and a file nested deeper
    than any fit writes is refused with one line."""
    from weaklabel import _persist
    from weaklabel.scaling import FeatureScaled

    X3 = np.random.RandomState(0).rand(40, 3)
    y3 = np.arange(40) % 2
    est = Perceptron(random_state=0)
    for _ in range(_persist.MAX_NESTING - 1):
        est = FeatureScaled(estimator=est)
    est.fit(X3, y3)
    est.save(tmp_path / "deep.npz")
    reads = []
    real = _persist.load_model

    def counted(path):
        reads.append(path)
        return real(path)

    monkeypatch.setattr(_persist, "load_model", counted)
    loaded = _persist.load_model(tmp_path / "deep.npz")
    assert len(reads) == _persist.MAX_NESTING                 # the outer file and each inner one, once
    assert np.array_equal(loaded.predict(X3), est.predict(X3))
    deeper = FeatureScaled(estimator=est).fit(X3, y3)
    deeper.save(tmp_path / "deeper.npz")
    with pytest.raises(ValueError, match="nest deeper than 8 levels"):
        weaklabel.load(tmp_path / "deeper.npz")


@pytest.mark.parametrize("make", [
    lambda X3, y3: Perceptron(random_state=0).fit(X3, y3, sample_weight=np.full(y3.size, 1e160)),
    lambda X3, y3: __import__("weaklabel.bandit", fromlist=["Banditron"]).Banditron(random_state=0).fit(
        X3, y3, sample_weight=np.full(y3.size, 1e160))])
def test_a_model_no_file_could_hold_is_refused_at_save_not_at_load(tmp_path, make):
    """Perceptron with sample_weight=1e160 fitted and saved a file that weaklabel.load then
    refused: every file save writes now loads, since save makes the loader's checks first."""
    X3 = np.random.RandomState(0).rand(60, 3)
    y3 = np.arange(60) % 3
    model = make(X3, y3)
    with pytest.raises(ValueError, match="cannot be saved: array .* beyond 1e\\+150"):
        model.save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()
