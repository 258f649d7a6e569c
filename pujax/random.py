r"""Randomness: one contract from ``random_state`` to every draw of pujax.

Every estimator and functional core takes its randomness from one root key::

    random_state  (None, an int in [0, 2**32), a numpy RandomState / Generator, or a JAX PRNG key)
      -> as_key(random_state)       the root key: jax.random.PRNGKey(seed) for an int seed (a raw threefry key)
           -> device draws          jax.random functions, with keys derived by split / fold_in
                                    (host_split / host_fold_in compute them on the host: no program compiled)
           -> host draws            host_rng(key, *stream): a NumPy Generator (PCG64) seeded from the key's words
                                    and the stream numbers; sklearn_seed(key): an int ``random_state`` for the
                                    scikit-learn models pujax fits inside its meta-estimators
           -> kernel draws          hash_u32 / hash_uniform(seed, *counters) inside jit programs, with
                                    seed = host_seed(key): a counter-based hash, so that a draw is a pure function
                                    of (seed, tree, node, feature, ...) -- the same on any number of devices and in
                                    any order of evaluation

``None`` draws fresh entropy; a numpy ``RandomState`` / ``Generator`` gives one draw (so the estimator advances it,
as scikit-learn's do). The same ``random_state`` gives the same key, hence the same draws, on every JAX version and
backend: threefry, the murmur3 hashes and NumPy's PCG64 are fixed functions (``tests/test_random.py`` checks the
models of a fixed ``random_state`` against fingerprints recorded once, on each JAX version CI runs).
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import jax

    from pujax._typing import RandomStateLike

__all__ = ["as_key", "host_seed", "host_rng", "sklearn_seed", "host_split", "host_fold_in", "hash_u32",
           "hash_uniform"]

_MASK = 0xFFFFFFFF


def _seed_key(seed: int) -> jax.Array:
    """``jax.random.PRNGKey(seed)`` for a seed in [0, 2**32): built on the host for the default threefry
    implementation (its key is ``[0, seed]``), so that no program is compiled."""
    import jax

    if jax.config.jax_default_prng_impl == "threefry2x32":
        return jax.device_put(np.array([0, seed], np.uint32))
    return jax.random.PRNGKey(seed)  # pragma: no cover - other PRNG implementations


def as_key(random_state: RandomStateLike = None) -> jax.Array:
    """The root JAX PRNG key of ``random_state``: ``None`` (fresh entropy), an int in [0, 2**32), a numpy
    ``RandomState`` / ``Generator`` (one draw), or a JAX key (returned unchanged).

    Examples
    --------
    >>> import jax, numpy as np
    >>> from pujax.random import as_key
    >>> bool(np.array_equal(as_key(3), jax.random.PRNGKey(3)))
    True
    """
    import jax

    if random_state is None:
        return _seed_key(int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0]))
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be None, an int, a numpy RandomState/Generator or a JAX PRNG key.")
    if isinstance(random_state, numbers.Integral):
        if int(random_state) < 0 or int(random_state) >= 2**32:
            raise ValueError(f"random_state={random_state} must be in [0, 2**32).")
        return _seed_key(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return _seed_key(int(random_state.randint(0, 2**31 - 1)))
    if isinstance(random_state, np.random.Generator):
        return _seed_key(int(random_state.integers(0, 2**31 - 1)))
    if hasattr(random_state, "dtype") and jax.dtypes.issubdtype(random_state.dtype, jax.dtypes.prng_key):
        return random_state
    if (hasattr(random_state, "shape") and tuple(random_state.shape) == (2,)
            and np.issubdtype(np.asarray(random_state).dtype, np.unsignedinteger)):
        return jax.device_put(np.asarray(random_state, dtype=np.uint32))
    raise TypeError(
        f"random_state of type {type(random_state).__name__} is not supported; pass None, an int, "
        f"a numpy RandomState/Generator or a JAX PRNG key."
    )


def _key_words(key: jax.Array) -> np.ndarray:
    """The key's 32-bit words on the host (typed keys through ``jax.random.key_data``)."""
    import jax

    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    return (np.asarray(key, dtype=np.uint64).reshape(-1) & np.uint64(_MASK)).astype(np.uint64)


def _mix(h: np.uint64, word: np.uint64) -> np.uint64:
    """One step of :func:`hash_u32` on the host: combine ``word`` into ``h``, then the murmur3 finaliser."""
    m = np.uint64(_MASK)
    h = (h ^ ((word + np.uint64(0x7F4A7C15) + ((h << np.uint64(6)) & m) + (h >> np.uint64(2))) & m)) & m
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return h


def host_seed(key: jax.Array) -> int:
    """A 32-bit seed from a JAX PRNG key, computed on the host (a draw from the key's stream would compile a
    program): :func:`hash_u32` of the key's words, so ``host_seed(key)`` equals ``hash_u32(*words)`` in a kernel.

    Examples
    --------
    >>> import jax
    >>> from pujax.random import host_seed
    >>> host_seed(jax.random.PRNGKey(0)) == host_seed(jax.random.PRNGKey(0))
    True
    """
    h = np.uint64(0x9E3779B9)
    for w in _key_words(key):
        h = _mix(h, w)
    return int(h)


def host_rng(key: jax.Array, *stream: int) -> np.random.Generator:
    """A NumPy Generator for the host-side draws of ``key``; ``stream`` (non-negative ints) names independent
    streams of the same key (e.g. one per model or step)."""
    return np.random.default_rng([host_seed(key), *(int(v) for v in stream)])


def sklearn_seed(key: jax.Array, *stream: int) -> int:
    """An int ``random_state`` in [0, 2**31) for a scikit-learn model fitted with ``key`` (``stream`` as in
    :func:`host_rng`)."""
    return int(host_rng(key, *stream).integers(0, 2**31 - 1))


# ----------------------------------------------------------------------------- JAX's threefry on the host

_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32 with 20 rounds (Salmon et al. 2011), JAX's PRNG hash, on numpy uint32 arrays."""
    k0, k1 = np.uint32(k0), np.uint32(k1)
    ks = (k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA))
    with np.errstate(over="ignore"):
        x0 = np.asarray(x0, np.uint32) + ks[0]
        x1 = np.asarray(x1, np.uint32) + ks[1]
        for i in range(5):
            for r in _THREEFRY_ROTATIONS[i % 2]:
                x0 = x0 + x1
                x1 = ((x1 << np.uint32(r)) | (x1 >> np.uint32(32 - r))) ^ x0
            x0 = x0 + ks[(i + 1) % 3]
            x1 = x1 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x0, x1


def _host_key_words(key) -> np.ndarray | None:
    """The two uint32 words of a raw threefry key that JAX would split fold-like (its default), else None (typed
    keys, traced keys, other PRNG implementations: left to ``jax.random``)."""
    import jax

    if (isinstance(key, jax.core.Tracer) or jax.config.jax_default_prng_impl != "threefry2x32"
            or not jax.config.jax_threefry_partitionable):
        return None
    if getattr(key, "dtype", None) is None or jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return None
    words = np.asarray(key)
    return words.astype(np.uint32) if words.shape == (2,) and words.dtype == np.uint32 else None


def _host_keys(words: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Keys (len(counts), 2) uint32: Threefry-2x32 of the counters ``(0, count)`` under the key ``words`` -- JAX's
    fold-like ``split`` (counts ``0 .. num - 1``) and ``fold_in`` (the one count ``data``)."""
    a, b = _threefry2x32(words[0], words[1], np.zeros(counts.shape, np.uint32), counts)
    return np.stack([a, b], axis=-1)


def host_split(key: jax.Array, num: int = 2) -> jax.Array:
    """``jax.random.split(key, num)``, computed on the host for a raw threefry key (no program is compiled; the
    same keys as JAX's fold-like split, its default); any other key goes to ``jax.random.split``.

    Examples
    --------
    >>> import jax, numpy as np
    >>> from pujax.random import host_split
    >>> key = jax.random.PRNGKey(3)
    >>> bool(np.array_equal(host_split(key, 4), jax.random.split(key, 4)))
    True
    """
    import jax

    words = _host_key_words(key)
    if words is None:
        return jax.random.split(key, num)
    return jax.device_put(_host_keys(words, np.arange(int(num), dtype=np.uint32)))


def host_fold_in(key: jax.Array, data: int) -> jax.Array:
    """``jax.random.fold_in(key, data)``, computed on the host for a raw threefry key (see :func:`host_split`)."""
    import jax

    words = _host_key_words(key)
    if words is None:
        return jax.random.fold_in(key, data)
    return jax.device_put(_host_keys(words, np.array([int(data) & _MASK], np.uint32))[0])


# ------------------------------------------------------------------------------ counter-based kernel hashes


def _fmix(h):
    """murmur3 32-bit finaliser (bijective avalanche mix) on uint32 arrays."""
    import jax.numpy as jnp

    u32 = jnp.uint32
    h = h ^ (h >> 16)
    h = h * u32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * u32(0xC2B2AE35)
    return h ^ (h >> 16)


def hash_u32(*parts):
    """Hash broadcastable integer arrays to uint32 inside a jit program: an order-sensitive combination of murmur3
    finalisers, the kernels' counter-based random numbers (``parts``: a seed from :func:`host_seed` and the
    counters that name the draw)."""
    import jax.numpy as jnp

    u32 = jnp.uint32
    h = u32(0x9E3779B9)
    for p in parts:
        p = jnp.asarray(p).astype(u32)
        h = _fmix(h ^ (p + u32(0x7F4A7C15) + (h << 6) + (h >> 2)))
    return h


def hash_uniform(*parts, dtype=None):
    """Uniform numbers in [0, 1) from :func:`hash_u32` (24 random bits), float32 unless ``dtype`` says otherwise."""
    import jax.numpy as jnp

    dtype = jnp.float32 if dtype is None else dtype
    return (hash_u32(*parts) >> 8).astype(dtype) * jnp.asarray(1.0 / (1 << 24), dtype)
