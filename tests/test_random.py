"""The randomness contract of pujax.random: the root key of random_state, host streams, scikit-learn seeds, the
host threefry (split / fold_in) and the kernels' counter-based hashes, each against an independent reference (JAX's
own PRNG, NumPy, a Python re-derivation); and fixed-random_state fits against fingerprints recorded once, which hold
on every JAX version CI runs (0.10 and 0.12: the same draws, the same integer tree structure and stump choices)."""
import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pujax.random import as_key, hash_u32, hash_uniform, host_fold_in, host_rng, host_seed, host_split, sklearn_seed


def test_random_state_to_key():
    k = as_key(3)
    np.testing.assert_array_equal(jax.random.key_data(k) if jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key) else k,
                                  jax.random.PRNGKey(3))
    assert as_key(np.random.RandomState(0)).shape == (2,)
    with pytest.raises(TypeError, match="random_state"):
        as_key("seed")


def test_as_key_equals_prng_key_and_compiles_nothing():
    from pujax.compilation import count_compilations

    seeds = [0, 1, 12345, 2**31 - 1, 2**31, 2**32 - 1]
    with count_compilations() as c:
        keys = [as_key(s) for s in seeds]
    assert c.count == 0
    for s, k in zip(seeds, keys):
        np.testing.assert_array_equal(np.asarray(k), np.asarray(jax.random.PRNGKey(s)))
        ref = jax.random.PRNGKey(s)
        np.testing.assert_array_equal(np.asarray(jax.random.split(k)), np.asarray(jax.random.split(ref)))


def test_host_seed_streams_match_their_definitions():
    for key in (jax.random.PRNGKey(0), jax.random.PRNGKey(123456), jax.random.key(3)):
        # murmur3 finaliser over the 32-bit words of the key data, re-derived here in Python ints
        words = np.asarray(jax.random.key_data(key) if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
                           else key).reshape(-1).tolist()
        h, m = 0x9E3779B9, 0xFFFFFFFF
        for w in words:
            h = (h ^ (w + 0x7F4A7C15 + ((h << 6) & m) + (h >> 2))) & m
            h ^= h >> 16
            h = (h * 0x85EBCA6B) & m
            h ^= h >> 13
            h = (h * 0xC2B2AE35) & m
            h ^= h >> 16
        assert host_seed(key) == h
        np.testing.assert_array_equal(host_rng(key).random(4), np.random.default_rng(host_seed(key)).random(4))


def test_host_split_and_fold_in_equal_jax_random_and_compile_nothing():
    """host_split / host_fold_in give jax.random.split / fold_in's keys bit for bit (raw threefry keys: on the host,
    no compilation); typed keys and traced keys go to jax.random (the same results)."""
    from pujax.compilation import count_compilations

    keys = [as_key(s) for s in (0, 1, 7, 123456, 2**32 - 1)] + [jax.random.split(as_key(9), 3)[2]]
    host_split(keys[0], 2)
    with count_compilations() as c:
        got = [(np.asarray(host_split(k, n)), np.asarray(host_fold_in(k, d)))
               for k in keys for n, d in ((1, 0), (2, 1), (5, 99), (17, 2**31 + 5))]
    assert c.count == 0
    want = [(np.asarray(jax.random.split(k, n)), np.asarray(jax.random.fold_in(k, d)))
            for k in keys for n, d in ((1, 0), (2, 1), (5, 99), (17, 2**31 + 5))]
    for (gs, gf), (ws, wf) in zip(got, want):
        np.testing.assert_array_equal(gs, ws)
        np.testing.assert_array_equal(gf, wf)
    typed = jax.random.key(4)
    np.testing.assert_array_equal(jax.random.key_data(host_split(typed, 3)),
                                  jax.random.key_data(jax.random.split(typed, 3)))
    traced = jax.jit(lambda k: (host_split(k, 3), host_fold_in(k, 5)))(keys[1])
    np.testing.assert_array_equal(traced[0], jax.random.split(keys[1], 3))
    np.testing.assert_array_equal(traced[1], jax.random.fold_in(keys[1], 5))


def test_random_state_kinds_give_keys_and_advance_numpy_generators():
    """None draws fresh entropy; a numpy RandomState / Generator gives one draw (it advances, as scikit-learn's
    estimators advance it); a JAX key keeps its value."""
    assert not np.array_equal(np.asarray(as_key(None)), np.asarray(as_key(None)))
    for make in (np.random.RandomState, np.random.default_rng):
        g = make(0)
        a, b = np.asarray(as_key(g)), np.asarray(as_key(g))
        assert not np.array_equal(a, b) and np.array_equal(a, np.asarray(as_key(make(0))))
    k = jax.random.PRNGKey(11)
    np.testing.assert_array_equal(np.asarray(as_key(k)), np.asarray(k))


def test_streams_sklearn_seeds_and_kernel_hashes():
    """host_rng(key, *stream) is NumPy's PCG64 seeded by [host_seed(key), *stream]: distinct streams differ;
    sklearn_seed is an int in [0, 2**31); hash_u32 of a key's words inside a program equals host_seed(key) (one
    hash on both sides), and hash_uniform keeps the top 24 bits of hash_u32 as a float32 in [0, 1)."""
    key = as_key(5)
    np.testing.assert_array_equal(host_rng(key, 3).random(5), np.random.default_rng([host_seed(key), 3]).random(5))
    assert not np.array_equal(host_rng(key, 1).random(5), host_rng(key, 2).random(5))
    seeds = [sklearn_seed(as_key(i), j) for i in range(20) for j in range(3)]
    assert all(isinstance(v, int) and 0 <= v < 2**31 for v in seeds) and len(set(seeds)) == len(seeds)
    words = jnp.asarray(np.asarray(key), jnp.uint32)
    assert int(jax.jit(lambda w: hash_u32(w[0], w[1]))(words)) == host_seed(key)
    parts = jnp.arange(1000, dtype=jnp.uint32)
    u, bits = jax.jit(lambda p: (hash_uniform(9, p), hash_u32(9, p)))(parts)
    u, bits = np.asarray(u), np.asarray(bits)
    assert u.dtype == np.float32 and u.min() >= 0.0 and u.max() < 1.0
    np.testing.assert_array_equal(u, (bits >> 8).astype(np.float32) / np.float32(1 << 24))
    assert abs(u.mean() - 0.5) < 0.03


def _digest(*arrays) -> str:
    d = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        d.update(f"{a.dtype}{a.shape}".encode())
        d.update(a.tobytes())
    return d.hexdigest()[:16]


def _fingerprint_data():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(240, 5)) * 4) / 4
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, y * (rng.random(240) < 0.5)


def test_fixed_random_state_fingerprints_hold_on_every_jax_version():
    """Recorded once (JAX 0.10.2 / Python 3.11 and JAX 0.12 / Python 3.13 gave the same values): the draws of
    random_state=7 and the integer structure of fits with a fixed random_state. A change here changes every user's
    results for a fixed seed: make it on purpose, record the new values and say so in CHANGELOG.md."""
    from sklearn.tree import DecisionTreeClassifier

    from pujax.boosting import AdaPUClassifier
    from pujax.meta import PUBaggingClassifier
    from pujax.trees import PUExtraTreesClassifier

    key = as_key(7)
    assert np.asarray(key).tolist() == [0, 7]
    assert np.asarray(host_split(key, 3)).tolist() == [[3625411723, 1954958720], [195045567, 4062205631],
                                                       [966301609, 1948237315]]
    assert host_seed(key) == 618927759
    assert host_rng(key, 1).integers(0, 1000, 5).tolist() == [281, 566, 295, 461, 575]
    assert sklearn_seed(key, 2) == 292873214
    got = jax.jit(lambda a: hash_u32(host_seed(key), a, 5))(jnp.arange(4, dtype=jnp.uint32))
    assert np.asarray(got).tolist() == [1334229555, 1465745080, 1694543196, 3029060862]

    X, s = _fingerprint_data()
    f = PUExtraTreesClassifier(n_estimators=4, prior=0.45, random_state=3).fit(X, s).forest_
    assert _digest(f.feature, f.code, f.left, f.right, f.c1, f.c0, f.tree_offsets) == "195455f156f7ce1c"
    a = AdaPUClassifier(n_estimators=5, prior=0.45, random_state=3).fit(X, s)
    assert np.asarray(a.features_).tolist() == [4, 2, 0, 1, 2]
    assert np.asarray(a.directions_).tolist() == [1.0, 1.0, 1.0, 1.0, -1.0]
    b = PUBaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=3, random_state=3, prior=None).fit(X, s)
    assert _digest(np.isnan(b.oob_decision_function_)) == "704991bc2fdb4208"  # which rows each bag left out
