"""The minibatch layout of an epoch (``batching="epoch"``): a random order of the valid rows dealt round-robin into
equal minibatches. Shared by :mod:`pujax.neural.train` and :mod:`pujax.neural.engine`."""
from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["row_order", "epoch_batches"]


def row_order(key, size: int, n_valid):
    """The indices of ``size`` rows with the first ``n_valid`` first, in random order."""
    u = jnp.where(jnp.arange(size) < n_valid, jax.random.uniform(key, (size,)), 2.0)
    return jnp.argsort(u)


def epoch_batches(key, size: int, n_valid, n_batches: int):
    """Row indices ``(k, b)`` and masks of one epoch: the first ``n_valid`` of ``size`` rows in random order, dealt
    round-robin into ``n_batches`` minibatches of ``b = ceil(size / k)`` slots (the other slots masked out)."""
    b = -(-size // n_batches)
    order = row_order(key, size, n_valid)
    slots = n_batches * b
    if slots > size:
        order = jnp.concatenate([order, jnp.zeros(slots - size, order.dtype)])
    idx = order.reshape(b, n_batches).T
    mask = (jnp.arange(slots) < n_valid).reshape(b, n_batches).T
    return idx, mask
