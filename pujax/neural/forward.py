"""Forward passes of the neural learners' flax models: one minibatch in training or evaluation mode
(:func:`apply_model`, with the BatchNorm statistics it updates) and evaluation-mode scores of many rows in chunks
(:func:`predict_scores`, dense or sparse rows). Shared by :mod:`pujax.neural.train`, :mod:`pujax.neural.vpu` and
:mod:`pujax.neural.engine`."""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from pujax.neural.models import Heads, accepts_mask, accepts_train, scores_of
from pujax.neural.rows import SparseRows, take_rows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pujax.neural.config import TrainConfig

__all__ = ["apply_model", "predict_scores"]


def apply_model(cfg: TrainConfig, variables: dict, x: ArrayLike, train: bool, rng: jax.Array | None = None,
                mask: ArrayLike | None = None) -> tuple[jax.Array, dict]:
    """Scores ``(n,)`` (``(n, k)`` for :class:`~pujax.neural.models.Heads`) of rows ``x`` and the updated
    non-parameter collections (empty when not training); ``cfg`` is any configuration with the flax ``module``."""
    module = cfg.module
    kwargs = {"train": train} if accepts_train(module) else {}
    if mask is not None and accepts_mask(module):
        kwargs["mask"] = mask
    rngs = {"dropout": rng} if (train and rng is not None) else None
    mutable = [k for k in variables if k != "params"] if train else []
    if mutable:
        out, new = module.apply(variables, x, rngs=rngs, mutable=mutable, **kwargs)
    else:
        out, new = module.apply(variables, x, rngs=rngs, **kwargs), {}
    return scores_of(out, multi=isinstance(module, Heads)), dict(new)


def predict_scores(cfg: TrainConfig, variables: dict, X: ArrayLike, chunk: int | None = None) -> jax.Array:
    """Scores of the model in evaluation mode (BatchNorm running averages), in chunks of ``chunk`` rows (jit-able);
    ``X`` dense or :class:`~pujax.neural.rows.SparseRows` (each chunk made dense in turn)."""
    n = X.shape[0]
    chunk = min(int(chunk or cfg.eval_chunk), n)
    k = -(-n // chunk)
    pad = k * chunk - n
    if isinstance(X, SparseRows):
        out = jax.lax.map(lambda a: apply_model(cfg, variables, take_rows(X, jnp.minimum(a + jnp.arange(chunk), n - 1)),
                                           False)[0], jnp.arange(k) * chunk)
        return out.reshape((-1,) + out.shape[2:])[:n]
    if k == 1:
        return apply_model(cfg, variables, X, False)[0]
    Xp = jnp.concatenate([X, jnp.zeros((pad,) + X.shape[1:], X.dtype)]) if pad else X
    out = jax.lax.map(lambda xb: apply_model(cfg, variables, xb, False)[0], Xp.reshape((k, chunk) + X.shape[1:]))
    return out.reshape((-1,) + out.shape[2:])[:n]
