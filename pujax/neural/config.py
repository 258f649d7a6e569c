"""The static configuration of a neural PU training run (:class:`TrainConfig`), its validation
(:func:`make_config`), the optimiser and the minibatch layout; shared by :mod:`pujax.neural.train` and
:mod:`pujax.neural.engine`."""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import flax.linen as nn
import numpy as np
import optax

from pujax.neural.models import make_model
from pujax.risk import get_loss
from pujax.validation import check_in, check_int

__all__ = ["TrainConfig", "make_config", "make_optimizer", "batch_layout", "static_batches", "RISKS", "BATCHINGS",
           "SELECTIONS"]

RISKS = ("nnpu", "upu", "pn")
BATCHINGS = ("epoch", "stream")
SELECTIONS = ("risk", "proxy_accuracy", "proxy_auc")


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Static (hashable) description of a training run; build it with :func:`make_config`."""

    module: nn.Module
    risk: str = "nnpu"
    loss: Any = "sigmoid"
    beta: float = 0.0
    gamma: float = 1.0
    batch_size: int = 30000
    learning_rate: float = 1e-3
    weight_decay: float = 5e-3
    eval_chunk: int = 4096
    batching: str = "epoch"
    rule: Any = None
    selection: str = "risk"


def _check_float(value, name, low=None, allow_inf=False):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a float; got {value!r}.")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a float; got {value!r} ({type(value).__name__}).") from None
    if math.isnan(v) or (math.isinf(v) and not (allow_inf and v > 0)):
        raise ValueError(f"{name}={value!r} must be a finite number" + (" or +inf." if allow_inf else "."))
    if low is not None and v < low:
        raise ValueError(f"{name}={value!r} must be >= {low}.")
    return v


def make_config(model: str | nn.Module = "mlp", risk: str = "nnpu", loss: str = "sigmoid", beta: float = 0.0,
                gamma: float = 1.0, batch_size: int = 30000, learning_rate: float = 1e-3, weight_decay: float = 5e-3,
                model_kwargs: dict | None = None, n_features: int | None = None, eval_chunk: int = 4096,
                batching: str = "epoch", rule: Any = None, selection: str = "risk") -> TrainConfig:
    """Validate the hyper-parameters and return a :class:`TrainConfig`.

    ``beta >= 0`` (``float("inf")`` allowed: never correct, i.e. uPU), ``gamma > 0``, ``learning_rate > 0``,
    ``weight_decay >= 0``, ``batch_size >= 1``, ``batching`` in :data:`BATCHINGS` (module docstring); ``model`` is
    ``"linear"``, ``"mlp"``, ``"cnn"`` or a ``flax.linen.Module`` instance (see
    :func:`pujax.neural.models.make_model`). ``rule``: None (train ``risk``) or a training rule
    (:class:`pujax.neural.rules.Rule`: the method's loss, stages and per-row state; ``risk``, ``loss``, ``beta`` and
    ``gamma`` are then unused, and ``batching`` must be ``"epoch"``); ``selection`` in :data:`SELECTIONS`, the
    criterion of the model selection on held-out rows (:mod:`pujax.neural.selection`; ``"risk"``, the held-out
    value of ``risk``, needs ``rule=None``).
    """
    check_in(risk, "risk", RISKS)
    check_in(batching, "batching", BATCHINGS)
    check_in(selection, "selection", SELECTIONS)
    if rule is not None:
        if batching != "epoch":
            raise ValueError(f"batching={batching!r} is not available with a training rule; use batching='epoch'.")
        if selection == "risk":
            raise ValueError("selection='risk' is the held-out nnPU / uPU / PN risk; a training rule is selected by "
                             "'proxy_accuracy' or 'proxy_auc'.")
    get_loss(loss)
    if loss == "zero_one":
        raise ValueError("loss='zero_one' has zero gradient and cannot be trained; use 'sigmoid' (default) or another "
                         "surrogate loss.")
    beta = _check_float(beta, "beta", low=0.0, allow_inf=True)
    gamma = _check_float(gamma, "gamma")
    if gamma <= 0:
        raise ValueError(f"gamma={gamma!r} must be > 0 (Kiryo et al.: 0 < gamma <= 1).")
    learning_rate = _check_float(learning_rate, "learning_rate")
    if learning_rate <= 0:
        raise ValueError(f"learning_rate={learning_rate!r} must be > 0.")
    weight_decay = _check_float(weight_decay, "weight_decay", low=0.0)
    batch_size = check_int(batch_size, "batch_size")
    eval_chunk = check_int(eval_chunk, "eval_chunk")
    if model_kwargs is not None and not isinstance(model_kwargs, dict):
        raise TypeError(f"model_kwargs must be a dict or None; got {type(model_kwargs).__name__}.")
    module = make_model(model, n_features=n_features, **dict(model_kwargs or {}))
    return TrainConfig(module=module, risk=risk, loss=loss, beta=beta, gamma=gamma, batch_size=batch_size,
                       learning_rate=learning_rate, weight_decay=weight_decay, eval_chunk=eval_chunk,
                       batching=batching, rule=rule, selection=selection)


def batch_layout(n: int, batch_size: int) -> tuple[int, int, int]:
    """``(n_batches, batch, pad)``: ``n_batches = ceil(n / batch_size)`` equal minibatches of ``batch`` rows."""
    n_batches = -(-n // batch_size)
    b = -(-n // n_batches)
    return n_batches, b, n_batches * b - n


def static_batches(cfg: TrainConfig, n: int) -> int:
    """The static minibatch count that the training program of ``n`` rows is compiled for: ``ceil(n / batch_size)``
    with ``batching="epoch"``, 0 with ``"stream"`` (whose program depends on the padded shape only)."""
    return batch_layout(n, cfg.batch_size)[0] if cfg.batching == "epoch" else 0


def make_optimizer(cfg: TrainConfig) -> optax.GradientTransformation:
    """Adam with coupled L2 weight decay: ``wd * param`` is added to the gradient before Adam (Chainer hook)."""
    parts = []
    if cfg.weight_decay > 0:
        parts.append(optax.add_decayed_weights(cfg.weight_decay))
    parts.append(optax.adam(cfg.learning_rate))
    return optax.chain(*parts)
