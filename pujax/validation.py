"""Input validation for every pujax estimator and functional core: the one place where arrays, PU labels, sample
weights, priors, hyper-parameters and random states are checked.

Arrays go through scikit-learn's own validation (:func:`sklearn.utils.validation.validate_data` and
:func:`~sklearn.utils.check_array`), so errors read exactly as scikit-learn's (NaN / infinity, empty data, 1-D X,
complex or object dtype, too few samples, "X has k features, but ... is expecting m features as input", feature
names of pandas frames). On top come the checks that PU learning needs: PU labels with a labeled and an unlabeled
class, sample weights that leave both classes some weight, a prior in (0, 1), and values that fit in float32.

Two levels:

* estimators call :func:`validate_fit_data` / :func:`validate_predict_data` (they set and check
  ``n_features_in_``, ``feature_names_in_`` and ``classes_`` the scikit-learn way);
* functional cores and free functions call :func:`check_X`, :func:`check_pu_labels`, :func:`check_sample_weight`.

Every error is a ``ValueError`` or ``TypeError`` that names the argument and says how to fix it.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, column_or_1d
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike, DTypeLike
    from sklearn.base import BaseEstimator


__all__ = [
    "FLOAT32_MAX",
    "SPARSE_FORMATS",
    "SPARSE_ESTIMATORS",
    "dense_required",
    "validate_fit_data",
    "validate_predict_data",
    "check_X",
    "check_1d",
    "LABEL_RULE",
    "read_pu_labels",
    "check_pu_labels",
    "encode_pu_labels",
    "check_binary_labels",
    "check_X_s",
    "check_sample_weight",
    "check_prior",
    "check_int",
    "check_float",
    "check_in",
    "check_bool",
]

SPARSE_FORMATS = ["csr", "csc"]
"""The scipy sparse formats pujax estimators take as they are (``accept_sparse=SPARSE_FORMATS``); any other sparse
format is converted to CSR."""

SPARSE_ESTIMATORS = ("ElkanNotoClassifier, PUBaggingClassifier, TwoStepClassifier, SAREMClassifier, "
                     "NNPULinearClassifier, CWSVMClassifier, BaggingSVMClassifier, RESVMClassifier, "
                     "PUExtraTreesClassifier, PURandomForestClassifier, PUDecisionTreeClassifier, NaivePUET, "
                     "SupervisedET, PUBaggingET, NNPUClassifier, PUSBClassifier, PUbNClassifier, DistPUClassifier, "
                     "PULDAClassifier, CountLossClassifier, PUeClassifier, CVIRClassifier, P3MixClassifier, "
                     "RobustPUClassifier, HolisticPUClassifier, LBEClassifier and estimate_prior")
"""The pujax estimators that take scipy sparse ``X`` (named in the error a dense-only estimator raises)."""

FLOAT32_MAX = float(np.finfo(np.float32).max)
"""Largest finite float32: inputs beyond it cannot be represented in pujax's default precision."""

_FLOAT_DTYPES = (np.float64, np.float32)


def _float32_range(X, name: str):
    """Raise when a float64 input holds finite values that overflow float32 (they would become inf)."""
    data = X.data if sp.issparse(X) else X
    if data.dtype == np.float64 and data.size:
        big = float(np.max(np.abs(data)))
        if big > FLOAT32_MAX:
            raise ValueError(
                f"{name} contains values up to {big:.3g} in magnitude, beyond the float32 range (|x| <= "
                f"{FLOAT32_MAX:.3g}) that pujax computes in; rescale {name} (e.g. "
                f"sklearn.preprocessing.StandardScaler) or enable float64 with "
                f'jax.config.update("jax_enable_x64", True).'
            )


def dense_required(X: Any, name: str = "X", who: str = "this estimator") -> None:
    """Raise the ``TypeError`` of a method that needs dense data when ``X`` is a scipy sparse matrix / array: it
    names the pujax estimators that take sparse input and the two ways out (densify, or project to a few hundred
    dense columns)."""
    if sp.issparse(X):
        raise TypeError(
            f"Sparse data was passed for {name}, but {who} needs dense data. Pass a dense array ({name}.toarray(), "
            f"when it fits in memory) or a dense projection (e.g. sklearn.decomposition.TruncatedSVD(300)), or use "
            f"an estimator that takes sparse {name}: {SPARSE_ESTIMATORS}."
        )


def _as_compute_dtype(X, dtype):
    """Cast validated float data to the compute dtype (float32 unless x64 is on and float64 was asked for)."""
    if dtype is None:
        return X
    if sp.issparse(X):
        return X.astype(dtype, copy=False)
    return np.ascontiguousarray(X, dtype=dtype)


def check_X(X: ArrayLike, name: str = "X", *, accept_sparse: bool | str | list = False, dtype: DTypeLike = np.float32,
            ensure_min_samples: int = 1, ensure_min_features: int = 1) -> Any:
    """Validate a feature matrix outside an estimator; return it as a 2-D C-contiguous ``dtype`` array.

    scikit-learn's :func:`~sklearn.utils.check_array` checks (2-D, numeric, no complex / object values, no NaN or
    infinity, at least ``ensure_min_samples`` rows and ``ensure_min_features`` columns), then the float32 range.
    ``accept_sparse`` (e.g. ``"csr"``, or :data:`SPARSE_FORMATS`) lets a scipy sparse matrix through, converted
    to that format (the first of a list when it is in none of them); without it a sparse ``X`` raises the
    ``TypeError`` of :func:`dense_required`.
    """
    if X is None:
        raise ValueError(f"{name} is None: pass a 2-D array of shape (n_samples, n_features).")
    if not accept_sparse:
        dense_required(X, name, "this function")
    X = check_array(X, accept_sparse=accept_sparse, dtype=_FLOAT_DTYPES, ensure_min_samples=ensure_min_samples,
                    ensure_min_features=ensure_min_features, input_name=name)
    _float32_range(X, name)
    return _as_compute_dtype(X, dtype)


def check_1d(values: ArrayLike, name: str, *, per_row: str, if_none: str, hint: str = "") -> np.ndarray:
    """``values`` (a sequence, an array, a pandas object or a one-column 2-D array) as a 1-D numpy array.

    Parameters
    ----------
    values : array-like
        One value per row.
    name : str
        Argument name used in the errors.
    per_row : str
        What one value is ("label", "score"), for the error on a wrong shape.
    if_none : str
        What to pass instead, for the error on ``values=None``.
    hint : str, default=""
        Appended to the error on a wrong shape.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    if values is None:
        raise ValueError(f"{name} is None: pass {if_none}.")
    arr = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one {per_row} per row); got shape {arr.shape}.{hint}")
    return arr


LABEL_RULE = ("PU labels are binary: bool, {0, 1} or {-1, 1}, where True / 1 marks the labeled positives and "
              "False / 0 / -1 the unlabeled rows")


def _shown(values) -> str:
    """The first values of a label vector, for an error message."""
    return repr(list(values)[:6])[:-1] + (", ...]" if len(list(values)) > 6 else "]")


def _label_values(arr: np.ndarray, name: str) -> list:
    """The distinct values of a 1-D label array (sorted where they compare), as Python objects."""
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} has dtype {arr.dtype}; {LABEL_RULE}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; {LABEL_RULE}.")
    try:
        values = np.unique(arr).tolist()
    except TypeError:  # object labels of types that do not compare (e.g. 1 and "a")
        raise ValueError(f"{name} holds values of mixed types {_shown(dict.fromkeys(arr.tolist()))}; "
                         f"{LABEL_RULE}.") from None
    if any(v != v for v in values):  # NaN in an object array
        raise ValueError(f"{name} contains NaN values; {LABEL_RULE}.")
    return values


def _labeled_value(values: list, name: str, pos_label: Any) -> Any:
    """The value of ``values`` that marks labeled positives: ``pos_label``, or 1 / True of the documented
    encodings; a ``ValueError`` naming the values seen otherwise."""
    if pos_label is not None:
        if isinstance(pos_label, (list, tuple, set, dict, np.ndarray)):
            raise TypeError(f"pos_label must be a single label value (e.g. 1 or 'positive'); got {pos_label!r}.")
        hits = [v for v in values if v == pos_label]
        if not hits:
            raise ValueError(f"pos_label={pos_label!r} is not among the values of {name}: {_shown(values)}; pass the "
                             f"value that marks the labeled positives.")
        return hits[0]
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return True
    if all(not isinstance(v, (str, bytes)) for v in values) and (set(values) <= {0, 1} or set(values) <= {-1, 1}):
        return 1
    raise ValueError(
        f"{name} holds the values {_shown(values)}; {LABEL_RULE}. Name the value that marks the labeled positives: "
        f"pos_label=<value> of an estimator (or of PUStratifiedKFold / pu_train_test_split), or "
        f"pujax.validation.check_pu_labels({name}, pos_label=<value>) before a function. For multi-class y pass "
        f"(y == positive_class)."
    )


def read_pu_labels(s: ArrayLike, name: str = "s", *, pos_label: Any = None,
                   n_samples: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read PU labels by pujax's one rule; return ``(s01, classes)``.

    Without ``pos_label``: bool, {0, 1} or {-1, 1} (ints, floats or numeric objects), with ``True`` / 1 marking
    the labeled positives; any other values (e.g. {1, 2}, {0, 2}, strings) raise a ``ValueError`` that names the
    values seen. With ``pos_label``: rows equal to it are the labeled positives and the rows of the one other value
    are unlabeled (at most two values).

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        The labels (a one-column 2-D array and pandas objects are accepted).
    name : str, default="s"
        Argument name used in the errors.
    pos_label : scalar or None, default=None
        The value that marks labeled positives; None applies the rule above.
    n_samples : int or None, default=None
        The number of rows ``s`` must have (that of ``X``).

    Returns
    -------
    s01 : ndarray of shape (n_samples,), int32
        1 for labeled positives, 0 for unlabeled rows.
    classes : ndarray
        The values present in ``s``, the unlabeled one first and the labeled one last (``classes[-1]`` marks the
        labeled positives), in ``s``'s dtype.

    Examples
    --------
    >>> from pujax.validation import read_pu_labels
    >>> s01, classes = read_pu_labels(["unlabeled", "positive"], pos_label="positive")
    >>> s01.tolist(), classes.tolist()
    ([0, 1], ['unlabeled', 'positive'])
    """
    arr = check_1d(s, name, per_row="label", if_none="PU labels (1 = labeled positive, 0 = unlabeled)")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_samples} rows; pass one label per row.")
    values = _label_values(arr, name)
    if len(values) > 2:
        raise ValueError(
            f"{name} holds {len(values)} values {_shown(values)}; {LABEL_RULE}. For multi-class y pass "
            f"(y == positive_class)."
        )
    labeled = _labeled_value(values, name, pos_label)
    s01 = np.ascontiguousarray(arr == labeled, dtype=np.int32)
    ordered = [v for v in values if not v == labeled] + [v for v in values if v == labeled]
    return s01, np.array(ordered, dtype=arr.dtype)


def encode_pu_labels(s: ArrayLike, name: str = "s", pos_label: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Encode an estimator's target: return ``(s01, classes)`` with ``s01`` int32 in {0, 1}.

    The rule of :func:`read_pu_labels` (bool, {0, 1}, {-1, 1}, or any two values with ``pos_label``), and the two
    values present: ``classes`` holds them with the labeled value last (``classes[1]``: what ``predict`` returns
    for the positive class); without ``pos_label`` that is the sorted pair. A continuous target gets
    scikit-learn's "Unknown label type" error, more than two values its "Only binary classification" error and a
    single value an error that says what PU labels are.
    """
    s = column_or_1d(s, warn=True)
    kind = type_of_target(s, input_name=name)
    if kind not in ("binary", "multiclass", "unknown"):  # "unknown": e.g. object arrays, read by the rule below
        raise ValueError(f"Unknown label type: {kind}. {name} must hold PU labels: {LABEL_RULE}.")
    values = _label_values(s, name)
    if len(values) > 2:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: {name} has "
            f"{len(values)} classes {_shown(values)}, but PU labels must be binary, two values (labeled positive, "
            f"unlabeled). For a multi-class y pass s = (y == positive_class)."
        )
    s01, classes = read_pu_labels(s, name, pos_label=pos_label)
    if len(classes) < 2:
        value = classes[0].item()
        what = "no labeled positive" if not s01.any() else "no unlabeled row"
        raise ValueError(
            f"{name} has only one class ({value!r}): {what}. PU learning needs labeled positives (1, True or "
            f"pos_label) and unlabeled rows (0, -1 or False); in the case-control setting pass "
            f"X = concat(X_P, X_U) with s = concat(ones, zeros)."
        )
    return s01, classes


def check_pu_labels(s: ArrayLike, name: str = "s", n_samples: int | None = None, require_both: bool = True,
                    pos_label: Any = None) -> np.ndarray:
    """PU labels for a functional core, a metric or a splitter, read by :func:`read_pu_labels`: int32 {0, 1}.

    bool, {0, 1} or {-1, 1} (1 / True = labeled positive); other values raise a ``ValueError`` naming them unless
    ``pos_label`` names the labeled value. ``require_both``: there must be a labeled (1) and an unlabeled (0) row.
    A traced ``s`` (inside ``jax.jit`` or ``jax.vmap``) is returned unchanged: its values cannot be read.
    """
    import jax

    if isinstance(s, jax.core.Tracer):  # traced under jit / vmap: its values cannot be read
        return s
    out, _ = read_pu_labels(s, name, pos_label=pos_label, n_samples=n_samples)
    if require_both and out.size:
        n_lab = int(out.sum())
        if n_lab == 0:
            raise ValueError(f"{name} has no labeled positive (all 0); PU learning needs at least one {name} == 1.")
        if n_lab == out.shape[0]:
            raise ValueError(f"{name} has no unlabeled row (all 1); PU learning needs unlabeled data ({name} == 0).")
    return out


def check_binary_labels(y: ArrayLike, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """Fully observed binary labels by the same rule (bool, {0, 1} or {-1, +1}) as int32 {0, 1}; one class is
    allowed."""
    return check_pu_labels(y, name=name, n_samples=n_samples, require_both=False)


def check_X_s(X: ArrayLike, s: ArrayLike, *, accept_sparse: bool | str | list = False) -> tuple[Any, np.ndarray]:
    """A PU training set for a functional core: :func:`check_X` of ``X`` and :func:`check_pu_labels` of ``s``."""
    X = check_X(X, accept_sparse=accept_sparse)
    return X, check_pu_labels(s, n_samples=X.shape[0])


def check_sample_weight(sample_weight: ArrayLike | None, s01: np.ndarray,
                        dtype: DTypeLike = np.float32) -> np.ndarray | None:
    """Validate ``sample_weight`` against PU labels ``s01``: 1-D, one finite non-negative weight per row, and a
    positive total weight on the labeled and on the unlabeled class. ``None`` stays ``None`` (unit weights)."""
    if sample_weight is None:
        return None
    n = s01.shape[0]
    if isinstance(sample_weight, numbers.Number):
        w = np.full(n, float(sample_weight))
    else:
        w = check_array(sample_weight, ensure_2d=False, dtype=_FLOAT_DTYPES, input_name="sample_weight")
    if w.ndim != 1:
        raise ValueError(f"Sample weights must be 1D array or scalar; got sample_weight of shape {w.shape}.")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight.shape == ({w.shape[0]},), expected ({n},)!")
    if np.any(w < 0):
        raise ValueError("Negative values in data passed to sample_weight: weights must be >= 0.")
    _float32_range(w, "sample_weight")
    for cls, what in ((1, "labeled positives"), (0, "unlabeled rows")):
        if not np.sum(w[s01 == cls]) > 0:
            raise ValueError(
                f"sample_weight gives zero total weight to the {what} (class {cls} of the PU labels); PU "
                f"learning needs weight on both classes."
            )
    return np.ascontiguousarray(w, dtype=dtype)


def validate_fit_data(estimator: BaseEstimator, X: ArrayLike, s: ArrayLike, sample_weight: ArrayLike | None = None, *,
                      accept_sparse: bool | str | list = False, dtype: DTypeLike = np.float32,
                      set_classes: bool = True) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """Validate an estimator's training data the scikit-learn way; return ``(X, s01, sample_weight)``.

    Sets ``estimator.n_features_in_``, ``feature_names_in_`` (pandas input) and, with ``set_classes``,
    ``classes_`` (the two values of ``s``; see :func:`encode_pu_labels`). ``X`` comes back as a C-contiguous float32
    array (or a float32 sparse matrix when ``accept_sparse`` allows it), ``s01`` as int32 {0, 1}, ``sample_weight``
    as float32 or ``None``.
    """
    if not accept_sparse:
        dense_required(X, "X", type(estimator).__name__)
    X, s = validate_data(estimator, X, s, reset=True, accept_sparse=accept_sparse, dtype=_FLOAT_DTYPES,
                         ensure_min_samples=2, y_numeric=False)
    _float32_range(X, "X")
    s01, classes = encode_pu_labels(s, pos_label=getattr(estimator, "pos_label", None))
    if set_classes:
        estimator.classes_ = classes
    w = check_sample_weight(sample_weight, s01)
    return _as_compute_dtype(X, dtype), s01, w


def validate_predict_data(estimator: BaseEstimator, X: ArrayLike, *, accept_sparse: bool | str | list = False,
                          dtype: DTypeLike = np.float32, attributes: str | list[str] | None = None) -> Any:
    """Validate ``X`` at predict time: ``NotFittedError`` before ``fit``, then scikit-learn's checks of the number
    of features and of pandas feature names against those seen in ``fit``; return float32 ``X``."""
    check_is_fitted(estimator, attributes)
    if not accept_sparse:
        dense_required(X, "X", type(estimator).__name__)
    X = validate_data(estimator, X, reset=False, accept_sparse=accept_sparse, dtype=_FLOAT_DTYPES)
    _float32_range(X, "X")
    return _as_compute_dtype(X, dtype)


def check_prior(prior: float | str | None, name: str = "prior", allow_auto: bool = True) -> float | str:
    """Return ``prior`` as a float in (0, 1), or ``"auto"`` / a prior estimate (an object with ``.prior``).

    ``prior`` is pi = P(y = 1) in the population the unlabeled data is drawn from (case-control scenario).
    """
    auto = ' or "auto" to estimate it from the data' if allow_auto else ""
    if isinstance(prior, str):
        if allow_auto and prior == "auto":
            return "auto"
        raise ValueError(f"{name}={prior!r} is not valid; pass the class prior pi = P(y=1) as a float in (0, 1){auto}.")
    if allow_auto and hasattr(prior, "prior") and not isinstance(prior, numbers.Number):
        check_prior(prior.prior, name=f"{name}.prior", allow_auto=False)
        return prior
    if prior is None or isinstance(prior, (bool, np.bool_)):
        raise ValueError(f"{name}={prior!r} is not valid; pass the class prior pi = P(y=1) as a float in (0, 1){auto}.")
    try:
        value = float(np.asarray(prior))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a float in (0, 1); got {type(prior).__name__}.") from None
    if not np.isfinite(value) or not (0.0 < value < 1.0):
        raise ValueError(f"{name}={value!r} is outside (0, 1); pass pi = P(y=1), strictly between 0 and 1.")
    return value


def check_int(value: Any, name: str, low: int | None = 1, high: int | None = None,
              allow_none: bool = False) -> int | None:
    """Check an integer hyper-parameter in ``[low, high]`` (either bound may be ``None``); return it as ``int``."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int; got {value!r} ({type(value).__name__}).")
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name}={v} must be an int in [{lo}, {hi}].")
    return v


def check_float(value: Any, name: str, low: float | None = None, high: float | None = None, closed: str = "neither",
                allow_none: bool = False) -> float | None:
    """Check a finite real hyper-parameter between ``low`` and ``high``; return it as ``float``.

    ``closed`` in {"neither", "left", "right", "both"} says which bounds are included; a ``None`` bound is open.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float; got {value!r} ({type(value).__name__}).")
    v = float(value)
    left = closed in ("left", "both")
    right = closed in ("right", "both")
    ok = np.isfinite(v)
    if low is not None:
        ok = ok and (v >= low if left else v > low)
    if high is not None:
        ok = ok and (v <= high if right else v < high)
    if not ok:
        lb = "[" if left and low is not None else "("
        rb = "]" if right and high is not None else ")"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name}={value!r} must be a finite float in {lb}{lo}, {hi}{rb}.")
    return v


def check_in(value: Any, name: str, choices: Iterable) -> Any:
    """Check that ``value`` is one of ``choices`` (compared exactly); return it."""
    choices = tuple(choices)
    if isinstance(value, (list, dict, np.ndarray)) or value not in choices:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {sorted(map(str, choices))}.")
    return value


def check_bool(value: Any, name: str) -> bool:
    """Check a boolean hyper-parameter (Python or numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r} ({type(value).__name__}).")
    return bool(value)
