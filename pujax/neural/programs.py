"""The neural learners' compiled programs, one per (kind, configuration, epochs, minibatches) in this process, and
their names in the executable store (:mod:`pujax._compile.store`) across processes."""
from __future__ import annotations

import dataclasses

from pujax._compile.store import static_text

__all__ = ["cached", "store_name"]

_CACHE: dict = {}


def store_name(kind, cfg, n_epochs, n_batches) -> str | None:
    """The text that names a program in the executable store (:mod:`pujax._compile.store`): its kind, epochs,
    minibatches and configuration (the module's fields included); None for a module, activation or loss from
    outside pujax (its code is not in the store's key)."""
    module = cfg.module
    if not type(module).__module__.startswith("pujax.") or not isinstance(getattr(cfg, "loss", ""), str):
        return None
    fields = tuple((f.name, getattr(module, f.name)) for f in dataclasses.fields(module)
                   if f.name not in ("parent", "name"))
    return static_text((kind, n_epochs, n_batches, type(module).__qualname__, fields,
                         dataclasses.replace(cfg, module=None)))


def cached(kind, cfg, n_epochs, builder, n_batches=None):
    """jit-compiled function per (kind, config, epochs, minibatches); not cached for an unhashable module.
    ``builder(store_name)`` makes it (``store_name`` from :func:`store_name`)."""
    try:
        key = (kind, cfg, n_epochs, n_batches)
        hash(key)
    except TypeError:
        return builder(None)
    if key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = builder(store_name(kind, cfg, n_epochs, n_batches))
    return _CACHE[key]
