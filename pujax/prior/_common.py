r"""Pieces shared by the prior estimators: the result type, the conversions (C1)-(C5) between the prior of the
unlabeled rows and the label frequency, and the JAX helpers of the bootstraps (padding, resampling counts).

Conversions (``n_l`` = #``s == 1``, ``n_u`` = #``s == 0``, :math:`\theta` the positive fraction of the population
the ``s == 0`` rows come from, :math:`c` the label frequency, :math:`\pi` the population prior in the censoring
scenario):

.. math::  c = \frac{n_l}{n_l + \theta\, n_u} \quad (C1), \qquad
           \theta = \frac{n_l\,(1-c)}{c\, n_u} \quad (C2), \qquad P(s=1) = \pi c \quad (C3),

.. math::  \theta = \frac{\pi(1-c)}{1-\pi c} \quad (C4), \qquad \pi = \frac{\theta}{1 - c + \theta c} \quad (C5).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from pujax._compile import pad_rows
from pujax.random import as_key, host_seed

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "PriorEstimate",
    "label_frequency_from_prior",
    "prior_from_label_frequency",
    "censoring_to_case_control",
    "case_control_to_censoring",
    "positive_fraction",
]

PRIOR_EPS = 1e-3  # an estimate is clipped into [eps, 1 - eps] so that estimators get a prior strictly in (0, 1)


@dataclass(frozen=True)
class PriorEstimate:
    r"""Result of :func:`~pujax.prior.estimate_prior`; pass it as ``prior=`` to any pujax estimator.

    Attributes
    ----------
    prior : float
        :math:`\theta`, the positive fraction of the population the ``s == 0`` rows come from -- the case-control
        ``prior`` an estimator fitted on the same ``(X, s)`` needs (equals the population prior :math:`\pi` for
        case-control data, :math:`\pi(1-c)/(1-\pi c)` for censoring data, eq. (C4)). Strictly inside (0, 1)
        (clipped to [1e-3, 1 - 1e-3]; ``diagnostics["clipped"]`` says when).
    label_frequency : float
        :math:`c = n_l / (n_l + \theta n_u)`, eq. (C1): the share of the positive rows of ``(X, s)`` that are labeled.
    interval : tuple of float
        Confidence interval for ``prior`` at level ``diagnostics["confidence"]`` (bootstrap or DKW, see
        ``diagnostics["interval"]``), within [0, 1], containing ``prior``.
    method : str
        The method that produced the estimate (one of :data:`~pujax.prior.METHODS`).
    diagnostics : dict
        Method-specific numbers (plain Python types): sample sizes, timing, thresholds, fold estimates, ...

    Examples
    --------
    >>> from pujax.prior import PriorEstimate
    >>> est = PriorEstimate(prior=0.4, label_frequency=0.5, interval=(0.35, 0.45), method="bbe")
    >>> float(est)
    0.4
    """

    prior: float
    label_frequency: float
    interval: tuple
    method: str
    diagnostics: dict = field(default_factory=dict, compare=False)

    def __float__(self) -> float:
        return float(self.prior)

    def __repr__(self) -> str:
        lo, hi = self.interval
        return (f"PriorEstimate(prior={self.prior:.4f}, label_frequency={self.label_frequency:.4f}, "
                f"interval=({lo:.4f}, {hi:.4f}), method={self.method!r})")


# ----------------------------------------------------------------------------------------------------------------
# Conversions (C1)-(C5): plain arithmetic, so they work on floats, numpy and jax arrays (jit / vmap)
# ----------------------------------------------------------------------------------------------------------------
def is_concrete(x) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _check_range(x, name, low, high, low_open=True, high_open=False):
    if not is_concrete(x):
        return
    a = np.asarray(x, dtype=float)
    lo_ok = a > low if low_open else a >= low
    hi_ok = a < high if high_open else a <= high
    if not np.all(np.isfinite(a) & lo_ok & hi_ok):
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        raise ValueError(f"{name}={x!r} must lie in {lb}{low}, {high}{rb}.")


def _check_counts(n_labeled, n_unlabeled):
    for v, nm in ((n_labeled, "n_labeled"), (n_unlabeled, "n_unlabeled")):
        if is_concrete(v) and not np.all(np.asarray(v, dtype=float) > 0):
            raise ValueError(f"{nm}={v!r} must be > 0 (number of s == 1 / s == 0 rows).")


def label_frequency_from_prior(prior: ArrayLike, n_labeled: ArrayLike, n_unlabeled: ArrayLike) -> ArrayLike:
    """Label frequency ``c = n_l / (n_l + prior * n_u)`` of a PU data set, eq. (C1), valid in both scenarios.

    Parameters
    ----------
    prior : float or array
        Positive fraction of the unlabeled rows' population (the case-control prior), in [0, 1].
    n_labeled, n_unlabeled : int, float or array
        Numbers of ``s == 1`` / ``s == 0`` rows (> 0).

    Returns
    -------
    float or array
        The label frequency; inverse of :func:`prior_from_label_frequency`.

    Examples
    --------
    >>> from pujax.prior import label_frequency_from_prior
    >>> label_frequency_from_prior(0.5, 100, 400)
    0.3333333333333333
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_counts(n_labeled, n_unlabeled)
    return n_labeled / (n_labeled + prior * n_unlabeled)


def prior_from_label_frequency(label_frequency: ArrayLike, n_labeled: ArrayLike, n_unlabeled: ArrayLike) -> ArrayLike:
    """Case-control prior of the unlabeled rows from a label frequency: ``n_l (1 - c) / (c n_u)``, eq. (C2).

    Parameters
    ----------
    label_frequency : float or array
        ``c`` in (0, 1].
    n_labeled, n_unlabeled : int, float or array
        Numbers of ``s == 1`` / ``s == 0`` rows (> 0).

    Returns
    -------
    float or array
        The prior; in [0, 1] whenever ``c >= n_l / (n_l + n_u)`` (a smaller ``c`` gives a value above 1, which
        :func:`~pujax.prior.estimate_prior` clips). Inverse of :func:`label_frequency_from_prior`.

    Examples
    --------
    >>> from pujax.prior import prior_from_label_frequency
    >>> round(prior_from_label_frequency(1 / 3, 100, 400), 6)
    0.5
    """
    _check_range(label_frequency, "label_frequency", 0.0, 1.0)
    _check_counts(n_labeled, n_unlabeled)
    return n_labeled * (1.0 - label_frequency) / (label_frequency * n_unlabeled)


def censoring_to_case_control(population_prior: ArrayLike, label_frequency: ArrayLike) -> ArrayLike:
    """Censoring scenario: positive fraction of the unlabeled rows, ``pi (1 - c) / (1 - pi c)``, eq. (C4).

    Parameters
    ----------
    population_prior : float or array
        ``pi = P(y=1)`` of the population all rows are drawn from, in [0, 1].
    label_frequency : float or array
        ``c = P(s=1 | y=1)`` in [0, 1).

    Returns
    -------
    float or array
        The ``prior`` a case-control estimator fitted on those ``(X, s)`` needs.

    Examples
    --------
    >>> from pujax.prior import censoring_to_case_control
    >>> round(censoring_to_case_control(0.5, 0.5), 4)
    0.3333
    """
    _check_range(population_prior, "population_prior", 0.0, 1.0, low_open=False)
    _check_range(label_frequency, "label_frequency", 0.0, 1.0, low_open=False, high_open=True)
    pi, c = population_prior, label_frequency
    return pi * (1.0 - c) / (1.0 - pi * c)


def case_control_to_censoring(prior: ArrayLike, label_frequency: ArrayLike) -> ArrayLike:
    """Censoring scenario: population prior ``pi = theta / (1 - c + theta c)`` from the unlabeled-row prior, eq. (C5).

    Parameters
    ----------
    prior : float or array
        ``theta``, the positive fraction of the unlabeled rows, in [0, 1].
    label_frequency : float or array
        ``c`` in [0, 1).

    Returns
    -------
    float or array
        ``pi``; inverse of :func:`censoring_to_case_control`.

    Examples
    --------
    >>> from pujax.prior import case_control_to_censoring
    >>> round(case_control_to_censoring(1 / 3, 0.5), 4)
    0.5
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_range(label_frequency, "label_frequency", 0.0, 1.0, low_open=False, high_open=True)
    return prior / (1.0 - label_frequency + prior * label_frequency)


def positive_fraction(prior: ArrayLike, n_labeled: ArrayLike, n_unlabeled: ArrayLike) -> ArrayLike:
    """Expected positive fraction of all rows of ``(X, s)``: ``(n_l + prior n_u) / (n_l + n_u)``.

    Parameters
    ----------
    prior : float or array
        Positive fraction of the unlabeled rows, in [0, 1].
    n_labeled, n_unlabeled : int, float or array
        Numbers of ``s == 1`` / ``s == 0`` rows (> 0).

    Returns
    -------
    float or array
        In the censoring scenario an estimate of the population prior ``pi`` (it equals (C5) with c from (C1)).

    Examples
    --------
    >>> from pujax.prior import positive_fraction
    >>> positive_fraction(0.5, 100, 400)
    0.6
    """
    _check_range(prior, "prior", 0.0, 1.0, low_open=False)
    _check_counts(n_labeled, n_unlabeled)
    return (n_labeled + prior * n_unlabeled) / (n_labeled + n_unlabeled)


# ----------------------------------------------------------------------------------------------------------------
# JAX helpers of the bootstraps
# ----------------------------------------------------------------------------------------------------------------
def bucket(n: int) -> int:
    """Padded length for ``n`` items: 2 sizes per octave (<= 50 % padding), >= 256.

    The bootstraps draw one uniform per padded slot, so this size is part of what a seed reproduces.
    """
    n = max(int(n), 256)
    step = 1 << max(0, n.bit_length() - 2)
    return -(-n // step) * step


def pad(a, size, value):
    """1-D host array ``a`` padded with ``value`` to ``size`` entries, on the default device (``jax.device_put``:
    ``jnp`` operations on host arrays would each compile a small program)."""
    return jax.device_put(pad_rows(max(size, len(a)), np.asarray(a), fill=value))


def randindex(key, size, n_valid):
    """``size`` uniform draws from {0, ..., n_valid - 1} (floor of a uniform; compiles faster than randint)."""
    u = jax.random.uniform(key, (size,), dtype=jnp.float32)
    n = jnp.asarray(n_valid, jnp.int32)
    return jnp.minimum((u * n.astype(jnp.float32)).astype(jnp.int32), n - 1)


def bootstrap_counts(key, positions, n_valid, size, dt):
    """Multinomial counts over ``size`` slots: ``n_valid`` draws with replacement among ``positions[:n_valid]``."""
    j = randindex(key, size, n_valid)
    live = (jnp.arange(size) < n_valid).astype(dt)
    return jax.ops.segment_sum(live, positions[j], num_segments=size)


def row_counts(key, size, n_valid, dt):
    """Bootstrap counts of ``n_valid`` rows (padded to ``size``): ``n_valid`` draws with replacement."""
    idx = randindex(key, size, n_valid)
    ones = (jnp.arange(size) < n_valid).astype(dt)
    return jax.ops.segment_sum(ones, idx, num_segments=size)


def map_resamples(one, key, n_bootstrap: int, batch: int, mesh=None):
    """``one(k)`` for every key of ``jax.random.split(key, n_bootstrap)``, in ``lax.map`` batches of ``batch``.

    With a ``mesh`` of several devices (:func:`pujax.devices.device_mesh`, static under jit) the keys are split over
    the devices (``shard_map``; the data ``one`` closes over is replicated), so resample ``b`` draws the same rows on
    any number of devices. Returns the stacked results (a global array; :func:`pujax.devices.to_host` them).
    """
    keys = jax.random.split(key, n_bootstrap)
    if mesh is None or mesh.size == 1:
        return jax.lax.map(one, keys, batch_size=batch)
    from jax import shard_map
    from jax.sharding import PartitionSpec

    from pujax.devices import AXIS, padded_size

    m = padded_size(n_bootstrap, mesh.size)
    keys = jnp.concatenate([keys, jnp.broadcast_to(keys[:1], (m - n_bootstrap,) + keys.shape[1:])])
    per_device = m // mesh.size
    run = shard_map(lambda ks: jax.lax.map(one, ks, batch_size=min(batch, per_device)), mesh=mesh,
                    in_specs=PartitionSpec(AXIS), out_specs=PartitionSpec(AXIS), check_vma=False)
    return run(keys)[:n_bootstrap]


def batch_size(n_bootstrap, n):
    """Resamples per ``lax.map`` batch: keeps the vmapped working set around 2e7 elements."""
    return int(max(1, min(n_bootstrap, 20_000_000 // max(1, 8 * n))))


def c_to_prior(c, n_l, n_u):
    """Eq. (C2), clipped to [0, 1]; safe at c -> 0."""
    dt = jnp.result_type(c)
    tiny = jnp.asarray(jnp.finfo(dt).tiny, dt)
    val = n_l * (1.0 - c) / jnp.maximum(c * n_u, tiny)
    return jnp.clip(val, 0.0, 1.0)


def seed_from(random_state) -> int:
    """An int seed from ``random_state`` (validated by :func:`pujax.random.as_key`)."""
    key = as_key(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return int(random_state)
    return host_seed(key)
