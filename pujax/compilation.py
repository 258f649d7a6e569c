"""Compilation: size buckets that let new data reuse compiled programs, pujax's jit functions (:func:`jit`,
:func:`quick_jit`), JAX's persistent compilation cache with pujax's executable store, and a counter of XLA
compilations for tests and benchmarks.

Every jit program of pujax sees array shapes from a small geometric set: a row count ``n`` is padded (with
zero-weight or masked rows) to :func:`bucket_size` ``(n)``, the smallest size ``ceil8(2^(k/4)) >= n`` -- at most
25 % padding (under 20 % above 1,000 rows), and data of a similar size (505 and 450 rows both go to 512) runs the
same program. The forests pad their feature count to half-octave buckets (``bucket_size(d, per_octave=2)``: 110
and 117 features both go to 128) with columns that are never sampled, up to 64 MiB of binned data.

Small kernels whose first compilation costs more than their runs (the tree engine's level kernels, Ada-PU, the
stumps, the push-relabel cut, the metrics, the BBE / Elkan-Noto / TIcE bootstraps) are jitted with
:func:`quick_jit`: XLA:CPU compiles them with its classic elemental emitters, 30-45 % faster than with the fusion
emitters XLA uses by default, at the same speed once compiled (``benchmarks/results/latency.md``).
"""
from __future__ import annotations

import contextlib
import functools
import math
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from pujax.compilation_store import CallKey, ExecutableStore

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["bucket_size", "pad_rows", "rows_in_bucket", "enable_compilation_cache", "count_compilations",
           "CompilationCount", "jit", "quick_jit", "QUICK_COMPILE_OPTIONS", "RUN_ONCE_OPTIONS", "RUN_ONCE_ROWS"]

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


def bucket_size(n: int, minimum: int = 8, per_octave: int = 4) -> int:
    """Smallest bucket ``>= n``: ``2^(k / per_octave)`` rounded up to a multiple of 8 (and at least ``minimum``)."""
    n = max(int(n), int(minimum), 1)
    k = math.ceil(per_octave * math.log2(n) - 1e-9)
    while True:
        size = -(-int(math.ceil(2 ** (k / per_octave) - 1e-9)) // 8) * 8
        if size >= n:
            return size
        k += 1


def pad_rows(size: int, *arrays: ArrayLike, fill: object = 0) -> np.ndarray | tuple[np.ndarray, ...]:
    """Pad every array along axis 0 to ``size`` rows.

    Parameters
    ----------
    size : int
        Rows after padding (at least the rows of every array).
    *arrays : array-like
        Arrays with the same meaning of axis 0 (rows).
    fill : scalar, "first_row" or sequence of those, default=0
        Value of the padding rows: a scalar, or ``"first_row"`` for copies of the array's row 0 (padding that
        stays inside the data's range); one value for every array, or one per array.

    Returns
    -------
    ndarray or tuple of ndarray
        The padded array (one array given) or a tuple of them, with the input dtypes.

    Examples
    --------
    >>> from pujax.compilation import pad_rows
    >>> X, w = pad_rows(4, [[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0], fill=["first_row", 0.0])
    >>> X.tolist(), w.tolist()
    ([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [1.0, 2.0]], [1.0, 1.0, 0.0, 0.0])
    """
    fills = fill if isinstance(fill, (list, tuple)) else [fill] * len(arrays)
    out = []
    for a, v in zip(arrays, fills):
        a = np.asarray(a)
        extra = size - a.shape[0]
        if extra < 0:
            raise ValueError(f"cannot pad {a.shape[0]} rows down to {size}.")
        if extra and isinstance(v, str) and v == "first_row":
            if a.shape[0] == 0:
                raise ValueError('fill="first_row" needs at least one row to copy.')
            a = np.concatenate([a, np.repeat(a[:1], extra, axis=0)], axis=0)
        elif extra:
            a = np.concatenate([a, np.full((extra,) + a.shape[1:], v, dtype=a.dtype)], axis=0)
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


#: XLA options of :func:`quick_jit` (XLA:CPU only; GPU and TPU compilers ignore them).
QUICK_COMPILE_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
#: XLA options for a program that runs once per fit and does little work (e.g. a network's initial weights):
#: no LLVM optimisation (an option of every backend), which on XLA:CPU compiles nnPU's initialisation in about half
#: the time and runs it in milliseconds more (benchmarks/results/latency.md).
RUN_ONCE_OPTIONS = {"xla_backend_optimization_level": 0}
#: Rows up to which :func:`quick_jit` ``(run_once_rows=True)`` compiles with :data:`RUN_ONCE_OPTIONS` as well: a metric
#: or a random draw on at most this many rows compiles in about half the time and runs at most a few milliseconds
#: longer; on more rows, run time wins (ROC AUC of 2^20 rows: 0.5 s optimised, 1.0 s without).
RUN_ONCE_ROWS = 16_384
_refused: set = set()  # the option sets XLA refused (a future XLA without them)
_store = ExecutableStore()  # on once enable_compilation_cache(executables=True) ran


def _top_level() -> bool:
    """True outside any JAX trace (compiler options are allowed on top-level jit calls only)."""
    try:
        from jax._src import core  # JAX has no public test for "not inside a trace"
    except ImportError:  # pragma: no cover
        return False
    return bool(getattr(core, "trace_state_clean", lambda: False)())


class _Jit:
    """A jit function (:func:`jit`, :func:`quick_jit`) compiled with XLA ``options`` when called at top level;
    inside another function's trace it is inlined like any jit function. With the executable store on
    (:func:`enable_compilation_cache`), a top-level call whose program is in the store runs it without tracing,
    lowering or compiling (:class:`pujax.compilation_store.ExecutableStore`). ``lower`` lowers with the options
    (its ``compile()`` uses them); ``trace``, ``eval_shape`` and the other attributes of ``jax.jit`` functions are
    those of the plain jit function."""

    def __init__(self, fun: Callable, options: dict, jit_kwargs: dict, store_name: str | None = None):
        import jax

        functools.update_wrapper(self, fun)
        self._options = tuple(sorted(options.items()))
        self._plain = jax.jit(fun, **jit_kwargs)
        self._quick = jax.jit(fun, compiler_options=options, **jit_kwargs)
        self._call_key = CallKey(fun, self._options, jit_kwargs, store_name)
        self._jit_kwargs = jit_kwargs
        self._executables: dict = {}
        self._lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        if self._options in _refused or not _top_level():
            return self._plain(*args, **kwargs)
        try:
            if _store.directory is not None:
                key = self._call_key(args, kwargs)
                if key is not None:
                    return self._run_stored(key, args, kwargs)
            return self._quick(*args, **kwargs)
        except Exception as err:  # XLA's error type is private; the message names the option
            if "No such compile option" not in str(err):
                raise
            _refused.add(self._options)
            return self._plain(*args, **kwargs)

    def _run_stored(self, key, args, kwargs):
        """Run the program of ``key`` (the call's signature): from memory, from the store, or compiled and
        stored."""
        digest, dyn_args, dyn_kwargs = key
        compiled = self._executables.get(digest)
        if compiled is None:
            with self._lock:  # threads (the forests' tree batches) load or compile a program once
                compiled = self._executables.get(digest)
                if compiled is None:
                    compiled = _store.load(digest)
                    if compiled is None:
                        compiled = _store.compile(digest, self.__wrapped__, dict(self._options), self._jit_kwargs,
                                                  args, kwargs)
                    self._executables[digest] = compiled
        return compiled(*dyn_args, **dyn_kwargs)

    def lower(self, *args, **kwargs):
        return (self._plain if self._options in _refused else self._quick).lower(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plain, name)


def jit(fun: Callable | None = None, *, store_name: str | None = None, **jit_kwargs: Any) -> Callable:
    """``jax.jit(fun, **jit_kwargs)`` whose top-level calls use the executable store once
    :func:`enable_compilation_cache` is on; usable as ``@jit`` or ``@partial(jit, static_argnames=...)``. Every
    jit function of pujax is made by this or by :func:`quick_jit`. ``store_name``: for a closure, the text that
    (with pujax's source) determines it, which makes it storable (:class:`pujax.compilation_store.CallKey`)."""
    if fun is None:
        return functools.partial(jit, store_name=store_name, **jit_kwargs)
    return _Jit(fun, {}, jit_kwargs, store_name)


def quick_jit(fun: Callable | None = None, *, options: dict = QUICK_COMPILE_OPTIONS, run_once_rows: bool = False,
              plain_above_rows: int | None = None, store_name: str | None = None, **jit_kwargs: Any) -> Callable:
    """:func:`jit` compiled with the XLA ``options``, by default :data:`QUICK_COMPILE_OPTIONS` (XLA:CPU's classic
    emitters: a small kernel compiles 30-45 % faster and most run as fast; scatter-adds run slower, see
    ``plain_above_rows``); usable as ``@quick_jit`` or
    ``@partial(quick_jit, static_argnames=...)``. Where the installed XLA does not know the options, the first
    call falls back to plain ``jax.jit`` for the rest of the process.

    ``run_once_rows``: a call whose array arguments have at most :data:`RUN_ONCE_ROWS` rows compiles with
    :data:`RUN_ONCE_OPTIONS` added, for functions that run once on their input and do little work per row (the
    metrics, a random draw): the program compiles in about half the time; the results are the same up to the
    rounding of the last bit in a formula (``tests/test_validation.py``).

    ``plain_above_rows``: a call with an array argument of more than this many rows compiles with XLA's default
    options instead (as :func:`jit`), for small programs that run long on large inputs (the tree engine's passes
    over the entries, whose scatter-adds XLA:CPU's fusion emitters run faster): they compile quickly on small
    inputs and run fast on large ones."""
    if fun is None:
        return functools.partial(quick_jit, options=options, run_once_rows=run_once_rows,
                                 plain_above_rows=plain_above_rows, store_name=store_name, **jit_kwargs)
    if run_once_rows and plain_above_rows is not None:
        raise ValueError("quick_jit takes run_once_rows or plain_above_rows, not both.")
    if run_once_rows:
        return _SizedJit(_Jit(fun, {**options, **RUN_ONCE_OPTIONS}, jit_kwargs, store_name),
                         _Jit(fun, options, jit_kwargs, store_name), RUN_ONCE_ROWS)
    if plain_above_rows is not None:
        return _SizedJit(_Jit(fun, options, jit_kwargs, store_name), _Jit(fun, {}, jit_kwargs, store_name),
                         plain_above_rows)
    return _Jit(fun, options, jit_kwargs, store_name)


class _SizedJit:
    """:func:`quick_jit` with ``run_once_rows`` or ``plain_above_rows``: the ``small`` jit function for calls whose
    array arguments have at most ``limit`` rows, the ``large`` one otherwise (both inlined alike inside another
    trace)."""

    def __init__(self, small: _Jit, large: _Jit, limit: int):
        functools.update_wrapper(self, large.__wrapped__)
        self._small, self._large, self._limit = small, large, int(limit)

    def _pick(self, args) -> _Jit:
        rows = max((np.shape(a)[0] for a in args if np.ndim(a)), default=0)
        return self._small if rows <= self._limit else self._large

    def __call__(self, *args, **kwargs):
        return self._pick(args)(*args, **kwargs)

    def lower(self, *args, **kwargs):
        return self._pick(args).lower(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._large, name)


def rows_in_bucket(X: ArrayLike) -> tuple[np.ndarray, int]:
    """``(X padded with zero rows to bucket_size(n), n)``: predict on any batch size with one program per bucket;
    slice the result back to the first ``n`` rows."""
    n = int(np.shape(X)[0])
    return pad_rows(bucket_size(n), X), n


def enable_compilation_cache(path: str | os.PathLike | None = None, executables: bool = True) -> str:
    """Switch on JAX's persistent compilation cache so compiled programs survive the process (and, with a Google
    Drive folder as ``path`` in Colab, the runtime). ``import pujax`` never does this on its own.

    ``path`` defaults to ``$PUJAX_CACHE_DIR`` or ``<user cache dir>/pujax/jax`` (``$XDG_CACHE_HOME`` or
    ``~/.cache``). Every program is cached, however fast it compiled. With ``executables`` (the default), pujax's
    own programs are also kept in the executable store (:mod:`pujax.compilation_store`, folder
    ``pujax-executables``, one subfolder per pujax source / JAX version / device, the three most recently used
    others kept), which a later process loads without tracing or lowering the functions again.
    Returns the directory used.
    """
    import jax

    if path is None:
        path = os.environ.get("PUJAX_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pujax", "jax")
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    _store.directory = os.path.join(path, "pujax-executables") if executables else None
    if executables:
        os.makedirs(_store.directory, exist_ok=True)
    return path


class CompilationCount:
    """Number of XLA backend compilations seen inside :func:`count_compilations` (``count``) and their total
    time in seconds (``seconds``)."""

    def __init__(self):
        self.count = 0
        self.seconds = 0.0

    def _listener(self, event, duration, **kwargs):
        if event == _COMPILE_EVENT:
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
