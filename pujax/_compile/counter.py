"""A counter of XLA compilations for tests and benchmarks (JAX's public monitoring events)."""
from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["CompilationCount", "count_compilations", "uncounted"]

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_local = threading.local()  # .uncounted: this thread compiles pujax's own probes, which no counter sees


@contextlib.contextmanager
def uncounted() -> Iterator[None]:
    """Compilations of this thread inside the block are not counted (the role table's one-off probe of what the
    installed XLA supports)."""
    _local.uncounted = True
    try:
        yield
    finally:
        _local.uncounted = False


class CompilationCount:
    """Number of XLA backend compilations seen inside :func:`count_compilations` (``count``) and their total
    time in seconds (``seconds``)."""

    def __init__(self):
        self.count = 0
        self.seconds = 0.0

    def _listener(self, event, duration, **kwargs):
        if event == _COMPILE_EVENT and not getattr(_local, "uncounted", False):
            self.count += 1
            self.seconds += float(duration)

    def __repr__(self):
        return f"CompilationCount(count={self.count}, seconds={self.seconds:.3f})"


@contextlib.contextmanager
def count_compilations() -> Iterator[CompilationCount]:
    """Count XLA compilations in a ``with`` block (JAX's monitoring events; persistent-cache hits do not count)::

        with count_compilations() as c:
            clf.fit(X, s)
        assert c.count == 0
    """
    import jax.monitoring

    counter = CompilationCount()
    jax.monitoring.register_event_duration_secs_listener(counter._listener)
    try:
        yield counter
    finally:
        jax.monitoring.unregister_event_duration_listener(counter._listener)
