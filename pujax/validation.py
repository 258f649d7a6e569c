"""Input validation shared by every pujax estimator and core function (DESIGN §1).

All checks live here so that labels, priors, feature matrices and random states are normalised once, in one
place, with one wording of each error message. Every error names the argument and says how to fix it.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_X",
    "check_pu_labels",
    "check_binary_labels",
    "check_X_s",
    "check_prior",
    "resolve_prior",
    "as_key",
    "check_is_fitted_and_X",
    "check_positive_int",
    "check_in",
    "check_fraction",
]


def _to_numpy(a):
    """Convert lists, numpy, jax or pandas inputs to a numpy array without copying when possible."""
    if hasattr(a, "to_numpy") and not isinstance(a, np.ndarray):  # pandas
        a = a.to_numpy()
    return np.asarray(a)


def check_X(X, name: str = "X", dtype=np.float32, allow_empty: bool = False) -> np.ndarray:
    """Return ``X`` as a C-contiguous 2-D float array (float32 by default).

    Raises ``TypeError`` for non-numeric input and ``ValueError`` for wrong dimensionality, no rows or columns, or
    NaN / infinite values.
    """
    if X is None:
        raise ValueError(f"{name} is None: pass a 2-D array of shape (n_samples, n_features).")
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise TypeError(f"{name} is a sparse matrix; pujax needs a dense array: pass {name}.toarray().")
    arr = _to_numpy(X)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(
            f"{name} has dtype {arr.dtype}; pujax needs numeric features. Encode categorical columns first "
            f"(e.g. sklearn.preprocessing.OneHotEncoder)."
        )
    if arr.ndim == 1:
        raise ValueError(
            f"{name} is 1-D with shape {arr.shape}; expected 2-D (n_samples, n_features). "
            f"Use {name}.reshape(-1, 1) for a single feature or {name}.reshape(1, -1) for a single sample."
        )
    if arr.ndim != 2:
        raise ValueError(f"{name} has {arr.ndim} dimensions (shape {arr.shape}); expected 2-D (n_samples, n_features).")
    if not allow_empty and (arr.shape[0] == 0 or arr.shape[1] == 0):
        raise ValueError(f"{name} has shape {arr.shape}; it needs at least one sample and one feature.")
    arr = np.ascontiguousarray(arr, dtype=dtype)
    if not np.all(np.isfinite(arr)):
        n_bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {n_bad} NaN or infinite value(s); impute or drop them first "
            f"(e.g. sklearn.impute.SimpleImputer)."
        )
    return arr


def check_pu_labels(s, name: str = "s", n_samples: int | None = None, require_both: bool = True) -> np.ndarray:
    """Normalise PU labels to an int32 array with 1 = labeled positive, 0 = unlabeled.

    Accepts bool, {0, 1} and {-1, +1} encodings (DESIGN §1). Raises ``ValueError`` when ``s`` is not 1-D, not
    binary, has the wrong length, or (with ``require_both``) has no labeled positive or no unlabeled row.
    """
    if s is None:
        raise ValueError(f"{name} is None: pass PU labels (1 = labeled positive, 0 = unlabeled).")
    arr = _to_numpy(s)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one PU label per row); got shape {arr.shape}.")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} labels but X has {n_samples} rows; pass one PU label per row of X."
        )
    if arr.dtype == bool:
        out = arr.astype(np.int32)
    else:
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name} has dtype {arr.dtype}; PU labels must be bool, {{0, 1}} or {{-1, +1}}.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values; PU labels must be bool, {{0, 1}} or {{-1, +1}}.")
        values = set(np.unique(arr).tolist())
        if values <= {0, 1}:
            out = arr.astype(np.int32)
        elif values <= {-1, 1}:
            out = (arr == 1).astype(np.int32)
        else:
            shown = sorted(values)[:6]
            raise ValueError(
                f"{name} must be binary PU labels (1 = labeled positive, 0 or -1 = unlabeled, or bool); "
                f"found values {shown}. For multi-class y, pass s = (y == positive_class)."
            )
    if require_both:
        n_lab = int(out.sum())
        if n_lab == 0:
            raise ValueError(f"{name} has no labeled positive (all 0); PU learning needs at least one s == 1.")
        if n_lab == out.shape[0]:
            raise ValueError(
                f"{name} has no unlabeled row (all 1); PU learning needs unlabeled data (s == 0). In the "
                f"case-control setting pass X = concat(X_P, X_U) with s = concat(ones, zeros)."
            )
    return np.ascontiguousarray(out)


def check_binary_labels(y, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """Normalise fully observed binary labels (bool, {0,1} or {-1,+1}) to int32 {0, 1}; both classes not required."""
    return check_pu_labels(y, name=name, n_samples=n_samples, require_both=False)


def check_X_s(X, s, X_name: str = "X", s_name: str = "s"):
    """Validate a PU training set: ``X`` 2-D finite floats, ``s`` binary PU labels of the same length."""
    X = check_X(X, name=X_name)
    s = check_pu_labels(s, name=s_name, n_samples=X.shape[0])
    return X, s


def check_prior(prior, name: str = "prior", allow_auto: bool = True):
    """Return ``prior`` as a float in (0, 1), or the string ``"auto"`` (or a prior estimate) unchanged.

    ``prior`` is pi = P(y = 1) in the population the unlabeled data is drawn from (case-control scenario).
    """
    if isinstance(prior, str):
        if allow_auto and prior == "auto":
            return "auto"
        raise ValueError(
            f"{name}={prior!r} is not valid; pass the class prior pi = P(y=1) as a float in (0, 1)"
            + (' or "auto" to estimate it from the data.' if allow_auto else ".")
        )
    if allow_auto and hasattr(prior, "prior") and not isinstance(prior, numbers.Number):
        check_prior(prior.prior, name=f"{name}.prior", allow_auto=False)
        return prior
    if prior is None:
        raise ValueError(
            f"{name} is None; pass the class prior pi = P(y=1) as a float in (0, 1)"
            + (' or "auto" to estimate it.' if allow_auto else ".")
        )
    try:
        value = float(np.asarray(prior))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a float in (0, 1); got {type(prior).__name__}.") from None
    if not np.isfinite(value) or not (0.0 < value < 1.0):
        raise ValueError(f"{name}={value!r} is outside (0, 1); pass pi = P(y=1), strictly between 0 and 1.")
    return value


def resolve_prior(prior, X, s, random_state=None, name: str = "prior") -> float:
    """Turn an estimator's ``prior`` argument into a float.

    A float is checked and returned; ``"auto"`` estimates pi from ``(X, s)`` with
    :func:`pujax.prior.estimate_prior` (default method); an object with a ``.prior`` attribute (a
    ``PriorEstimate``) gives its value.
    """
    prior = check_prior(prior, name=name)
    if isinstance(prior, str):  # "auto"
        try:
            from pujax.prior import estimate_prior
        except ImportError as exc:  # pragma: no cover - only before pujax.prior exists
            raise ValueError(
                f'{name}="auto" needs pujax.prior, which is not available: pass the class prior as a float.'
            ) from exc
        return float(check_prior(estimate_prior(X, s, random_state=random_state).prior, name=name, allow_auto=False))
    if not isinstance(prior, float):
        return float(prior.prior)
    return prior


def as_key(random_state=None):
    """Return a JAX PRNG key from ``None`` (fresh entropy), an int, a numpy RandomState/Generator or a JAX key."""
    import jax

    if random_state is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
        return jax.random.PRNGKey(seed)
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be None, an int, a numpy RandomState/Generator or a JAX PRNG key.")
    if isinstance(random_state, numbers.Integral):
        if int(random_state) < 0 or int(random_state) >= 2**32:
            raise ValueError(f"random_state={random_state} must be in [0, 2**32).")
        return jax.random.PRNGKey(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return jax.random.PRNGKey(int(random_state.randint(0, 2**31 - 1)))
    if isinstance(random_state, np.random.Generator):
        return jax.random.PRNGKey(int(random_state.integers(0, 2**31 - 1)))
    arr = random_state
    if hasattr(arr, "dtype") and (jax.dtypes.issubdtype(arr.dtype, jax.dtypes.prng_key)):
        return arr
    if hasattr(arr, "shape") and tuple(arr.shape) == (2,) and np.issubdtype(np.asarray(arr).dtype, np.unsignedinteger):
        return jax.numpy.asarray(arr, dtype=jax.numpy.uint32)
    raise TypeError(
        f"random_state of type {type(random_state).__name__} is not supported; pass None, an int, "
        f"a numpy RandomState/Generator or a JAX PRNG key."
    )


def check_is_fitted_and_X(estimator, X, attributes: str | list[str] = "n_features_in_") -> np.ndarray:
    """At predict time: raise ``NotFittedError`` before fit, validate ``X`` and its number of features."""
    from sklearn.exceptions import NotFittedError

    attrs = [attributes] if isinstance(attributes, str) else list(attributes)
    if not all(hasattr(estimator, a) for a in attrs):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with training data first."
        )
    X = check_X(X)
    n_expected = estimator.n_features_in_
    if X.shape[1] != n_expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with {n_expected} features; "
            f"pass data with the same columns as in fit."
        )
    return X


def check_positive_int(value, name: str, minimum: int = 1, allow_none: bool = False):
    """Check an integer hyper-parameter ``>= minimum`` (``None`` allowed when ``allow_none``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {minimum}; got {value!r} ({type(value).__name__}).")
    if int(value) < minimum:
        raise ValueError(f"{name}={value} must be >= {minimum}.")
    return int(value)


def check_fraction(value, name: str, low: float = 0.0, high: float = 1.0, inclusive: str = "neither") -> float:
    """Check a float in (low, high); ``inclusive`` in {"neither", "left", "right", "both"}."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float; got {value!r} ({type(value).__name__}).")
    v = float(value)
    lo_ok = v >= low if inclusive in ("left", "both") else v > low
    hi_ok = v <= high if inclusive in ("right", "both") else v < high
    if not (np.isfinite(v) and lo_ok and hi_ok):
        lb = "[" if inclusive in ("left", "both") else "("
        rb = "]" if inclusive in ("right", "both") else ")"
        raise ValueError(f"{name}={value!r} must be in {lb}{low}, {high}{rb}.")
    return v


def check_in(value, name: str, choices):
    """Check that ``value`` is one of ``choices`` (strings compared exactly)."""
    if value not in tuple(choices):
        raise ValueError(f"{name}={value!r} is not valid; choose one of {sorted(map(str, choices))}.")
    return value
