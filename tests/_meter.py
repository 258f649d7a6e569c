"""A meter of host<->device traffic for the engine budgets (``with transfer_meter() as m: clf.fit(X, s)``).

* host -> device: JAX's transfer guard at ``"log_explicit"`` reports every transfer of a host value to a device (an
  explicit ``jax.device_put`` / ``jnp.asarray``, a Python scalar in an operation, or a NumPy / Python argument of a
  jit function) on file descriptor 2; the meter captures that descriptor while it runs and counts the reports
  (``h2d``). Most reports name the array type (``float32[100,3]``), which gives the bytes (``h2d_bytes``); the
  guard does not name the type of a jit function's NumPy or Python argument: those transfers are counted in
  ``h2d`` and ``h2d_untyped`` but not in ``h2d_bytes`` (an engine moves its data with ``jax.device_put``).
* device -> host: on a CPU a "transfer" to the host copies nothing, so the guard stays silent; the meter counts
  instead the reads of a ``jax.Array``'s value into host memory, each array once (a device->host copy on a GPU):
  every read through the array's ``_value`` property (``float()``, ``int()``, ``bool()``, ``.item()``,
  ``.tolist()``, ``jax.device_get``, ``__array__``) and every ``np.asarray`` / ``np.array`` / ``np.asanyarray`` /
  ``np.ascontiguousarray`` of a ``jax.Array`` (on a CPU NumPy reads those through the buffer protocol, past
  ``_value``). NumPy functions that convert device arrays inside C (``np.concatenate`` of ``jax.Array`` values)
  are not seen. JAX has no public hook for this: the meter wraps the private ``_value`` property of the array
  class and fails loudly if it is missing (``tests/test_meter.py`` checks that it counts).
"""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os
import re
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

_REPORT = re.compile(r"host-to-device transfer: (?:aval=ShapedArray\((\w+)\[([0-9,]*)\])?")


@dataclasses.dataclass
class Traffic:
    """Host->device transfers and bytes, device->host reads and bytes, counted inside :func:`transfer_meter`."""

    h2d: int = 0
    h2d_bytes: int = 0
    h2d_untyped: int = 0
    d2h: int = 0
    d2h_bytes: int = 0

    def __str__(self):
        return (f"host->device {self.h2d} transfers ({self.h2d_untyped} untyped), {self.h2d_bytes / 1e6:.2f} MB; "
                f"device->host {self.d2h} reads, {self.d2h_bytes / 1e6:.2f} MB")


def _array_class():
    cls = type(jnp.zeros(()))
    prop = inspect.getattr_static(cls, "_value", None)
    if not isinstance(prop, property) or inspect.getattr_static(cls, "_npy_value", None) is None:
        raise RuntimeError(f"{cls.__module__}.{cls.__qualname__} has no _value property any more: the transfer "
                           "meter cannot count device->host reads on this JAX; update tests/_meter.py.")
    return cls, prop


def _parse(text: str, traffic: Traffic) -> None:
    for dtype, dims in _REPORT.findall(text):
        traffic.h2d += 1
        if not dtype:
            traffic.h2d_untyped += 1
            continue
        size = int(np.prod([int(d) for d in dims.split(",") if d], dtype=np.int64))
        traffic.h2d_bytes += size * np.dtype(dtype).itemsize


@contextlib.contextmanager
def transfer_meter():
    """Count the host<->device traffic of the code run inside the ``with`` block (a :class:`Traffic`)."""
    traffic = Traffic()
    cls, prop = _array_class()
    seen: set = set()
    kept: list = []  # the arrays counted, alive until the end so that their ids stay theirs

    def count(a):
        if isinstance(a, jax.Array) and id(a) not in seen and not isinstance(a, jax.core.Tracer):
            seen.add(id(a))
            kept.append(a)
            traffic.d2h += 1
            traffic.d2h_bytes += int(a.size) * a.dtype.itemsize

    def counted(self):
        count(self)
        return prop.fget(self)

    def converting(fn):
        def wrapper(a, *args, **kwargs):
            count(a)
            return fn(a, *args, **kwargs)
        return wrapper

    converters = {name: getattr(np, name) for name in ("asarray", "array", "asanyarray", "ascontiguousarray")}

    with tempfile.TemporaryFile(mode="w+b") as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        cls._value = property(counted)
        for name, fn in converters.items():
            setattr(np, name, converting(fn))
        try:
            # the global setting, not the context manager: that one is thread-local, and the forests grow their tree
            # batches in worker threads
            guard = jax.config.jax_transfer_guard_host_to_device
            jax.config.update("jax_transfer_guard_host_to_device", "log_explicit")
            try:
                yield traffic
            finally:
                jax.config.update("jax_transfer_guard_host_to_device", guard)
        finally:
            cls._value = prop
            for name, fn in converters.items():
                setattr(np, name, fn)
            os.dup2(saved, 2)
            os.close(saved)
            log.seek(0)
            text = log.read().decode(errors="replace")
            _parse(text, traffic)
            rest = "".join(line for line in text.splitlines(keepends=True) if "host-to-device transfer" not in line)
            if rest:
                os.write(2, rest.encode())
