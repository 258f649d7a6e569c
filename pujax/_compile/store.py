"""JAX's persistent compilation cache and pujax's executable store, switched on by
:func:`enable_compilation_cache`.

JAX's persistent cache keys a program by its lowered module, so even a cache hit pays Python tracing and lowering
first. The store keys pujax's programs by what determines them before tracing -- the function (module and
qualified name, or the name its maker gives a closure), pujax's source, the JAX / jaxlib / NumPy versions, the
device, ``XLA_FLAGS``, JAX's tracing configuration, the compiler options, the static arguments and the shapes,
dtypes and tree structure of the other arguments -- and a later process runs a stored program without tracing,
lowering or compiling. A call whose key cannot be formed safely takes the usual ``jax.jit`` path: an unnamed
closure or a function outside pujax, a static argument that is not a plain value (e.g. a mesh of several devices),
an argument that is a tracer or lives on another device than ``jax.devices()[0]``, a call under
``jax.default_device`` of another device, several processes (``jax.distributed``). Stored programs run on
``jax.devices()[0]``.

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
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from pujax._compile.jax_internals import trace_context

__all__ = ["CallKey", "ExecutableStore", "STORE", "enable_compilation_cache", "static_text"]

_SCALARS = (bool, int, float, complex)  # Python scalars jit accepts as arguments
_PLAIN = (type(None), *_SCALARS, str, bytes)


@functools.lru_cache(maxsize=1)
def _source_digest() -> str:
    """sha256 of pujax's Python sources (file names and contents)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    """``key(options, args, kwargs)`` -> ``(digest, dynamic args, dynamic kwargs)`` for a call of a jit function made
    with ``jit_kwargs``, or None where the call cannot be keyed safely (see the module's docstring). ``name``: text
    that with pujax's source determines the traced function (a closure built per configuration, e.g. the neural
    training programs); by default the function's module and qualified name, for a module-level function of pujax
    that closes over nothing."""

    def __init__(self, fun: Callable, jit_kwargs: dict, name: str | None = None):
        if name is None:
            name = f"{getattr(fun, '__module__', '')}.{getattr(fun, '__qualname__', '')}"
            self.usable = (inspect.isfunction(fun) and fun.__closure__ is None and name.startswith("pujax.")
                           and "<" not in name)
        else:
            self.usable = True
        self._name = name
        numbers = jit_kwargs.get("static_argnums") or ()
        names = jit_kwargs.get("static_argnames") or ()
        numbers = {numbers} if isinstance(numbers, int) else set(numbers)
        names = {names} if isinstance(names, str) else set(names)
        if self.usable and (numbers or names):  # positions and names of the static arguments, as jax.jit resolves
            positional = [p.name for p in inspect.signature(fun).parameters.values()
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            numbers |= {i for i, p in enumerate(positional) if p in names}
            names |= {positional[i] for i in numbers if 0 <= i < len(positional)}
        self._static_positions, self._static_names = frozenset(numbers), frozenset(names)

    def __call__(self, options: tuple, args: tuple, kwargs: dict):
        if not self.usable:
            return None
        try:
            return self._key(options, args, kwargs)
        except Exception:  # a value jit itself would reject: let jit raise its own error
            return None

    def _split(self, args: tuple, kwargs: dict):
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
        return statics, tuple(dyn_args), dyn_kwargs

    def _key(self, options: tuple, args: tuple, kwargs: dict):
        import jax

        from pujax.devices import default_device

        if jax.config.jax_disable_jit or jax.process_count() > 1:
            return None
        statics, dyn_args, dyn_kwargs = self._split(args, kwargs)
        statics_text = static_text(tuple(statics))
        if statics_text is None:
            return None
        device = jax.devices()[0]
        if default_device() != device:  # under jax.default_device(another device)
            return None
        leaves, tree = jax.tree_util.tree_flatten((dyn_args, dyn_kwargs))
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
        text = repr((_environment(), self._name, options, trace_context(), statics_text, str(tree), types))
        return hashlib.sha256(text.encode()).hexdigest(), dyn_args, dyn_kwargs


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
        self._folders: dict = {}  # directory -> [this environment's folder in it, the folder's salt]
        self._listening = False

    def _folder(self) -> list:
        """``[folder, salt]``: this environment's folder (named by a digest of the environment) and its salt, a
        random text that is part of the name of every program the store compiles, so that JAX's persistent cache
        has not seen them. Its first use in a process marks the folder as recent and removes all but the
        KEEP_OTHER_ENVIRONMENTS most recently used folders of other environments (entries no key reaches any
        more)."""
        found = self._folders.get(self.directory)
        if found is None:
            folder = os.path.join(self.directory, hashlib.sha256(_environment().encode()).hexdigest()[:16])
            os.makedirs(folder, exist_ok=True)
            salt_file = os.path.join(folder, "salt")
            if not os.path.exists(salt_file):
                self._write(salt_file, uuid.uuid4().hex[:12].encode(), folder)
            with open(salt_file) as f:
                salt = f.read().strip()
            os.utime(folder)
            others = [e.path for e in os.scandir(self.directory) if e.is_dir() and e.path != folder]
            others.sort(key=os.path.getmtime, reverse=True)
            for old in others[self.KEEP_OTHER_ENVIRONMENTS:]:
                shutil.rmtree(old, ignore_errors=True)
            found = self._folders[self.directory] = [folder, salt]
        return found

    def compile(self, digest: str, fun: Callable, options: tuple, jit_kwargs: dict, args: tuple, kwargs: dict):
        """``jax.jit(fun, compiler_options=options, **jit_kwargs)`` compiled for ``(args, kwargs)`` under a name that
        carries the folder's salt and the digest, and saved. An executable that JAX's persistent cache returned
        (the entry was lost after it was stored) cannot be serialised again (XLA:CPU's loaded programs lack their
        code); it is not saved, and the folder gets a new salt, so that the next process compiles and stores it."""
        import jax

        if not self._listening:
            jax.monitoring.register_event_listener(_listen_for_cache_hits)
            self._listening = True

        @functools.wraps(fun)
        def named(*a, **k):
            return fun(*a, **k)

        folder = self._folder()
        named.__name__ = f"{getattr(fun, '__name__', 'program')}_{folder[1]}_{digest[:16]}"
        _answered.hit = False
        compiled = jax.jit(named, compiler_options=dict(options), **jit_kwargs).lower(*args, **kwargs).compile()
        if not _answered.hit:
            self.save(digest, compiled)
        else:
            folder[1] = uuid.uuid4().hex[:12]
            self._write(os.path.join(folder[0], "salt"), folder[1].encode(), folder[0])
        return compiled

    def _path(self, digest: str) -> str:
        return os.path.join(self._folder()[0], digest + ".exe")

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

    @staticmethod
    def _write(path: str, data: bytes, folder: str) -> bool:
        try:
            handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        except OSError:  # e.g. a read-only folder
            return False
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            if os.path.exists(tmp):
                os.remove(tmp)
            return False
        return True

    def save(self, digest: str, compiled) -> bool:
        """Write ``compiled`` under ``digest`` (atomically); False where it cannot be serialised or written (the
        program is then compiled again in a later process)."""
        from jax.experimental.serialize_executable import serialize

        try:
            data = pickle.dumps(serialize(compiled), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # e.g. a program with captured constants: compiled again in every process
            return False
        if not self._write(self._path(digest), data, self._folder()[0]):
            return False
        self.saved += 1
        return True


#: The process's store (off until :func:`enable_compilation_cache`).
STORE = ExecutableStore()


def enable_compilation_cache(path: str | os.PathLike | None = None, executables: bool = True) -> str:
    """Switch on JAX's persistent compilation cache so compiled programs survive the process (and, with a Google
    Drive folder as ``path`` in Colab, the runtime). ``import pujax`` never does this on its own.

    ``path`` defaults to ``$PUJAX_CACHE_DIR`` or ``<user cache dir>/pujax/jax`` (``$XDG_CACHE_HOME`` or
    ``~/.cache``). Every program is cached, however fast it compiled. With ``executables`` (the default), pujax's
    own programs are also kept in the executable store (folder ``pujax-executables``, one subfolder per pujax
    source / JAX version / device, the three most recently used others kept), which a later process loads without
    tracing or lowering the functions again. Returns the directory used.
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
    STORE.directory = os.path.join(path, "pujax-executables") if executables else None
    if executables:
        os.makedirs(STORE.directory, exist_ok=True)
    return path
