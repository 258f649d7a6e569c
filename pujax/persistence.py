"""Save and load fitted pujax estimators as plain ``.npz`` + ``.json`` files (no pickle on load, DESIGN §1).

An estimator is stored as its class path, its constructor parameters and its fitted attributes (names ending
in ``_``). Values may be numpy/JAX arrays, Python scalars, strings, ``None`` and lists/tuples/dicts of those,
nested to any depth (flax parameter trees are plain nested dicts). Arrays go into the ``.npz`` (loaded with
``allow_pickle=False``); everything else into the JSON document, which refers to arrays by key.
Only classes defined inside the ``pujax`` package can be loaded.
"""
from __future__ import annotations

import importlib
import json
import os

import numpy as np

__all__ = ["save_estimator", "load_estimator"]

_FORMAT = "pujax-estimator/1"


def _encode(value, arrays: dict, path: str):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not np.isfinite(value):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, np.generic):
        return _encode(value.item(), arrays, path)
    if isinstance(value, np.ndarray) or hasattr(value, "__jax_array__") or type(value).__module__.startswith("jax"):
        arr = np.asarray(value)
        if arr.dtype == object:
            raise TypeError(f"cannot save object array at {path!r}")
        key = f"a{len(arrays)}"
        arrays[key] = arr
        return {"__array__": key}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(value)]
        return {"__tuple__": items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"cannot save dict with non-string keys at {path!r}")
        return {"__dict__": {k: _encode(v, arrays, f"{path}.{k}") for k, v in value.items()}}
    raise TypeError(
        f"fitted attribute {path!r} of type {type(value).__name__} cannot be saved as npz+json; "
        f"use pickle for this estimator."
    )


def _decode(value, arrays):
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if isinstance(value, dict):
        if "__array__" in value:
            return arrays[value["__array__"]]
        if "__tuple__" in value:
            return tuple(_decode(v, arrays) for v in value["__tuple__"])
        if "__dict__" in value:
            return {k: _decode(v, arrays) for k, v in value["__dict__"].items()}
        if "__float__" in value:
            return float(value["__float__"])
    return value


def _paths(path: str):
    base = str(path)
    for ext in (".npz", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base + ".npz", base + ".json"


def save_estimator(estimator, path) -> tuple[str, str]:
    """Write ``estimator`` to ``<path>.npz`` and ``<path>.json``; return both file names."""
    if not hasattr(estimator, "get_params"):
        raise TypeError("save_estimator needs a scikit-learn style estimator with get_params().")
    npz_path, json_path = _paths(path)
    arrays: dict = {}
    fitted = {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}
    doc = {
        "format": _FORMAT,
        "class": f"{type(estimator).__module__}.{type(estimator).__qualname__}",
        "params": _encode(estimator.get_params(deep=False), arrays, "params"),
        "fitted": _encode(fitted, arrays, "fitted"),
    }
    os.makedirs(os.path.dirname(os.path.abspath(npz_path)), exist_ok=True)
    np.savez(npz_path, **arrays)
    with open(json_path, "w") as f:
        json.dump(doc, f)
    return npz_path, json_path


def load_estimator(path, expected_class=None):
    """Load an estimator written by :func:`save_estimator` (never unpickles anything)."""
    npz_path, json_path = _paths(path)
    if not os.path.exists(json_path) or not os.path.exists(npz_path):
        raise FileNotFoundError(f"no saved estimator at {path!r}: expected {npz_path} and {json_path}.")
    with open(json_path) as f:
        doc = json.load(f)
    if doc.get("format") != _FORMAT:
        raise ValueError(f"{json_path} is not a pujax estimator file (format {doc.get('format')!r}).")
    module_name, _, cls_name = doc["class"].rpartition(".")
    if expected_class is not None and doc["class"] == f"{expected_class.__module__}.{expected_class.__qualname__}":
        cls = expected_class  # Class.load(path): the caller names the class, nothing is imported
    else:
        if module_name != "pujax" and not module_name.startswith("pujax."):
            raise ValueError(f"refusing to load class {doc['class']!r}: only pujax estimators can be loaded.")
        cls = getattr(importlib.import_module(module_name), cls_name)
        if expected_class is not None and not issubclass(cls, expected_class):
            raise TypeError(f"{json_path} holds a {cls.__name__}, not a {expected_class.__name__}.")
    with np.load(npz_path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    est = cls(**_decode(doc["params"], arrays))
    for k, v in _decode(doc["fitted"], arrays).items():
        setattr(est, k, v)
    return est
