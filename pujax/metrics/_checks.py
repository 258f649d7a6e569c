"""Host-side input checks shared by every function of :mod:`pujax.metrics`.

Metric functions validate their inputs when they are called with concrete arrays (NumPy, lists, pandas, JAX
arrays) and skip the checks when called under ``jax.jit`` / ``jax.vmap`` (traced inputs cannot be inspected).
Labels go through :func:`pujax.validation.check_binary_labels` / :func:`~pujax.validation.check_pu_labels`, the
prior through :func:`~pujax.validation.check_prior`, scores through scikit-learn's
:func:`~sklearn.utils.check_array`; every error names the argument.
"""
from __future__ import annotations

import warnings

import jax
import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array

from pujax.validation import (
    FLOAT32_MAX,
    check_1d,
    check_binary_labels,
    check_in,
    check_prior,
    check_pu_labels,
    check_sample_weight,
)

__all__ = ["DegeneratePredictorWarning", "UndefinedMetricWarning", "SCENARIOS", "is_traced", "check_labels",
           "check_scores", "check_pair", "check_pu_pair", "check_weights", "check_pu_weights", "check_metric_prior",
           "check_scenario", "warn_degenerate", "warn_constant_scores"]

SCENARIOS = ("case-control", "censoring")


class DegeneratePredictorWarning(UserWarning):
    """A predictor assigns every row to the same class (or a scorer gives every row the same score).

    Its metrics are defined but are those of a trivial rule (e.g. "everything is positive"); a model selected
    by them is no better than that rule.
    """


def is_traced(*args) -> bool:
    """Whether any argument is a JAX tracer (the function is being traced by ``jit`` / ``vmap`` / ``grad``)."""
    return any(isinstance(a, jax.core.Tracer) for a in args)


def _nonempty(arr: np.ndarray, name: str) -> None:
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: pass at least one sample (one label or score per row).")


def check_labels(y, name: str) -> np.ndarray:
    """Fully observed binary labels (bool, {0, 1} or {-1, +1}; ``{0, 2}`` is refused) as int32 {0, 1}."""
    out = check_binary_labels(y, name=name)
    _nonempty(out, name)
    return out


def check_scores(scores, name: str = "y_score") -> np.ndarray:
    """1-D finite real scores, returned as int32 dense ranks (order and ties exactly as in the input dtype).

    Ranking metrics depend only on the order of the scores; ranks keep float64 scores that float32 could not tell
    apart distinct.
    """
    arr = check_1d(scores, name, per_row="score", if_none="one real score per row (e.g. decision_function(X))",
                   hint=" For predict_proba output pass its column of the positive class, proba[:, 1].")
    _nonempty(arr, name)
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    arr = check_array(arr, ensure_2d=False, dtype=(np.float64, np.float32), input_name=name)
    ranks = np.unique(arr, return_inverse=True)[1].reshape(-1)
    return np.ascontiguousarray(ranks, dtype=np.int32)


def _same_length(a: np.ndarray, a_name: str, b: np.ndarray, b_name: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{b_name} has {b.shape[0]} entries but {a_name} has {a.shape[0]}; pass one per row "
                         f"(same length).")


def check_pair(y_true, second, second_name: str = "y_pred", scores: bool = False):
    """Validate ``(y_true, y_pred)`` (labels) or ``(y_true, y_score)`` (``scores=True``) of the same length."""
    t = check_labels(y_true, "y_true")
    p = check_scores(second, second_name) if scores else check_labels(second, second_name)
    _same_length(t, "y_true", p, second_name)
    return t, p


def check_pu_pair(s, second, second_name: str = "y_pred", scores: bool = False):
    """Validate PU labels ``s`` (a labeled positive and an unlabeled row required) with predictions or scores."""
    if s is not None and np.asarray(s).shape[:1] == (0,):
        raise ValueError("s is empty: pass at least one labeled positive (s = 1) and one unlabeled row (s = 0).")
    s01 = check_pu_labels(s, name="s", require_both=True)
    p = check_scores(second, second_name) if scores else check_labels(second, second_name)
    _same_length(s01, "s", p, second_name)
    return s01, p


def check_weights(sample_weight, n: int) -> np.ndarray:
    """Row weights of a metric: 1-D, one finite non-negative weight per row, a positive total; float32."""
    w = check_array(sample_weight, ensure_2d=False, dtype=(np.float64, np.float32), input_name="sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"sample_weight has shape {w.shape}; pass one weight per row, shape ({n},).")
    if np.any(w < 0):
        raise ValueError("sample_weight has negative values; weights must be >= 0.")
    if not np.sum(w) > 0 or np.max(w) > FLOAT32_MAX:
        raise ValueError("sample_weight must have a positive total within the float32 range; rescale it.")
    return np.ascontiguousarray(w, dtype=np.float32)


def check_pu_weights(sample_weight, s01: np.ndarray) -> np.ndarray:
    """Row weights of a PU metric (:func:`pujax.validation.check_sample_weight`: both classes keep weight)."""
    w = check_sample_weight(np.asarray(sample_weight) if np.isscalar(sample_weight) else sample_weight, s01)
    return check_weights(w, s01.shape[0])


def check_metric_prior(prior):
    """The class prior of a PU metric: a float in (0, 1) (left unchanged while traced)."""
    if is_traced(prior):
        return prior
    return check_prior(prior, allow_auto=False)


def check_scenario(scenario: str) -> str:
    """``"case-control"`` or ``"censoring"``."""
    return check_in(scenario, "scenario", SCENARIOS)


def warn_degenerate(y_pred01: np.ndarray, name: str = "y_pred", stacklevel: int = 4) -> None:
    """Warn (:class:`DegeneratePredictorWarning`) when every prediction is the same class."""
    if y_pred01.size and (y_pred01.min() == y_pred01.max()):
        cls = int(y_pred01[0])
        warnings.warn(
            f"{name} assigns all {y_pred01.size} rows to class {cls} ({'positive' if cls else 'negative'}): a "
            f"degenerate predictor. Its metrics are those of the trivial rule 'everything is "
            f"{'positive' if cls else 'negative'}'.", DegeneratePredictorWarning, stacklevel=stacklevel)


def warn_constant_scores(ranks: np.ndarray, name: str = "y_score", stacklevel: int = 4) -> None:
    """Warn (:class:`DegeneratePredictorWarning`) when every score is equal (ranking metrics are then 1/2-like)."""
    if ranks.size and ranks.max() == 0:
        warnings.warn(f"{name} gives the same score to all {ranks.size} rows: a degenerate scorer (it ranks "
                      f"nothing).", DegeneratePredictorWarning, stacklevel=stacklevel)

