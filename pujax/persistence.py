"""Save and load fitted pujax estimators as plain ``.npz`` + ``.json`` files that trust nothing on the way in.

A file pair holds the estimator's registered class name, its constructor parameters and its fitted attributes.
Arrays go into the ``.npz`` (read with ``allow_pickle=False``), everything else into the JSON document, which refers
to arrays by key. Loading never imports a module or calls a function named by the file:

* the class must be in the registry of loadable classes (:func:`register_estimator`);
* parameters must be constructor parameters of that class and pass the class's own checks (``_check_params``);
* fitted attributes must be exactly those the class declares in ``_fitted_schema`` (merged along the class
  hierarchy), each of the declared type, dtype, rank and shape; shapes are tied together by names such as
  ``n_features_in_`` (bound to the value of that attribute or parameter) or ``n_nodes`` (bound on first use);
* nested models (:func:`register_model` NamedTuples) and nested estimators are checked the same way.

Any failure is a ``ValueError`` that names the file and what is wrong.

Schema strings: ``int``, ``float``, ``bool``, ``str``, ``none``, ``dict`` (str keys, scalar values), unions with
``|``; ``tree`` (nested str-keyed dicts and lists of arrays and scalars, e.g. flax variables); arrays
``K[d1,d2,...]`` with ``K`` in ``f`` (float), ``i`` (signed int), ``u`` (unsigned int), ``b`` (bool),
``num`` (any numeric or bool), ``any`` (numeric, bool or str), ``str``, and each ``d`` an int, ``*`` (any size) or
a name; ``csr[r,c]`` (a float scipy CSR matrix, stored as its three arrays, its indices checked to lie in range);
``model:Name`` (a registered model), ``estimator`` (a nested registered estimator), ``list[estimator]``. A trailing
``?`` makes the attribute optional.

Classes from outside pujax (scikit-learn models wrapped by :mod:`pujax.meta`) are registered with an explicit
``schema`` and, where a fitted attribute is not plain data (a tree object), a pair of fixed ``encode`` / ``decode``
functions between the fitted attributes and plain data; ``decode`` receives schema-checked values only.
"""
from __future__ import annotations

import json
import os
import re
import zipfile
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from sklearn.base import BaseEstimator

__all__ = ["save_estimator", "load_estimator", "register_estimator", "register_model", "fitted_schema",
           "FORMAT"]

FORMAT = "pujax-estimator/2"

_ESTIMATORS: dict[str, type] = {}
_MODELS: dict[str, tuple[type, dict]] = {}
_FOREIGN: dict[type, tuple[dict, object, object]] = {}
_SCALARS = (type(None), bool, int, float, str)


def register_estimator(cls: type | None = None, *, schema: dict | None = None, encode: Callable | None = None,
                       decode: Callable | None = None) -> type | Callable[[type], type]:
    """Class decorator: make ``cls`` loadable by :func:`load_estimator` (under its class name).

    For a class outside pujax, ``register_estimator(cls, schema=..., encode=..., decode=...)``: ``schema`` replaces
    ``_fitted_schema``; ``encode(fitted) -> dict`` and ``decode(dict) -> fitted`` (optional) turn fitted attributes
    that are not plain data into plain data and back (``decode`` raises ``ValueError`` on inconsistent values).
    """
    if cls is None:
        return lambda klass: register_estimator(klass, schema=schema, encode=encode, decode=decode)
    if schema is not None:
        _FOREIGN[cls] = (dict(schema), encode, decode)
    _ESTIMATORS[cls.__name__] = cls
    return cls


def register_model(cls: type, schema: dict[str, str]) -> type:
    """Register a model NamedTuple and the schema of its fields (see the module docstring); return ``cls``."""
    missing = set(cls._fields) ^ set(schema)
    if missing:
        raise ValueError(f"schema of {cls.__name__} does not match its fields: {sorted(missing)}")
    _MODELS[cls.__name__] = (cls, dict(schema))
    return cls


def fitted_schema(cls: type) -> dict[str, str]:
    """The fitted-attribute schema of an estimator class: ``_fitted_schema`` merged along its MRO."""
    if cls in _FOREIGN:
        return dict(_FOREIGN[cls][0])
    schema: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        schema.update(klass.__dict__.get("_fitted_schema", {}))
    return schema


def _ensure_registered(name: str):
    """Import the pujax module that defines a public estimator (from pujax's fixed table, never from the file)."""
    if name not in _ESTIMATORS:
        import pujax

        if name in pujax._ESTIMATORS:
            getattr(pujax, name)  # imports the defining module (subpackages may import their estimators lazily)
    return _ESTIMATORS.get(name)


# ---------------------------------------------------------------------------------------------------- encoding
class _Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, value, path):
        arr = np.asarray(value)
        if arr.dtype == object:
            raise TypeError(f"cannot save object array at {path!r}")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = arr
        return {"__array__": key}

    def value(self, value, path: str):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)):
            return value if not isinstance(value, float) or np.isfinite(value) else {"__float__": repr(value)}
        if isinstance(value, np.generic):
            return self.value(value.item(), path)
        if isinstance(value, np.ndarray) or type(value).__module__.startswith("jax"):
            return self.array(value, path)
        if getattr(value, "format", None) == "csr" and hasattr(value, "indptr"):  # a scipy CSR matrix / array
            return {"__csr__": {"data": self.array(value.data, path), "indices": self.array(value.indices, path),
                                "indptr": self.array(value.indptr, path), "shape": [int(n) for n in value.shape]}}
        if isinstance(value, tuple) and type(value).__name__ in _MODELS and hasattr(value, "_fields"):
            return {"__model__": type(value).__name__,
                    "fields": {k: self.value(getattr(value, k), f"{path}.{k}") for k in value._fields}}
        if hasattr(value, "get_params") and hasattr(value, "fit"):
            return {"__estimator__": self.estimator(value, path)}
        if isinstance(value, (list, tuple)):
            items = [self.value(v, f"{path}[{i}]") for i, v in enumerate(value)]
            return {"__tuple__": items} if isinstance(value, tuple) else items
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError(f"cannot save dict with non-string keys at {path!r}")
            return {"__dict__": {k: self.value(v, f"{path}.{k}") for k, v in value.items()}}
        raise TypeError(f"{path!r} of type {type(value).__name__} cannot be saved as npz + json; use pickle.")

    def estimator(self, est, path="estimator"):
        name = type(est).__name__
        if _ESTIMATORS.get(name) is not type(est):
            raise TypeError(f"{path!r}: {type(est).__module__}.{name} is not a registered pujax estimator and "
                            f"cannot be saved as npz + json; use pickle (or joblib) for it.")
        fitted = {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}
        encode = _FOREIGN.get(type(est), (None, None, None))[1]
        if encode is not None and fitted:
            fitted = encode(fitted)
        unknown = set(fitted) - set(fitted_schema(type(est)))
        if unknown:
            raise TypeError(f"{name} has fitted attributes without a schema: {sorted(unknown)}")
        return {"class": name,
                "params": self.value(est.get_params(deep=False), f"{path}.params"),
                "fitted": self.value(fitted, f"{path}.fitted")}


def _paths(path) -> tuple[str, str]:
    base = os.fspath(path)
    for ext in (".npz", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base + ".npz", base + ".json"


def save_estimator(estimator: BaseEstimator, path: str | os.PathLike) -> tuple[str, str]:
    """Write ``estimator`` to ``<path>.npz`` and ``<path>.json``; return both file names."""
    if not hasattr(estimator, "get_params"):
        raise TypeError("save_estimator needs a scikit-learn style estimator with get_params().")
    npz_path, json_path = _paths(path)
    enc = _Encoder()
    doc = {"format": FORMAT, **enc.estimator(estimator)}
    os.makedirs(os.path.dirname(os.path.abspath(npz_path)), exist_ok=True)
    np.savez(npz_path, **enc.arrays)
    with open(json_path, "w") as f:
        json.dump(doc, f)
    return npz_path, json_path


# ---------------------------------------------------------------------------------------------------- decoding
class _Invalid(Exception):
    """A problem with the file's content (turned into a ValueError naming the file)."""


_ARRAY_SPEC = re.compile(r"^(f|i|u|b|num|any|str)\[([^\]]*)\]$")
_KINDS = {"f": "f", "i": "i", "u": "u", "b": "b", "num": "fiub", "any": "fiubU", "str": "U"}


class _Decoder:
    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays

    def plain(self, value, path):
        """Decode a parameter value: JSON scalars, lists, tuples, dicts, arrays and nested (unfitted) estimators."""
        if isinstance(value, _SCALARS):
            return value
        if isinstance(value, list):
            return [self.plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict) and len(value) == 1:
            (tag, inner), = value.items()
            if tag == "__array__":
                return self.array_ref(inner, path)
            if tag == "__tuple__" and isinstance(inner, list):
                return tuple(self.plain(v, f"{path}[{i}]") for i, v in enumerate(inner))
            if tag == "__dict__" and isinstance(inner, dict):
                return {str(k): self.plain(v, f"{path}.{k}") for k, v in inner.items()}
            if tag == "__float__" and inner in ("inf", "-inf", "nan"):
                return float(inner)
            if tag == "__estimator__":
                return self.estimator(inner, path)
        raise _Invalid(f"{path}: unexpected value {str(value)[:80]!r}")

    def array_ref(self, key, path):
        if not isinstance(key, str) or key not in self.arrays:
            raise _Invalid(f"{path}: refers to array {str(key)[:40]!r}, which is not in the .npz file")
        return self.arrays[key]

    def estimator(self, doc, path="estimator"):
        if not isinstance(doc, dict) or set(doc) - {"format"} != {"class", "params", "fitted"}:
            raise _Invalid(f"{path}: expected the keys class, params and fitted")
        name = doc["class"]
        cls = _ensure_registered(name) if isinstance(name, str) else None
        if cls is None:
            raise _Invalid(f"{path}: class {str(name)[:80]!r} is not a loadable pujax estimator")
        params = self.plain(doc["params"], f"{path}.params")
        if not isinstance(params, dict):
            raise _Invalid(f"{path}.params: expected a dict")
        allowed = set(cls._get_param_names())
        if set(params) - allowed:
            raise _Invalid(f"{path}.params: {sorted(set(params) - allowed)} are not parameters of {name}")
        try:
            est = cls(**params)
            if hasattr(est, "_check_params"):
                est._check_params()
            elif type(est) in _FOREIGN and hasattr(est, "_validate_params"):
                est._validate_params()  # scikit-learn's own parameter constraints
        except (TypeError, ValueError) as exc:
            raise _Invalid(f"{path}.params: invalid for {name}: {exc}") from None
        fitted = doc["fitted"]
        if not (isinstance(fitted, dict) and set(fitted) == {"__dict__"} and isinstance(fitted["__dict__"], dict)):
            raise _Invalid(f"{path}.fitted: expected a dict of fitted attributes")
        self.fitted(est, fitted["__dict__"], fitted_schema(cls), params, path)
        return est

    def fitted(self, est, values: dict, schema: dict, params: dict, path: str):
        unknown = set(values) - set(schema)
        if unknown:
            raise _Invalid(f"{path}: {sorted(unknown)[:5]} are not fitted attributes of {type(est).__name__}")
        missing = [k for k, spec in schema.items() if not spec.endswith("?") and k not in values]
        if values and missing:
            raise _Invalid(f"{path}: fitted attributes {missing[:5]} are missing")
        symbols = {k: v for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)}
        for k, v in values.items():  # bind int attributes first so shapes can refer to them
            if schema[k].rstrip("?") == "int" and isinstance(v, int) and not isinstance(v, bool):
                symbols[k] = v
        decoded = {k: self.typed(values[k], schema[k].rstrip("?"), symbols, f"{path}.{k}") for k in values}
        decode = _FOREIGN.get(type(est), (None, None, None))[2]
        if decode is not None and decoded:
            try:
                decoded = decode(decoded)
            except (TypeError, ValueError, IndexError, KeyError) as exc:
                raise _Invalid(f"{path}: inconsistent fitted state: {exc}") from None
        for k, v in decoded.items():
            setattr(est, k, v)
        if decoded and hasattr(est, "_check_loaded"):
            try:
                est._check_loaded()
            except (TypeError, ValueError, IndexError) as exc:
                raise _Invalid(f"{path}: inconsistent fitted state: {exc}") from None

    def typed(self, value, spec: str, symbols: dict, path: str):
        errors = []
        for option in spec.split("|"):
            try:
                return self.one(value, option.strip(), symbols, path)
            except _Invalid as exc:
                errors.append(str(exc))
        raise _Invalid(errors[0] if len(errors) == 1 else f"{path}: matches none of {spec!r} ({errors[0]})")

    def one(self, value, spec: str, symbols: dict, path: str):
        scalar = {"int": int, "float": (int, float), "bool": bool, "str": str, "none": type(None)}
        if spec in scalar:
            if isinstance(value, dict) and spec == "float" and set(value) == {"__float__"}:
                return self.plain(value, path)
            ok = isinstance(value, scalar[spec]) and (spec == "bool" or not isinstance(value, bool))
            if not ok:
                raise _Invalid(f"{path}: expected {spec}, got {type(value).__name__}")
            return float(value) if spec == "float" else value
        if spec == "dict":
            out = self.plain(value, path)
            if not isinstance(out, dict) or not all(isinstance(v, _SCALARS) for v in out.values()):
                raise _Invalid(f"{path}: expected a dict of scalars")
            return out
        if spec == "tree":
            out = self.plain(value, path)
            self.check_tree(out, path)
            return out
        if spec == "estimator":
            if not (isinstance(value, dict) and set(value) == {"__estimator__"}):
                raise _Invalid(f"{path}: expected a nested estimator")
            return self.estimator(value["__estimator__"], path)
        if spec == "list[estimator]":
            if not isinstance(value, list):
                raise _Invalid(f"{path}: expected a list of estimators")
            return [self.one(v, "estimator", symbols, f"{path}[{i}]") for i, v in enumerate(value)]
        if spec.startswith("model:"):
            return self.model(value, spec[6:], symbols, path)
        if spec.startswith("csr["):
            return self.csr(value, spec, symbols, path)
        m = _ARRAY_SPEC.match(spec)
        if m is None:
            raise _Invalid(f"{path}: unknown schema {spec!r}")
        if not (isinstance(value, dict) and set(value) == {"__array__"}):
            raise _Invalid(f"{path}: expected an array")
        arr = self.array_ref(value["__array__"], path)
        kind, dims = m.group(1), [d.strip() for d in m.group(2).split(",")] if m.group(2).strip() else []
        if arr.dtype.kind not in _KINDS[kind]:
            raise _Invalid(f"{path}: dtype {arr.dtype} is not of kind {kind!r}")
        if arr.ndim != len(dims):
            raise _Invalid(f"{path}: expected {len(dims)} dimension(s), got shape {arr.shape}")
        for size, d in zip(arr.shape, dims):
            if d == "*":
                continue
            want = int(d) if d.isdigit() else symbols.setdefault(d, size)
            if size != want:
                raise _Invalid(f"{path}: shape {arr.shape} does not match [{', '.join(dims)}] ({d} = {want})")
        return arr

    def csr(self, value, spec: str, symbols: dict, path: str):
        """A CSR matrix of shape ``spec`` (``csr[r,c]``): float values, indices in ``[0, c)``, a valid ``indptr``."""
        import scipy.sparse as sp

        if not (isinstance(value, dict) and set(value) == {"__csr__"} and isinstance(value["__csr__"], dict)
                and set(value["__csr__"]) == {"data", "indices", "indptr", "shape"}):
            raise _Invalid(f"{path}: expected a CSR matrix")
        v = value["__csr__"]
        shape = v["shape"]
        if not (isinstance(shape, list) and len(shape) == 2 and all(isinstance(n, int) and n >= 0 for n in shape)):
            raise _Invalid(f"{path}: shape must be two non-negative ints")
        r, c = shape
        data = self.one(v["data"], "f[*]", {}, f"{path}.data")
        indices = self.one(v["indices"], "i[*]", {}, f"{path}.indices")
        indptr = self.one(v["indptr"], f"i[{r + 1}]", {}, f"{path}.indptr")
        if (indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != data.size or indices.size != data.size
                or (indices.size and (indices.min() < 0 or indices.max() >= c))):
            raise _Invalid(f"{path}: inconsistent CSR arrays")
        dims = [d.strip() for d in spec[4:-1].split(",")]
        for size, d in zip((r, c), dims):
            want = size if d == "*" else int(d) if d.isdigit() else symbols.setdefault(d, size)
            if size != want:
                raise _Invalid(f"{path}: shape {(r, c)} does not match [{', '.join(dims)}] ({d} = {want})")
        return sp.csr_matrix((data, indices, indptr), shape=(r, c))

    def check_tree(self, value, path: str):
        if isinstance(value, dict):
            for k, v in value.items():
                self.check_tree(v, f"{path}.{k}")
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                self.check_tree(v, f"{path}[{i}]")
        elif isinstance(value, np.ndarray):
            if value.dtype.kind not in "fiub":
                raise _Invalid(f"{path}: dtype {value.dtype} is not numeric")
        elif not isinstance(value, _SCALARS) or isinstance(value, str):
            raise _Invalid(f"{path}: expected arrays and numbers only, got {type(value).__name__}")

    def model(self, value, name: str, symbols: dict, path: str):
        if name not in _MODELS:
            raise _Invalid(f"{path}: unknown model type {name!r}")
        cls, schema = _MODELS[name]
        if not (isinstance(value, dict) and value.get("__model__") == name and isinstance(value.get("fields"), dict)
                and set(value["fields"]) == set(schema)):
            raise _Invalid(f"{path}: expected a {name} with fields {sorted(schema)}")
        fields = value["fields"]
        return cls(**{k: self.typed(fields[k], schema[k], symbols, f"{path}.{k}") for k in cls._fields})


def load_estimator(path: str | os.PathLike, expected_class: type | None = None) -> Any:
    """Load an estimator written by :func:`save_estimator`; every part of the file is checked (module docstring).

    ``expected_class``: the loaded estimator must be an instance of it (``Class.load`` passes its class).
    """
    npz_path, json_path = _paths(path)
    if not os.path.exists(json_path) or not os.path.exists(npz_path):
        raise FileNotFoundError(f"no saved estimator at {os.fspath(path)!r}: expected {npz_path} and {json_path}.")
    try:
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{json_path} is not a pujax estimator file: invalid JSON ({exc}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"{json_path} is not a pujax estimator file of format {FORMAT!r} (found {found!r}); "
                         f"files of other formats cannot be read: refit and save again.")
    try:
        with np.load(npz_path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise ValueError(f"{npz_path} is not a readable .npz archive of a pujax estimator ({exc}).") from None
    try:
        est = _Decoder(arrays).estimator(doc)
    except _Invalid as exc:
        raise ValueError(f"{json_path}: {exc}") from None
    except RecursionError:
        raise ValueError(f"{json_path}: nested too deeply to be a pujax estimator file.") from None
    if expected_class is not None and not isinstance(est, expected_class):
        raise ValueError(f"{json_path} holds a {type(est).__name__}, not a {expected_class.__name__}.")
    return est

