"""pujax's jit: ``jax.jit`` with a declared role (:mod:`pujax._compile.roles`) and the executable store."""
from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from pujax._compile.jax_internals import inside_trace
from pujax._compile.roles import ROLES, compiler_options
from pujax._compile.store import STORE, CallKey

__all__ = ["Program", "jit"]

_platforms: dict = {}  # jax_default_device setting -> platform of the device plain calls run on


def _platform() -> str:
    import jax

    setting = jax.config.jax_default_device
    platform = _platforms.get(setting)
    if platform is None:
        from pujax.devices import default_device

        platform = _platforms[setting] = default_device().platform
    return platform


class Program:
    """A jit function of pujax (made by :func:`jit`). At top level a call compiles with the options of its role on
    the backend it runs on (:func:`pujax._compile.roles.compiler_options`), through the executable store when that
    is on; inside another function's trace it is inlined like any jit function (compiler options are not allowed
    there). ``lower`` lowers with the options of the call; ``trace``, ``eval_shape`` and the other attributes of
    ``jax.jit`` functions are those of the plain jit function."""

    def __init__(self, fun: Callable, role: str, rows: int | str | None, name: str | None, jit_kwargs: dict):
        import jax

        if role not in ROLES:
            raise ValueError(f"unknown role {role!r} of {getattr(fun, '__qualname__', fun)}; roles: {sorted(ROLES)}.")
        if ROLES[role].limit is not None and rows is None:
            raise ValueError(f"role {role!r} switches options by size: name the argument that holds the rows "
                             "(rows=<name or position>).")
        functools.update_wrapper(self, fun)
        self.role = role
        self._rows_position, self._rows_name = self._locate(fun, rows)
        self._jit_kwargs = jit_kwargs
        self._plain = jax.jit(fun, **jit_kwargs)
        self._jitted: dict = {(): self._plain}
        self._call_key = CallKey(fun, jit_kwargs, name)
        self._executables: dict = {}
        self._lock = threading.Lock()

    @staticmethod
    def _locate(fun: Callable, rows: int | str | None) -> tuple[int | None, str | None]:
        if rows is None or isinstance(rows, int):
            return rows, None
        params = list(inspect.signature(fun).parameters.values())
        names = [p.name for p in params]
        if rows not in names:
            raise ValueError(f"rows={rows!r} is not an argument of {fun.__qualname__}{inspect.signature(fun)}.")
        position = names.index(rows)
        positional = params[position].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                               inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return (position if positional else None), rows

    def _rows(self, args: tuple, kwargs: dict) -> int | None:
        if self._rows_position is not None and self._rows_position < len(args):
            value = args[self._rows_position]
        elif self._rows_name is not None and self._rows_name in kwargs:
            value = kwargs[self._rows_name]
        else:
            return None
        shape = np.shape(value)
        return int(shape[0]) if shape else 1

    def options(self, *args: Any, **kwargs: Any) -> tuple:
        """The XLA options (sorted ``(name, value)`` pairs) a top-level call with these arguments compiles with."""
        return compiler_options(ROLES[self.role], _platform(), self._rows(args, kwargs))

    def _jit(self, options: tuple):
        jitted = self._jitted.get(options)
        if jitted is None:
            import jax

            jitted = self._jitted[options] = jax.jit(self.__wrapped__, compiler_options=dict(options),
                                                     **self._jit_kwargs)
        return jitted

    def __call__(self, *args, **kwargs):
        if inside_trace():
            return self._plain(*args, **kwargs)
        options = self.options(*args, **kwargs)
        if STORE.directory is not None:
            key = self._call_key(options, args, kwargs)
            if key is not None:
                return self._run_stored(key, options, args, kwargs)
        return self._jit(options)(*args, **kwargs)

    def _run_stored(self, key: tuple, options: tuple, args: tuple, kwargs: dict):
        """Run the program of ``key`` (the call's signature): from memory, from the store, or compiled and
        stored."""
        digest, dyn_args, dyn_kwargs = key
        compiled = self._executables.get(digest)
        if compiled is None:
            with self._lock:  # threads (the forests' tree batches) load or compile a program once
                compiled = self._executables.get(digest)
                if compiled is None:
                    compiled = STORE.load(digest)
                    if compiled is None:
                        compiled = STORE.compile(digest, self.__wrapped__, options, self._jit_kwargs, args, kwargs)
                    self._executables[digest] = compiled
        return compiled(*dyn_args, **dyn_kwargs)

    def lower(self, *args, **kwargs):
        return self._jit(self.options(*args, **kwargs)).lower(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plain, name)


def jit(role: str, fun: Callable | None = None, *, rows: int | str | None = None, name: str | None = None,
        **jit_kwargs: Any) -> Callable:
    """``jax.jit(fun, **jit_kwargs)`` for a program of ``role`` (a key of :data:`pujax._compile.roles.ROLES`):
    ``@jit("kernel")``, ``@partial(jit, "loop", static_argnames=...)`` or ``jit("setup", fn, name=...)``.

    ``rows``: the argument (name or position) whose leading dimension counts as the call's rows, for the roles whose
    options switch with size. ``name``: for a closure, the text that (with pujax's source) determines it, which
    makes its programs storable in the executable store; module-level functions of pujax are storable without it.
    """
    if fun is None:
        return functools.partial(jit, role, rows=rows, name=name, **jit_kwargs)
    return Program(fun, role, rows, name, jit_kwargs)
