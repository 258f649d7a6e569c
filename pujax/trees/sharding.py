"""Where the tree builder's work runs: one device, trees spread over several, or rows sharded over a device mesh.

Several devices share a forest in one of two ways (:func:`spread_over`):

* ``"trees"`` (the largest tree's entries fit one tree batch, and the devices belong to this process or to every
  process): each device holds a copy of the binned training set and grows whole tree batches on its own
  (:func:`run_batches`: host threads, each bound to a device with :func:`jax.default_device`, take the next batch),
  with no communication between the devices; over several processes, process ``r`` of ``P`` grows every ``P``-th
  batch and the grown batches are exchanged once at the end (:func:`gather_processes`).
* ``"rows"`` (trees with more rows than a batch may hold, or devices of some processes only): every chunk of entries
  ``(row, node)`` is split over the devices; each device routes its entries and accumulates its own
  per-(node, feature, bin) counts with ``shard_map``, and one reduction over the device axis per level (an
  all-reduce: a sum of the counts, a maximum for the (min, max) pass) gives the level's statistics. Per-node
  kernels then run on the first device of the mesh, as on a single device. Each device holds its share of the
  rows.

A tree's random draws depend on its index only and the level statistics are integers (the reduction is exact), so
either way the forest grown on any number of devices is the forest grown on one.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pujax._compile import jit
from pujax.devices import AXIS, default_device, device_mesh, to_host
from pujax.trees import kernels
from pujax.trees.assembly import NodeStore, concat_batches, pad, put, put_all, zeros

__all__ = ["EntryPasses", "entry_passes", "SPREADS", "spread_over", "local_devices", "first_local", "run_batches",
           "gather_processes"]

SPREADS = ("trees", "rows")
"""The two ways several devices share a forest (see the module docstring)."""


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
    put_rows: Callable  # host entry arrays -> tuple of device arrays (sharded over the mesh)
    replicate: Callable  # host array -> every device
    get: Callable  # device array -> host
    n_devices: int


def _identity(a):
    return a


def entry_passes(devices: tuple) -> EntryPasses:
    """The entry passes for ``devices`` (a tuple of :class:`jax.Device`, see :func:`pujax.devices.resolve_devices`);
    one device must be the default device (:func:`pujax.devices.default_device`), where the passes then run."""
    if len(devices) == 1:
        if devices[0] != default_device():
            raise ValueError(f"entry passes on {devices[0]} must run under jax.default_device({devices[0]}).")
        return EntryPasses(kernels.route_and_histogram, kernels.route_and_range, kernels.left_counts,
                           kernels.route, kernels.histogram, zeros, _identity, _identity, put_all, put, np.asarray, 1)
    return _mesh_passes(tuple(devices))


@lru_cache(maxsize=8)
def _mesh_passes(devices: tuple) -> EntryPasses:
    mesh = device_mesh(list(devices))
    rows = NamedSharding(mesh, P(AXIS))
    rep = NamedSharding(mesh, P())
    multi = jax.process_count() > 1

    def put_rows(*arrays):
        return tuple(jax.make_array_from_callback(np.shape(a), rows, partial(_index, np.asarray(a))) for a in arrays)

    def replicate(a):
        return jax.make_array_from_callback(np.shape(a), rep, partial(_index, np.asarray(a)))

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
            return jit("pass", sm, rows=1 if acc_first else 0, donate_argnums=(0,) if acc_first else ())

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


def _index(a, index):
    return a[index]


def _is_global(a, mesh) -> bool:
    return isinstance(a, jax.Array) and isinstance(a.sharding, NamedSharding) and a.sharding.mesh == mesh


def _mesh_zeros(mesh):
    n = mesh.size

    @lru_cache(maxsize=64)
    def make(shape):
        return jit("kernel", partial(jnp.zeros, (n,) + shape, jnp.int32), out_shardings=NamedSharding(mesh, P(AXIS)))

    return lambda shape: make(tuple(shape))()


def _mesh_finish(mesh, reduce):
    total = jit("kernel", lambda a: reduce(a, axis=0), out_shardings=NamedSharding(mesh, P()))

    def finish(acc):
        return total(acc).addressable_data(0)  # this process's first device of the mesh

    return finish


def spread_over(devices: tuple, max_rows: int, max_work: int) -> str:
    """How ``devices`` share a forest whose largest tree has ``max_rows`` entries, with at most ``max_work`` entries
    per tree batch: ``"one"`` device, whole ``"trees"`` per device, or ``"rows"`` sharded (see the module
    docstring)."""
    if len(devices) <= 1:
        return "one"
    n_procs = len({dev.process_index for dev in devices})
    whole = n_procs == 1 or n_procs == jax.process_count()  # the batches are exchanged between all processes
    return "trees" if whole and max_rows <= max_work else "rows"


def local_devices(devices: tuple) -> tuple:
    """The devices of ``devices`` that this process drives."""
    return tuple(dev for dev in devices if dev.process_index == jax.process_index())


def first_local(devices: tuple) -> jax.Device:
    """The first of ``devices`` that this process drives: where the per-node kernels run (on a mesh, where the
    summed level statistics land)."""
    return local_devices(devices)[0]


def run_batches(grow: Callable, starts: Sequence[int], homes: Sequence, n_workers: int,
                across_processes: bool = False) -> list:
    """``[grow(t0, home) for t0 in starts]`` with ``n_workers`` host threads (XLA releases the GIL while it runs);
    worker ``w`` runs under ``jax.default_device(homes[w % len(homes)])`` and takes the next
    batch start as soon as it is free. Results come back in the order of ``starts``. When a batch fails (or the
    caller is interrupted), no worker starts another batch and the first error is raised once the running ones end.

    ``across_processes`` (every process calls this): process ``r`` of ``P`` grows the batches ``starts[r::P]`` on
    its own devices, and every process gets back one part per process (its batches' node-store columns
    concatenated, :func:`~pujax.trees.assembly.concat_batches`), exchanged with :func:`gather_processes`."""
    if across_processes:
        mine = run_batches(grow, list(starts)[jax.process_index()::jax.process_count()], homes, n_workers)
        return gather_processes(concat_batches(mine) if mine else NodeStore(0).view())
    n_workers = max(1, min(int(n_workers), len(starts)))
    if n_workers == 1:
        with jax.default_device(homes[0]):
            return [grow(t0, homes[0]) for t0 in starts]
    from concurrent.futures import ThreadPoolExecutor

    todo, lock, out, stop = iter(starts), threading.Lock(), {}, threading.Event()

    def worker(w):
        home = homes[w % len(homes)]
        with jax.default_device(home):
            while not stop.is_set():
                with lock:
                    t0 = next(todo, None)
                if t0 is None:
                    return
                try:
                    out[t0] = grow(t0, home)
                except BaseException:
                    stop.set()
                    raise

    pool = ThreadPoolExecutor(max_workers=n_workers)
    try:
        for job in [pool.submit(worker, w) for w in range(n_workers)]:
            job.result()
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True)
    return [out[t0] for t0 in starts]


def gather_processes(cols: dict) -> list[dict]:
    """Every process's ``cols`` (a dict of 1-D numpy arrays of one length per process), on every process, in process
    order. The arrays travel as bytes (``process_allgather`` of uint8, padded to the longest), so dtypes and values
    arrive unchanged whatever ``jax_enable_x64`` says."""
    from jax.experimental import multihost_utils

    n = len(next(iter(cols.values())))
    sizes = np.asarray(multihost_utils.process_allgather(np.array([n], np.int32))).reshape(-1)
    m = int(sizes.max())
    raw = {k: np.ascontiguousarray(pad(v, m)).view(np.uint8) for k, v in cols.items()}
    got = multihost_utils.process_allgather(raw)
    return [{k: np.ascontiguousarray(np.asarray(got[k])[i]).view(cols[k].dtype)[:sizes[i]] for k in cols}
            for i in range(len(sizes))]
