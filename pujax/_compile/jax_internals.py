"""The only two places where pujax reads JAX's private modules (``jax._src``), each in one function that raises
:class:`JaxInternalsChanged` when this JAX no longer has what it reads; ``tests/test_compile.py`` calls both on
every JAX version CI runs, so a JAX release that changes them fails the suite instead of silently switching a
feature off.

* :func:`inside_trace` -- JAX has no public test for "this call happens inside ``jit`` / ``vmap`` / ``grad``
  tracing", and compiler options are allowed on top-level ``jax.jit`` calls only.
* :func:`trace_context` -- JAX has no public accessor for the configuration values its own jit cache keys on
  (x64, matmul precision, PRNG implementation, ...); the executable store keys its programs on them too.
"""
from __future__ import annotations

import re

__all__ = ["JaxInternalsChanged", "inside_trace", "trace_context"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class JaxInternalsChanged(RuntimeError):
    """A private JAX function that pujax reads is gone or changed; pujax needs an update for this JAX."""


def _changed(what: str, err: Exception) -> JaxInternalsChanged:
    import jax

    return JaxInternalsChanged(f"JAX {jax.__version__} changed {what} ({type(err).__name__}: {err}); "
                               "pujax._compile.jax_internals needs an update for this JAX version.")


def inside_trace() -> bool:
    """True inside any JAX trace (``jit``, ``vmap``, ``grad``, ``shard_map``, ...), False at top level."""
    try:
        from jax._src import core

        return not core.trace_state_clean()
    except (ImportError, AttributeError) as err:
        raise _changed("jax._src.core.trace_state_clean", err) from None


_memo: list = [None, None]


def trace_context() -> str:
    """JAX's configuration values that its jit cache keys on, as text without object addresses."""
    try:
        from jax._src import config

        context = config.trace_context()
    except (ImportError, AttributeError) as err:
        raise _changed("jax._src.config.trace_context", err) from None
    if _memo[0] != context:
        _memo[:] = [context, _ADDRESS.sub("", repr(context))]
    return _memo[1]
