"""Where the tree builder's passes over the training entries run: one device, or rows sharded over a device mesh.

On a mesh (:func:`pujax.devices.device_mesh`, axis :data:`~pujax.devices.AXIS`) every chunk of entries ``(row,
node)`` is split over the devices; each device routes its entries and accumulates its own per-(node, feature, bin)
counts with ``shard_map``, and one reduction over the device axis per level (an all-reduce: a sum of the counts, a
maximum for the (min, max) pass) gives the level's statistics. They are integers, so the reduction is exact and a
forest grown on any number of devices is the forest grown on one. Per-node kernels then run on the first device
of the mesh, as on a single device.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pujax.compilation import quick_jit
from pujax.devices import AXIS, default_device, device_mesh, to_host
from pujax.trees import kernels
from pujax.trees.assembly import put, zeros

__all__ = ["EntryPasses", "entry_passes"]


class EntryPasses(NamedTuple):
    """The entry kernels of :mod:`pujax.trees.kernels` for one placement, with the same signatures, plus how
    accumulators, entries and replicated inputs are placed."""

    route_and_histogram: Callable
    route_and_range: Callable
    left_counts: Callable
    route: Callable
    histogram: Callable
    zeros: Callable  # shape -> int32 accumulator (per device on a mesh)
    finish: Callable  # accumulator -> summed over devices, on the first device
    finish_max: Callable  # max-accumulator -> maximum over devices, on the first device
    put_rows: Callable  # host entries -> device (sharded over the mesh)
    replicate: Callable  # host array -> every device
    get: Callable  # device array -> host
    n_devices: int


def _identity(a):
    return a


def entry_passes(devices: tuple) -> EntryPasses:
    """The entry passes for ``devices`` (a tuple of :class:`jax.Device`, see :func:`pujax.devices.resolve_devices`)."""
    if len(devices) == 1:
        if devices[0] == default_device():
            return EntryPasses(kernels.route_and_histogram, kernels.route_and_range, kernels.left_counts,
                               kernels.route, kernels.histogram, zeros, _identity, _identity, put, put, np.asarray, 1)
        dev = devices[0]

        def put_on(a):
            return jax.device_put(np.asarray(a), dev)

        return EntryPasses(kernels.route_and_histogram, kernels.route_and_range, kernels.left_counts,
                           kernels.route, kernels.histogram, partial(zeros, device=dev),
                           _identity, _identity, put_on, put_on, np.asarray, 1)
    return _mesh_passes(tuple(devices))


@lru_cache(maxsize=8)
def _mesh_passes(devices: tuple) -> EntryPasses:
    mesh = device_mesh(list(devices))
    rows = NamedSharding(mesh, P(AXIS))
    rep = NamedSharding(mesh, P())
    multi = jax.process_count() > 1

    def put_rows(a):
        a = np.asarray(a)
        return jax.make_array_from_callback(a.shape, rows, lambda index: a[index])

    def replicate(a):
        a = np.asarray(a)
        return jax.make_array_from_callback(a.shape, rep, lambda index: a[index])

    def global_(a):
        """Replicate an input over the mesh (from the host on a multi-process mesh)."""
        if _is_global(a, mesh):
            return a
        return replicate(np.asarray(a)) if multi else jax.device_put(a, rep)

    def wrap(name, specs, out_specs, acc_first=True):
        @lru_cache(maxsize=64)
        def compiled(statics):
            fn = partial(getattr(kernels, name), **dict(statics))

            def body(*args):
                if not acc_first:
                    return fn(*args)
                out = fn(args[0][0], *args[1:])
                return (out[0][None],) + tuple(out[1:]) if isinstance(out, tuple) else out[None]

            sm = jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=out_specs, check_vma=False)
            return quick_jit(sm, donate_argnums=(0,) if acc_first else ())

        def call(*args, **statics):
            args = tuple(a if s == P(AXIS) else global_(a) for a, s in zip(args, specs))
            return compiled(tuple(sorted(statics.items())))(*args)

        return call

    S, R = P(AXIS), P()
    return EntryPasses(
        route_and_histogram=wrap("route_and_histogram", (S, R, R, S, S, R, R, R, R), (S, S)),
        route_and_range=wrap("route_and_range", (S, R, S, S, R, R, R, R), (S, S)),
        left_counts=wrap("left_counts", (S, R, R, S, S, R, R), S),
        route=wrap("route", (R, S, S, R, R, R), S, acc_first=False),
        histogram=wrap("histogram", (S, R, R, S, S, R, R), S),
        zeros=_mesh_zeros(mesh),
        finish=_mesh_finish(mesh, jnp.sum),
        finish_max=_mesh_finish(mesh, jnp.max),
        put_rows=put_rows,
        replicate=replicate,
        get=to_host,
        n_devices=len(devices),
    )


def _is_global(a, mesh) -> bool:
    return isinstance(a, jax.Array) and isinstance(a.sharding, NamedSharding) and a.sharding.mesh == mesh


def _mesh_zeros(mesh):
    n = mesh.size

    @lru_cache(maxsize=64)
    def make(shape):
        return quick_jit(partial(jnp.zeros, (n,) + shape, jnp.int32), out_shardings=NamedSharding(mesh, P(AXIS)))

    return lambda shape: make(tuple(shape))()


def _mesh_finish(mesh, reduce):
    total = quick_jit(lambda a: reduce(a, axis=0), out_shardings=NamedSharding(mesh, P()))

    def finish(acc):
        return total(acc).addressable_data(0)  # this process's first device of the mesh

    return finish
