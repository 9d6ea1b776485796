"""Model files: the format (.npz arrays + a JSON header, no pickle) and the registry of
loadable estimators.

A leaf of the package: it imports nothing from weaklabel but the version.  Estimator
classes put themselves in the registry with :func:`register` when their module is
imported; :func:`weaklabel.load` imports the learner packages first, so every kind is
known when a file is read.

An estimator that can be saved derives from :class:`SavesModel` and declares its fitted state
once, as values: ``_saved_arrays`` (``{name in the file: attribute}``; an item of a list attribute,
``(attribute, i)``; a matrix that may be sparse, :class:`Sparse`), ``_saved_scalars``
(``{name in the header: Scalar(attribute, kind)}``) and ``_declared_state(params, state,
shapes)``, the arrays' dtype kinds and shapes in terms of the fitted dimensions (checked from
the header before any array is read).  Saving, loading and the loader's checks read these;
a class adds only ``_restored(loaded)``, for what derives from the restored values and what
a fit guarantees of them beyond their declaration (raising ``ValueError``).  Where a
parameter is not JSON (a structured learner's ``graph``), ``_params_to_save()`` returns the
parameters to write, the rest being restored by ``_restored``.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import stat
import tempfile
import threading
import zipfile
from typing import Callable, NamedTuple

import numpy as np
from sklearn.base import BaseEstimator

from ._version import __version__

__all__ = ["FORMAT_VERSION", "register", "save_model", "load_model", "registered_kinds", "length", "count", "Scalar",
           "Sparse", "SavesModel"]

FORMAT_VERSION = 2          # 2: the JSON header is checksummed too (meta.sha256)
_MAX_META_BYTES = 1 << 20   # a header larger than 1 MiB is not one of ours
_NPY_HEADER_SLACK = 1 << 16  # an .npy member may exceed its data by at most its header
_REGISTRY = {}


def _kind(cls):
    """The name model files give ``cls``: its ``_model_kind`` where two classes share a name
    (``sources.DawidSkene`` beside ``noisy.DawidSkene``), else its name.
    """
    return getattr(cls, "_model_kind", cls.__name__)


def register(cls):
    """Class decorator: make ``cls`` loadable by :func:`weaklabel.load`.  The class declares
    its saved state once, in ``_declared_state(params, state, shapes)``: ``{name: (dtype
    kinds, shape, required)}`` from the header alone, checked before any array is read.
    """
    if not callable(getattr(cls, "_declared_state", None)):
        raise TypeError(f"{cls.__name__} must declare its saved state (_declared_state) to be registered.")
    kind = _kind(cls)
    if kind in _REGISTRY and _REGISTRY[kind] is not cls and _REGISTRY[kind].__qualname__ != cls.__qualname__:
        raise RuntimeError(f"two estimator classes claim the model kind {kind!r}; give one a _model_kind.")
    _REGISTRY[kind] = cls
    return cls


def registered_kinds():
    """Names of the estimator classes that model files may hold (sorted)."""
    return sorted(_REGISTRY)


def _digest(v):
    return hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()


def jsonable_params(params):
    """``get_params()`` as JSON: numbers, strings, None and numeric arrays (as lists)."""
    out = {}
    for k, v in params.items():
        if isinstance(v, (np.integer,)):
            v = int(v)
        elif isinstance(v, (np.floating,)):
            v = float(v)
        elif isinstance(v, (np.ndarray, list, tuple)) and np.asarray(v).dtype.kind in "iufb":
            v = np.asarray(v).tolist()            # e.g. UMA's confusion matrix
        elif not (v is None or isinstance(v, (bool, int, float, str))):
            raise TypeError(f"parameter {k}={v!r} cannot be saved; only None, bool, int, float and str can.")
        out[k] = v
    return out


def save_model(est, path):
    """Write ``est`` to ``path``: a temporary file moved into place, so a failed save
    never leaves a half-written model.  Returns ``path``.
    """
    try:             # every file written loads: the loader's checks of the values, made first
        _check_loaded_values(est)
    except ValueError as exc:
        raise ValueError(f"{type(est).__name__} cannot be saved: {exc}, so weaklabel.load would refuse the "
                         "file (weights this large come from very large sample_weight, features or inverse "
                         "propensities; rescale them).") from None
    # C order: the loader refuses Fortran-ordered members (and the digest reads C bytes)
    arrays = {k: np.ascontiguousarray(v) for k, v in est._state_arrays().items()}
    for k, v in arrays.items():
        if v.dtype == object:
            arrays[k] = v.astype(str)
    meta = {
        "format": "weaklabel-model",
        "format_version": FORMAT_VERSION,
        "weaklabel_version": __version__,
        "kind": _kind(type(est)),
        "params": jsonable_params(est._params_to_save() if hasattr(est, "_params_to_save")
                                  else est.get_params(deep=False)),
        "state": est._state_meta(),
        "arrays": {k: {"shape": list(v.shape), "dtype": str(v.dtype), "sha256": _digest(v)}
                   for k, v in arrays.items()},
    }
    blob = json.dumps(meta, indent=1).encode()
    path = os.fspath(path)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with zipfile.ZipFile(buf, "a") as zf:
        zf.writestr("meta.json", blob)
        zf.writestr("meta.sha256", hashlib.sha256(blob).hexdigest())
    # a fresh temporary file, created exclusively (O_EXCL) in the target's folder, never a
    # fixed name: a symlink planted beside the target is neither followed nor replaced
    folder, base = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


class _Bad(ValueError):
    """Raised inside the reader; turned into one message naming the file."""


def _check_meta(meta):
    if not isinstance(meta, dict):
        raise _Bad(f"its meta.json holds a {type(meta).__name__}, not an object")
    if meta.get("format") != "weaklabel-model":
        raise _Bad(f"it is not a weaklabel model file (format={meta.get('format')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise _Bad(f"it has model format version {meta.get('format_version')!r}; this weaklabel reads version "
                   f"{FORMAT_VERSION}. Re-save the model with a matching weaklabel")
    for key, kind in (("kind", str), ("params", dict), ("state", dict), ("arrays", dict)):
        if not isinstance(meta.get(key), kind):
            raise _Bad(f"its metadata lacks {key!r} (a {kind.__name__})")
    for name, spec in meta["arrays"].items():
        ok = (isinstance(spec, dict) and isinstance(spec.get("shape"), list)
              and all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 2**40 for d in spec["shape"])
              and isinstance(spec.get("dtype"), str) and isinstance(spec.get("sha256"), str))
        if not ok:
            raise _Bad(f"its metadata for array {name!r} is malformed")
        try:
            dt = np.dtype(spec["dtype"])
        except TypeError:
            raise _Bad(f"array {name!r} declares an unknown dtype {spec['dtype']!r}") from None
        if dt.hasobject:
            raise _Bad(f"array {name!r} declares dtype object, which is never written")


def _read(path, check=None):
    """``(meta, arrays)`` of a model file, every check made before anything large is read;
    ``check(meta)`` (the declared state of the file's kind) runs before any array is.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        hint = ""
        name = os.fspath(path)
        if os.sep not in name and "." not in name:     # a bare word: perhaps a dataset's name
            hint = (f"; weaklabel.load reads saved models, and datasets are read by "
                    f"weaklabel.datasets.load({name!r}) (or load_votes / load_crowd)")
        raise FileNotFoundError(f"model file not found: {path}{hint}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _Bad("it is not a regular file")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        if "meta.json" not in names or "meta.sha256" not in names:
            raise _Bad("it has no meta.json and meta.sha256")
        info = zf.getinfo("meta.json")
        if info.file_size > _MAX_META_BYTES:
            raise _Bad(f"its meta.json inflates to {info.file_size} bytes")
        if zf.getinfo("meta.sha256").file_size != 64:        # read no more than a checksum's 64 characters
            raise _Bad(f"its meta.sha256 holds {zf.getinfo('meta.sha256').file_size} bytes, not a 64-character "
                       "checksum")
        blob = zf.read("meta.json")
        with zf.open("meta.sha256") as fh:
            declared = fh.read(65)
        if len(declared) != 64 or hashlib.sha256(blob).hexdigest().encode() != declared:
            raise _Bad("its meta.json does not match its checksum; the file was altered")
        meta = json.loads(blob)
        _check_meta(meta)
        if check is not None:
            check(meta)
        spec = meta["arrays"]
        members = {n[:-4]: n for n in names if n.endswith(".npy")}
        if set(members) != set(spec):
            raise _Bad(f"arrays {sorted(members)} do not match the metadata {sorted(spec)}; the file was altered")
        for k, member in members.items():
            info = zf.getinfo(member)
            # save writes every array uncompressed: its bytes are in the file, so a small file
            # cannot declare a large array (a compressed member is refused before it is read)
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise _Bad(f"array {k} is stored compressed ({info.compress_size} bytes inflating to "
                           f"{info.file_size}); weaklabel writes arrays uncompressed")
        arrays = {}
        for k, member in members.items():
            dt = np.dtype(spec[k]["dtype"])
            expected = int(np.prod(spec[k]["shape"], dtype=np.int64)) * dt.itemsize
            if zf.getinfo(member).file_size > expected + _NPY_HEADER_SLACK:
                raise _Bad(f"array {k} inflates to {zf.getinfo(member).file_size} bytes; its metadata allows "
                           f"{expected}")
            with zf.open(member) as fh:
                version = np.lib.format.read_magic(fh)
                reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                          else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = reader(fh)
                if list(shape) != spec[k]["shape"] or str(dtype) != spec[k]["dtype"] or fortran:
                    raise _Bad(f"array {k} has shape {shape} dtype {dtype}, metadata says {spec[k]['shape']} "
                               f"{spec[k]['dtype']}")
                data = fh.read(expected + 1)
            if len(data) != expected:
                raise _Bad(f"array {k} is truncated")
            v = np.frombuffer(data, dtype=dtype).reshape(shape).copy() if expected else np.zeros(shape, dtype)
            if _digest(v) != spec[k]["sha256"]:
                raise _Bad(f"array {k} does not match its checksum; the file was altered")
            arrays[k] = v
    return meta, arrays


def load_model(path):
    """Read a model file written by :func:`save_model`; see :func:`weaklabel.load`.

    Every way a file can be damaged or hostile gives one ``ValueError`` naming the file
    (``FileNotFoundError`` when it does not exist): only regular files are opened, the
    header and every array are checksummed, array headers are checked against the
    metadata before any data is read (so a declared size cannot make it allocate), and the
    restored model's parameters and state are checked as a fit would check them.
    """
    path = os.fspath(path)
    try:
        meta, arrays = _read(path, check=_check_declared)
    except _Bad as exc:
        raise ValueError(f"{path} is not a readable weaklabel model: {exc}.") from None
    except FileNotFoundError:
        raise
    except Exception as exc:       # zipfile, zlib, numpy's header parser: whatever damage, one message
        raise ValueError(f"{path} is not a readable weaklabel model ({type(exc).__name__}: {exc}); it may be "
                         "truncated or altered.") from None
    kind = meta["kind"]
    if kind not in _REGISTRY:
        raise ValueError(f"{path} holds a model of unknown kind {kind!r}; known: {registered_kinds()}.")
    try:
        params = meta["params"]
        rebuild = getattr(_REGISTRY[kind], "_load_params", None)      # a parameter saved as state (a model)
        if rebuild is not None:
            params = rebuild(dict(params), arrays)
        est = _REGISTRY[kind](**params)
        if hasattr(est, "_validate_params"):
            est._validate_params()
        est._set_state(arrays, meta["state"])
        _check_loaded_values(est)
    except Exception as exc:
        raise ValueError(f"{path}: inconsistent model ({type(exc).__name__}: {exc}).") from None
    return est


def _check_declared(meta):
    """Every array the file declares, against its kind's declared state, before any array
    data is read: the names (none missing, none unknown), the dtype kinds, and the shapes in
    terms of the fitted dimensions (``cls._declared_state(params, state, shapes)``, computed
    from the header alone).
    """
    kind = meta["kind"]
    if kind not in _REGISTRY:
        raise _Bad(f"it holds a model of unknown kind {kind!r}; known: {registered_kinds()}")
    shapes = {k: tuple(v["shape"]) for k, v in meta["arrays"].items()}
    try:
        spec = _REGISTRY[kind]._declared_state(meta["params"], meta["state"], shapes)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise _Bad(f"its header does not describe a {kind} ({type(exc).__name__}: {exc})") from None
    unknown = sorted(set(shapes) - set(spec))
    missing = sorted(k for k, (_, _, required) in spec.items() if required and k not in shapes)
    if unknown or missing:
        raise _Bad(f"a {kind} file holds the arrays {sorted(spec)}; this one has unknown {unknown} and lacks "
                   f"{missing}")
    for name, shape in shapes.items():
        kinds, want, _ = spec[name]
        dt = np.dtype(meta["arrays"][name]["dtype"])
        if kinds != "*" and dt.kind not in kinds:
            raise _Bad(f"array {name} of a {kind} must be of kind {kinds!r}; the file declares {dt}")
        if want is not None and (len(want) != len(shape) or any(w is not None and w != v for w, v in
                                                                zip(want, shape))):
            raise _Bad(f"array {name} of a {kind} must have shape {tuple(want)} (None: any); the file declares "
                       f"{shape}")


def length(shapes, name):
    """The length a 1-D array ``name`` declares (-1, which nothing matches, when it is not
    1-D or absent): the fitted dimension it stands for, e.g. the number of classes.
    """
    shape = shapes.get(name, ())
    return int(shape[0]) if len(shape) == 1 else -1


def count(state, name):
    """An integer the header's state holds (a ValueError, caught as a bad header, if not)."""
    v = state[name]
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"state {name!r} must be an integer >= 0; got {v!r}")
    return v


#: a model file holds no value beyond this (save refuses such a model, load such a file): with
#: inputs up to 1e100 (larger are refused), its scores stay finite
_MAX_STATE_VALUE = 1e150


def _check_loaded_values(est):
    """What a fit guarantees of the restored state, checked for every kind: float arrays
    finite and of sane size, numeric class labels finite; then the kind's own
    ``_check_loaded_state`` (positive variances, sparse index ranges, a confusion matrix
    its ``fit`` accepts...).
    """
    for name, value in est._state_arrays().items():
        data = value.data if hasattr(value, "tocsr") else np.asarray(value)
        if data.dtype.kind in "fc" and data.size:
            if not np.isfinite(data).all():
                raise ValueError(f"array {name} holds non-finite values, which no fit leaves")
            if np.abs(data).max() > _MAX_STATE_VALUE:
                raise ValueError(f"array {name} holds values beyond {_MAX_STATE_VALUE:g}, more than a model file may hold")
    classes = getattr(est, "classes_", None)
    if classes is not None:
        c = np.asarray(classes)
        if c.dtype.kind in "fc" and not np.isfinite(c).all():
            raise ValueError("its class labels are not finite")
        if c.size != np.unique(c).size:
            raise ValueError("its class labels repeat")
    check = getattr(est, "_check_loaded_state", None)
    if check is not None:
        check()


def model_bytes(est):
    """The bytes of ``est``'s model file (a meta-estimator keeps its inner model this way)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "inner.npz")
        save_model(est, path)
        with open(path, "rb") as fh:
            return fh.read()


#: how many model files may nest, the outer one included (a meta-estimator's file holding
#: another's); no fit nests more than a few, and each level is read once
MAX_NESTING = 8
_nesting = threading.local()


def load_model_bytes(data):
    """The model held by ``data`` (bytes of a model file), with every check :func:`load_model` makes."""
    depth = getattr(_nesting, "depth", 0) + 1         # the files open around this one
    if depth >= MAX_NESTING:
        raise ValueError(f"model files nest deeper than {MAX_NESTING} levels; no fit writes such a file")
    _nesting.depth = depth
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "inner.npz")
            with open(path, "wb") as fh:
                fh.write(bytes(data))
            return load_model(path)
    finally:
        _nesting.depth = depth - 1


def embedded_model(arrays):
    """The model of ``arrays["estimator_file"]``, read once however often it is asked for
    (the ``estimator`` parameter and the fitted ``estimator_`` come from the same file)."""
    if "_embedded_model" not in arrays:
        arrays["_embedded_model"] = load_model_bytes(arrays["estimator_file"])
    return arrays["_embedded_model"]


@functools.cache
def _param_names(cls):
    """scikit-learn's ``_get_param_names`` of ``cls``, as a tuple (see
    :meth:`SavesModel._get_param_names`)."""
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class Scalar(NamedTuple):
    """A fitted scalar a model file holds in its header: the estimator's attribute, its kind
    (``"int"``: an int >= 0; ``"float"``: a finite number; ``"positive"``: a number in
    (0, 1e150); ``"bool"``; ``"str"``) and, when ``optional``, the value a file without it gives
    (``default``; None: the attribute stays unset, and a model without it saves none); an
    optional scalar may also be None (JSON null).
    """

    attr: str
    kind: str
    optional: bool = False
    default: object = None


_SCALAR_TYPES = {"int": int, "float": float, "positive": float, "bool": bool, "str": str}


class Sparse(NamedTuple):
    """A fitted array that may be a scipy sparse matrix (CSR): ``attr`` on the estimator, and
    ``columns(est)`` its number of columns once the scalars are restored.  A sparse value is
    saved as three arrays, ``<name>_data``, ``<name>_indices`` and ``<name>_indptr``; a dense
    one under ``<name>``.
    """

    attr: str
    columns: Callable


def _get(est, attr):
    """The value an ``_saved_arrays`` entry names: an attribute, an item ``(attribute, i)`` of
    a list attribute, or a :class:`Sparse` attribute."""
    if isinstance(attr, tuple) and not isinstance(attr, Sparse):
        return getattr(est, attr[0])[attr[1]]
    return getattr(est, attr.attr if isinstance(attr, Sparse) else attr)


def _csr(name, arrays, shape):
    """``<name>``'s three CSR arrays as a matrix of ``shape``, its indices checked in range."""
    import scipy.sparse as sp

    X = sp.csr_matrix((arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]), shape=shape)
    X.check_format(full_check=True)          # pointer order and index ranges (out of range, a kernel reads past)
    return X


def _scalar(name, v, kind):
    """A header's value ``v`` of ``name`` checked as a fit leaves a scalar of ``kind``."""
    if kind == "bool":
        ok = isinstance(v, bool)
    elif kind == "str":
        ok = isinstance(v, str)
    elif isinstance(v, bool):
        ok = False
    elif kind == "int":
        ok = isinstance(v, int) and v >= 0
    else:
        ok = isinstance(v, (int, float)) and np.isfinite(v) and (kind == "float" or 0 < v < _MAX_STATE_VALUE)
    if not ok:
        expected = {"int": "an int >= 0", "float": "a finite number", "positive": "a positive finite number",
                    "bool": "true or false", "str": "a string"}[kind]
        raise ValueError(f"{name} must be {expected}, as a fit leaves it; got {v!r}")
    return _SCALAR_TYPES[kind](v)


class SavesModel:
    """Mixin of every estimator with a model file: ``save``, and the state a file holds read
    from the class's declaration.  A class names the attribute its fit sets
    (``_fitted_marker``), declares its fitted arrays (``_saved_arrays``, with their shapes in
    ``_declared_state``) and scalars (``_saved_scalars``), and may add ``_restored``.
    """

    _fitted_marker = "classes_"
    #: the fitted arrays a model file holds, ``{name in the file: attribute}`` (an attribute a
    #: fit may leave unset is saved when set; ``_declared_state`` says which a file must hold)
    _saved_arrays = {}
    #: the fitted scalars it holds, ``{name in the header: Scalar}``
    _saved_scalars = {}

    def _state_arrays(self):
        out = {}
        for k, a in self._saved_arrays.items():
            try:
                v = _get(self, a)
            except (AttributeError, IndexError):
                continue                            # an array this fit did not make
            if hasattr(v, "tocsr"):
                v = v.tocsr()
                out.update({f"{k}_data": v.data, f"{k}_indices": v.indices, f"{k}_indptr": v.indptr})
            else:
                out[k] = v
        return out

    def _state_meta(self):
        meta = {}
        for k, s in self._saved_scalars.items():
            if s.optional and not hasattr(self, s.attr):
                continue
            v = getattr(self, s.attr)
            meta[k] = None if v is None and s.optional else _SCALAR_TYPES[s.kind](v)
        return meta

    def _set_state(self, arrays, meta):
        """Restore the declared scalars (each checked as a fit leaves it) and arrays (finite;
        their names, dtype kinds and shapes checked by the loader from the header; floats as
        C-contiguous float64; list items as lists; sparse ones as CSR with their indices
        checked), then ``_restored(loaded=True)``."""
        for k, s in self._saved_scalars.items():
            if k in meta:
                v = meta[k]
                setattr(self, s.attr, None if v is None and s.optional else _scalar(k, v, s.kind))
            elif not s.optional:
                raise ValueError(f"the file's state lacks {k!r}")
            elif s.default is not None:
                setattr(self, s.attr, s.default)
        lists = {}
        for k, a in self._saved_arrays.items():
            if isinstance(a, Sparse) and f"{k}_indptr" in arrays:
                v = _csr(k, arrays, (len(arrays[f"{k}_indptr"]) - 1, a.columns(self)))
            elif k in arrays:
                v = np.asarray(arrays[k])
                v = np.ascontiguousarray(v, dtype=np.float64) if v.dtype.kind == "f" else v
            else:
                continue
            values = v.data if hasattr(v, "tocsr") else v
            if values.dtype.kind == "f" and not np.isfinite(values).all():
                raise ValueError(f"{k} is not finite")
            if isinstance(a, tuple) and not isinstance(a, Sparse):
                lists.setdefault(a[0], {})[a[1]] = v
            else:
                setattr(self, a.attr if isinstance(a, Sparse) else a, v)
        for attr, items in lists.items():
            setattr(self, attr, [items[i] for i in sorted(items)])
        self._restored(loaded=True)

    def _restored(self, loaded):
        """After the fitted state was replaced (``loaded``: from a model file): recompute what
        derives from it, and check what a fit guarantees of it beyond its declaration, raising
        ``ValueError`` (default: nothing)."""

    @classmethod
    def _get_param_names(cls):
        """The constructor's parameter names, read from its signature once per class
        (scikit-learn reads the signature on every ``get_params``, twice in every ``fit``;
        a stream of short calls paid ~40 us each time).  A fresh list each call."""
        return list(_param_names(cls))

    def save(self, path):
        """Write the fitted model to ``path`` (.npz arrays + JSON metadata, no pickle).

        The file is written to a temporary name and moved into place, so a failed save
        never leaves a half-written model.  Read it back with :func:`weaklabel.load`.

        Parameters
        ----------
        path : str or path-like
            File to write.

        Returns
        -------
        str or path-like
            The path written.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, self._fitted_marker)
        self._check_saveable()
        return save_model(self, path)

    def _check_saveable(self):
        """Raise when the fitted model cannot be written (default: it always can)."""


class EmbeddedModelFile(SavesModel):
    """Mixin of the meta-estimators whose model file holds the learner's own model file
    (array ``estimator_file``): ``save`` and the ``estimator`` parameter's round trip.  A
    class defines ``_fitted_marker`` (the attribute a fit sets) and its own state.
    """

    _fitted_marker = "estimator_"

    def _check_saveable(self):
        if not hasattr(self.estimator_, "_state_arrays"):
            raise TypeError(f"{type(self.estimator_).__name__} cannot be saved, so neither can this model.")

    def _params_to_save(self):
        return jsonable_params({k: v for k, v in self.get_params(deep=False).items() if k != "estimator"})

    @classmethod
    def _load_params(cls, params, arrays):
        from sklearn.base import clone

        params["estimator"] = clone(embedded_model(arrays))
        return params

    def _embedded_file(self):
        """The learner's model file as the uint8 array ``estimator_file``."""
        return np.frombuffer(model_bytes(self.estimator_), dtype=np.uint8)
