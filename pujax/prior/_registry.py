"""The methods of :func:`pujax.prior.estimate_prior`: each estimator module declares one :class:`Method` (its options
with defaults and checks, and a ``run`` function); ``estimate_prior`` validates the options and calls ``run``."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np


class Context(NamedTuple):
    """What ``Method.run`` receives besides its options: validated data, seeds, and held-out scores when needed."""

    X: np.ndarray            # float32 (n, d)
    s: np.ndarray            # int32 {0, 1}
    n_l: int
    n_u: int
    key: Any                 # JAX PRNG key of the bootstrap
    seed: int                # int seed of folds / classifier / subsamples
    n_bootstrap: int
    scores: np.ndarray | None  # held-out P-vs-U scores (methods with ``scores`` set), else None
    devices: Any = None      # where the bootstrap resamples run (pujax.devices)


@dataclass(frozen=True)
class Method:
    """A prior estimator: ``options`` maps each option to ``(default, check)`` where ``check(value, name)`` returns
    the validated value (or raises); ``scores`` is ``None`` (the method uses X), ``"rank"`` (any P-vs-U score) or
    ``"proba"`` (probabilities P(s=1|x)); ``run(ctx, **options) -> (raw_prior, bootstrap_array, interval, diag)``
    where exactly one of ``bootstrap_array`` / ``interval`` is not ``None``."""

    name: str
    options: dict
    run: Callable
    scores: str | None = None
    intervals: tuple = ("bootstrap",)
    default_bootstrap: int = 200
    reference: str = ""


def opt_int(low: int | None = 1, allow_none: bool = False):
    from pujax.validation import check_int

    return lambda v, name: check_int(v, name, low=low, allow_none=allow_none)


def opt_float(low=None, high=None, closed="neither", allow_none=False):
    from pujax.validation import check_float

    return lambda v, name: check_float(v, name, low, high, closed=closed, allow_none=allow_none)


def opt_in(choices):
    from pujax.validation import check_in

    return lambda v, name: check_in(v, name, choices)


def opt_n_jobs(value, name):
    """Threads the classifier may use (a ``threadpoolctl`` limit); ``None`` or -1: no limit."""
    from pujax.validation import check_int

    if value is None:
        return None
    return None if (not isinstance(value, bool) and value == -1) else check_int(value, name)


SCORE_OPTIONS = {"n_folds": (2, opt_int(2)), "n_jobs": (1, opt_n_jobs)}
"""Options of every method that works on cross-fitted classifier scores."""
