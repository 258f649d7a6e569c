"""Base-model training problems of the SVM ensembles (Claesen et al. 2015, §2-3): who is resampled, how much, with
which penalties.

An ensemble is described by an :class:`EnsembleSpec` -- the number of base models, the resample sizes of the labeled
set ``P`` and of the unlabeled set ``U`` and the box bounds ``C_P`` / ``C_U`` -- built by :func:`resvm_spec`
(Algorithm 1, eq. 3), :func:`bagging_svm_spec` (eq. 2) or :func:`cwsvm_spec` (eq. 1). :func:`draw_problems` turns a
spec and a PU label vector into :class:`Problems`: index, label and box-bound arrays of shape
``(n_estimators, n_slots)``, one row per base model, padded with masked (``C = 0``) slots to a common width.
Everything here is host-side numpy (the resamples are drawn by a numpy Generator seeded from the JAX key,
:func:`pujax.random.host_rng`, so no program is compiled); the SMO solves run in :mod:`pujax.svm.core`.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pujax._compile import bucket_size
from pujax.random import host_rng
from pujax.validation import check_float, check_int

if TYPE_CHECKING:
    import jax
    from numpy.typing import ArrayLike

__all__ = ["EnsembleSpec", "Problems", "AUTO_SAMPLES", "AUTO_POS", "resample_size", "resvm_spec", "bagging_svm_spec",
           "cwsvm_spec", "draw_problems", "in_bag"]

AUTO_SAMPLES = 1000
"""``"auto"`` resample size of U (``max_samples``): ``min(|U|, AUTO_SAMPLES)`` rows per base model."""

AUTO_POS = 250
"""``"auto"`` resample size of P (RESVM's ``n_pos``): ``min(|P|, AUTO_POS)`` rows per base model."""


class EnsembleSpec(NamedTuple):
    """What every base model trains on: ``n_pos`` rows of P and ``n_unl`` rows of U drawn with replacement
    (``None``: the whole set, each row once), with box bounds ``C_pos`` (labeled) and ``C_unl`` (unlabeled)."""

    n_estimators: int
    n_pos: int | None
    n_unl: int | None
    C_pos: float
    C_unl: float


class Problems(NamedTuple):
    """Base-model problems as arrays of shape (n_estimators, n_slots): rows of ``X`` (``idx``), labels in {-1, +1}
    (``y``: +1 for P, -1 for U) and box bounds (``C``; 0 marks a padded slot)."""

    idx: np.ndarray
    y: np.ndarray
    C: np.ndarray


def resample_size(value, n_set: int, name: str, auto: int = AUTO_SAMPLES) -> int:
    """Rows drawn per base model from a set of ``n_set`` rows.

    ``"auto"``: ``min(n_set, auto)`` (default :data:`AUTO_SAMPLES`); ``None``: ``n_set``; an int >= 1: itself; a
    float in (0, 1]: that fraction of the set (at least 1 row).
    """
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f'{name}={value!r} is not valid; pass "auto", None, an int >= 1 or a float in (0, 1].')
        return max(1, min(int(n_set), int(auto)))
    if value is None:
        return int(n_set)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f'{name} must be "auto", None, an int >= 1 or a float in (0, 1]; got {value!r}.')
    if isinstance(value, numbers.Integral):
        return check_int(value, name)
    if isinstance(value, numbers.Real):
        v = check_float(value, name, 0.0, 1.0, closed="right")
        return max(1, int(round(v * n_set)))
    raise TypeError(f'{name} must be "auto", None, an int >= 1 or a float in (0, 1]; got {value!r}.')


def _positive(value, name: str) -> float:
    return check_float(value, name, 0.0, None)


def resvm_spec(n_P: int, n_U: int, *, n_estimators: int = 50, n_pos: int | None = None,
               max_samples: int | float | str = "auto", C: float = 1.0, w_pos: float = 1.0) -> EnsembleSpec:
    """RESVM (Algorithm 1): ``n_pos`` rows of P and ``max_samples`` rows of U per base model, both drawn with
    replacement; ``C_U = C`` and ``C_P = C w_pos n_unl / n_pos`` (eq. 3)."""
    B = check_int(n_estimators, "n_estimators")
    a = resample_size(n_pos, n_P, "n_pos", auto=AUTO_POS)
    b = resample_size(max_samples, n_U, "max_samples")
    C = _positive(C, "C")
    return EnsembleSpec(B, a, b, C * _positive(w_pos, "w_pos") * b / a, C)


def bagging_svm_spec(n_P: int, n_U: int, *, n_estimators: int = 50, max_samples: int | float | str = "auto",
                     C: float = 1.0) -> EnsembleSpec:
    """Bagging SVM (Mordelet & Vert): all of P and ``max_samples`` rows of U drawn with replacement per base model;
    ``C_U = C`` and ``C_P = C n_unl / |P|`` so that ``|P| C_P = n_unl C_U`` (eq. 2)."""
    B = check_int(n_estimators, "n_estimators")
    b = resample_size(max_samples, n_U, "max_samples")
    C = _positive(C, "C")
    return EnsembleSpec(B, None, b, C * b / max(int(n_P), 1), C)


def cwsvm_spec(n_P: int, n_U: int, *, C_pos: float = 1.0, C_unl: float = 1.0) -> EnsembleSpec:
    """Class-weighted SVM (eq. 1): one model on all of P (bound ``C_pos``) against all of U (bound ``C_unl``)."""
    return EnsembleSpec(1, None, None, _positive(C_pos, "C_pos"), _positive(C_unl, "C_unl"))


def _rows(rng: np.random.Generator, rows: np.ndarray, size: int | None, n_estimators: int) -> np.ndarray:
    """``size`` draws with replacement from ``rows`` per model, or every row once when ``size`` is None."""
    if size is None:
        return np.broadcast_to(rows[None], (n_estimators, rows.size))
    return rows[rng.integers(0, rows.size, (n_estimators, size))]


def draw_problems(key: jax.Array, s: ArrayLike, spec: EnsembleSpec, n_slots: int | None = None) -> Problems:
    """Draw the base-model problems of ``spec`` from PU labels ``s`` (1 labeled, 0 unlabeled).

    Indices refer to positions in ``s``. The width is ``n_slots`` (default: :func:`~pujax.compilation.bucket_size`
    of the rows per model, so nearby sizes share compiled programs); extra slots are masked (``C = 0``).
    """
    s = np.asarray(s)
    P_rows, U_rows = np.flatnonzero(s == 1), np.flatnonzero(s == 0)
    if P_rows.size == 0 or U_rows.size == 0:
        raise ValueError("s needs at least one labeled (1) and one unlabeled (0) row.")
    rng = host_rng(key)
    B = int(spec.n_estimators)
    P_idx = _rows(rng, P_rows, spec.n_pos, B)
    U_idx = _rows(rng, U_rows, spec.n_unl, B)
    n = P_idx.shape[1] + U_idx.shape[1]
    width = bucket_size(n) if n_slots is None else int(n_slots)
    if width < n:
        raise ValueError(f"n_slots={width} is smaller than the {n} rows of each base model.")
    idx = np.zeros((B, width), np.int32)
    y = np.ones((B, width), np.float32)
    C = np.zeros((B, width), np.float32)
    a = P_idx.shape[1]
    idx[:, :a], idx[:, a:n] = P_idx, U_idx
    y[:, a:n] = -1.0
    C[:, :a], C[:, a:n] = spec.C_pos, spec.C_unl
    return Problems(idx, y, C)


def in_bag(problems: Problems, n_rows: int, groups: ArrayLike | None = None) -> np.ndarray:
    """Boolean (n_rows, n_estimators): row ``i`` is in base model ``b``'s training set (unmasked slots).

    ``groups`` (n_rows,) ints, e.g. :func:`pujax.preprocessing.duplicate_groups`: a row also counts as in the bag
    of every model that trained on another row of its group (an unlabeled row identical to a resampled labeled row
    is not out of bag).
    """
    B = problems.idx.shape[0]
    mask = np.zeros((n_rows, B), bool)
    live = problems.C > 0
    cols = np.broadcast_to(np.arange(B)[:, None], problems.idx.shape)
    mask[problems.idx[live], cols[live]] = True
    if groups is None:
        return mask
    groups = np.asarray(groups)
    by_group = np.zeros((int(groups.max()) + 1 if groups.size else 0, B), bool)
    np.logical_or.at(by_group, groups, mask)
    return by_group[groups]

