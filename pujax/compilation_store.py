"""The executable store: compiled programs of pujax's jit functions kept on disk under a key of the call's
signature, so that a later process runs them without tracing, lowering or compiling.

JAX's persistent compilation cache keys a program by its lowered module, so even a cache hit pays Python tracing
and lowering of the function first (most of a warm ``python -m pujax``). The store keys a program by what
determines it before tracing: the function (module and qualified name), pujax's source, the JAX / jaxlib / NumPy
versions, the device, ``XLA_FLAGS``, JAX's configuration that affects tracing, the compiler options, the static
arguments and the shapes, dtypes and tree structure of the other arguments. A closure is stored only under a name
its maker gives (``store_name`` of :func:`pujax.compilation.jit`: the neural programs, named by their
configuration). A call whose key cannot be formed safely -- an unnamed closure or a function outside pujax, a
static argument that is not a plain value (e.g. a mesh of several devices), an argument that is a tracer or lives
on another device than ``jax.devices()[0]``, a call under ``jax.default_device`` of another device, several
processes (``jax.distributed``) -- takes the usual ``jax.jit`` path. Stored programs run on ``jax.devices()[0]``.
:func:`pujax.compilation.enable_compilation_cache` switches the store on (in a ``pujax-executables`` folder of the
cache directory); it is off otherwise.

Entries are pickles of serialised XLA executables (:mod:`jax.experimental.serialize_executable`): like JAX's own
cache, load only a directory you trust.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import inspect
import os
import pickle
import re
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["CallKey", "ExecutableStore", "static_text"]

_SCALARS = (bool, int, float, complex)  # Python scalars jit accepts as arguments
_PLAIN = (type(None), *_SCALARS, str, bytes)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@functools.lru_cache(maxsize=1)
def _source_digest() -> str:
    """sha256 of pujax's Python sources (file names and contents)."""
    root = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, root).encode())
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _environment() -> str:
    """Software, device and XLA flags the compiled programs depend on."""
    import jax
    import jaxlib

    device = jax.devices()[0]
    return repr((_source_digest(), jax.__version__, jaxlib.__version__, np.__version__, device.platform,
                 device.device_kind, device.client.platform_version, jax.process_count(), jax.device_count(),
                 os.environ.get("XLA_FLAGS", ""), os.environ.get("LIBTPU_INIT_ARGS", "")))


_context_memo: list = [None, None]


def _trace_context() -> str | None:
    """JAX's configuration that its own jit cache keys on (x64, matmul precision, PRNG implementation, ...), as
    text without object addresses; None where this JAX does not expose it (the store then stays unused)."""
    try:
        from jax._src import config  # JAX has no public accessor for the values that affect tracing
        context = config.trace_context()
    except Exception:  # pragma: no cover - another JAX
        return None
    if _context_memo[0] != context:
        _context_memo[:] = [context, _ADDRESS.sub("", repr(context))]
    return _context_memo[1]


def static_text(value: Any) -> str | None:
    """Text that determines a static argument: plain values, enums, a mesh of the default device alone, tuples /
    lists and dataclasses of them; None for anything else (the call then takes the plain jit path)."""
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if isinstance(value, _PLAIN):
        return f"{kind}:{value!r}"
    if isinstance(value, np.generic):
        return f"{kind}:{value.dtype.str}:{value.item()!r}"
    if isinstance(value, enum.Enum):
        return f"{kind}.{value.name}"
    import jax

    if isinstance(value, jax.sharding.Mesh):
        one_device = value.devices.size == 1 and value.devices.flat[0] == jax.devices()[0]
        return f"{kind}({value.axis_names!r},{getattr(value, 'axis_types', None)!r})" if one_device else None
    if isinstance(value, (tuple, list)):
        parts = [static_text(v) for v in value]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [static_text(getattr(value, f.name)) for f in dataclasses.fields(value)]
    else:
        return None
    return None if any(p is None for p in parts) else f"{kind}({','.join(parts)})"


class CallKey:
    """``key(args, kwargs)`` -> ``(digest, dynamic args, dynamic kwargs)`` for a call of a jit function made with
    ``jit_kwargs``, or None where the call cannot be keyed safely (see the module's docstring). ``name``: text that
    with pujax's source determines the traced function (a closure built per configuration, e.g. the neural
    training programs: their kind and configuration); by default the function's module and qualified name, for a
    module-level function of pujax that closes over nothing."""

    def __init__(self, fun: Callable, options: tuple, jit_kwargs: dict, name: str | None = None):
        if name is None:
            name = f"{getattr(fun, '__module__', '')}.{getattr(fun, '__qualname__', '')}"
            self._usable = (inspect.isfunction(fun) and fun.__closure__ is None and name.startswith("pujax.")
                            and "<" not in name)
        else:
            self._usable = True
        self._name = f"{name}:{options!r}"
        has_statics = jit_kwargs.get("static_argnums") is not None or jit_kwargs.get("static_argnames") is not None
        self._static_positions, self._static_names = (self._statics(fun, jit_kwargs) if self._usable and has_statics
                                                      else (frozenset(), frozenset()))
        self._prefix: tuple | None = None

    @staticmethod
    def _statics(fun: Callable, jit_kwargs: dict) -> tuple[frozenset, frozenset]:
        """Positions and names of the static arguments (given by number or name, as ``jax.jit`` resolves them)."""
        numbers = jit_kwargs.get("static_argnums") or ()
        names = jit_kwargs.get("static_argnames") or ()
        numbers = {numbers} if isinstance(numbers, int) else set(numbers)
        names = {names} if isinstance(names, str) else set(names)
        positional = [p.name for p in inspect.signature(fun).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        numbers |= {i for i, p in enumerate(positional) if p in names}
        names |= {positional[i] for i in numbers if 0 <= i < len(positional)}
        return frozenset(numbers), frozenset(names)

    def __call__(self, args: tuple, kwargs: dict):
        if not self._usable:
            return None
        try:
            return self._key(args, kwargs)
        except Exception:  # a value jit itself would reject: let jit raise its own error
            return None

    def _key(self, args: tuple, kwargs: dict):
        import jax

        context = _trace_context()
        if context is None or jax.config.jax_disable_jit or jax.process_count() > 1:
            return None
        statics, dyn_args, dyn_kwargs = [], [], {}
        for i, a in enumerate(args):
            if i in self._static_positions:
                statics.append((i, a))
            else:
                dyn_args.append(a)
        for k in sorted(kwargs):
            if k in self._static_names:
                statics.append((k, kwargs[k]))
            else:
                dyn_kwargs[k] = kwargs[k]
        statics_text = static_text(tuple(statics))
        if statics_text is None:
            return None
        leaves, tree = jax.tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs))
        device = jax.devices()[0]
        from pujax.devices import default_device

        if default_device() != device:  # under jax.default_device(another device)
            return None
        types = []
        for leaf in leaves:
            if isinstance(leaf, jax.core.Tracer):
                return None
            if isinstance(leaf, jax.Array):
                if leaf.sharding.device_set != {device}:
                    return None
            elif not isinstance(leaf, (np.ndarray, np.generic, *_SCALARS)):
                return None
            types.append(str(jax.typeof(leaf)))
        if self._prefix is None:
            self._prefix = (_environment(), self._name)
        text = repr((self._prefix, context, statics_text, str(tree), types))
        return hashlib.sha256(text.encode()).hexdigest(), tuple(dyn_args), dyn_kwargs


_answered = threading.local()  # .hit: JAX's persistent cache answered this thread's last compilation


def _listen_for_cache_hits(event: str, **kwargs) -> None:
    if event == "/jax/compilation_cache/cache_hits":
        _answered.hit = True


class ExecutableStore:
    """Compiled programs on disk, one file per key: ``load(digest)`` -> ``jax.stages.Compiled`` or None,
    ``compile(digest, fun, options, jit_kwargs, args, kwargs)`` compiles and saves. ``directory`` None means the
    store is off; ``loaded`` and ``saved`` count the programs read and written by this process."""

    #: Folders of other environments (another pujax source, JAX version or device) kept besides the current one.
    KEEP_OTHER_ENVIRONMENTS = 3

    def __init__(self):
        self.directory: str | None = None
        self.loaded = 0
        self.saved = 0
        self._listening = False
        self._folders: dict = {}  # directory -> this environment's folder in it

    def _folder(self) -> str:
        """This environment's folder (named by a digest of :func:`_environment`); its first use in a process
        marks it as recent and removes all but the :attr:`KEEP_OTHER_ENVIRONMENTS` most recently used folders of
        other environments (entries of earlier pujax or JAX versions, which no key reaches any more)."""
        folder = self._folders.get(self.directory)
        if folder is None:
            folder = os.path.join(self.directory, hashlib.sha256(_environment().encode()).hexdigest()[:16])
            os.makedirs(folder, exist_ok=True)
            os.utime(folder)
            others = [e.path for e in os.scandir(self.directory) if e.is_dir() and e.path != folder]
            others.sort(key=os.path.getmtime, reverse=True)
            for old in others[self.KEEP_OTHER_ENVIRONMENTS:]:
                shutil.rmtree(old, ignore_errors=True)
            self._folders[self.directory] = folder
        return folder

    def compile(self, digest: str, fun: Callable, options: dict, jit_kwargs: dict, args: tuple, kwargs: dict):
        """``jax.jit(fun, compiler_options=options, **jit_kwargs)`` compiled for ``(args, kwargs)`` and saved.

        An executable that JAX's persistent cache returns cannot be serialised again (XLA:CPU's loaded programs
        lack their code: the copy fails when run), so the program is lowered under a name that carries the digest,
        a module JAX's cache has not seen; where JAX's cache answered all the same (the store's entry was deleted,
        or could not be written), it is compiled once more under a random name and that program is saved."""
        import jax

        if not self._listening:
            jax.monitoring.register_event_listener(_listen_for_cache_hits)
            self._listening = True
        for suffix in (digest[:16], f"{digest[:16]}_{uuid.uuid4().hex}"):
            @functools.wraps(fun)
            def named(*a, **k):
                return fun(*a, **k)

            named.__name__ = f"{fun.__name__}_{suffix}"
            _answered.hit = False
            compiled = jax.jit(named, compiler_options=options, **jit_kwargs).lower(*args, **kwargs).compile()
            if not _answered.hit:
                self.save(digest, compiled)
                break
        return compiled

    def _path(self, digest: str) -> str:
        return os.path.join(self._folder(), digest + ".exe")

    def load(self, digest: str):
        """The stored program of ``digest``, or None (none stored, or an entry this JAX cannot load). It runs on
        ``jax.devices()[0]``, the one device of every keyed call (JAX would otherwise load it for all the devices
        of the backend, and a program of one device then refuses its arguments)."""
        import jax
        from jax.experimental.serialize_executable import deserialize_and_load

        try:
            with open(self._path(digest), "rb") as f:
                payload, in_tree, out_tree = pickle.load(f)
            compiled = deserialize_and_load(payload, in_tree, out_tree, execution_devices=jax.devices()[:1])
        except Exception:  # none stored, or a truncated or foreign entry (compiled again and replaced)
            return None
        self.loaded += 1
        return compiled

    def save(self, digest: str, compiled) -> bool:
        """Write ``compiled`` under ``digest`` (atomically); False where it cannot be serialised (e.g. a program
        with captured constants: it is then compiled again in every process)."""
        from jax.experimental.serialize_executable import serialize

        try:
            data = pickle.dumps(serialize(compiled), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return False
        try:
            handle, tmp = tempfile.mkstemp(dir=self._folder(), suffix=".tmp")
        except OSError:  # e.g. a read-only folder
            return False
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(data)
            os.replace(tmp, self._path(digest))
        except OSError:
            if os.path.exists(tmp):
                os.remove(tmp)
            return False
        self.saved += 1
        return True
