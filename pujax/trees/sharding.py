"""Where the tree builder's work runs: one device, trees spread over several, or rows sharded over a device mesh.

Several devices share a forest in one of two ways (:func:`spread_over`):

* ``"trees"`` (the largest tree's entries fit one tree batch, and the devices belong to this process or to every
  process): each device holds a copy of the binned training set and grows whole tree batches on its own
  (:func:`run_batches`: host threads, each bound to a device with :func:`jax.default_device`, take the next batch),
  with no communication between the devices; over several processes, process ``r`` of ``P`` grows every ``P``-th
  batch and the grown batches are exchanged once at the end (:func:`gather_processes`).
* ``"rows"`` (trees with more rows than a batch may hold, or devices of some processes only): the growth program of
  :mod:`pujax.trees.grow` runs under ``shard_map``: each device holds its share of the entries ``(row, node)``,
  routes them and accumulates its own statistics, and the statistics of every block of frontier nodes are summed
  over the device axis (an all-reduce; a maximum for the (min, max) pass) before the decision, which every device
  then makes alike on its replicated frontier.

A tree's random draws depend on its index only and the level statistics are integers (the reduction is exact), so
either way the forest grown on any number of devices is the forest grown on one.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import NamedTuple

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pujax._compile import jit
from pujax.devices import AXIS, default_device, device_mesh, to_host
from pujax.trees import grow as grow_mod
from pujax.trees.assembly import NodeStore, concat_batches, pad, put, put_all

__all__ = ["Placement", "placement", "SPREADS", "spread_over", "local_devices", "first_local", "run_batches",
           "gather_processes"]

SPREADS = ("trees", "rows")
"""The two ways several devices share a forest (see the module docstring)."""


class Placement(NamedTuple):
    """The growth programs of :mod:`pujax.trees.grow` for one placement (one device, or rows sharded over a mesh),
    with the same signatures, plus how the training set and the entries are placed."""

    init: Callable  # (data, meta, rows_in, *, cfg, caps, all_rows) -> GrowState
    grow: Callable  # (state, data, *, cfg, caps) -> GrowState
    enlarge: Callable  # (state, *, cfg, old, new) -> GrowState
    put_rows: Callable  # host int32 entry rows -> device (sharded over the mesh)
    replicate: Callable  # host arrays -> tuple of device arrays on every device
    get: Callable  # device array -> host numpy copy
    n_devices: int


_STATE = jax.tree_util.tree_structure(grow_mod.GrowState(*[0] * len(grow_mod.GrowState._fields))._replace(
    front=(0,) * 7, nfront=(0,) * 7))
_DATA = jax.tree_util.tree_structure(grow_mod.GrowData(0, 0, 0, 0, grow_mod.Rules(*[0] * 7)))
_NS, _ND = _STATE.num_leaves, _DATA.num_leaves


def _init_flat(*leaves, cfg, caps, all_rows, axis=None):
    """:func:`~pujax.trees.grow.init_state` on the leaves of (data, meta[, rows]): jit functions take arrays."""
    data = jax.tree_util.tree_unflatten(_DATA, leaves[:_ND])
    return grow_mod.init_state(data, *leaves[_ND:], cfg=cfg, caps=caps, all_rows=all_rows, axis=axis)


def _grow_flat(*leaves, cfg, caps, axis=None):
    """:func:`~pujax.trees.grow.grow` on the leaves of (state, data)."""
    state = jax.tree_util.tree_unflatten(_STATE, leaves[:_NS])
    return grow_mod.grow(state, jax.tree_util.tree_unflatten(_DATA, leaves[_NS:]), cfg=cfg, caps=caps, axis=axis)


def _enlarge_flat(*leaves, cfg, old, new, axis=None):
    """:func:`~pujax.trees.grow.enlarge` on the leaves of the state."""
    return grow_mod.enlarge(jax.tree_util.tree_unflatten(_STATE, leaves), cfg=cfg, old=old, new=new)


_ENTRIES = jax.tree_util.tree_leaves(grow_mod.GrowState(*range(len(grow_mod.GrowState._fields)))._replace(
    front=(-1,) * 7, nfront=(-1,) * 7)).index(grow_mod.GrowState._fields.index("rows"))
"""Position of the entries' rows among the state leaves: the growth is a "pass" program sized by its entries (XLA's
default options on XLA:CPU above the role's limit, where its scatter-adds run faster than with classic emitters)."""

_init_one = jit("kernel", _init_flat, static_argnames=("cfg", "caps", "all_rows"))
_grow_one = jit("pass", _grow_flat, rows=_ENTRIES, static_argnames=("cfg", "caps"),
                donate_argnums=tuple(range(_NS)))
_enlarge_one = jit("kernel", _enlarge_flat, static_argnames=("cfg", "old", "new"),
                   donate_argnums=tuple(range(_NS)))


def _leaves(*trees) -> list:
    return jax.tree_util.tree_leaves(trees)


def _copy(a) -> np.ndarray:
    return np.array(a, copy=True)  # a host copy: the device buffer may be donated to the next call


def _calls(init, grow, enlarge) -> tuple:
    """The placement's calls on pytrees, from the jit functions on leaves."""
    return (lambda data, meta, rows, **kw: init(*_leaves(data, meta, rows), **kw),
            lambda state, data, **kw: grow(*_leaves(state, data), **kw),
            lambda state, **kw: enlarge(*_leaves(state), **kw))


def placement(devices: tuple) -> Placement:
    """The growth programs for ``devices`` (a tuple of :class:`jax.Device`, see
    :func:`pujax.devices.resolve_devices`); one device must be the default device
    (:func:`pujax.devices.default_device`), where the program then runs."""
    if len(devices) == 1:
        if devices[0] != default_device():
            raise ValueError(f"a growth on {devices[0]} must run under jax.default_device({devices[0]}).")
        return Placement(*_calls(_init_one, _grow_one, _enlarge_one), lambda a: put(a), put_all, _copy, 1)
    return _mesh_placement(tuple(devices))


def _state_specs() -> list:
    """Partition specs of a growth's state leaves: the entries split over the mesh, everything else replicated."""
    S, R = P(AXIS), P()
    fields = {f: R for f in grow_mod.GrowState._fields}
    fields.update(rows=S, nid=S, n_ent=S, front=(R,) * 7, nfront=(R,) * 7)
    return jax.tree_util.tree_leaves(grow_mod.GrowState(**fields))


@lru_cache(maxsize=8)
def _mesh_placement(devices: tuple) -> Placement:
    mesh = device_mesh(list(devices))
    rep = NamedSharding(mesh, P())
    S, R = P(AXIS), P()
    state = _state_specs()

    def sharded(fn, specs, out_specs, donate=()):
        @lru_cache(maxsize=32)
        def compiled(kw, n_args):
            body = partial(fn, axis=AXIS, **dict(kw))
            sm = jax.shard_map(body, mesh=mesh, in_specs=tuple(specs[:n_args]), out_specs=out_specs,
                               check_vma=False)
            if fn is _grow_flat:
                return jit("pass", sm, rows=_ENTRIES, donate_argnums=donate)
            return jit("kernel", sm, donate_argnums=donate)

        def call(*leaves, **kw):
            return compiled(tuple(sorted(kw.items())), len(leaves))(*leaves)

        return call

    out = jax.tree_util.tree_unflatten(_STATE, state)
    calls = _calls(sharded(_init_flat, [R] * (_ND + 1) + [S], out),
                   sharded(_grow_flat, state + [R] * _ND, out, tuple(range(_NS))),
                   sharded(_enlarge_flat, state, out, tuple(range(_NS))))

    def put_rows(a):
        return jax.make_array_from_callback(np.shape(a), NamedSharding(mesh, S), partial(_index, np.asarray(a)))

    def replicate(*arrays):
        return tuple(jax.make_array_from_callback(np.shape(a), rep, partial(_index, np.asarray(a))) for a in arrays)

    return Placement(*calls, put_rows=put_rows, replicate=replicate, get=lambda a: _copy(to_host(a)),
                     n_devices=len(devices))


def _index(a, index):
    return a[index]


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
