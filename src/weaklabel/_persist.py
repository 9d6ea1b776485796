"""Model files: the format (.npz arrays + a JSON header, no pickle) and the registry of
loadable estimators.

A leaf of the package: it imports nothing from weaklabel but the version.  Estimator
classes put themselves in the registry with :func:`register` when their module is
imported; :func:`weaklabel.load` imports the learner packages first, so every kind is
known when a file is read.

An estimator that can be saved implements three methods:

- ``_state_arrays() -> dict[str, ndarray]``: the fitted arrays;
- ``_state_meta() -> dict``: JSON-able fitted scalars;
- ``_set_state(arrays, meta)``: restore them (raising ``ValueError`` on any inconsistency);

and, where a parameter is not JSON (a structured learner's ``graph``), ``_params_to_save()``
returning the parameters to write, the rest being restored by ``_set_state``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

import numpy as np

from ._version import __version__

__all__ = ["FORMAT_VERSION", "register", "save_model", "load_model", "registered_kinds"]

FORMAT_VERSION = 1
_REGISTRY = {}


def register(cls):
    """Class decorator: make ``cls`` loadable by :func:`weaklabel.load`."""
    _REGISTRY[cls.__name__] = cls
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
    never leaves a half-written model.  Returns ``path``."""
    arrays = {k: np.asarray(v) for k, v in est._state_arrays().items()}
    for k, v in arrays.items():
        if v.dtype == object:
            arrays[k] = v.astype(str)
    meta = {
        "format": "weaklabel-model",
        "format_version": FORMAT_VERSION,
        "weaklabel_version": __version__,
        "kind": type(est).__name__,
        "params": jsonable_params(est._params_to_save() if hasattr(est, "_params_to_save")
                                  else est.get_params(deep=False)),
        "state": est._state_meta(),
        "arrays": {k: {"shape": list(v.shape), "dtype": str(v.dtype), "sha256": _digest(v)}
                   for k, v in arrays.items()},
    }
    path = os.fspath(path)
    tmp = path + ".tmp"
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with zipfile.ZipFile(buf, "a") as zf:
        zf.writestr("meta.json", json.dumps(meta, indent=1))
    with open(tmp, "wb") as fh:
        fh.write(buf.getvalue())
    os.replace(tmp, path)
    return path


def load_model(path):
    """Read a model file written by :func:`save_model`; see :func:`weaklabel.load`."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file not found: {path}")
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise ValueError(f"member {bad} is corrupt")
            if "meta.json" not in zf.namelist():
                raise ValueError("it has no meta.json")
            meta = json.loads(zf.read("meta.json"))
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files if k != "meta.json"}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a readable weaklabel model ({exc}); it may be truncated or altered.") from None
    if meta.get("format") != "weaklabel-model":
        raise ValueError(f"{path} is not a weaklabel model file (format={meta.get('format')!r}).")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path} has model format version {meta.get('format_version')}; this weaklabel reads version "
            f"{FORMAT_VERSION}. Re-save the model with a matching weaklabel."
        )
    kind = meta.get("kind")
    if kind not in _REGISTRY:
        raise ValueError(f"{path} holds a model of unknown kind {kind!r}; known: {registered_kinds()}.")
    spec = meta.get("arrays", {})
    if set(spec) != set(arrays):
        raise ValueError(f"{path}: arrays {sorted(arrays)} do not match the metadata {sorted(spec)}; the file was altered.")
    for k, v in arrays.items():
        s = spec[k]
        if list(v.shape) != s["shape"] or str(v.dtype) != s["dtype"]:
            raise ValueError(f"{path}: array {k} has shape {v.shape} dtype {v.dtype}, metadata says {s['shape']} {s['dtype']}.")
        if _digest(v) != s["sha256"]:
            raise ValueError(f"{path}: array {k} does not match its checksum; the file was altered.")
    est = _REGISTRY[kind](**meta["params"])
    try:
        est._set_state(arrays, meta["state"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: inconsistent model state ({exc}).") from None
    return est
