"""Where pujax runs: one ``devices`` argument for every estimator and functional core.

``devices`` is

* ``None``: every device of JAX's default backend -- all local devices, or every device of every process once
  :func:`jax.distributed.initialize` has run (:func:`jax.devices`);
* an ``int`` ``n``: the first ``n`` of those devices;
* a sequence of :class:`jax.Device`;
* a :class:`jax.sharding.Mesh`: its devices, flattened in mesh order.

Work is split over the devices with :mod:`jax.sharding` (a 1-D :class:`~jax.sharding.Mesh` over the axis
:data:`AXIS`, ``NamedSharding`` and ``shard_map``), never with process pools. JAX shows a CPU as one device; to use
its cores as devices call ``jax.config.update("jax_num_cpu_devices", os.cpu_count())`` before the first JAX
computation.
"""
from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    from pujax._typing import DevicesLike

__all__ = ["AXIS", "resolve_devices", "device_mesh", "shard_rows", "replicate", "to_host", "padded_size",
           "shard_seeds", "resolve_n_jobs_alias", "cpu_threads", "default_device"]

AXIS = "devices"
"""Name of the one mesh axis pujax splits work over."""


def default_device() -> jax.Device:
    """The device uncommitted arrays and jit calls use: ``jax.default_device`` / ``jax_default_device`` when set,
    else this process's first local device of the default backend (with ``jax.distributed``, ``jax.devices()[0]``
    may belong to another process)."""
    dev = jax.config.jax_default_device
    if dev is None:
        return jax.local_devices()[0]
    if isinstance(dev, str):
        return jax.local_devices(backend=dev)[0]
    return dev


def resolve_devices(devices: DevicesLike = None) -> tuple:
    """Turn a ``devices`` argument into a tuple of :class:`jax.Device` (see the module docstring)."""
    if devices is None:
        return tuple(jax.devices())
    if isinstance(devices, Mesh):
        return tuple(np.asarray(devices.devices).reshape(-1).tolist())
    if isinstance(devices, (bool, np.bool_)):
        raise TypeError("devices must be None, an int, a sequence of jax.Device or a jax.sharding.Mesh; got a bool.")
    if isinstance(devices, (int, np.integer)):
        available = jax.devices()
        n = int(devices)
        if n < 1:
            raise ValueError(f"devices={n} must be >= 1 (or None for every device).")
        if n > len(available):
            raise ValueError(
                f"devices={n} but only {len(available)} {available[0].platform} device(s) are available. On a CPU "
                f'call jax.config.update("jax_num_cpu_devices", {n}) before the first JAX computation.'
            )
        return tuple(available[:n])
    if isinstance(devices, Sequence) and not isinstance(devices, str):
        devs = tuple(devices)
        if not devs or not all(isinstance(d, jax.Device) for d in devs):
            raise TypeError("devices as a sequence must hold at least one jax.Device.")
        if len({d.platform for d in devs}) > 1:
            raise ValueError(f"devices mixes platforms {sorted({d.platform for d in devs})}; use one platform.")
        return devs
    raise TypeError(
        f"devices of type {type(devices).__name__} is not supported; pass None, an int, a sequence of "
        f"jax.Device or a jax.sharding.Mesh."
    )


def device_mesh(devices: DevicesLike = None) -> Mesh:
    """A 1-D :class:`~jax.sharding.Mesh` with axis :data:`AXIS` over the resolved ``devices``."""
    return Mesh(np.asarray(resolve_devices(devices), dtype=object), (AXIS,))


def padded_size(n: int, n_devices: int) -> int:
    """``n`` rounded up to a multiple of ``n_devices`` (shards must have equal sizes)."""
    return -(-int(n) // n_devices) * n_devices


def _place(sharding, a):
    a = np.asarray(a)
    return jax.make_array_from_callback(a.shape, sharding, lambda index: a[index])


def shard_rows(mesh: Mesh, *arrays: ArrayLike) -> jax.Array | tuple[jax.Array, ...]:
    """Place host arrays on ``mesh`` split along their first axis (a multiple of the mesh size).

    Each process supplies the shards of its own devices from its copy of the full array, so this also builds the
    global arrays of a multi-process mesh (every process passes the same data).
    """
    sharding = NamedSharding(mesh, PartitionSpec(AXIS))
    out = tuple(_place(sharding, a) for a in arrays)
    return out[0] if len(out) == 1 else out


def replicate(mesh: Mesh, *arrays: ArrayLike) -> jax.Array | tuple[jax.Array, ...]:
    """Place host arrays on every device of ``mesh`` (replicated; multi-process meshes included)."""
    sharding = NamedSharding(mesh, PartitionSpec())
    out = tuple(_place(sharding, a) for a in arrays)
    return out[0] if len(out) == 1 else out


def to_host(array: ArrayLike) -> np.ndarray:
    """A device array as a numpy array on this host: a replicated array from a local copy, a sharded array of a
    multi-process mesh gathered from every process (a collective: every process must call it)."""
    if not isinstance(array, jax.Array) or array.is_fully_addressable:
        return np.asarray(array)
    if array.sharding.is_fully_replicated:
        return np.asarray(array.addressable_data(0))
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(array, tiled=True))


def resolve_n_jobs_alias(estimator: BaseEstimator, devices: DevicesLike, n_jobs: int | None) -> DevicesLike:
    """Map the deprecated device meaning of ``n_jobs`` onto ``devices`` with a ``FutureWarning``.

    ``n_jobs`` (-1 = every device, a positive int = that many devices) was pujax's name for devices; it keeps
    working for one release. Returns the ``devices`` value to use.
    """
    if n_jobs is None or (isinstance(n_jobs, str) and n_jobs == "deprecated"):
        return devices
    warnings.warn(
        f"{type(estimator).__name__}(n_jobs=...) is deprecated and will be removed in the next release; pass "
        f"devices=... instead (None = every device, an int, a list of jax.Device or a Mesh).",
        FutureWarning, stacklevel=3,
    )
    if devices is not None:
        return devices
    n_jobs = int(n_jobs)
    if n_jobs == -1:
        return None
    if n_jobs < 1:
        raise ValueError(f"n_jobs={n_jobs} is not valid; use -1 (every device) or a positive int.")
    return min(n_jobs, len(jax.devices()))


def _first_seed(a: Any) -> Any:
    """``a[0]``, taken on the host for plain arrays (indexing a device array compiles a small program)."""
    if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
        return a[0]
    return np.asarray(a)[0]


def shard_seeds(fn: Callable, keys: Any, data: Sequence[Any], devices: DevicesLike = None,
                single: Callable | None = None) -> Any:
    """Call ``fn(keys, *data)``, a program ``vmap``-ped over its first argument, with the seeds split over ``devices``.

    ``keys`` is an array (or a pytree of arrays) with a leading seed axis, split over the devices; ``data`` (arrays,
    pytrees of arrays or None) is replicated on every device. One device: ``fn`` as is; several: the seed axis is
    padded to a multiple of the device count (the extra results are dropped). ``single``: the same program without
    the ``vmap``, called instead of ``fn`` for one seed on one device (XLA:CPU runs a matrix product ``vmap``-ped over
    a seed axis of length 1 about half as fast as the plain product). Returns host (numpy) pytrees with a leading
    seed axis.
    """
    n = int(jax.tree.leaves(keys)[0].shape[0])
    devs = resolve_devices(devices)
    if jax.process_count() == 1:
        devs = devs[: max(1, min(len(devs), n))]
    if len(devs) == 1:
        with jax.default_device(devs[0]):
            if single is not None and n == 1:
                out = single(jax.tree.map(_first_seed, keys), *data)
                return jax.tree.map(lambda a: np.asarray(a)[None], out)
            out = fn(keys, *data)
        return jax.tree.map(np.asarray, out)
    mesh = device_mesh(list(devs))
    m = padded_size(n, mesh.size)
    keys = jax.tree.map(lambda a: np.concatenate([np.asarray(a), np.repeat(np.asarray(a)[:1], m - n, axis=0)]), keys)
    placed = [jax.tree.map(lambda a: replicate(mesh, np.asarray(a)), d) for d in data]
    out = fn(jax.tree.map(lambda a: shard_rows(mesh, a), keys), *placed)
    return jax.tree.map(lambda a: to_host(a)[:n], out)


@functools.lru_cache(maxsize=1)
def _thread_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # finds the loaded thread pools once (a fresh search costs milliseconds)


def cpu_threads(limit: int | None, user_api: str | None = None) -> contextlib.AbstractContextManager:
    """Context manager limiting the host's native thread pools (BLAS, OpenMP; ``user_api`` one of them or None for
    all) to ``limit`` threads; ``None`` or -1: no limit. For NumPy and scikit-learn work on the host; JAX's own
    threads are not affected."""
    if limit is None or limit == -1:
        return contextlib.nullcontext()
    return _thread_controller().limit(limits=int(limit), user_api=user_api)
