"""Type aliases of the public API's annotations.

Modules import them under ``typing.TYPE_CHECKING`` (annotations are strings, ``from __future__ import annotations``),
so they cost nothing at run time.
"""
from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np
from jax.sharding import Mesh

__all__ = ["RandomStateLike", "DevicesLike"]

RandomStateLike = int | np.random.RandomState | np.random.Generator | jax.Array | None
"""``random_state``: None (fresh entropy), an int seed, a numpy random state or a JAX PRNG key
(:func:`pujax.random.as_key`)."""

DevicesLike = int | Sequence[jax.Device] | Mesh | None
"""``devices``: None (every device of the default backend), a count, a list of devices or a mesh
(:func:`pujax.devices.resolve_devices`)."""
