"""IGO / compact-GA search with a hard cost constraint (Uchikoshi & Akimoto 2025, Algorithms 2 and 3).

The search keeps independent Bernoulli probabilities theta (one per feature). Every step it samples candidate masks
m ~ p_theta, REPAIRs them to meet the cost budget (Algorithm 3), evaluates the objective of each (eq. 5, or eq. 13
for FSCPU-MI) and moves theta towards the better candidate (eq. 11), clipped to [eps, 1 - eps] (eq. 12):

    theta <- clip(theta + eta * sign(f(m_a) - f(m_b)) * (m_a - m_b), eps, 1 - eps).

With ``n_candidates = lambda > 2`` the update is the rank-based IGO update theta += eta * sum_i w_i m_i with
weights +1/mu for the best mu = lambda // 2 candidates, -1/mu for the worst mu (0 for the middle one when lambda is
odd), tied values sharing the average of their weights; for lambda = 2 this is exactly eq. (11), sign(0) = 0
included. The whole search is one ``lax.scan``; ``vmap`` it over keys to run several independent searches at once.

REPAIR (Algorithm 3) draws bits one at a time from a categorical distribution. Drawing without replacement with
fixed weights is equivalent to sorting Gumbel-perturbed log-weights (Gumbel-top-k), which is what this module does:
    * drop phase: while the cost exceeds the budget, remove a selected bit l with probability prop. to
      m_l (1 - theta_l) -- the bits are removed in Gumbel order until the cost fits;
    * fill phase: while some unselected bit fits in the remaining budget, add bit l with probability prop. to
      1{c_l <= remaining} (1 - m_l) theta_l. The eligible set only shrinks as the remaining budget decreases, so
      visiting the bits in Gumbel order and adding every bit that still fits draws from exactly this sequence of
      categorical distributions. With equal costs this is a sort and a prefix; with general costs a scan over d.

Objective memoisation. The GMM fit behind f(phi) is random (k-means++ seeds). Here its key is a function of the
mask and of the search's ``gmm_key`` only (``mask_key``: the key folded with the mask's bits packed in uint32 words),
so within one search f is a deterministic function of the mask -- every candidate still gets its own independent
initialisation, as in the paper, but a mask drawn again gets the same value instead of a fresh re-fit. That makes
a cache exact: the search state carries a fixed-size table (``MaskCache``: packed masks, values, validity, a ring
pointer and hit counters); every candidate is looked up by comparing its words against all slots, a hit returns
the stored value and skips the GMM fit (``lax.cond`` per candidate, candidates visited in turn), a miss is fitted
and written into the next ring slot. Masks repeat late in a search, when theta is close to 0 or 1 for most
features (hit rates per data set: ``benchmarks/results/fscpu.md``). Results do not depend on the cache (same theta and f
histories with ``cache_size=0``); under ``vmap`` (several searches, or ``vmap_candidates``) the per-candidate cond
becomes a select and the cache saves nothing, but stays exact.

Several devices (``SearchConfig.n_shards``). The evaluation of a step becomes a ``shard_map`` over the candidate
axis: each device fits its share of the candidates (skipping memo hits), an ``all_gather`` returns every value to
every device, and the memo-table lookups and inserts are computed replicated, so the tables stay identical. The
rest of the step (sampling, REPAIR, the update) is replicated too; the search stays one ``lax.scan``.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, shard_map
from jax.sharding import Mesh, PartitionSpec

from pujax._compile import jit
from pujax.linalg import matmul

from .gmm import compact_columns, gmm_fit_predict
from .mi import semi_jmi_score
from .objective import objective_from_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "SearchConfig",
    "MaskCache",
    "pack_mask",
    "mask_key",
    "cache_init",
    "cache_lookup",
    "cache_insert",
    "repair",
    "rank_weights",
    "max_selectable",
    "make_mask_objective",
    "igo_init",
    "igo_run",
    "igo_search",
]

_NEG = -1e30


class SearchConfig(NamedTuple):
    """Static settings of the search (hashable; one compilation per distinct config)."""

    n_candidates: int = 2
    width: int = 1  # compact columns per candidate = most features that fit in the budget
    unit_cost: bool = True
    n_clusters: int = 10
    covariance_type: str = "diag"
    max_iter: int = 100
    tol: float = 1e-3
    reg_covar: float = 1e-6
    kmeans_max_iter: int = 300
    kmeans_tol: float = 1e-4
    variant: str = "fscpu"
    skip_duplicates: bool = True
    vmap_candidates: bool = False  # True: vmap the candidates' EM (accelerators); False: lax.map (CPU)
    n_shards: int = 1  # >1: the candidates of a step are split across this many devices (shard_map)
    devices: tuple = ()  # the devices for n_shards > 1 (default: the first n_shards of jax.devices())


class MaskCache(NamedTuple):
    """Memo table of objective values by mask (part of the search state; ring-buffer replacement).

    ``words`` (S, W) uint32 packed masks, ``values`` (S,) f of each, ``valid`` (S,) bool, ``ptr`` next slot to
    write (int32, counts all insertions), ``n_lookups`` / ``n_hits`` (int32) counters. S = 0 disables the cache.
    """

    words: jax.Array
    values: jax.Array
    valid: jax.Array
    ptr: jax.Array
    n_lookups: jax.Array
    n_hits: jax.Array


def n_words(d):
    """uint32 words needed to pack a mask over ``d`` features."""
    return max(1, -(-int(d) // 32))


def pack_mask(mask):
    """Pack a 0/1 mask (d,) into ``ceil(d / 32)`` uint32 words (bit j of word w = feature 32 w + j)."""
    mask = jnp.asarray(mask)
    d = mask.shape[0]
    W = n_words(d)
    bits = jnp.zeros((W * 32,), jnp.uint32).at[:d].set((mask > 0).astype(jnp.uint32)).reshape(W, 32)
    return jnp.sum(bits << jnp.arange(32, dtype=jnp.uint32)[None, :], axis=1, dtype=jnp.uint32)


def mask_key(gmm_key, words):
    """The GMM key of one mask: ``gmm_key`` folded with each packed word (a deterministic function of the mask)."""
    key = gmm_key
    for w in range(words.shape[0]):
        key = jax.random.fold_in(key, words[w])
    return key


def cache_init(d, cache_size, dtype=jnp.float32):
    """An empty :class:`MaskCache` with ``cache_size`` slots for masks over ``d`` features."""
    S = int(cache_size)
    zero = jnp.zeros((), jnp.int32)
    return MaskCache(jnp.zeros((S, n_words(d)), jnp.uint32), jnp.zeros((S,), dtype), jnp.zeros((S,), bool),
                     zero, zero, zero)


def cache_lookup(cache, words):
    """``(hit, value)`` for the packed mask ``words``: compares against every slot (first match wins)."""
    match = cache.valid & jnp.all(cache.words == words[None, :], axis=1)
    hit = jnp.any(match)
    value = cache.values[jnp.argmax(match)]
    return hit, jnp.where(hit, value, jnp.zeros((), cache.values.dtype))


def cache_insert(cache, words, value):
    """Write ``(words, value)`` into the next ring slot (overwrites the oldest entry once the table is full)."""
    S = cache.values.shape[0]
    slot = cache.ptr % S
    return cache._replace(
        words=cache.words.at[slot].set(words), values=cache.values.at[slot].set(value.astype(cache.values.dtype)),
        valid=cache.valid.at[slot].set(True), ptr=cache.ptr + 1,
    )


def _insert_step(cache, words, f, hits):
    """Store a step's values in the table (candidates in turn; a repeat within the step is stored once) and
    count the hits."""
    def ins(i, c):
        hit_i, _ = cache_lookup(c, words[i])
        new = cache_insert(c, words[i], f[i])
        return jax.tree_util.tree_map(lambda a, b: jnp.where(hit_i, a, b), c, new)

    cache = lax.fori_loop(0, words.shape[0], ins, cache)
    return cache._replace(n_hits=cache.n_hits + jnp.sum(hits, dtype=jnp.int32))


def max_selectable(costs, budget):
    """Largest number of features whose total cost fits in ``budget`` (host-side helper; numpy inputs)."""
    c = np.sort(np.asarray(costs, dtype=np.float64))
    tol = 1e-6 * max(1.0, abs(float(budget)))
    return int(np.sum(np.cumsum(c) <= float(budget) + tol))


def _gumbel_keys(key, logits):
    g = jax.random.gumbel(key, logits.shape, logits.dtype)
    return jnp.where(logits > _NEG / 2, logits + g, logits)


def _safe_log(w):
    return jnp.where(w > 0, jnp.log(jnp.where(w > 0, w, 1.0)), _NEG)


def repair(key: jax.Array, m: ArrayLike, theta: ArrayLike, costs: ArrayLike, budget: float,
           unit_cost: bool = False) -> jax.Array:
    """Algorithm 3 (REPAIR): make ``sum(m * costs) <= budget`` and then fill the budget as far as possible.

    ``m``: 0/1 mask (d,), ``theta``: Bernoulli parameters in (0, 1), ``costs``: positive costs c_l, ``budget``: C.
    ``unit_cost`` (static) selects the vectorised path valid when all costs are equal. Returns the repaired mask
    with the dtype of ``m``. Jit- and vmap-able.
    """
    dtype = theta.dtype
    m = jnp.asarray(m)
    mb = m > 0
    costs = jnp.asarray(costs, dtype)
    budget = jnp.asarray(budget, dtype)
    tol = 1e-6 * jnp.maximum(1.0, jnp.abs(budget))
    k_drop, k_fill = jax.random.split(key)
    d = theta.shape[0]

    # drop phase (lines 2-6): remove selected bits in Gumbel order of log(m (1 - theta)) until the cost fits.
    w_drop = jnp.where(mb, 1.0 - theta, 0.0)
    key_drop = jnp.where(mb, jnp.where(w_drop > 0, _gumbel_keys(k_drop, _safe_log(w_drop)), 0.5 * _NEG), _NEG)
    order = jnp.argsort(-key_drop)
    c_sel = jnp.where(mb, costs, 0.0)[order]
    total = jnp.sum(jnp.where(mb, costs, 0.0))
    cum = jnp.concatenate([jnp.zeros((1,), dtype), jnp.cumsum(c_sel)])  # cost removed after j drops
    n_drop = jnp.argmax(total - cum <= budget + tol)  # first j that fits (exists: j = d removes everything)
    rank = jnp.zeros(d, jnp.int32).at[order].set(jnp.arange(d, dtype=jnp.int32))
    mb = mb & (rank >= n_drop)

    # fill phase (lines 7-13): add unselected bits in Gumbel order of log((1 - m) theta) while one fits.
    remaining = budget - jnp.sum(jnp.where(mb, costs, 0.0))
    w_fill = jnp.where(mb, 0.0, theta)
    key_fill = _gumbel_keys(k_fill, _safe_log(w_fill))
    order = jnp.argsort(-key_fill)
    if unit_cost:
        c0 = costs[0]
        n_free = jnp.sum((~mb) & (w_fill > 0))
        n_add = jnp.minimum(jnp.floor(remaining / c0 + 1e-6).astype(jnp.int32), n_free)
        n_add = jnp.maximum(n_add, 0)
        rank = jnp.zeros(d, jnp.int32).at[order].set(jnp.arange(d, dtype=jnp.int32))
        mb = mb | ((rank < n_add) & (w_fill > 0))
    else:
        eligible = (~mb) & (w_fill > 0)

        def body(rem, idx):
            take = eligible[idx] & (costs[idx] <= rem + tol)
            return rem - jnp.where(take, costs[idx], 0.0), take

        _, takes = lax.scan(body, remaining, order)
        added = jnp.zeros(d, bool).at[order].set(takes)
        mb = mb | added
    return mb.astype(m.dtype)


def rank_weights(scores: ArrayLike) -> jax.Array:
    """IGO weights for ``lambda`` candidate scores (maximisation): +1/mu best, -1/mu worst, ties averaged."""
    scores = jnp.asarray(scores)
    lam = scores.shape[0]
    mu = lam // 2
    dtype = jnp.result_type(scores.dtype, float)
    base = jnp.concatenate([
        jnp.full((mu,), 1.0 / mu, dtype), jnp.zeros((lam - 2 * mu,), dtype), jnp.full((mu,), -1.0 / mu, dtype)
    ])
    cumb = jnp.concatenate([jnp.zeros((1,), dtype), jnp.cumsum(base)])
    # materialise the scores once (a fused recomputation could round s_i differently on the two sides of a
    # comparison) and count each candidate's own tie by construction, so `equal` is always >= 1
    scores = lax.optimization_barrier(scores)
    other = ~jnp.eye(lam, dtype=bool)
    greater = jnp.sum(other & (scores[None, :] > scores[:, None]), axis=1)
    equal = 1 + jnp.sum(other & (scores[None, :] == scores[:, None]), axis=1)
    greater = jnp.minimum(greater, lam - equal)
    return (cumb[greater + equal] - cumb[greater]) / equal.astype(dtype)


def make_mask_objective(X, s, config: SearchConfig):
    """Return ``f(key, mask) -> f(phi)`` (eq. 5): masked GMM clustering then the prefix rule; 0 on a failed fit."""

    def f(key, mask):
        Xc, valid = compact_columns(X, mask, config.width)
        labels, _, _, ok = gmm_fit_predict(
            key, Xc, valid, n_clusters=config.n_clusters, covariance_type=config.covariance_type,
            max_iter=config.max_iter, tol=config.tol, reg_covar=config.reg_covar,
            kmeans_max_iter=config.kmeans_max_iter, kmeans_tol=config.kmeans_tol,
        )
        val = objective_from_labels(labels, s, config.n_clusters)
        return jnp.where(ok, val, 0.0).astype(X.dtype)

    return f


def _welford_merge(stats, values):
    """Merge a batch of values into running (count, mean, M2) statistics."""
    n, mean, m2 = stats
    nb = jnp.asarray(values.shape[0], mean.dtype)
    mb = jnp.mean(values)
    m2b = jnp.sum((values - mb) ** 2)
    tot = n + nb
    delta = mb - mean
    mean = mean + delta * nb / tot
    m2 = m2 + m2b + delta * delta * n * nb / tot
    return tot, mean, m2


def _std(stats):
    n, _, m2 = stats
    return jnp.sqrt(jnp.maximum(m2 / jnp.maximum(n, 1.0), 0.0))


DEFAULT_CACHE_SIZE = 4096


def igo_init(theta0: ArrayLike, gmm_key: jax.Array, cache_size: int = DEFAULT_CACHE_SIZE) -> tuple:
    """Search state ``(theta, f statistics, I statistics, cache, gmm_key)``.

    The score-log statistics (count, mean, M2) of f and I serve eq. (13); ``cache`` is an empty
    :class:`MaskCache` of ``cache_size`` slots (0: no memoisation); ``gmm_key`` (constant over the search) seeds
    the per-mask GMM keys (:func:`mask_key`).
    """
    theta0 = jnp.asarray(theta0)
    z = jnp.zeros((), theta0.dtype)
    return theta0, (z, z, z), (z, z, z), cache_init(theta0.shape[0], cache_size, theta0.dtype), gmm_key


def _evaluate_sharded(config, X, s, cache, g_keys, m, words, use_cache):
    """The candidates split across ``n_shards`` devices: each fits its share (skipping cache hits), then
    all-gather. Lookups and inserts are replicated, so every device keeps the same table."""
    lam, dtype = config.n_candidates, X.dtype
    if use_cache:
        hits, cached = jax.vmap(lambda w: cache_lookup(cache, w))(words)
    else:
        hits, cached = jnp.zeros((lam,), bool), jnp.zeros((lam,), dtype)

    key_impl = jax.random.key_impl(g_keys)

    def local(kd, mm, h, v, Xl, sl):
        f_l = make_mask_objective(Xl, sl, config)
        keys = jax.random.wrap_key_data(kd, impl=key_impl)
        if config.vmap_candidates:
            fl = jnp.where(h, v, jax.vmap(f_l)(keys, mm))
        else:
            fl = lax.map(lambda a: lax.cond(a[2], lambda: a[3], lambda: f_l(a[0], a[1])), (keys, mm, h, v))
        return lax.all_gather(fl, "candidates", tiled=True)

    devs = config.devices if config.devices else tuple(jax.devices()[:config.n_shards])
    mesh = Mesh(np.asarray(devs, dtype=object), ("candidates",))
    c, r = PartitionSpec("candidates"), PartitionSpec()
    f = shard_map(local, mesh=mesh, in_specs=(c, c, c, c, r, r), out_specs=r, check_vma=False)(
        jax.random.key_data(g_keys), m, hits, cached, X, s)
    if use_cache:
        cache = _insert_step(cache, words, f, hits)
        cache = cache._replace(n_lookups=cache.n_lookups + lam)
    return f, cache, jnp.asarray(True)


@partial(jit, "heavy", static_argnames=("config",))
def igo_run(step_keys: jax.Array, state: tuple, X: ArrayLike, s: ArrayLike, costs: ArrayLike, budget: float,
            eta: ArrayLike, eps: float, mi_matrix: ArrayLike,
            config: SearchConfig) -> tuple[tuple, jax.Array, jax.Array]:
    """Run ``len(step_keys)`` steps of Algorithm 2 from ``state`` (:func:`igo_init`) as one ``lax.scan``.

    Returns ``(state, theta_history (T, d), f_history (T, lambda))``; ``f_history`` holds the objective value of
    each candidate (eq. 5; a memoised value when the mask was evaluated before in this search), NaN on steps
    skipped because every candidate mask was identical (their update is zero, so skipping the evaluation changes
    nothing but the cost; disable with ``skip_duplicates=False``). ``mi_matrix`` is the semi-JMI pair matrix for
    ``variant="fscpu-mi"`` (ignored otherwise). The GMM key of a candidate is ``mask_key(gmm_key, pack_mask(m))``
    and the cache in the state (its size fixed by ``igo_init``) skips the fits of masks already evaluated.
    """
    lam = config.n_candidates
    dtype = X.dtype
    f_mask = make_mask_objective(X, s, config)
    use_mi = config.variant == "fscpu-mi"
    use_cache = state[3].values.shape[0] > 0

    def step(carry, key):
        theta, f_stats, i_stats, cache, gmm_key = carry
        k_s, k_r, _ = jax.random.split(key, 3)  # sampling and REPAIR keys (GMM keys come from the masks)
        m = (jax.random.uniform(k_s, (lam, theta.shape[0]), dtype) < theta[None, :]).astype(dtype)
        m = jax.vmap(lambda k, mm: repair(k, mm, theta, costs, budget, config.unit_cost))(
            jax.random.split(k_r, lam), m)
        words = jax.vmap(pack_mask)(m)
        g_keys = jax.vmap(lambda w: mask_key(gmm_key, w))(words)

        def evaluate(cache):
            if config.n_shards > 1:
                return _evaluate_sharded(config, X, s, cache, g_keys, m, words, use_cache)
            if not use_cache:
                if config.vmap_candidates:  # one batched EM, run until every candidate converged (GPU/TPU)
                    return jax.vmap(f_mask)(g_keys, m), cache, jnp.asarray(True)
                # one EM per candidate in turn: on CPU each stops at its own convergence and runs unbatched
                # products (measured ~20 % less CPU time per step than the vmapped form on Spambase)
                return lax.map(lambda a: f_mask(*a), (g_keys, m)), cache, jnp.asarray(True)
            if config.vmap_candidates:
                hits, cached = jax.vmap(lambda w: cache_lookup(cache, w))(words)
                fresh = lax.cond(jnp.all(hits), lambda: jnp.zeros((lam,), dtype),
                                 lambda: jax.vmap(f_mask)(g_keys, m))
                f = jnp.where(hits, cached, fresh)
                cache = _insert_step(cache, words, f, hits)
            else:
                def one(c, a):  # candidates in turn, so a repeat within the step hits too
                    k, mm, w = a
                    hit, val = cache_lookup(c, w)
                    val, c = lax.cond(hit, lambda: (val, c),
                                      lambda: (lambda v: (v, cache_insert(c, w, v)))(f_mask(k, mm)))
                    return c._replace(n_hits=c.n_hits + hit.astype(jnp.int32)), val

                cache, f = lax.scan(one, cache, (g_keys, m, words))
            return f, cache._replace(n_lookups=cache.n_lookups + lam), jnp.asarray(True)

        def skip(cache):
            return jnp.full((lam,), jnp.nan, dtype), cache, jnp.asarray(False)

        if config.skip_duplicates:
            same = jnp.all(m == m[:1])
            f, cache, done = lax.cond(same, skip, evaluate, cache)
        else:
            f, cache, done = evaluate(cache)
        score = jnp.where(done, f, 0.0)
        if use_mi:
            ival = jax.vmap(lambda mm: semi_jmi_score(mm, mi_matrix))(m).astype(dtype)
            f_new = _welford_merge(f_stats, score)
            i_new = _welford_merge(i_stats, ival)
            f_stats = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), f_new, f_stats)
            i_stats = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), i_new, i_stats)
            sf, si = _std(f_stats), _std(i_stats)
            score = (jnp.where(sf > 0, score / jnp.where(sf > 0, sf, 1.0), 0.0)
                     + jnp.where(si > 0, ival / jnp.where(si > 0, si, 1.0), 0.0))  # eq. (13)
            score = jnp.where(done, score, 0.0)
        w = rank_weights(score).astype(dtype)
        theta = jnp.clip(theta + eta * matmul(w, m), eps, 1.0 - eps)
        return (theta, f_stats, i_stats, cache, gmm_key), (theta, f)

    state, (th_hist, f_hist) = lax.scan(step, state, step_keys)
    return state, th_hist, f_hist


def igo_search(key: jax.Array, X: ArrayLike, s: ArrayLike, theta0: ArrayLike, costs: ArrayLike, budget: float,
               eta: ArrayLike, eps: float, n_steps: int, config: SearchConfig, mi_matrix: ArrayLike | None = None,
               cache_size: int = DEFAULT_CACHE_SIZE) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One full search (Algorithm 2) of ``n_steps`` steps from ``theta0``; vmap over ``key`` for several searches.

    ``key`` is split into the step keys and the search's ``gmm_key``, as :class:`FSCPU` does. Returns
    ``(theta_final, theta_history (n_steps, d), f_history (n_steps, n_candidates))``.
    """
    if mi_matrix is None:
        mi_matrix = jnp.zeros((X.shape[1], X.shape[1]), X.dtype)
    k_steps, k_gmm = jax.random.split(key)
    step_keys = jax.random.split(k_steps, n_steps)
    state0 = igo_init(theta0, k_gmm, cache_size)
    state, th, fh = igo_run(step_keys, state0, X, s, costs, budget, eta, eps, mi_matrix, config)
    return state[0], th, fh
