"""Named datasets read from the shared data folder, with checksums and a parse cache.

Where data comes from: ``$WEAKLABEL_DATA`` if set, else ``../shared/data`` beside the
repository (found by walking up from this file to ``pyproject.toml``), else
``../shared/data`` beside the current directory.  Every file is checked against
``checksums.sha256`` in that folder before it is read.  Parsed arrays are cached as
.npz under ``$WEAKLABEL_CACHE`` (default ``~/.cache/weaklabel``), keyed by the file's
sha256, so the shared folder is never written.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import io
import lzma
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["Dataset", "DatasetSpec", "DataNotFoundError", "load", "list_datasets", "data_dir", "REGISTRY"]

_PARSER_VERSION = 1


class DataNotFoundError(FileNotFoundError):
    """A dataset file is missing from the data folder."""


@dataclass
class Dataset:
    """A loaded dataset.

    Parameters
    ----------
    name : str
        The registry's name.
    X_train : ndarray or sparse matrix
        Training rows (for ``sudoku``: puzzles, 0 = blank, an int array (n, 81)).
    y_train : ndarray
        Their labels (for ``sudoku``: the solutions).
    X_test, y_test : ndarray, sparse matrix or None, default=None
        The test part; ``None`` for sets that ship as one file.
    S_train : CandidateSets or None, default=None
        The real candidate sets of a partial-label set.
    classes : ndarray or None, default=None
        The label set.
    description : str, default=""
        Where the set comes from.
    files : tuple of str, default=()
        The files it was read from.
    """

    name: str
    X_train: object
    y_train: np.ndarray
    X_test: object = None
    y_test: np.ndarray = None
    S_train: object = None
    classes: np.ndarray = None
    description: str = ""
    files: tuple = field(default_factory=tuple)

    @property
    def n_features(self):
        """Number of features of ``X_train``, an int."""
        return self.X_train.shape[1]

    def __repr__(self):
        te = "none" if self.X_test is None else f"{self.X_test.shape}"
        return (f"Dataset({self.name!r}, train={self.X_train.shape}, test={te}, "
                f"classes={None if self.classes is None else len(self.classes)})")


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    files: tuple            # paths relative to the data folder
    reader: str             # name of a reader function below
    description: str
    shape: str              # what the manifest says (for `weaklabel datasets` when absent)
    options: tuple = ()     # extra reader arguments as (key, value) pairs


REGISTRY = {}


def _register(name, files, reader, description, shape, **options):
    REGISTRY[name] = DatasetSpec(name, tuple(files), reader, description, shape, tuple(sorted(options.items())))


_register("digits", (), "digits", "scikit-learn's bundled 8x8 digits (no data folder needed), pixels / 16", "1797 x 64, 10 classes")
_register("usps", ("images/usps.h5",), "usps_h5", "USPS digits, classic 7291/2007 split, pixels in [0, 1]", "7291+2007 x 256, 10 classes")
_register("mnist-test", ("images/t10k-images-idx3-ubyte.gz", "images/t10k-labels-idx1-ubyte.gz"), "mnist_idx",
          "MNIST: the 10k test images alone (see mnist for all 70k); pixels / 255", "10000 x 784, 10 classes")
_register("mnist", ("images/train-images-idx3-ubyte.gz", "images/train-labels-idx1-ubyte.gz",
                    "images/t10k-images-idx3-ubyte.gz", "images/t10k-labels-idx1-ubyte.gz"), "mnist_idx",
          "MNIST: the 60k training and 10k test images; pixels / 255", "60000+10000 x 784, 10 classes")
_register("20news", ("text/20news-bydate.tar.xz",), "newsgroups",
          "20 Newsgroups, bydate split of the raw posts (headers kept, as scikit-learn's fetch_20newsgroups); "
          "TF-IDF over words seen in >= 2 training posts, fitted on the training part, unit-norm rows. Not "
          "LIBSVM's news20 (15935/3993 posts, 62061 features), which is not staged", "11314+7532 x 56436, 20 classes",
          min_df=2)
_register("reuters", ("text/r8-train-all-terms.txt.xz", "text/r8-test-all-terms.txt.xz"), "r8",
          "Reuters-21578 R8 (ModApte, single-label, 8 classes; Cardoso-Cachopo's all-terms text): TF-IDF fitted "
          "on the training part, unit-norm rows", "5485+2189 x 10684, 8 classes", min_df=2)
_register("satimage", ("libsvm/satimage.scale.xz", "libsvm/satimage.scale.t.xz"), "svmlight",
          "Statlog satimage (LIBSVM, scaled)", "4435+2000 x 36, 6 classes", n_features=36)
_register("letter", ("libsvm/letter.scale.xz", "libsvm/letter.scale.t.xz"), "svmlight",
          "Statlog letter (LIBSVM, scaled; train = tr + val)", "15000+5000 x 16, 26 classes", n_features=16)
_register("pendigits", ("libsvm/pendigits.xz", "libsvm/pendigits.t.xz"), "svmlight",
          "Pen digits (LIBSVM, unscaled 0..100)", "7494+3498 x 16, 10 classes", n_features=16)
_register("vehicle", ("libsvm/vehicle.scale.xz",), "svmlight", "Statlog vehicle (LIBSVM, scaled; one file)",
          "846 x 18, 4 classes", n_features=18)
_register("segment", ("libsvm/segment.scale.xz",), "svmlight", "Statlog segment (LIBSVM, scaled; one file)",
          "2310 x 19, 7 classes", n_features=19)
_register("vowel", ("uci/vowel.train.xz", "uci/vowel.test.xz"), "vowel_csv", "ESL/UCI vowel, 528/462 split",
          "528+462 x 10, 11 classes")
_register("dna", ("libsvm/dna.scale.xz", "libsvm/dna.scale.t.xz"), "svmlight", "Statlog dna (LIBSVM)",
          "2000+1186 x 180, 3 classes", n_features=180)
_register("glass", ("libsvm/glass.scale.xz",), "svmlight", "UCI glass (LIBSVM, scaled; one file)",
          "214 x 9, 6 classes", n_features=9)
_register("sector", ("libsvm/sector.scale.bz2", "libsvm/sector.t.scale.bz2"), "svmlight",
          "Industry sector web pages (LIBSVM, tf-idf, unit norm), sparse", "6412+3207 x 55197, 105 classes",
          n_features=55197, sparse=True)
_register("optdigits", ("uci/optdigits.tra.xz", "uci/optdigits.tes.xz"), "delimited",
          "UCI optdigits (8x8 counts 0..16)", "3823+1797 x 64, 10 classes", sep=",")
_register("shuttle", ("uci/shuttle.trn.xz", "uci/shuttle.tst.xz"), "delimited", "UCI Statlog shuttle (raw)",
          "43500+14500 x 9, 7 classes", sep="auto")
_register("ecoli", ("uci/ecoli.data.xz",), "ecoli", "UCI ecoli (one file)", "336 x 7, 8 classes")
_register("dermatology", ("uci/dermatology.keel.dat.xz",), "keel",
          "UCI dermatology, KEEL copy (366 minus 8 rows with missing age; raw, age up to 75)", "358 x 34, 6 classes")
_register("lost", ("pll/lost.mat",), "pll_mat", "Lost: face naming from TV captions, real candidate sets",
          "1122 x 108, 16 classes")
_register("birdsong", ("pll/BirdSong.mat",), "pll_mat", "BirdSong: bird syllables, real candidate sets",
          "4998 x 38, 13 classes")
_register("italian", ("pll/italian.mat",), "pll_mat", "Italian: 90 candidate tags, real candidate sets",
          "21878 x 519, 90 classes")
_register("sudoku", ("sudoku/sudoku10000.csv.xz",), "sudoku", "9x9 Sudoku puzzles and solutions (0 = blank)",
          "9999 x 81 symbols")


# ---- locations ------------------------------------------------------------------------

def data_dir():
    """Return the data folder: $WEAKLABEL_DATA, else ../shared/data beside the repository.

    Returns
    -------
    Path
        The folder (it may not exist).
    """
    env = os.environ.get("WEAKLABEL_DATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").exists():
            cand = parent.parent / "shared" / "data"
            if cand.exists():
                return cand
            break
    return Path.cwd().parent / "shared" / "data"


def cache_dir():
    env = os.environ.get("WEAKLABEL_CACHE")
    base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "weaklabel"
    return base


_CHECKSUMS = {}
_VERIFIED = {}


def _checksums(root):
    key = str(root)
    if key not in _CHECKSUMS:
        table = {}
        f = root / "checksums.sha256"
        if f.exists():
            for line in f.read_text().splitlines():
                parts = line.split()
                if len(parts) == 2:
                    table[parts[1].lstrip("./").lstrip("*")] = parts[0]
        _CHECKSUMS[key] = table
    return _CHECKSUMS[key]


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _resolve(rel, name):
    root = data_dir()
    path = root / rel
    if not path.exists():
        raise DataNotFoundError(
            f"dataset {name!r} needs {rel}, not found at {path}. Set WEAKLABEL_DATA to the folder that holds "
            f"'{rel}' (the shared data folder; see its MANIFEST.md)."
        )
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _VERIFIED:
        digest = _sha256(path)
        expected = _checksums(root).get(rel)
        if expected is None:
            raise ValueError(f"{root / 'checksums.sha256'} lists no checksum for {rel}; the data folder is not the expected one.")
        if digest != expected:
            raise ValueError(f"{path} fails its checksum (sha256 {digest[:12]}..., expected {expected[:12]}...); "
                             "the file is corrupt or was replaced.")
        _VERIFIED[key] = digest
    return path, _VERIFIED[key]


def available(name):
    """Tell whether every file of dataset ``name`` is present (checksums are not read).

    Parameters
    ----------
    name : str
        A registry name.

    Returns
    -------
    bool
        True when the files are all there.
    """
    spec = _spec(name)
    root = data_dir()
    return all((root / f).exists() for f in spec.files)


def list_datasets():
    """Return the names of the registered datasets, sorted.

    Returns
    -------
    list of str
        The names :func:`load` accepts.
    """
    return sorted(REGISTRY)


def _spec(name):
    if name not in REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(sorted(REGISTRY))}.")
    return REGISTRY[name]


# ---- loading with a parse cache -------------------------------------------------------

def load(name, *, cache=True):
    """Load dataset ``name`` (see :func:`list_datasets`).

    Parameters
    ----------
    name : str
        A name of :func:`list_datasets`.
    cache : bool, default=True
        Keep parsed arrays in the user cache folder (never in the data folder).

    Returns
    -------
    Dataset
        The arrays and their description.

    Raises
    ------
    DataNotFoundError
        Naming the missing file and the variable (WEAKLABEL_DATA) to set.
    """
    spec = _spec(name)
    resolved = [_resolve(f, name) for f in spec.files]
    opts = dict(spec.options)
    reader = _READERS[spec.reader]
    arrays = None
    cpath = None
    if cache and resolved:
        tag = hashlib.sha256(("|".join(d for _, d in resolved) + f"|{spec.reader}|{opts}|{_PARSER_VERSION}").encode()).hexdigest()[:20]
        cpath = cache_dir() / f"{name}-{tag}.npz"
        arrays = _read_cache(cpath)
    if arrays is None:
        arrays = reader([p for p, _ in resolved], **opts)
        if cpath is not None:
            _write_cache(cpath, arrays)
    return _to_dataset(name, spec, arrays)


def _read_cache(path):
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
    except Exception:
        return None
    for part in ("X_train", "X_test"):
        if f"{part}__data" in out:
            out[part] = sp.csr_matrix((out.pop(f"{part}__data"), out.pop(f"{part}__indices"),
                                       out.pop(f"{part}__indptr")), shape=tuple(out.pop(f"{part}__shape")))
    return out


def _write_cache(path, arrays):
    flat = {}
    for k, v in arrays.items():
        if v is None:
            continue
        if sp.issparse(v):
            v = v.tocsr()
            flat.update({f"{k}__data": v.data, f"{k}__indices": v.indices, f"{k}__indptr": v.indptr,
                         f"{k}__shape": np.asarray(v.shape)})
        else:
            flat[k] = np.asarray(v)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, **flat)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home is fine: we just parse again next time


def _to_dataset(name, spec, a):
    from ..labels import CandidateSets

    S = None
    y_train = a["y_train"]
    classes = np.unique(np.concatenate([y_train.ravel()] + ([a["y_test"].ravel()] if a.get("y_test") is not None else [])))
    if "S_train" in a:
        classes = np.arange(a["S_train"].shape[1])
        S = CandidateSets(a["S_train"], classes)
    if name == "sudoku":
        classes = np.arange(1, 10)
    return Dataset(name=name, X_train=a["X_train"], y_train=y_train, X_test=a.get("X_test"),
                   y_test=a.get("y_test"), S_train=S, classes=classes, description=spec.description,
                   files=spec.files)


def load_mat(path):
    """Load a user's candidate-label ``.mat`` file, as the partial-label literature ships them.

    Parameters
    ----------
    path : str or path-like
        A MATLAB file holding ``data`` (samples x features), ``partial_target`` (the
        candidate sets, labels x samples or samples x labels, dense or sparse, non-zero =
        candidate) and optionally ``target`` (the true labels, one-hot, same layout).

    Returns
    -------
    Dataset
        ``X_train``, ``S_train`` (a :class:`~weaklabel.labels.CandidateSets`) and
        ``y_train`` (-1 where the file gives no target, or everywhere without ``target``).

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        A file scipy cannot read, a missing array, shapes that do not fit ``data``, or an
        empty candidate set.

    Examples
    --------
    >>> from weaklabel.datasets import load_mat  # doctest: +SKIP
    >>> d = load_mat("lost.mat")                  # doctest: +SKIP
    >>> d.X_train.shape, d.S_train.mask.shape     # doctest: +SKIP
    ((1122, 108), (1122, 16))
    """
    import os

    from ..labels import CandidateSets

    if not os.path.isfile(path):
        raise FileNotFoundError(f"no candidate-label file at {os.fspath(path)!r}.")
    X, y, P = read_candidate_mat(path)
    classes = np.arange(P.shape[1])
    return Dataset(name=os.path.basename(os.fspath(path)), X_train=X, y_train=y, S_train=CandidateSets(P, classes),
                   classes=classes, description=f"read from {os.fspath(path)}", files=(os.fspath(path),))


# ---- readers ---------------------------------------------------------------------------

def _open_text(path):
    path = str(path)
    if path.endswith(".xz"):
        return io.TextIOWrapper(lzma.open(path), encoding="utf-8")
    if path.endswith(".bz2"):
        return io.TextIOWrapper(bz2.open(path), encoding="utf-8")
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path), encoding="utf-8")
    return open(path, encoding="utf-8")


def _open_bytes(path):
    path = str(path)
    if path.endswith(".xz"):
        return lzma.open(path)
    if path.endswith(".bz2"):
        return bz2.open(path)
    if path.endswith(".gz"):
        return gzip.open(path)
    return open(path, "rb")


def _read_digits(paths):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return {"X_train": X / 16.0, "y_train": y}


def _read_usps_h5(paths):
    from .._extras import require

    h5py = require("h5py", "reading usps.h5")
    with h5py.File(paths[0], "r") as f:
        return {"X_train": np.asarray(f["train/data"], dtype=np.float64),
                "y_train": np.asarray(f["train/target"]).astype(np.int64),
                "X_test": np.asarray(f["test/data"], dtype=np.float64),
                "y_test": np.asarray(f["test/target"]).astype(np.int64)}


def _read_mnist_idx(paths):
    """IDX images and labels: (train images, train labels[, test images, test labels])."""
    out = {}
    for part, (images, labels) in zip(("train", "test"), zip(paths[0::2], paths[1::2])):
        with gzip.open(images) as f:
            magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
            if magic != 2051:
                raise ValueError(f"{images} is not an IDX image file (magic {magic}).")
            X = np.frombuffer(f.read(), dtype=np.uint8).reshape(n, rows * cols)
        with gzip.open(labels) as f:
            magic, n2 = struct.unpack(">II", f.read(8))
            if magic != 2049 or n2 != n:
                raise ValueError(f"{labels} is not the IDX label file matching {images}.")
            y = np.frombuffer(f.read(), dtype=np.uint8).astype(np.int64)
        out[f"X_{part}"], out[f"y_{part}"] = X.astype(np.float64) / 255.0, y
    return out


def _tfidf(train_docs, test_docs, min_df):
    """TF-IDF fitted on the training documents (unit-norm rows), applied to both parts."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(min_df=min_df, dtype=np.float64)
    return vec.fit_transform(train_docs).tocsr(), vec.transform(test_docs).tocsr()


def _newsgroup_docs(path):
    """The bydate tarball's posts: ``20news-bydate-{train,test}/<group>/<id>``, latin-1 text;
    ``(docs, group names)`` per part."""
    import tarfile

    docs = {"train": [], "test": []}
    labels = {"train": [], "test": []}
    with tarfile.open(path, mode="r:xz") as tar:
        for member in tar:
            if not member.isfile():
                continue
            parts = member.name.split("/")
            split = next((q for q in parts if q.startswith("20news-bydate-")), None)
            if split is None or len(parts) < 3:
                continue
            part = split.rsplit("-", 1)[-1]
            docs[part].append(tar.extractfile(member).read().decode("latin-1"))
            labels[part].append(parts[-2])
    return docs, labels


def _r8_docs(paths):
    """Cardoso-Cachopo's format: one ``label<TAB>text`` line per document; ``(docs, labels)``
    per part."""
    docs, labels = {}, {}
    for part, p in zip(("train", "test"), paths):
        with _open_text(p) as fh:
            rows = [line.rstrip("\n").split("\t", 1) for line in fh if line.strip()]
        labels[part] = [r[0] for r in rows]
        docs[part] = [r[1] if len(r) > 1 else "" for r in rows]
    return docs, labels


def _text_arrays(docs, labels, min_df):
    names = sorted(set(labels["train"]))
    X_train, X_test = _tfidf(docs["train"], docs["test"], min_df)
    return {"X_train": X_train, "y_train": np.searchsorted(names, labels["train"]).astype(np.int64),
            "X_test": X_test, "y_test": np.searchsorted(names, labels["test"]).astype(np.int64)}


def _read_newsgroups(paths, min_df):
    return _text_arrays(*_newsgroup_docs(paths[0]), min_df)


def _read_r8(paths, min_df):
    return _text_arrays(*_r8_docs(paths), min_df)


def _int32_indices(X):
    """CSR ``X`` with 32-bit indices where they fit: scikit-learn >= 1.9's svmlight reader
    gives 64-bit ones, which several scikit-learn estimators refuse (``Perceptron``, say),
    and a set read back from the cache has 32-bit ones: one form either way."""
    if X.indices.dtype != np.int32 and max(X.nnz, X.shape[1]) < np.iinfo(np.int32).max:
        X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
    return X


def _read_svmlight(paths, n_features, sparse=False):
    from sklearn.datasets import load_svmlight_file

    out = {}
    for part, p in zip(("train", "test"), paths):
        with _open_bytes(p) as fh:
            X, y = load_svmlight_file(fh, n_features=n_features)
        X = _int32_indices(X.tocsr()) if sparse else X.toarray()
        y = y.astype(np.int64) if np.all(y == np.round(y)) else y
        out[f"X_{part}"], out[f"y_{part}"] = X, y
    return out


def _read_delimited(paths, sep):
    out = {}
    for part, p in zip(("train", "test"), paths):
        with _open_text(p) as fh:
            rows = []
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                cells = line.split(",") if (sep == "," or (sep == "auto" and "," in line)) else line.split()
                rows.append([float(c) for c in cells])
        arr = np.asarray(rows)
        out[f"X_{part}"], out[f"y_{part}"] = arr[:, :-1], arr[:, -1].astype(np.int64)
    return out


def _read_vowel_csv(paths):
    out = {}
    for part, p in zip(("train", "test"), paths):
        with _open_text(p) as fh:
            r = list(csv.reader(fh))
        arr = np.asarray(r[1:], dtype=np.float64)
        out[f"X_{part}"], out[f"y_{part}"] = arr[:, 2:], arr[:, 1].astype(np.int64)
    return out


def _read_ecoli(paths):
    with _open_text(paths[0]) as fh:
        rows = [line.split() for line in fh if line.strip()]
    X = np.asarray([[float(c) for c in r[1:-1]] for r in rows])
    names = np.asarray([r[-1] for r in rows])
    return {"X_train": X, "y_train": names}


def _read_keel(paths):
    with _open_text(paths[0]) as fh:
        rows = [line.strip().split(",") for line in fh if line.strip() and not line.startswith("@")]
    arr = np.asarray(rows, dtype=np.float64)
    return {"X_train": arr[:, :-1], "y_train": arr[:, -1].astype(np.int64)}


def _read_pll_mat(paths):
    X, y, S = read_candidate_mat(paths[0])
    return {"X_train": X, "y_train": y, "S_train": S}


def read_candidate_mat(path):
    """``(X, y, S)`` of a candidate-label ``.mat`` file of the partial-label literature:
    ``data`` (samples x features), ``partial_target`` and ``target`` (labels x samples or
    samples x labels, dense or sparse); ``y`` is -1 where a sample has no target.
    """
    from scipy.io import loadmat
    from scipy.io.matlab import MatReadError

    try:
        m = loadmat(path)
    except (OSError, ValueError, TypeError, NotImplementedError, MatReadError) as exc:
        raise ValueError(f"{path} is not a MATLAB .mat file scipy can read ({type(exc).__name__}: {exc}).") from None
    missing = [k for k in ("data", "partial_target") if k not in m]
    if missing:
        raise ValueError(f"{path} holds no {missing[0]!r} array; a candidate-label .mat file holds 'data', "
                         f"'partial_target' and (optionally) 'target'; found {sorted(k for k in m if not k.startswith('_'))}.")

    def dense(a):
        return a.toarray() if sp.issparse(a) else np.asarray(a)

    X = dense(m["data"]).astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"{path}: 'data' must be 2-D (samples x features); got shape {X.shape}.")
    n = X.shape[0]

    def oriented(name):
        a = dense(m[name])
        if a.ndim != 2 or n not in a.shape:
            raise ValueError(f"{path}: {name!r} has shape {a.shape}, with no side of the {n} samples of 'data'.")
        return a.T if a.shape[0] != n or (a.shape[1] == n and a.shape[0] < a.shape[1]) else a

    P = oriented("partial_target") != 0
    if not P.any(axis=1).all():
        row = int(np.flatnonzero(~P.any(axis=1))[0])
        raise ValueError(f"{path}: sample {row} has an empty candidate set in 'partial_target'.")
    y = np.full(n, -1, dtype=np.int64)
    if "target" in m:
        T = oriented("target")
        if T.shape != P.shape:
            raise ValueError(f"{path}: 'target' {T.shape} and 'partial_target' {P.shape} do not match.")
        has = T.any(axis=1)
        y[has] = np.argmax(T[has], axis=1)
    return X, y, P


def _read_sudoku(paths):
    with _open_text(paths[0]) as fh:
        r = csv.reader(fh)
        next(r)
        rows = list(r)
    q = np.asarray([[int(c) for c in a] for a, _ in rows], dtype=np.int64)
    s = np.asarray([[int(c) for c in b] for _, b in rows], dtype=np.int64)
    return {"X_train": q, "y_train": s}


_READERS = {
    "digits": _read_digits, "usps_h5": _read_usps_h5, "mnist_idx": _read_mnist_idx, "svmlight": _read_svmlight,
    "delimited": _read_delimited, "vowel_csv": _read_vowel_csv, "ecoli": _read_ecoli, "keel": _read_keel,
    "pll_mat": _read_pll_mat, "sudoku": _read_sudoku, "newsgroups": _read_newsgroups, "r8": _read_r8,
}
